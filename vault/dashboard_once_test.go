package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-scribe/git-scribe/notes"
)

// A wrap regenerates the dashboard once: its build under the lock, which
// the audit after it reads again (it regenerated every source three times:
// planning, the build and the audit). The audit is what a fresh
// regeneration of the same state says.
func TestWrapRegeneratesTheDashboardOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := proseRepo(t)
	dir := filepath.Join(v.Repo.WorkTree, "projects", "p")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "todos.md"), []byte("# p\n\n- [ ] paging for the users endpoint\n- [ ] rate limits\n"), 0o644)
	rep, err := v.Wrap(ctx, notes.WrapInput{Hint: "Parser streams.", Loop: "keep", Next: []string{"(p) streaming for the posts endpoint"}})
	if err != nil || rep.Status != "committed" {
		t.Fatalf("%+v %v", rep, err)
	}
	a, _, err := v.Audit(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.regenerated != 1 {
		t.Errorf("a wrap and its audit regenerated the dashboard %d times, want 1", v.regenerated)
	}
	fresh := &Vault{Repo: v.Repo, Config: v.Config}
	want, _, err := fresh.Audit(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Shown != want.Shown || a.Open != want.Open || a.Resolved != want.Resolved || len(a.Merges) != len(want.Merges) || a.Shown == 0 {
		t.Errorf("the wrap's audit %+v, a fresh one %+v", *a, *want)
	}
}
