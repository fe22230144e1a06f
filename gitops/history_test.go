package gitops

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestLastScribeCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	if _, ok, err := r.LastScribeCommit(ctx, tr.Head()); ok || err != nil {
		t.Errorf("LastScribeCommit with no scribe commits = %v, %v", ok, err)
	}
	if _, ok, err := r.LastScribeCommit(ctx, ""); ok || err != nil {
		t.Errorf("LastScribeCommit on an unborn branch = %v, %v", ok, err)
	}
	res, err := r.CommitPaths(ctx, CommitRequest{
		Paths: []string{journal}, Build: appendBuild(journal, "x\n"),
		Message: func([]string) string {
			return "progress: wrap\n\nBody text.\n\nScribe-Mode: wrap,journal\nScribe-Covers: abc..def\n"
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A person's commit that merely looks like scribe's does not count.
	tr.Commit("progress: done by hand", map[string]string{"x.md": "x\n"})
	tr.Commit("mentions Scribe-Mode: in the subject only", map[string]string{"y.md": "y\n"})
	sc, ok, err := r.LastScribeCommit(ctx, tr.Head())
	if err != nil || !ok {
		t.Fatalf("LastScribeCommit = %v, %v", ok, err)
	}
	if sc.SHA != res.SHA {
		t.Errorf("LastScribeCommit = %s, want the scribe commit %s", sc.SHA, res.SHA)
	}
	if want := map[string]string{"Scribe-Mode": "wrap,journal", "Scribe-Covers": "abc..def"}; !reflect.DeepEqual(sc.Trailers, want) {
		t.Errorf("Trailers = %v, want %v", sc.Trailers, want)
	}
	if !r.IsAncestor(ctx, res.SHA, tr.Head()) || r.IsAncestor(ctx, tr.Head(), res.SHA) {
		t.Errorf("IsAncestor disagrees with history")
	}
}

func TestParseTrailers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  string
		want map[string]string
	}{
		{"subject", map[string]string{}},
		{"progress: x\n\nScribe-Mode: wrap\n", map[string]string{"Scribe-Mode": "wrap"}},
		{"progress: x\n\nbody: not a trailer\n\nScribe-Mode: wrap\nSigned-off-by: A <a@b>\n",
			map[string]string{"Scribe-Mode": "wrap", "Signed-off-by": "A <a@b>"}},
		{"s\n\nNot A-Trailer: x\nKey:novalue\n", map[string]string{}},
	}
	for _, tt := range tests {
		if got := ParseTrailers(tt.msg); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseTrailers(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

func TestChangedSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	at := tr.Commit("cited", map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n", "d.md": "d\n"})
	tr.Commit("change a", map[string]string{"a.md": "a2\n"})
	tr.Git("rm", "-q", "d.md")
	tr.Git("commit", "-q", "-m", "remove d")
	tr.Write("b.md", "uncommitted edit\n") // not counted
	r := tr.open()
	got, err := r.ChangedSince(ctx, at, []string{"a.md", "b.md", "c.md", "d.md", "never.md"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.md", "d.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ChangedSince = %q, want %q", got, want)
	}
	if got, err := r.ChangedSince(ctx, at, nil); err != nil || got != nil {
		t.Errorf("ChangedSince with no paths = %q, %v", got, err)
	}
	if _, err := r.ChangedSince(ctx, "0123456789abcdef0123456789abcdef01234567", []string{"a.md"}); err == nil {
		t.Errorf("ChangedSince with an unknown commit succeeded")
	}
	if sha, err := r.ResolveCommit(ctx, "HEAD~1"); err != nil || sha != tr.GitTrim("rev-parse", "HEAD~1") {
		t.Errorf("ResolveCommit = %s, %v", sha, err)
	}
	if _, err := r.ResolveCommit(ctx, "no-such-rev"); err == nil {
		t.Errorf("ResolveCommit accepted a bad revision")
	}
}

// The helper below was the engine's once and has no caller there now
// (an unbounded `git log --grep` walk must not come back on a waited-for
// path): the tests keep it to pin trailer parsing.

// ScribeCommit is the newest scribe commit reachable from HEAD.
type ScribeCommit struct {
	SHA      string
	Trailers map[string]string
}

// LastScribeCommit finds the newest commit on HEAD's history carrying the
// Scribe-Mode trailer; ok is false when there is none.
func (r *Repo) LastScribeCommit(ctx context.Context, head string) (ScribeCommit, bool, error) {
	if head == "" {
		return ScribeCommit{}, false, nil
	}
	out, err := r.Git(ctx, "log", "-1", "--format=%H%x00%B", "--grep=^"+TrailerMode+": ", head)
	if err != nil {
		return ScribeCommit{}, false, fmt.Errorf("find the last scribe commit: %w", err)
	}
	s := strings.TrimSpace(string(out))
	if s == "" {
		return ScribeCommit{}, false, nil
	}
	sha, body, _ := strings.Cut(s, "\x00")
	return ScribeCommit{SHA: sha, Trailers: ParseTrailers(body)}, true, nil
}
