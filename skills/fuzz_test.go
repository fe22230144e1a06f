package skills_test

import (
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/skills"
)

// FuzzRender: Render never panics; with every var it names supplied it
// succeeds; text without "$" renders as itself; Escape round-trips.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"", "$a", "${b}", "$$", "{x} $y {z}", "${", "${1}", "$", "a\n$b\n${c}d", `{"k": "$v"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		vars := map[string]string{}
		for _, v := range skills.Vars(tmpl) {
			vars[v] = "[" + v + "]"
		}
		out, err := skills.Render(tmpl, vars)
		if err != nil && !strings.Contains(err.Error(), "malformed") {
			t.Fatalf("Render(%q) with all vars: %v", tmpl, err)
		}
		if err == nil && !strings.Contains(tmpl, "$") && out != tmpl {
			t.Fatalf("Render changed text without $: %q → %q", tmpl, out)
		}
		if got, err := skills.Render(skills.Escape(tmpl), nil); err != nil || got != tmpl {
			t.Fatalf("Render(Escape(%q)) = %q, %v", tmpl, got, err)
		}
	})
}
