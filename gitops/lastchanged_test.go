package gitops

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func TestLastChanged(t *testing.T) {
	t.Parallel()
	tr := newEmptyRepo(t)
	ctx := context.Background()
	if got, err := tr.open().LastChanged(ctx, []string{"a.md"}); err != nil || len(got) != 0 {
		t.Fatalf("unborn branch: %v, %v", got, err)
	}
	tr.Commit("one", map[string]string{"a.md": "1", "b.md": "1"})
	first := tr.GitTrim("log", "-1", "--format=%ct")
	tr.Commit("two", map[string]string{"b.md": "2"})
	tr.Commit("three", map[string]string{"c.md": "3"})
	got, err := tr.open().LastChanged(ctx, []string{"a.md", "b.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a.md"].Unix() == 0 || got["b.md"].Before(got["a.md"]) {
		t.Errorf("LastChanged = %v", got)
	}
	if s := got["a.md"].Unix(); strconv.FormatInt(s, 10) != first {
		t.Errorf("a.md changed at %d, want the first commit's %s", s, first)
	}
}

// TestLastChangedStopsAtAYear pins the bound on the walk: a file last
// committed two years ago is reported as at least a year old, from a walk
// that git stops at the year's start instead of at the root.
func TestLastChangedStopsAtAYear(t *testing.T) {
	t.Parallel()
	tr := newEmptyRepo(t)
	ctx := context.Background()
	old := time.Now().Add(-2 * 365 * 24 * time.Hour).UTC().Format(time.RFC3339)
	tr.Write("todos.md", "- [ ] (p) x\n")
	tr.Git("add", "todos.md")
	cmd := exec.Command("git", "commit", "-q", "-m", "ancient")
	cmd.Dir = tr.Dir
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+old, "GIT_AUTHOR_DATE="+old)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("commit: %v\n%s", err, out)
	}
	tr.Commit("recent", map[string]string{"b.md": "2"})
	got, err := tr.open().LastChanged(ctx, []string{"todos.md", "b.md"})
	if err != nil {
		t.Fatal(err)
	}
	year := time.Now().Add(-lastChangedSpan)
	if d := got["todos.md"].Sub(year); d < -time.Minute || d > time.Minute {
		t.Errorf("todos.md: %v, want about a year ago (%v): older than the walk's bound", got["todos.md"], year)
	}
	if time.Since(got["b.md"]) > time.Hour {
		t.Errorf("b.md: %v, want its recent commit's time", got["b.md"])
	}
}
