package secrets

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/pelletier/go-toml/v2"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"
)

// Compiling all of gitleaks' ~220 default rules costs ~25 ms and decoding
// their TOML through viper ~20 ms more: most of a Stop hook. A text asks
// gitleaks' detector for a rule only when one of the rule's keywords occurs
// in it (or in what its encoded parts decode to), so the rules are decoded
// once (go-toml, ~2 ms) and each rule is compiled the first time a text
// holds one of its keywords. The findings are those of the whole rule set:
// the keyword selection below is gitleaks' own prefilter, run before the
// detector instead of inside it (TestLazyRulesFindWhatAllRulesFind).

// ruleBook is gitleaks' default configuration, decoded but not compiled.
type ruleBook struct {
	vc config.ViperConfig
	// always are the rules without keywords: every text is scanned with them.
	always []string
	// byKeyword maps a lower-case keyword to the rules it selects.
	byKeyword map[string][]string
	// requires maps a composite rule to the rules it needs findings of.
	requires map[string][]string
	index    map[string]int // rule id → position in vc.Rules
	trie     *ahocorasick.Trie

	// The global allowlists are compiled the first time a text has a
	// candidate finding (their regular expressions are most of the cost of
	// a first redaction): they only ever remove findings.
	globalOnce sync.Once
	global     []*config.Allowlist
	globalErr  error
}

// globals returns the global allowlists, compiled on first use.
func (b *ruleBook) globals() ([]*config.Allowlist, error) {
	b.globalOnce.Do(func() {
		vc := b.vc
		vc.Rules = nil
		cfg, err := vc.Translate()
		if err != nil {
			b.globalErr = fmt.Errorf("compile the global allowlists: %w", err)
			return
		}
		b.global = cfg.Allowlists
	})
	return b.global, b.globalErr
}

var (
	bookOnce sync.Once
	book     *ruleBook
	bookErr  error
)

// defaultBook returns the decoded default rules, decoding them on first use.
func defaultBook() (*ruleBook, error) {
	bookOnce.Do(func() {
		// gitleaks logs findings (secrets included) at trace level through a
		// package-global logger writing to stderr; nothing of it may ever
		// leave the process.
		logging.Logger = zerolog.Nop()
		book, bookErr = decodeBook(config.DefaultConfig + extraRules)
	})
	return book, bookErr
}

// decodeBook decodes a gitleaks TOML configuration into a ruleBook.
func decodeBook(text string) (*ruleBook, error) {
	b := &ruleBook{byKeyword: map[string][]string{}, requires: map[string][]string{}, index: map[string]int{}}
	if err := toml.Unmarshal([]byte(text), &b.vc); err != nil {
		return nil, fmt.Errorf("read default config: %w", err)
	}
	var words []string
	for i, r := range b.vc.Rules {
		b.index[r.ID] = i
		if len(r.Keywords) == 0 {
			b.always = append(b.always, r.ID)
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if _, seen := b.byKeyword[k]; !seen {
				words = append(words, k)
			}
			b.byKeyword[k] = append(b.byKeyword[k], r.ID)
		}
		for _, req := range r.Required {
			b.requires[r.ID] = append(b.requires[r.ID], req.ID)
		}
	}
	b.trie = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	return b, nil
}

// selectRules returns the ids of the rules gitleaks' detector would run on
// text: those without keywords, those with a keyword in text or in what
// its encoded segments decode to (as deep as the detector decodes), and
// the rules those need.
func (b *ruleBook) selectRules(text string) map[string]bool {
	ids := map[string]bool{}
	for _, id := range b.always {
		ids[id] = true
	}
	raw := text
	var segments []*codec.EncodedSegment
	decoder := codec.NewDecoder()
	for depth := 0; ; {
		for _, m := range b.trie.MatchString(strings.ToLower(raw)) {
			for _, id := range b.byKeyword[m.MatchString()] {
				ids[id] = true
			}
		}
		if depth++; depth > decodeDepth {
			break
		}
		if raw, segments = decoder.Decode(raw, segments); len(segments) == 0 {
			break
		}
	}
	for pending := slices.Collect(maps.Keys(ids)); len(pending) > 0; {
		id := pending[len(pending)-1]
		pending = pending[:len(pending)-1]
		for _, req := range b.requires[id] {
			if !ids[req] {
				ids[req] = true
				pending = append(pending, req)
			}
		}
	}
	return ids
}

// compile compiles the rules ids and the rules they require (gitleaks
// checks, rule by rule, that a required rule is in the same set).
func (b *ruleBook) compile(ids []string) (map[string]config.Rule, error) {
	vc := b.vc
	vc.Allowlists, vc.AllowList = nil, nil
	vc.Rules = vc.Rules[:0:0]
	seen := map[string]bool{}
	for len(ids) > 0 {
		id := ids[len(ids)-1]
		ids = ids[:len(ids)-1]
		if seen[id] {
			continue
		}
		seen[id] = true
		r := b.vc.Rules[b.index[id]]
		// Translate lowercases a rule's keywords in place: its own copy, so
		// two detectors compiling at once never write the book's.
		r.Keywords = slices.Clone(r.Keywords)
		vc.Rules = append(vc.Rules, r)
		ids = append(ids, b.requires[id]...)
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, err
	}
	return cfg.Rules, nil
}

// lazyDetector is a detector over the rules compiled so far, grown when a
// text needs more: bare without the global allowlists, full with them.
type lazyDetector struct {
	mu    sync.Mutex
	rules map[string]config.Rule
	bare  *detect.Detector
	full  *detect.Detector
}

// detect returns what gitleaks' detector with all default rules finds in
// text. A text without a finding before the global allowlists (nearly
// every one) has none after them: the allowlists only remove findings, so
// they are applied — and compiled, the first time — only to a text that
// has one.
func (l *lazyDetector) detect(text string) ([]report.Finding, error) {
	b, err := defaultBook()
	if err != nil {
		return nil, err
	}
	ids := b.selectRules(text)
	bare, err := l.detectorFor(b, ids, false)
	if err != nil {
		return nil, err
	}
	if fs := bare.DetectString(text); len(fs) == 0 {
		return nil, nil
	}
	full, err := l.detectorFor(b, ids, true)
	if err != nil {
		return nil, err
	}
	return full.DetectString(text), nil
}

// detectorFor returns a detector holding at least the rules ids, with the
// global allowlists when allow is set.
func (l *lazyDetector) detectorFor(b *ruleBook, ids map[string]bool, allow bool) (*detect.Detector, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var missing []string
	for id := range ids {
		if _, ok := l.rules[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		compiled, err := b.compile(missing)
		if err != nil {
			return nil, fmt.Errorf("compile rules %s: %w", strings.Join(missing, ", "), err)
		}
		if l.rules == nil {
			l.rules = map[string]config.Rule{}
		}
		maps.Copy(l.rules, compiled)
		l.bare, l.full = nil, nil
	}
	if !allow {
		if l.bare == nil {
			l.bare = newDetectorOf(b, l.rules, nil)
		}
		return l.bare, nil
	}
	if l.full == nil {
		global, err := b.globals()
		if err != nil {
			return nil, err
		}
		l.full = newDetectorOf(b, l.rules, global)
	}
	return l.full, nil
}

// newDetectorOf makes a detector over rules with the allowlists given.
func newDetectorOf(b *ruleBook, rules map[string]config.Rule, allowlists []*config.Allowlist) *detect.Detector {
	cfg := config.Config{
		Rules:      maps.Clone(rules),
		Keywords:   map[string]struct{}{},
		Allowlists: allowlists,
	}
	for _, r := range b.vc.Rules {
		if _, ok := rules[r.ID]; ok {
			cfg.OrderedRules = append(cfg.OrderedRules, r.ID)
		}
	}
	for _, r := range cfg.Rules {
		for _, k := range r.Keywords {
			cfg.Keywords[k] = struct{}{}
		}
	}
	det := detect.NewDetector(cfg)
	det.MaxDecodeDepth = decodeDepth
	// A "gitleaks:allow" comment in a transcript must not let a secret
	// through to the vault.
	det.IgnoreGitleaksAllow = true
	return det
}
