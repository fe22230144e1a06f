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
	global   []*config.Allowlist
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

// decodeBook decodes a gitleaks TOML configuration into a ruleBook. Its
// global allowlists are compiled now (every scan applies them).
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
	globals := b.vc
	globals.Rules = nil
	cfg, err := globals.Translate()
	if err != nil {
		return nil, fmt.Errorf("compile the global allowlists: %w", err)
	}
	b.global = cfg.Allowlists
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
// text needs more.
type lazyDetector struct {
	mu    sync.Mutex
	rules map[string]config.Rule
	det   *detect.Detector
}

// detect returns what gitleaks' detector with all default rules finds in
// text.
func (l *lazyDetector) detect(text string) ([]report.Finding, error) {
	b, err := defaultBook()
	if err != nil {
		return nil, err
	}
	det, err := l.detectorFor(b, b.selectRules(text))
	if err != nil {
		return nil, err
	}
	return det.DetectString(text), nil
}

// detectorFor returns a detector holding at least the rules ids.
func (l *lazyDetector) detectorFor(b *ruleBook, ids map[string]bool) (*detect.Detector, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var missing []string
	for id := range ids {
		if _, ok := l.rules[id]; !ok {
			missing = append(missing, id)
		}
	}
	if l.det != nil && len(missing) == 0 {
		return l.det, nil
	}
	compiled, err := b.compile(missing)
	if err != nil {
		return nil, fmt.Errorf("compile rules %s: %w", strings.Join(missing, ", "), err)
	}
	if l.rules == nil {
		l.rules = map[string]config.Rule{}
	}
	maps.Copy(l.rules, compiled)
	l.det = newDetectorOf(b, l.rules)
	return l.det, nil
}

// newDetectorOf makes a detector over rules with the global allowlists.
func newDetectorOf(b *ruleBook, rules map[string]config.Rule) *detect.Detector {
	cfg := config.Config{
		Rules:      maps.Clone(rules),
		Keywords:   map[string]struct{}{},
		Allowlists: b.global,
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
