package vault

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// A cache write killed between create and rename leaves its temporary
// file; the next regeneration removes it once stale, even when it has
// nothing new to save (the kill sweep found one left).
func TestStaleFollowupCacheTempIsRemoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := proseRepo(t)
	if _, err := v.Wrap(ctx, notes.WrapInput{Hint: "One.", Next: []string{"(p) a follow-up"}}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(v.followupCachePath())
	base := filepath.Base(v.followupCachePath())
	stale, fresh := filepath.Join(dir, "."+base+"1234567890"), filepath.Join(dir, "."+base+"9876543210")
	legacy := filepath.Join(dir, "cache-123456789")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(legacy, []byte("partial"), 0o644)
	os.Chtimes(legacy, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	os.MkdirAll(dir, 0o755)
	if os.WriteFile(stale, []byte("partial"), 0o644) != nil || os.WriteFile(fresh, []byte("in flight"), 0o644) != nil {
		t.Fatal("cannot write the temporary files")
	}
	old := time.Now().Add(-10 * time.Minute)
	os.Chtimes(stale, old, old)
	v2 := &Vault{Repo: v.Repo, Config: v.Config}
	v2.followupCache() // read, unchanged
	v2.saveFollowupCache()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("an older scribe's stale temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a live write's temporary file was removed: %v", err)
	}
}
