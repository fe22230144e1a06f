package secrets

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// plannedRules are the default book's rules with a start plan.
func plannedRules(t testing.TB) (ids []string, res []*regexp.Regexp, plans []*startPlan) {
	for _, r := range defaultBook().rules {
		if r.regex == "" {
			continue
		}
		if p := planStarts(r.regex); p != nil {
			ids = append(ids, r.id)
			res = append(res, regexp.MustCompile(r.regex))
			plans = append(plans, p)
		}
	}
	return ids, res, plans
}

func TestStartPlans(t *testing.T) {
	ids, _, plans := plannedRules(t)
	i := slices.Index(ids, "generic-api-key")
	if i < 0 {
		t.Fatalf("generic-api-key has no start plan; planned: %v", ids)
	}
	if p := plans[i]; p.before < 50 || len(p.lits) < 9 || p.run == nil || p.then == nil {
		t.Errorf("generic-api-key's plan: %d bytes before %d keywords, run %v, approach %v; want ≥ 50 before ≥ 9, a run and an approach", p.before, len(p.lits), p.run != nil, p.then != nil)
	}
	approached := 0
	for _, p := range plans {
		if p.then != nil {
			approached++
		}
	}
	t.Logf("%d rules planned, %d with an approach", len(ids), approached)
	if len(ids) < 50 {
		t.Errorf("only %d rules have a start plan; gitleaks' keyword-led rules number over a hundred", len(ids))
	}
	for _, bad := range []string{`\bkey=\w+`, `^token`, `[a-z]+key`, `\w*key`, `.*secret`, `(?:key)?`} {
		if p := planStarts(bad); p != nil {
			t.Errorf("planStarts(%q) = %+v, want none: its matches may start anywhere (or see the text before them)", bad, *p)
		}
	}
}

// startsTexts are texts to compare the planned search with the regexp's own:
// the detector's corpus, and texts packed with keywords, operators and
// case-folding runes around them.
func startsTexts() []string {
	texts := testTexts()
	texts = append(texts,
		"Changed: AUTHORS, CONTRIBUTING.md, api.go\nkey: value\nKEY=abcdefghijklmnop\nApi_Key = \"0123456789abcdef0123\"\n",
		strings.Repeat("auth, token: x\n", 40)+"password=hunter2hunter2\n",
		"\u212Aey=abcdefghijklmnopqrst; ſecret: abcdefghijklmnopqrstu \u212AEY: 0123456789abcdef\n",
		"aPI_key = \"abcdefghij0123456789\"\nAPI_KEY=\"abcdefghij0123456789\"\napi-key: abcdefghij0123456789\n",
		strings.Repeat("x", 60)+"token = \"abcdefghijklmnop0123\"\n"+strings.Repeat("-", 70)+"secret: "+strings.Repeat("a1", 80)+"\n",
		"credentialscredscredential=abcdefghijklmnopqr\npasswd:abcdefghijklmnop passsword=abcdefghijklmnop\n",
		"        - AUTHORS\n        - CONTRIBUTING.md\n      added: 3\ntoken \t  \"\n= abcdefghijklmnop0123\nkey\u00a0= x\xffkey=\xff\xfeabcdefghijklmnop;\n",
		strings.Repeat("the token is in the vault; ask for the key, ", 30)+"api_key: 0123456789abcdef0123\n",
	)
	return texts
}

func TestStartsMatchRegexp(t *testing.T) {
	ids, res, plans := plannedRules(t)
	for _, text := range startsTexts() {
		low := lowerASCII(text)
		for i := range ids {
			want := res[i].FindAllStringIndex(text, -1)
			if got := plans[i].findAll(res[i], text, low); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Errorf("%s on %.60q: planned %v, regexp %v", ids[i], text, got, want)
			}
		}
	}
}

func FuzzStarts(f *testing.F) {
	for _, s := range startsTexts() {
		f.Add(s)
	}
	ids, res, plans := plannedRules(f)
	f.Fuzz(func(t *testing.T, text string) {
		low := lowerASCII(text)
		for i := range ids {
			want := res[i].FindAllStringIndex(text, -1)
			if got := plans[i].findAll(res[i], text, low); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Fatalf("%s on %q: planned %v, regexp %v", ids[i], text, got, want)
			}
		}
	})
}
