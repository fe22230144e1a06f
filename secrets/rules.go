package secrets

import (
	"regexp"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/logging"
)

//go:generate go run ./internal/rulegen -o rules_gen.go

// The rules are gitleaks' default configuration (and scribe's own, in
// internal/rulebook/extra.toml) as plain Go data (rules_gen.go), generated
// from what gitleaks' own loader makes of its TOML: decoding that TOML at run
// time cost ~4 ms per process, and linking gitleaks' loader and detector
// brought viper, archive readers and TLS into every start of the binary.
// TestRulesGenerated fails when a gitleaks upgrade changes them.
//
// Compiling all ~220 rules costs ~25 ms, most of a Stop hook, so each rule
// is compiled the first time a text asks for it: gitleaks' detector runs a
// rule only on a text holding one of its keywords (or whose encoded parts
// decode to one), and a rule's allowlists only for a candidate finding. A
// turn's ordinary text compiles a handful of rules
// (TestLazyRulesCompileFew); the findings are those of gitleaks' detector
// with every rule compiled (TestDetectMatchesGitleaks).

// rule is one gitleaks rule, as gitleaks' config.Rule holds it after
// reading its TOML (keywords lower-cased, targeted global allowlists
// attached).
type rule struct {
	id, description string
	// regex is the expression a finding matches; "" for a rule on paths only.
	regex string
	// secretGroup is the capture group holding the secret (0: the first
	// non-empty one).
	secretGroup int
	// entropy is the Shannon entropy a secret must exceed (0: any).
	entropy float64
	// path is the expression a file's path must match; a text has no path.
	path       string
	keywords   []string
	tags       []string
	skipReport bool
	allowlists []allowlist
	required   []required
}

// allowlist is a gitleaks allowlist: a finding it matches is dropped.
type allowlist struct {
	description string
	// and is gitleaks' condition = "AND": every kind of check the allowlist
	// has must hold (a path or commit check never does for a text).
	and bool
	// regexTarget is what the regexes are matched against: "" (the
	// secret), "match" or "line".
	regexTarget string
	regexes     []string
	stopWords   []string // lower case
	paths       []string
	commits     []string
}

// required is a rule a composite rule needs a finding of, near its own.
type required struct {
	id                         string
	withinLines, withinColumns int
	limitLines, limitColumns   bool
}

// book indexes the rules for the detector: built once per process, from
// static data (no expression compiled).
type book struct {
	rules      []rule
	allowlists []allowlist
	index      map[string]int // rule id → position in rules
	// keywords is gitleaks' prefilter: every rule keyword, once; byKeyword
	// maps a keyword's position in it to the rules it selects.
	keywords  *wordSet
	byKeyword [][]int
	// always are the rules without keywords: every text is scanned with them.
	always []int
}

var (
	bookOnce sync.Once
	theBook  *book
)

// defaultBook returns the default rules' book, built on first use.
func defaultBook() *book {
	bookOnce.Do(func() {
		// gitleaks' decoder (detect/codec) logs decoded segments, secrets
		// included, at debug level through a package-global logger writing
		// to stderr; nothing of it may ever leave the process.
		logging.Logger = zerolog.Nop()
		theBook = newBook(defaultRules, defaultAllowlists)
	})
	return theBook
}

func newBook(rules []rule, allowlists []allowlist) *book {
	b := &book{rules: rules, allowlists: allowlists, index: make(map[string]int, len(rules))}
	var words []string
	number := map[string]int{}
	for i, r := range rules {
		b.index[r.id] = i
		if len(r.keywords) == 0 {
			b.always = append(b.always, i)
		}
		for _, k := range r.keywords {
			k = strings.ToLower(k)
			n, seen := number[k]
			if !seen {
				n = len(words)
				number[k] = n
				words = append(words, k)
				b.byKeyword = append(b.byKeyword, nil)
			}
			b.byKeyword[n] = append(b.byKeyword[n], i)
		}
	}
	b.keywords = newWordSet(words)
	return b
}

// compiledRule is a rule's expressions, compiled on first use.
type compiledRule struct {
	once sync.Once
	re   *regexp.Regexp
	plan *startPlan // where re's matches can start; nil: anywhere
	// pathMatches is whether the rule's path expression matches the empty
	// path of a text (gitleaks matches it against the fragment's path).
	pathMatches bool

	allowOnce  sync.Once
	allowlists []compiledAllowlist
}

func (c *compiledRule) compile(r *rule) *compiledRule {
	c.once.Do(func() {
		if r.regex != "" {
			c.re = regexp.MustCompile(r.regex)
			c.plan = planStarts(r.regex)
		}
		if r.path != "" {
			c.pathMatches = regexp.MustCompile(r.path).MatchString("")
		}
	})
	return c
}

// allows returns the rule's allowlists, compiled on first use: most rules
// never have a candidate finding to check.
func (c *compiledRule) allows(r *rule) []compiledAllowlist {
	c.allowOnce.Do(func() { c.allowlists = compileAllowlists(r.allowlists) })
	return c.allowlists
}

// compiledAllowlist is an allowlist as gitleaks checks it.
type compiledAllowlist struct {
	and                  bool
	target               string
	regex                *regexp.Regexp // nil without regexes
	stopWords            *wordSet
	hasPaths, hasCommits bool
}

func compileAllowlists(as []allowlist) []compiledAllowlist {
	out := make([]compiledAllowlist, len(as))
	for i, a := range as {
		c := compiledAllowlist{and: a.and, target: a.regexTarget, hasPaths: len(a.paths) > 0, hasCommits: len(a.commits) > 0}
		if len(a.regexes) > 0 {
			// gitleaks joins an allowlist's expressions into one, and that
			// is its meaning: a flag such as (?i) at the front of one
			// alternative holds for the alternatives after it.
			c.regex = regexp.MustCompile("(?:" + strings.Join(a.regexes, "|") + ")")
		}
		if len(a.stopWords) > 0 {
			c.stopWords = newWordSet(a.stopWords)
		}
		out[i] = c
	}
	return out
}
