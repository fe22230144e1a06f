package gitops

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A merge and a cherry-pick concluded by `git commit` after a conflict, in
// the main worktree and in a linked one, are the commits NotOwnCommits
// names; ordinary, amended and clean cherry-picked commits are not (a clean
// cherry-pick's reflog line says "cherry-pick: …", and its post-commit
// skips it while CHERRY_PICK_HEAD is still there).
func TestNotOwnCommitsFollowsTheReflog(t *testing.T) {
	tr := newRepo(t)
	tr.Commit("shared", map[string]string{"shared.txt": "base\n"})
	tr.Git("checkout", "-q", "-b", "side")
	side := tr.Commit("side: shared", map[string]string{"shared.txt": "side\n"})
	tr.Git("checkout", "-q", "main")
	own := tr.Commit("main: shared", map[string]string{"shared.txt": "main\n"})
	merged := concludeConflict(tr, "merge", "-q", "side")

	tr.Git("checkout", "-q", "-b", "picks", "main~1")
	tr.Commit("picks: shared", map[string]string{"shared.txt": "other\n"})
	picked := concludeConflict(tr, "cherry-pick", side)
	tr.Commit("to amend", map[string]string{"a.txt": "a\n"})
	tr.Git("commit", "-q", "--amend", "-m", "amended")
	amended := tr.Head()

	tr.Git("checkout", "-q", "-b", "extra", "main~1")
	extra := tr.Commit("extra", map[string]string{"b.txt": "b\n"})
	tr.Git("checkout", "-q", "picks")

	wt := filepath.Join(t.TempDir(), "wt")
	tr.Git("worktree", "add", "-q", "-b", "wt", wt, "main~1")
	w := repoAt(t, wt)
	w.Commit("wt: shared", map[string]string{"shared.txt": "wt\n"})
	wtPicked := concludeConflict(w, "cherry-pick", side)
	w.Git("cherry-pick", extra) // clean: "cherry-pick: …"
	clean := w.Head()

	all := []string{own, merged, picked, amended, wtPicked, clean, side, extra, "0123456789012345678901234567890123456789"}
	want := map[string]bool{merged: true, picked: true, wtPicked: true}
	for _, r := range []*Repo{tr.open(), w.open()} {
		got := r.NotOwnCommits(all)
		if len(got) != len(want) {
			t.Errorf("from %s: NotOwnCommits = %v, want %v", r.WorkTree, got, want)
		}
		for s := range want {
			if !got[s] {
				t.Errorf("from %s: %s (%s) not named", r.WorkTree, s, strings.TrimSpace(tr.Git("log", "-1", "--format=%s", s)))
			}
		}
	}
}

// concludeConflict runs a merge or cherry-pick that must conflict over
// shared.txt, resolves it and concludes it with a plain `git commit`; it
// returns the commit made.
func concludeConflict(tr *testRepo, args ...string) string {
	tr.T.Helper()
	if _, err := tr.GitErr(args...); err == nil {
		tr.T.Fatalf("git %v did not conflict", args)
	}
	tr.Write("shared.txt", "resolved\n")
	tr.Git("add", "shared.txt")
	tr.Git("commit", "-q", "--no-edit")
	return tr.Head()
}

// scanReflog reads every line, newest first, across its chunks, including
// the first and a torn last one.
func TestScanReflogReadsBackwardsAcrossChunks(t *testing.T) {
	var b strings.Builder
	var lines []string
	for i := range 3000 {
		id := fmt.Sprintf("%040d", i)
		msg := fmt.Sprintf("commit: change %d %s", i, strings.Repeat("x", i%97))
		lines = append(lines, id+"\t"+msg)
		fmt.Fprintf(&b, "%040d %s A U Thor <a@example.com> 1700000000 +0000\t%s\n", i, id, msg)
	}
	b.WriteString("1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 torn")
	path := filepath.Join(t.TempDir(), "HEAD")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	if read := scanReflog(path, reflogScanMax, nil, func(id, msg string) bool {
		got = append(got, id+"\t"+msg)
		return true
	}); read != int64(b.Len()) {
		t.Errorf("read %d bytes of %d", read, b.Len())
	}
	// A limit stops the reading at the chunk that reaches it.
	if read := scanReflog(path, 100<<10, nil, func(string, string) bool { return true }); read < 100<<10 || read >= 100<<10+64<<10 {
		t.Errorf("with a 100 KB limit, read %d bytes", read)
	}
	slices.Reverse(lines)
	if !slices.Equal(got, lines) {
		t.Fatalf("read %d lines, want %d; first %q, last %q", len(got), len(lines), got[0], got[len(got)-1])
	}
	var n int
	scanReflog(path, reflogScanMax, nil, func(string, string) bool { n++; return n < 5 })
	if n != 5 {
		t.Errorf("stopped after %d lines, want 5", n)
	}
}

func FuzzScanReflog(f *testing.F) {
	f.Add([]byte("a b c 1 +0000\tcommit: x\n"))
	f.Add([]byte("\n\n\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "HEAD")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			p := strings.SplitN(l, " ", 3)
			if len(p) < 3 || p[0] == "" || p[1] == "" {
				continue
			}
			if _, msg, ok := strings.Cut(p[2], "\t"); ok {
				want = append(want, p[1]+"\t"+msg)
			}
		}
		var got []string
		scanReflog(path, reflogScanMax, nil, func(id, msg string) bool { got = append(got, id+"\t"+msg); return true })
		slices.Reverse(want)
		if !slices.Equal(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
	})
}

// A recorded commit missing from a long reflog reads it up to
// reflogScanMax: the worst a landing pays.
func BenchmarkNotOwnCommitsMissing(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := range 50000 { // ~8 MB, of which reflogScanMax is read
		fmt.Fprintf(&sb, "%040d %040d A U Thor <a@example.com> 1700000000 +0000\tcommit: change number %d of a long history, its subject\n", i, i+1, i)
	}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", "HEAD"), []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	r := &Repo{GitDir: dir, CommonDir: dir}
	for b.Loop() {
		r.NotOwnCommits([]string{"ffffffffffffffffffffffffffffffffffffffff"})
	}
}
