package gitops

import (
	"context"
	"strconv"
	"testing"
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
	got, err := tr.open().LastChanged(ctx, []string{"a.md", "b.md", "never.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a.md"].Unix() == 0 || got["b.md"].Before(got["a.md"]) {
		t.Errorf("LastChanged = %v", got)
	}
	if s := got["a.md"].Unix(); strconv.FormatInt(s, 10) != first {
		t.Errorf("a.md changed at %d, want the first commit's %s", s, first)
	}
	if _, ok := got["never.md"]; ok {
		t.Errorf("a path no commit touched has a time")
	}
}
