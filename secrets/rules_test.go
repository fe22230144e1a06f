package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
	"github.com/zricethezav/gitleaks/v8/report"

	"github.com/git-scribe/git-scribe/secrets/internal/rulebook"
)

// TestRulesGenerated keeps rules_gen.go what gitleaks' own loader makes of
// its default configuration and extra.toml: a gitleaks upgrade (or an edit
// of extra.toml) cannot change the rules silently.
func TestRulesGenerated(t *testing.T) {
	t.Parallel()
	cfg, err := rulebook.Default()
	if err != nil {
		t.Fatal(err)
	}
	want, err := rulebook.Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("rules_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end of file)"
		}
		t.Fatalf("rules_gen.go is not what gitleaks' rules and extra.toml make: run `go generate ./secrets`\nfirst difference, line %d:\n have %s\n want %s", i+1, line(g), line(w))
	}
	if len(cfg.Rules) < 200 || len(defaultRules) != len(cfg.Rules) || len(defaultAllowlists) != len(cfg.Allowlists) {
		t.Fatalf("%d rules and %d global allowlists generated, gitleaks reads %d and %d", len(defaultRules), len(defaultAllowlists), len(cfg.Rules), len(cfg.Allowlists))
	}
}

// gitleaksDetector is the reference: gitleaks' own detector with every
// default rule and extra.toml compiled, set as the redactor's detector is
// (decoding five levels deep, "gitleaks:allow" ignored).
var gitleaksDetector = sync.OnceValues(func() (*detect.Detector, error) {
	cfg, err := rulebook.Default()
	if err != nil {
		return nil, err
	}
	return newGitleaksDetector(cfg), nil
})

func newGitleaksDetector(cfg config.Config) *detect.Detector {
	logging.Logger = zerolog.Nop()
	det := detect.NewDetector(cfg)
	det.MaxDecodeDepth = decodeDepth
	det.IgnoreGitleaksAllow = true
	return det
}

func reference(tb testing.TB) *detect.Detector {
	tb.Helper()
	det, err := gitleaksDetector()
	if err != nil {
		tb.Fatal(err)
	}
	return det
}

// key lists gitleaks' findings in a stable order (gitleaks visits its rules
// in map order), by the fields a finding of a text has.
func key(fs []report.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, keyOf(f.RuleID, f.StartLine, f.StartColumn, f.EndLine, f.EndColumn, f.Secret, f.Match, f.Line, f.Tags))
	}
	slices.Sort(out)
	return out
}

// ourKey is key for the findings of our detector.
func ourKey(fs []finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, keyOf(f.ruleID, f.startLine, f.startColumn, f.endLine, f.endColumn, f.secret, f.match, f.line, f.tags))
	}
	slices.Sort(out)
	return out
}

func keyOf(rule string, sl, sc, el, ec int, secret, match, line string, tags []string) string {
	return fmt.Sprintf("%s %d:%d-%d:%d secret=%q match=%q line=%q tags=%q", rule, sl, sc, el, ec, secret, match, line, tags)
}

// sameFindings fails t when our detector and gitleaks' disagree on s.
func sameFindings(t *testing.T, det *detector, ref *detect.Detector, s string) int {
	t.Helper()
	want := key(ref.DetectString(s))
	if got := ourKey(det.detect(s)); !slices.Equal(got, want) {
		t.Errorf("%q:\n ours     %v\n gitleaks %v", s[:min(len(s), 200)], got, want)
	}
	return len(want)
}

// TestLazyRulesFindWhatAllRulesFind checks the lazily compiled rules
// against gitleaks' detector with every rule compiled, on gitleaks' own
// true positives, the connection strings, their base64, hex and percent
// encodings (a keyword that appears only after decoding), and ordinary
// text.
func TestLazyRulesFindWhatAllRulesFind(t *testing.T) {
	t.Parallel()
	ref := reference(t)
	samples := append(gitleaksTruePositives(t), connectionStrings...)
	for _, s := range slices.Clone(samples) {
		samples = append(samples,
			"blob: "+base64.StdEncoding.EncodeToString([]byte(s)),
			"hex "+hex.EncodeToString([]byte(s)),
			"q="+url.QueryEscape(s),
			"nested "+base64.StdEncoding.EncodeToString([]byte("x="+base64.StdEncoding.EncodeToString([]byte(s)))))
	}
	samples = append(samples, diffText(8<<10, true), "nothing to see here", "")
	var det detector
	var found int
	for _, s := range samples {
		found += sameFindings(t, &det, ref, s)
	}
	if found < 1000 {
		t.Fatalf("only %d findings over %d samples: the comparison tests little", found, len(samples))
	}
	t.Logf("%d samples, %d findings, %d of %d rules compiled", len(samples), found, det.compiledCount(), len(defaultRules))
}

// compiledCount is the number of rules with an expression d has compiled.
func (d *detector) compiledCount() int {
	n := 0
	for i := range d.rules {
		if d.rules[i].re != nil {
			n++
		}
	}
	return n
}

// TestLazyRulesCompileFew pins the point of it: a turn's ordinary text
// compiles a small part of the rules.
func TestLazyRulesCompileFew(t *testing.T) {
	t.Parallel()
	var det detector
	det.detect("Edited internal/parse.go and ran go test ./...: all 14 tests pass. Next: wire the parser into cmd/wrap.go.")
	if n := det.compiledCount(); n > len(defaultRules)/4 {
		t.Errorf("ordinary text compiled %d of %d rules", n, len(defaultRules))
	}
}

// TestRuleFeaturesBeyondTheDefaults checks, against gitleaks, what
// gitleaks' defaults do not use today but a gitleaks upgrade may:
// required (composite) rules within lines and columns, a rule reported only
// as a part of one (skipReport), rules with a path (a text's is empty), an
// "AND" allowlist of a regex and stopwords, a regex on the match. The book
// is made twice here, in gitleaks' format and as the generator writes it.
func TestRuleFeaturesBeyondTheDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := rulebook.Load(`
[[rules]]
id = "part"
regex = 'part-[0-9]{4}'
keywords = ["part-"]

[[rules]]
id = "hidden"
regex = 'hidden-[0-9]{4}'
skipReport = true

[[rules]]
id = "whole"
regex = 'whole-([0-9]{4})'
keywords = ["whole-"]
[[rules.required]]
id = "part"
withinLines = 1
[[rules.required]]
id = "hidden"
withinColumns = 12

[[rules]]
id = "any-path"
path = '.*'

[[rules]]
id = "no-path"
path = '\.env$'

[[rules]]
id = "empty-path-token"
path = '^$'
regex = 'tok-([a-z]{6})'
keywords = ["tok-"]
[[rules.allowlists]]
condition = "AND"
regexes = ['q']
stopWords = ["zz"]
[[rules.allowlists]]
regexTarget = "match"
regexes = ['^tok-m']

[[rules]]
id = "env-path-token"
path = '\.env$'
regex = 'tok-([a-z]{6})'
keywords = ["tok-"]
`)
	if err != nil {
		t.Fatal(err)
	}
	ref := newGitleaksDetector(cfg)
	det := detector{b: newBook([]rule{
		{id: "part", regex: "part-[0-9]{4}", keywords: []string{"part-"}},
		{id: "hidden", regex: "hidden-[0-9]{4}", skipReport: true},
		{id: "whole", regex: "whole-([0-9]{4})", keywords: []string{"whole-"}, required: []required{
			{id: "part", withinLines: 1, limitLines: true},
			{id: "hidden", withinColumns: 12, limitColumns: true},
		}},
		{id: "any-path", path: ".*"},
		{id: "no-path", path: `\.env$`},
		{id: "empty-path-token", path: "^$", regex: "tok-([a-z]{6})", keywords: []string{"tok-"}, allowlists: []allowlist{
			{and: true, regexes: []string{"q"}, stopWords: []string{"zz"}},
			{regexTarget: "match", regexes: []string{"^tok-m"}},
		}},
		{id: "env-path-token", path: `\.env$`, regex: "tok-([a-z]{6})", keywords: []string{"tok-"}},
	}, nil)}
	found := map[string]int{}
	for _, s := range []string{
		"whole-1234 hidden-5678\npart-0001",
		"whole-1234 hidden-5678\n\npart-0001",
		"whole-1234 ... hidden-5678\npart-0001",
		"hidden-5678\nwhole-1234\npart-0001",
		"part-0001 hidden-2222",
		"whole-1234 hidden-5678",
		"blob: " + base64.StdEncoding.EncodeToString([]byte("whole-1234 hidden-5678\npart-0001")),
		"tok-abcdef tok-qqzzqq tok-qqqqqq tok-zzzzzz tok-mnopqr",
		"",
	} {
		sameFindings(t, &det, ref, s)
		for _, f := range det.detect(s) {
			found[f.ruleID]++
		}
	}
	for _, id := range []string{"whole", "part", "any-path", "empty-path-token"} {
		if found[id] == 0 {
			t.Errorf("no finding of %s: the test tests less than it says", id)
		}
	}
}

// placeholders are values a rule matches that gitleaks' global allowlists
// let through: placeholders such as ${API_KEY} or {{ .Values.token }}.
var placeholders = []string{
	`api_key = "${API_KEY_VALUE}"`, `token: "{{ .Values.apiToken }}"`, `secret_key = "$SECRET_KEY_VALUE"`,
	`client_secret = "%CLIENT_SECRET%"`, `password = "/usr/local/etc/app/password.txt"`,
	`auth_token = "abcdefghijklmnopqrstuvwxyz"`, `api_key = "${{ secrets.API_KEY }}"`,
	`api_key = "${ABCDEFGHIJKLMNOPQRSTUVWXYZ_QWERTY}"`, `access_token = "/home/xk29qz8lw3rt7yp/mnb4vc9wq"`,
	`secret = "%ZYXWVUTSRQPONMLKJIHGFEDCBA_QWE%"`, `api_key = "@ABCDEFGHIJKLMNOPQRSTUVWXYZ_QW@"`,
	// gitleaks' `(?i)^true|false|null$` allows any secret that holds "false".
	`api_key = "k29Qz8Lw3falseRt7YpMnB4vc"`, `auth_token = "Zq81mKx0p4falseTy7Wn3Lr5"`,
	// gitleaks joins the allowlist's expressions into one, so that (?i)
	// makes the alternatives after it case-insensitive too:
	// `^@(?:[A-Z_]+|[a-z_]+)@$` allows @Mixed_Case@, `^/(?:bin|etc|…)/`
	// allows /ETC/….
	`curl -H "Authorization: Bearer @Mixed_Case_Token@" https://example.com`,
	`curl -H "Authorization: Bearer /ETC/Mixed_Case_Tok" https://example.com`,
}

// TestGlobalAllowlistsStillApply: the global allowlists are compiled only
// for a text with a candidate finding, and applied then, as gitleaks does.
func TestGlobalAllowlistsStillApply(t *testing.T) {
	t.Parallel()
	ref := reference(t)
	cfg, err := rulebook.Default()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Allowlists = nil
	bare := newGitleaksDetector(cfg)
	var det detector
	filtered := 0
	for _, s := range placeholders {
		want := sameFindings(t, &det, ref, s)
		if len(bare.DetectString(s)) > want {
			filtered++
		}
	}
	if filtered == 0 {
		t.Fatal("no sample is one the global allowlists filter: the test tests nothing")
	}
	t.Logf("%d of %d samples filtered by the global allowlists", filtered, len(placeholders))
}
