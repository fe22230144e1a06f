package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// memoRepo is a repository with tracked files in nested directories, an
// ignore file, an ignored directory and file, an untracked file and an
// empty directory, and a scribe dir (where the memo is kept).
func memoRepo(t *testing.T) *testRepo {
	tr := newEmptyRepo(t)
	tr.Commit("initial", map[string]string{
		"a.go": "package a\n", "dir/b.go": "package b\n", "dir/sub/c.go": "package c\n",
		".gitignore": "*.log\nbuild/\n",
	})
	tr.Write("build/out.bin", "x")
	tr.Write("x.log", "log")
	tr.Write("u.txt", "untracked")
	os.MkdirAll(tr.Path("empty"), 0o755)
	os.MkdirAll(tr.Path(".git/scribe"), 0o755)
	return tr
}

// settle dates every file and directory of the work tree (and
// info/exclude) an hour back
// (a time the walk does not take for a change in progress) and lets two
// reads make the memo: the first learns the ignored directories, the
// second walks.
func settle(t *testing.T, tr *testRepo, r *Repo) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(tr.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	os.Chtimes(tr.Path(".git/info/exclude"), old, old)
	memoCheck(t, tr, r, "settling")
	memoCheck(t, tr, r, "settling")
}

// memoCheck reads the work tree's untracked files through scribe and
// compares them with git's own scan; it returns whether the memo stood
// for the scan.
func memoCheck(t *testing.T, tr *testRepo, r *Repo, what string) bool {
	t.Helper()
	kept := r.planUntracked(nil).kept != nil
	_, _, got, err := r.worktreeChanges(context.Background(), nil, tr.Head())
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var want []string
	for _, rec := range strings.Split(tr.Git("status", "--porcelain=v2", "-z", "--untracked-files=all"), "\x00") {
		if p, ok := strings.CutPrefix(rec, "? "); ok {
			want = append(want, p)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: untracked %q, git says %q (memo kept: %v)", what, got, want, kept)
	}
	return kept
}

// TestUntrackedMemo walks the changes that keep the untracked files and
// the ones that must not, each checked against git's own scan.
func TestUntrackedMemo(t *testing.T) {
	tr := memoRepo(t)
	r := tr.open()
	if memoCheck(t, tr, r, "first read") {
		t.Fatal("a memo stood before any scan")
	}
	settle(t, tr, r)
	if !memoCheck(t, tr, r, "nothing changed") {
		t.Fatal("the memo did not stand for an unchanged work tree")
	}

	// Changes that leave the untracked files as they were: the memo stands.
	for _, c := range []struct {
		what   string
		change func()
	}{
		{"a tracked file changed in place", func() { tr.Write("a.go", "package a // edited\n") }},
		{"a tracked file written anew and renamed over", func() {
			tr.Write("dir/.b.go.tmp", "package b // edited\n")
			os.Rename(tr.Path("dir/.b.go.tmp"), tr.Path("dir/b.go"))
		}},
		{"the change committed", func() { tr.Git("commit", "-qam", "edit") }},
		{"an untracked file changed in place", func() { tr.Write("u.txt", "more") }},
		{"a file made in an ignored directory", func() { tr.Write("build/more.bin", "y") }},
	} {
		c.change()
		if !memoCheck(t, tr, r, c.what) {
			t.Errorf("%s: the memo did not stand", c.what)
		}
	}

	// Changes to what is untracked: the scan runs, and agrees with git.
	for _, c := range []struct {
		what   string
		change func()
	}{
		{"a new file in a directory", func() { tr.Write("dir/new.txt", "n") }},
		{"a file made in an empty directory", func() { tr.Write("empty/f.txt", "f") }},
		{"a new directory", func() { tr.Write("dir/sub/deeper/g.txt", "g") }},
		{"an untracked file removed", func() { os.Remove(tr.Path("u.txt")) }},
		{"a file added to the index", func() { tr.Write("v.txt", "v"); settle(t, tr, r); tr.Git("add", "v.txt") }},
		{"a file left by the index", func() { tr.Git("rm", "-q", "--cached", "a.go") }},
		{"a .gitignore changed in place", func() { tr.Write(".gitignore", "build/\n") }},
		{"info/exclude changed", func() { tr.Write(".git/info/exclude", "*.txt\n") }},
		{"a directory no longer ignored", func() { tr.Write(".gitignore", "*.log\n") }},
		{"a nested repository", func() { repoIn(t, tr.Path("nested")) }},
	} {
		settle(t, tr, r)
		c.change()
		if memoCheck(t, tr, r, c.what) {
			t.Errorf("%s: the memo stood", c.what)
		}
		memoCheck(t, tr, r, c.what+", read again")
	}
}

// repoIn makes a repository with one file at dir.
func repoIn(t *testing.T, dir string) {
	nested := repoAt(t, dir)
	os.MkdirAll(dir, 0o755)
	nested.Git("init", "-q")
	nested.Write("n.txt", "n")
}

// TestUntrackedMemoRacy: a directory changed just before the walk is read
// again at every check, so a change in the same clock tick is not missed.
func TestUntrackedMemoRacy(t *testing.T) {
	tr := memoRepo(t)
	r := tr.open()
	settle(t, tr, r)
	tr.Write("dir/early.txt", "e") // dir changes now: the next walk finds it racy
	if memoCheck(t, tr, r, "a file made") {
		t.Fatal("the memo stood for a new file")
	}
	m := r.loadUntrackedMemo()
	if m == nil || !m.Walked {
		t.Fatal("no memo made")
	}
	for _, d := range m.Dirs {
		if d.Path == "dir" && !d.Racy {
			t.Fatal("a directory changed a moment before the walk is not marked racy")
		}
	}
	// A new file, its directory's time set back to the one recorded (as a
	// coarse clock could leave it): the names still tell.
	fi, _ := os.Stat(tr.Path("dir"))
	tr.Write("dir/late.txt", "l")
	os.Chtimes(tr.Path("dir"), fi.ModTime(), fi.ModTime())
	if memoCheck(t, tr, r, "a file made in a racy directory") {
		t.Fatal("the memo stood for a racy directory's new file")
	}
}

// TestUntrackedMemoFollowsChanges: a memo brought up to date by one scan
// (directories read again, new ones walked, gone ones dropped) stands for
// the next read and sees the changes after it, each checked against git.
func TestUntrackedMemoFollowsChanges(t *testing.T) {
	tr := memoRepo(t)
	r := tr.open()
	settle(t, tr, r)
	for _, c := range []struct {
		what   string
		change func()
	}{
		{"empty directories made", func() { os.MkdirAll(tr.Path("dir/n1/n2"), 0o755) }},
		{"a file in the new empty directory", func() { tr.Write("dir/n1/n2/f.txt", "f") }},
		{"a file beside it", func() { tr.Write("dir/n1/g.txt", "g") }},
		{"the new directories removed", func() { os.RemoveAll(tr.Path("dir/n1")) }},
		{"a directory renamed and made again", func() {
			os.Rename(tr.Path("dir/sub"), tr.Path("dir/sub2"))
			tr.Write("dir/sub/c.go", "package c\n")
		}},
		{"a file in the renamed directory", func() { tr.Write("dir/sub2/h.txt", "h") }},
		{"a file in the directory made again", func() { tr.Write("dir/sub/i.txt", "i") }},
		{"a directory replaced by a file", func() {
			os.RemoveAll(tr.Path("dir/sub2"))
			tr.Write("dir/sub2", "now a file")
		}},
		{"a nested repository", func() { repoIn(t, tr.Path("dir/nested")) }},
		{"a file in the nested repository", func() { tr.Write("dir/nested/more.txt", "m") }},
	} {
		c.change()
		if memoCheck(t, tr, r, c.what) && c.what != "a file in the nested repository" {
			t.Errorf("%s: the memo stood", c.what)
		}
		if !memoCheck(t, tr, r, c.what+", read again") {
			t.Errorf("%s, read again: the memo brought up to date did not stand", c.what)
		}
	}
}

// TestUntrackedMemoRestamps: a memo whose directories were racy at the
// walk (a fresh clone's all are) keeps their newer times at the check
// that finds them settled, instead of reading them again at every check.
func TestUntrackedMemoRestamps(t *testing.T) {
	tr := memoRepo(t)
	for i := range memoRestampAt + 4 {
		tr.Write(fmt.Sprintf("pkg%d/f.go", i), "package p\n")
	}
	tr.Git("add", ".")
	tr.Git("commit", "-qm", "more")
	r := tr.open()
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{".gitignore", ".git/info/exclude"} {
		os.Chtimes(tr.Path(f), old, old)
	}
	memoCheck(t, tr, r, "first read")
	memoCheck(t, tr, r, "the walk") // every directory changed just now: racy
	racy := func() (n int) {
		for _, d := range r.loadUntrackedMemo().Dirs {
			if d.Racy {
				n++
			}
		}
		return n
	}
	if n := racy(); n <= memoRestampAt {
		t.Fatalf("%d racy directories after a walk of new ones", n)
	}
	// Their times set back (nothing else): the check stands and restamps.
	filepath.WalkDir(tr.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	if !memoCheck(t, tr, r, "the directories settled") {
		t.Fatal("the memo did not stand for directories only dated back")
	}
	if n := racy(); n != 0 {
		t.Fatalf("%d directories still racy after checks that found them settled", n)
	}
	if !memoCheck(t, tr, r, "settled") {
		t.Fatal("the memo did not stand")
	}
}

// TestUntrackedMemoGivesUp: a tree the memo cannot be made from (here a
// symlinked .gitignore, whose rules are git's own) is scanned at every
// read, and not walked again at each for a while.
func TestUntrackedMemoGivesUp(t *testing.T) {
	tr := memoRepo(t)
	if err := os.Symlink("../.gitignore", tr.Path("dir/.gitignore")); err != nil {
		t.Skip(err)
	}
	r := tr.open()
	settle(t, tr, r)
	m := r.loadUntrackedMemo()
	if m == nil || m.GaveUp.IsZero() || m.Walked {
		t.Fatalf("memo %+v: want one that gave up", m)
	}
	tr.Write("dir/new.txt", "n")
	if memoCheck(t, tr, r, "a new file beside a symlinked .gitignore") {
		t.Fatal("a memo stood for a tree it gave up on")
	}
}

// TestUntrackedMemoKeepsNoSecret: a file whose name holds what the
// redactor removes is never written into the memo; the tree is scanned
// each time instead, and still agrees with git.
func TestUntrackedMemoKeepsNoSecret(t *testing.T) {
	tr := memoRepo(t)
	r := tr.open()
	r.Redact = func(s string) string { return strings.ReplaceAll(s, "ghp_0123456789abcdef", "REDACTED") }
	tr.Write("ghp_0123456789abcdef.txt", "a token as a file name")
	settle(t, tr, r)
	if b, err := os.ReadFile(r.untrackedMemoPath()); err == nil && strings.Contains(string(b), "ghp_0123456789abcdef") {
		t.Fatal("the memo holds a secret file name")
	}
	if memoCheck(t, tr, r, "a secret file name") {
		t.Fatal("a memo stood for a tree it could not keep")
	}
	// Made once a memo is kept: only the new paths are checked, and it
	// is one of them.
	os.Remove(tr.Path("ghp_0123456789abcdef.txt"))
	settle(t, tr, r)
	if r.loadUntrackedMemo() == nil || !memoCheck(t, tr, r, "the secret file gone") {
		t.Fatal("no memo kept for a tree without a secret")
	}
	tr.Write("dir/ghp_0123456789abcdef", "again")
	memoCheck(t, tr, r, "a secret file name after the memo")
	memoCheck(t, tr, r, "a secret file name after the memo, read again")
	if b, err := os.ReadFile(r.untrackedMemoPath()); err == nil && strings.Contains(string(b), "ghp_0123456789abcdef") {
		t.Fatal("the memo holds a secret file name made after it")
	}
}
