package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/report"
)

// TestBookDecodesAsViperDoes guards the go-toml decoding of gitleaks'
// default configuration against drift: it must equal what gitleaks' own
// loader (viper) makes of the same text, rule for rule.
func TestBookDecodesAsViperDoes(t *testing.T) {
	t.Parallel()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig + extraRules)); err != nil {
		t.Fatal(err)
	}
	var want config.ViperConfig
	if err := v.Unmarshal(&want); err != nil {
		t.Fatal(err)
	}
	b, err := decodeBook(config.DefaultConfig + extraRules)
	if err != nil {
		t.Fatal(err)
	}
	got := b.vc
	if len(got.Rules) != len(want.Rules) || len(got.Rules) < 200 {
		t.Fatalf("%d rules decoded, viper decodes %d", len(got.Rules), len(want.Rules))
	}
	for i := range want.Rules {
		g, w := got.Rules[i], want.Rules[i]
		if normal(g) != normal(w) {
			t.Errorf("rule %s:\n go-toml %+v\n   viper %+v", w.ID, normal(g), normal(w))
		}
	}
	if normal(got.Allowlists) != normal(want.Allowlists) || normal(got.AllowList) != normal(want.AllowList) {
		t.Errorf("global allowlists differ:\n go-toml %s\n   viper %s", normal(got.Allowlists), normal(want.Allowlists))
	}
}

// normal prints v as JSON (through pointers), nil and empty lists alike.
func normal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return strings.ReplaceAll(string(b), "[]", "null")
}

// TestLazyRulesFindWhatAllRulesFind checks the lazy detector against one
// with every rule compiled, on gitleaks' own true positives, the connection
// strings, their base64, hex and percent encodings (a keyword that appears
// only after decoding), composite rules, and ordinary text.
func TestLazyRulesFindWhatAllRulesFind(t *testing.T) {
	t.Parallel()
	full, err := newDetector()
	if err != nil {
		t.Fatal(err)
	}
	samples := append(gitleaksTruePositives(t), connectionStrings...)
	for _, s := range slices.Clone(samples) {
		samples = append(samples,
			"blob: "+base64.StdEncoding.EncodeToString([]byte(s)),
			"hex "+hex.EncodeToString([]byte(s)),
			"q="+url.QueryEscape(s),
			"nested "+base64.StdEncoding.EncodeToString([]byte("x="+base64.StdEncoding.EncodeToString([]byte(s)))))
	}
	samples = append(samples, diffText(8<<10, true), "nothing to see here", "")
	var lazy lazyDetector
	var found int
	for _, s := range samples {
		want := key(full.DetectString(s))
		got, err := lazy.detect(s)
		if err != nil {
			t.Fatal(err)
		}
		if g := key(got); !slices.Equal(g, want) {
			t.Errorf("%q:\n lazy %v\n  all %v", s[:min(len(s), 120)], g, want)
		}
		found += len(want)
	}
	if found < 1000 {
		t.Fatalf("only %d findings over %d samples: the comparison tests little", found, len(samples))
	}
	t.Logf("%d samples, %d findings, %d of %d rules compiled", len(samples), found, len(lazy.rules), len(full.Config.Rules))
}

// TestLazyRulesCompileFew pins the point of it: a turn's ordinary text
// compiles a small part of the rules.
func TestLazyRulesCompileFew(t *testing.T) {
	t.Parallel()
	var lazy lazyDetector
	if _, err := lazy.detect("Edited internal/parse.go and ran go test ./...: all 14 tests pass. Next: wire the parser into cmd/wrap.go."); err != nil {
		t.Fatal(err)
	}
	all, err := defaultBook()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lazy.rules); n > len(all.vc.Rules)/4 {
		t.Errorf("ordinary text compiled %d of %d rules", n, len(all.vc.Rules))
	}
}

// key lists findings in a stable order, without the fields that depend on
// the detector instance.
func key(fs []report.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %d:%d-%d:%d %q %q %v", f.RuleID, f.StartLine, f.StartColumn, f.EndLine, f.EndColumn, f.Secret, f.Match, f.Tags))
	}
	slices.Sort(out)
	return out
}

// TestLazyRulesCompileWhatACompositeNeeds pins that a composite rule
// compiled after the rules it requires (already compiled for an earlier
// text) still compiles: gitleaks checks that a required rule is in the
// same set. gitleaks' defaults have no composite rule today, so the book is
// made here, in gitleaks' own format.
func TestLazyRulesCompileWhatACompositeNeeds(t *testing.T) {
	t.Parallel()
	b, err := decodeBook(`
[[rules]]
id = "part"
regex = 'part-[0-9]{4}'
keywords = ["part-"]

[[rules]]
id = "whole"
regex = 'whole-[0-9]{4}'
keywords = ["whole-"]
[[rules.required]]
id = "part"
`)
	if err != nil {
		t.Fatal(err)
	}
	var lazy lazyDetector
	if _, err := lazy.detectorFor(b, setOf([]string{"part"}), true); err != nil {
		t.Fatalf("the required rule alone: %v", err)
	}
	if _, err := lazy.detectorFor(b, setOf([]string{"whole"}), true); err != nil {
		t.Errorf("the composite rule after the rule it requires: %v", err)
	}
}

func setOf(ids []string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// newDetector returns a detector over every default rule, compiled now:
// what the lazy detector must agree with.
func newDetector() (*detect.Detector, error) {
	b, err := defaultBook()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(b.vc.Rules))
	for _, r := range b.vc.Rules {
		ids = append(ids, r.ID)
	}
	rules, err := b.compile(ids)
	if err != nil {
		return nil, fmt.Errorf("compile default rules: %w", err)
	}
	global, err := b.globals()
	if err != nil {
		return nil, err
	}
	return newDetectorOf(b, rules, global), nil
}

// TestGlobalAllowlistsStillApply: the lazy detector compiles gitleaks'
// global allowlists only for a text with a candidate finding, and applies
// them then — placeholders such as ${API_KEY} or {{ .Values.token }} that
// a rule matches stay unredacted, as with every rule compiled.
func TestGlobalAllowlistsStillApply(t *testing.T) {
	t.Parallel()
	full, err := newDetector()
	if err != nil {
		t.Fatal(err)
	}
	b, err := defaultBook()
	if err != nil {
		t.Fatal(err)
	}
	var lazy lazyDetector
	filtered := 0
	for _, s := range []string{
		`api_key = "${API_KEY_VALUE}"`, `token: "{{ .Values.apiToken }}"`, `secret_key = "$SECRET_KEY_VALUE"`,
		`client_secret = "%CLIENT_SECRET%"`, `password = "/usr/local/etc/app/password.txt"`,
		`auth_token = "abcdefghijklmnopqrstuvwxyz"`, `api_key = "${{ secrets.API_KEY }}"`,
		`api_key = "${ABCDEFGHIJKLMNOPQRSTUVWXYZ_QWERTY}"`, `access_token = "/home/xk29qz8lw3rt7yp/mnb4vc9wq"`,
		`secret = "%ZYXWVUTSRQPONMLKJIHGFEDCBA_QWE%"`, `api_key = "@ABCDEFGHIJKLMNOPQRSTUVWXYZ_QW@"`,
		// gitleaks' `(?i)^true|false|null$` allows any secret that holds "false".
		`api_key = "k29Qz8Lw3falseRt7YpMnB4vc"`, `auth_token = "Zq81mKx0p4falseTy7Wn3Lr5"`,
	} {
		want := key(full.DetectString(s))
		got, err := lazy.detect(s)
		if err != nil {
			t.Fatal(err)
		}
		if g := key(got); !slices.Equal(g, want) {
			t.Errorf("%q:\n lazy %v\n  all %v", s, g, want)
		}
		bare, err := lazy.detectorFor(b, b.selectRules(s), false)
		if err != nil {
			t.Fatal(err)
		}
		if len(bare.DetectString(s)) > len(want) {
			filtered++
		}
	}
	if filtered == 0 {
		t.Fatal("no sample is one the global allowlists filter: the test tests nothing")
	}
	t.Logf("%d samples filtered by the global allowlists", filtered)
}
