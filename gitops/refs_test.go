package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/internal/gittest"
)

// TestRefsFromFilesAgreeWithGit resolves HEAD, branches and the vault ref
// from the ref files in every state git leaves them in — loose, packed,
// both, unborn, detached, a linked worktree, a symbolic ref, an annotated
// tag — and compares each with `git rev-parse --verify REF^{commit}`.
func TestRefsFromFilesAgreeWithGit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	first := tr.Head()
	second := tr.Commit("second", map[string]string{"b.txt": "b\n"})
	tr.Git("update-ref", VaultRef, first)
	tr.Git("branch", "side", first)
	tr.Git("tag", "-a", "-m", "annotated", "v1", first)

	check := func(step string) {
		t.Helper()
		r := tr.open()
		h, err := r.Head(ctx)
		if err != nil {
			t.Fatalf("%s: Head: %v", step, err)
		}
		want, _ := tr.GitErr("rev-parse", "-q", "--verify", "HEAD^{commit}")
		if h.Commit != strings.TrimSpace(want) {
			t.Errorf("%s: Head = %q, git says %q", step, h.Commit, strings.TrimSpace(want))
		}
		for _, ref := range []string{VaultRef, "refs/heads/side", "refs/heads/main", "refs/heads/nosuch", "refs/tags/v1", "refs/heads"} {
			got, err := r.resolveRef(ctx, ref)
			if err != nil {
				t.Fatalf("%s: resolveRef(%s): %v", step, ref, err)
			}
			want, _ := tr.GitErr("rev-parse", "-q", "--verify", ref+"^{commit}")
			if got != strings.TrimSpace(want) {
				t.Errorf("%s: resolveRef(%s) = %q, git says %q", step, ref, got, strings.TrimSpace(want))
			}
		}
	}
	check("loose")
	tr.Git("pack-refs", "--all")
	check("packed")
	tr.Git("update-ref", VaultRef, second) // loose again, over a stale packed value
	check("loose over packed")
	tr.Git("checkout", "-q", "--detach", first)
	check("detached")
	tr.Git("checkout", "-q", "-b", "unborn-parent")
	tr.Git("checkout", "-q", "--orphan", "fresh")
	check("unborn")
	tr.Git("checkout", "-q", "-f", "main")
	tr.Git("symbolic-ref", "refs/heads/alias", "refs/heads/side")
	tr.Git("symbolic-ref", "HEAD", "refs/heads/alias")
	check("symbolic ref")
	tr.Git("symbolic-ref", "HEAD", "refs/heads/main")

	wt := filepath.Join(t.TempDir(), "wt")
	tr.Git("worktree", "add", "-q", "-b", "wt-branch", wt, first)
	r, err := Discover(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := r.Head(ctx); err != nil || h.Commit != first || h.Ref != "refs/heads/wt-branch" {
		t.Errorf("linked worktree Head = %+v, %v; want %s on refs/heads/wt-branch", h, err, first)
	}
	if tip, err := r.VaultTip(ctx); err != nil || tip != second {
		t.Errorf("linked worktree VaultTip = %q, %v; want %s", tip, err, second)
	}
}

// TestRefsFromFilesDeferToGit pins that what the files cannot answer for
// certain goes to git: a reftable store, a malformed loose ref.
func TestRefsFromFilesDeferToGit(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	if _, _, ok := r.refFromFiles("refs/heads/main"); !ok {
		t.Fatal("a loose branch was not read from the files")
	}
	if err := os.WriteFile(filepath.Join(r.CommonDir, "refs", "heads", "bad"), []byte("not an id\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.refFromFiles("refs/heads/bad"); ok {
		t.Error("a malformed loose ref was answered from the files")
	}
	if err := os.Mkdir(filepath.Join(r.CommonDir, "reftable"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.refFromFiles("refs/heads/main"); ok {
		t.Error("a reftable store was answered from the files")
	}
}

// TestEmptyTreeIDPerObjectFormat checks the known empty trees against git
// in a SHA-1 and a SHA-256 repository.
func TestEmptyTreeIDPerObjectFormat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, format := range []string{"sha1", "sha256"} {
		dir := t.TempDir()
		if _, err := gittest.GitInErr(dir, nil, "init", "-q", "--object-format="+format); err != nil {
			t.Fatal(err)
		}
		r, err := Discover(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.EmptyTreeID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := gittest.GitInErr(dir, []byte{}, "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		if got != strings.TrimSpace(want) {
			t.Errorf("%s: EmptyTreeID = %s, git says %s", format, got, strings.TrimSpace(want))
		}
	}
}
