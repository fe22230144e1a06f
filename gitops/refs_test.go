package gitops

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestWorktreeChangesAgreeWithFullDiffs compares the status-first read of
// the work tree with the three whole-tree reads it replaced (diff --cached,
// diff, ls-files --others), on a tree with every kind of change: staged
// and unstaged edits of one file, additions, deletions, a staged rename, a
// binary file, odd names, untracked files in new directories, an excluded
// path; and on an unborn branch.
func TestWorktreeChangesAgreeWithFullDiffs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	compare := func(t *testing.T, tr *testRepo, stagedAgainst string, exclude []string) {
		t.Helper()
		r := tr.open()
		staged, unstaged, untracked, err := r.worktreeChanges(ctx, exclude, stagedAgainst)
		if err != nil {
			t.Fatal(err)
		}
		wantStaged, err := r.diff(ctx, exclude, "--cached", stagedAgainst)
		if err != nil {
			t.Fatal(err)
		}
		wantUnstaged, err := r.diff(ctx, exclude)
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Git(ctx, append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--", "."}, excludeSpecs(exclude)...)...)
		if err != nil {
			t.Fatal(err)
		}
		var wantUntracked []string
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				wantUntracked = append(wantUntracked, p)
			}
		}
		sortFC := func(fs []FileChange) []FileChange {
			slices.SortFunc(fs, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
			return fs
		}
		slices.Sort(untracked)
		slices.Sort(wantUntracked)
		if !reflect.DeepEqual(sortFC(staged), sortFC(wantStaged)) {
			t.Errorf("staged:\n got %+v\nwant %+v", staged, wantStaged)
		}
		if !reflect.DeepEqual(sortFC(unstaged), sortFC(wantUnstaged)) {
			t.Errorf("unstaged:\n got %+v\nwant %+v", unstaged, wantUnstaged)
		}
		if !slices.Equal(untracked, wantUntracked) {
			t.Errorf("untracked:\n got %q\nwant %q", untracked, wantUntracked)
		}
		if t.Failed() {
			t.Logf("git status:\n%s", tr.Git("status", "--short"))
		}
	}
	t.Run("every kind of change", func(t *testing.T) {
		tr := newRepo(t)
		tr.Commit("base", map[string]string{
			"keep.txt": "1\n2\n3\n", "both.txt": "a\nb\n", "gone.txt": "x\n", "staged-gone.txt": "y\n",
			"old name.txt": strings.Repeat("rename me\n", 20), "dir/deep.go": "package dir\n", "own/journal.md": "j\n",
		})
		tr.Write("both.txt", "a\nb\nstaged\n")
		tr.Git("add", "both.txt")
		tr.Write("both.txt", "a\nb\nstaged\nunstaged\n")
		tr.Write("keep.txt", "1\n2\n3\n4\n")
		tr.Git("rm", "-q", "staged-gone.txt")
		if err := os.Remove(tr.Path("gone.txt")); err != nil {
			t.Fatal(err)
		}
		tr.Git("mv", "old name.txt", "new name.txt")
		tr.Write("added.txt", "new\n")
		tr.Write("bin.dat", "\x00\x01\x02binary")
		tr.Git("add", "added.txt", "bin.dat")
		tr.Write("új/ünïcode.txt", "u\n")
		tr.Write("new/dir/a.txt", "a\n")
		tr.Write("own/journal.md", "changed\n")
		tr.Write("own/untracked.md", "u\n")
		compare(t, tr, tr.Head(), []string{"own/journal.md", "own/untracked.md"})
		compare(t, tr, tr.Head(), nil)
	})
	t.Run("intent to add, a type change, an executable bit", func(t *testing.T) {
		tr := newRepo(t)
		tr.Commit("base", map[string]string{"link-later.txt": "x\n", "script.sh": "echo\n", "mode.txt": "m\n"})
		tr.Write("ita.txt", "intent\n")
		tr.Git("add", "-N", "ita.txt")
		if err := os.Remove(tr.Path("link-later.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("script.sh", tr.Path("link-later.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(tr.Path("mode.txt"), 0o755); err != nil {
			t.Fatal(err)
		}
		compare(t, tr, tr.Head(), nil)
	})
	t.Run("a conflicted merge", func(t *testing.T) {
		tr := newRepo(t)
		tr.Commit("base", map[string]string{"c.txt": "base\n"})
		tr.Git("checkout", "-q", "-b", "other")
		tr.Commit("theirs", map[string]string{"c.txt": "theirs\n"})
		tr.Git("checkout", "-q", "main")
		tr.Commit("ours", map[string]string{"c.txt": "ours\n"})
		tr.GitErr("merge", "-q", "other") // conflicts on purpose
		compare(t, tr, tr.Head(), nil)
	})
	t.Run("clean", func(t *testing.T) {
		tr := newRepo(t)
		compare(t, tr, tr.Head(), nil)
	})
	t.Run("unborn", func(t *testing.T) {
		tr := newRepo(t)
		tr.Git("checkout", "-q", "--orphan", "fresh")
		tr.Write("more.txt", "m\n")
		tr.Git("add", "more.txt")
		tr.Write("loose.txt", "l\n")
		compare(t, tr, EmptyTree, nil)
	})
}

// TestListFilesFiltersTheWholeListing checks that a directory's listing
// derived from a cached whole-tree listing is what git lists for it.
func TestListFilesFiltersTheWholeListing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	tip := tr.Commit("tree", map[string]string{"bridge/main.md": "m", "bridge/x/y.md": "y", "bridgework.md": "w", "sessions/a.yaml": "a"})
	r := tr.open()
	want, err := r.ListFiles(ctx, tip, "bridge/")
	if err != nil {
		t.Fatal(err)
	}
	r = tr.open()
	if _, err := r.ListFiles(ctx, tip, ""); err != nil {
		t.Fatal(err)
	}
	got, err := r.ListFiles(ctx, tip, "bridge")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("from the whole listing %q, from git %q", got, want)
	}
}

// TestReachableAgreesWithMergeBase compares the one-process reachability
// of many commits with merge-base --is-ancestor for each: ancestors of
// HEAD, commits of another branch, HEAD itself, an unknown id.
func TestReachableAgreesWithMergeBase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	var all []string
	for i := range 5 {
		all = append(all, tr.Commit("main "+strconv.Itoa(i), map[string]string{"m.txt": strconv.Itoa(i)}))
	}
	tr.Git("checkout", "-q", "-b", "side", all[1])
	for i := range 3 {
		all = append(all, tr.Commit("side "+strconv.Itoa(i), map[string]string{"s.txt": strconv.Itoa(i)}))
	}
	tr.Git("checkout", "-q", "main")
	head := tr.Head()
	r := tr.open()
	got := r.Reachable(ctx, head, all)
	for _, c := range all {
		if want := r.IsAncestor(ctx, c, head); got[c] != want {
			t.Errorf("Reachable[%s] = %v, merge-base says %v", c[:8], got[c], want)
		}
	}
	unknown := strings.Repeat("ab", 20)
	if got := r.Reachable(ctx, head, append(all, unknown)); got[unknown] || !got[all[0]] || got[all[6]] {
		t.Errorf("with an unknown id: %v", got)
	}
}

// TestCommitInfosWithAMissingCommit pins the fallback of CommitInfos: one
// `git show` when every commit is there, and when one is gone (gc after an
// amend), the others still read and the gone one marked Missing.
func TestCommitInfosWithAMissingCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	c := tr.Commit("two files", map[string]string{"a.txt": "a\nb\n", "b.txt": "c\n"})
	gone := strings.Repeat("0123456789", 4)
	r := tr.open()
	for _, shas := range [][]string{{c}, {c, gone}} {
		infos, err := r.CommitInfos(ctx, shas)
		if err != nil {
			t.Fatalf("%v: %v", shas, err)
		}
		if ci := infos[c]; ci.Missing || ci.Subject != "two files" || ci.Added != 3 || len(ci.Files) != 2 {
			t.Errorf("%v: info of %s = %+v", shas, c[:8], ci)
		}
		if len(shas) == 2 && !infos[gone].Missing {
			t.Errorf("the gone commit is not marked missing: %+v", infos[gone])
		}
	}
}

// TestNoLockRefsAgreesWithGit checks the files-only answer to "are there
// lock refs?" against git in each state: none, a loose one, a packed one.
func TestNoLockRefsAgreesWithGit(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	gitSays := func() bool { return strings.TrimSpace(tr.Git("for-each-ref", LockRefPrefix)) == "" }
	if !r.noLockRefs() || !gitSays() {
		t.Fatalf("fresh repository: files say none=%v, git none=%v", r.noLockRefs(), gitSays())
	}
	tr.Git("update-ref", LockRefPrefix+"wrap", tr.Head())
	if r.noLockRefs() || gitSays() {
		t.Errorf("a loose lock: files say none=%v", r.noLockRefs())
	}
	tr.Git("pack-refs", "--all")
	if r.noLockRefs() || gitSays() {
		t.Errorf("a packed lock: files say none=%v", r.noLockRefs())
	}
	tr.Git("update-ref", "-d", LockRefPrefix+"wrap")
	if !r.noLockRefs() || !gitSays() {
		t.Errorf("deleted: files say none=%v, git none=%v", r.noLockRefs(), gitSays())
	}
}

// TestWorktreeChangesLeaveTheIndexAlone pins that reading the work tree
// never writes the user's index (a `git commit` starting meanwhile would
// fail on index.lock): files whose stat data changed but whose content did
// not, beside real edits, staged and unstaged.
func TestWorktreeChangesLeaveTheIndexAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	files := map[string]string{}
	n := maxLimitedDiff + 20 // more changes than are named to git one by one
	for i := range n {
		files["f"+strconv.Itoa(i)+".txt"] = "line\n"
	}
	tr.Commit("files", files)
	for i := 3; i < maxLimitedDiff+4; i++ {
		tr.Write("f"+strconv.Itoa(i)+".txt", "changed\n")
	}
	tr.Write("f1.txt", "changed\n")
	tr.Write("f2.txt", "staged\n")
	tr.Git("add", "f2.txt")
	tr.Write("f2.txt", "staged and more\n")
	// A copy of the repository: every entry's stat data (inode, times)
	// disagrees with the index, as after cp -r or a backup restore, so
	// `git diff` refreshes the index and writes it back (strace shows
	// index.lock taken even with GIT_OPTIONAL_LOCKS=0).
	dir := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-r", tr.Dir, dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	tr = repoAt(t, dir)
	index := filepath.Join(dir, ".git", "index")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(index, old, old); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(index)
	staged, unstaged, _, err := tr.open().worktreeChanges(ctx, nil, tr.Head())
	if err != nil {
		t.Fatal(err)
	}
	if len(staged) != 1 || staged[0].Path != "f2.txt" || len(unstaged) != maxLimitedDiff+3 {
		t.Errorf("staged %+v, %d unstaged; want f2.txt staged, %d unstaged", staged, len(unstaged), maxLimitedDiff+3)
	}
	after, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	fi2, _ := os.Stat(index)
	if !bytes.Equal(before, after) || !fi.ModTime().Equal(fi2.ModTime()) {
		t.Errorf("the index was rewritten (%d -> %d bytes, %v -> %v)", len(before), len(after), fi.ModTime(), fi2.ModTime())
	}
}

func FuzzParseStatusV2(f *testing.F) {
	f.Add([]byte("1 .M N... 100644 100644 100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 a b.txt\x00? new file\x00"))
	f.Add([]byte("u UU N... 100644 100644 100644 100644 1111111111111111111111111111111111111111 2222222222222222222222222222222222222222 3333333333333333333333333333333333333333 c.txt\x00"))
	f.Add([]byte("! ignored\x00# branch.oid x\x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, in []byte) {
		st, err := parseStatusV2(in)
		if err != nil {
			return
		}
		// Every path it returns stands in the input.
		for _, list := range [][]string{st.staged, st.unstaged, st.untracked} {
			for _, p := range list {
				if !bytes.Contains(in, []byte(p)) {
					t.Errorf("path %q is not in the input %q", p, in)
				}
			}
		}
	})
}

func FuzzPackedRef(f *testing.F) {
	f.Add("# pack-refs with: peeled fully-peeled sorted \n" + strings.Repeat("a", 40) + " refs/heads/main\n")
	f.Add(strings.Repeat("b", 40) + " refs/scribe/vault\n^" + strings.Repeat("c", 40) + "\n")
	f.Add("garbage refs/heads/main\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(dir, "packed-refs")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"refs/heads/main", "refs/scribe/vault"} {
			id, found, ok := packedRef(path, name)
			if found && (!ok || !isObjectID(id)) {
				t.Errorf("packedRef(%q) = %q, found %v, ok %v: found must be a valid id", content, id, found, ok)
			}
			if found && !strings.Contains(content, id+" "+name) {
				t.Errorf("packedRef(%q) = %q, not a line of the file", content, id)
			}
		}
	})
}

// gitImmutable runs one git process for calls with the same arguments,
// concurrent ones included (a prefetch and its user): the later ones wait.
func TestGitImmutableRunsOncePerArguments(t *testing.T) {
	tr := newRepo(t)
	r := tr.open()
	tip := tr.Head()
	before := countGitSteps(t, func() {
		var wg sync.WaitGroup
		outs := make([][]byte, 8)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i], _ = r.gitImmutable(context.Background(), "log", "-1", "--format=%H", tip)
			}()
		}
		wg.Wait()
		for _, o := range outs {
			if strings.TrimSpace(string(o)) != tip {
				t.Errorf("a caller got %q", o)
			}
		}
	})
	if before != 1 {
		t.Errorf("8 concurrent calls ran %d git processes, want 1", before)
	}
}

// countGitSteps counts the git processes (and file writes) fn runs.
func countGitSteps(t *testing.T, fn func()) int64 {
	t.Helper()
	was := traceGit
	traceGit = true
	defer func() { traceGit = was }()
	start := faultSteps.Load()
	fn()
	return faultSteps.Load() - start
}
