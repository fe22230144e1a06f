package gitops

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Reading the vault tip's loose objects in process gives what git gives:
// the same files (absent ones absent, a directory or submodule at a path
// is no file), the same trees, the same listings as `git ls-tree -r`. Once
// git packs the objects, or a loose object does not hash to its name, the
// read goes through git.
func TestLooseReadsMatchGit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	sub := tr.GitTrim("rev-parse", "HEAD")
	// A tree with files, nested directories, a symlink and a submodule,
	// written loose (hash-object / mktree write loose objects).
	blob := func(s string) string {
		return strings.TrimSpace(tr.GitStdin([]byte(s), "hash-object", "-w", "--stdin"))
	}
	mktree := func(lines ...string) string {
		return strings.TrimSpace(tr.GitStdin([]byte(strings.Join(lines, "\n")+"\n"), "mktree"))
	}
	sessions := mktree("100644 blob "+blob("id: s1\n")+"\ts1.yaml", "100644 blob "+blob("id: s2\n")+"\ts2.yaml",
		"040000 tree "+mktree("100644 blob "+blob("deep\n")+"\tx.yaml")+"\tnested")
	root := mktree("100644 blob "+blob("- j\n")+"\tjournal.md", "040000 tree "+sessions+"\tsessions",
		"120000 blob "+blob("journal.md")+"\tlink.md", "160000 commit "+sub+"\tmod",
		"040000 tree "+mktree("100644 blob "+blob("b\n")+"\tmain.md")+"\tbridge")
	commit := strings.TrimSpace(tr.GitStdin([]byte("vault\n"), "commit-tree", root))

	paths := []string{"journal.md", "sessions/s1.yaml", "sessions/s2.yaml", "sessions/nested/x.yaml", "link.md", "mod",
		"sessions", "missing.md", "nowhere/x.md", "bridge/main.md", "journal.md/x"}
	r := tr.open()
	dirs := treeDirs(paths)
	lf, lt, ok := r.readVaultLoose(commit, dirs, paths)
	if !ok {
		t.Fatal("readVaultLoose: not read from loose objects")
	}
	pf, pt, err := r.readVaultPlumbing(ctx, commit, dirs, paths)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(lf, pf, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("files: loose %q, git %q", lf, pf)
	}
	if pt != nil {
		t.Fatal("git's reader gave trees with a file (journal.md) where a directory is asked for")
	}
	// Without the odd path both give the trees.
	dirs = treeDirs(paths[:len(paths)-1])
	if _, lt, ok = r.readVaultLoose(commit, dirs, paths[:len(paths)-1]); !ok {
		t.Fatal("readVaultLoose: not read from loose objects")
	}
	if _, pt, err = r.readVaultPlumbing(ctx, commit, dirs, paths[:len(paths)-1]); err != nil || pt == nil {
		t.Fatalf("readVaultPlumbing: %v, trees %v", err, pt)
	}
	if len(lt) != len(pt) {
		t.Errorf("trees: loose %d dirs, git %d", len(lt), len(pt))
	}
	for d, es := range pt {
		if !slices.Equal(lt[d], es) {
			t.Errorf("tree %q: loose %v, git %v", d, lt[d], es)
		}
	}
	for _, dir := range []string{"", "sessions", "sessions/", "sessions/nested", "bridge", "missing", "journal.md"} {
		got, ok := r.listLoose(commit, dir)
		if !ok {
			t.Fatalf("listLoose(%q): not read from loose objects", dir)
		}
		args := []string{"ls-tree", "-r", "-z", "--name-only", commit}
		if dir != "" {
			args = append(args, "--", strings.TrimSuffix(dir, "/")+"/")
		}
		var want []string
		for _, p := range strings.Split(tr.Git(args...), "\x00") {
			if p != "" {
				want = append(want, p)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("listLoose(%q) = %q, ls-tree %q", dir, got, want)
		}
	}

	// A loose object that does not hash to its name is not read.
	bad := blob("will be damaged\n")
	badRoot := mktree("100644 blob " + bad + "\tjournal.md")
	badCommit := strings.TrimSpace(tr.GitStdin([]byte("vault\n"), "commit-tree", badRoot))
	other := filepath.Join(tr.Dir, ".git", "objects", blob("- j\n")[:2], blob("- j\n")[2:])
	victim := filepath.Join(tr.Dir, ".git", "objects", bad[:2], bad[2:])
	data, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(victim, 0o644)
	if err := os.WriteFile(victim, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.readVaultLoose(badCommit, treeDirs([]string{"journal.md"}), []string{"journal.md"}); ok {
		t.Error("a loose object that does not hash to its name was read")
	}
	if _, _, err := (&looseObjects{dir: filepath.Join(tr.Dir, ".git", "objects")}).read(plumbing.NewHash(bad)); err == nil {
		t.Error("read: no error for a damaged object")
	}
	os.Remove(victim)

	// Packed: read through git, the same.
	tr.Git("update-ref", VaultRef, commit)
	tr.Git("gc", "-q", "--prune=now")
	if _, _, ok := r.readVaultLoose(commit, dirs, paths); ok {
		t.Fatal("read packed objects as loose")
	}
	if _, ok := r.listLoose(commit, "sessions"); ok {
		t.Fatal("listed packed objects as loose")
	}
	r2 := tr.open()
	files, err := r2.ReadVaultFiles(ctx, commit, paths)
	if err != nil || !maps.EqualFunc(files, pf, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("ReadVaultFiles after gc = %q, %v; want %q", files, err, pf)
	}
	listed, err := r2.ListFiles(ctx, commit, "sessions/")
	if err != nil || len(listed) != 3 {
		t.Errorf("ListFiles after gc = %q, %v", listed, err)
	}
}

// The vault's history read from loose objects is what `git log` gives:
// subjects, committer dates in their own zone, trailers. A merge within
// reach, a subject git would join from two lines, or packed objects, and
// git is asked.
func TestVaultLogLooseMatchesGit(t *testing.T) {
	t.Setenv("GIT_COMMITTER_DATE", "1700000000 +0530")
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	for i, text := range []string{"- one\n", "- two\n", "- three\n"} {
		req := vaultRequest(text)
		if i == 1 {
			req.Message = func([]string) string {
				return "progress: two\n\nBody line.\n\nScribe-Mode: journal\nScribe-Fingerprint: abc123\n"
			}
		}
		if _, err := r.CommitPaths(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	tip := tr.GitTrim("rev-parse", VaultRef)
	got, ok := r.vaultLogLoose(tip, 50)
	if !ok {
		t.Fatal("vaultLogLoose: not read from loose objects")
	}
	r.noLoose = true
	want, err := r.VaultLog(ctx, tip, 50)
	r.noLoose = false
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) != 3 {
		t.Fatalf("loose %d commits, git %d", len(got), len(want))
	}
	for i := range want {
		if got[i].SHA != want[i].SHA || got[i].Subject != want[i].Subject || got[i].Date != want[i].Date ||
			!maps.Equal(got[i].Trailers, want[i].Trailers) {
			t.Errorf("commit %d: loose %+v, git %+v", i, got[i], want[i])
		}
	}
	if got[1].Trailers["Scribe-Fingerprint"] != "abc123" || !strings.HasSuffix(got[0].Date, "+05:30") {
		t.Errorf("trailers %v, date %s", got[1].Trailers, got[0].Date)
	}
	if cs, ok := r.vaultLogLoose(tip, 2); !ok || len(cs) != 2 {
		t.Errorf("bounded walk = %d commits, %v", len(cs), ok)
	}

	// A subject over two lines: git joins them, so git reads it.
	two := strings.TrimSpace(tr.GitStdin([]byte("first\nsecond\n\nbody\n"), "commit-tree", tip+"^{tree}", "-p", tip))
	if _, ok := r.vaultLogLoose(two, 50); ok {
		t.Error("a two-line subject was read in process")
	}
	merge := strings.TrimSpace(tr.GitStdin([]byte("merge\n"), "commit-tree", tip+"^{tree}", "-p", tip, "-p", tip+"~1"))
	if _, ok := r.vaultLogLoose(merge, 50); ok {
		t.Error("a merge was walked in process")
	}
	if cs, err := r.VaultLog(ctx, merge, 50); err != nil || len(cs) != 4 || cs[0].Subject != "merge" {
		t.Errorf("VaultLog of a merge = %+v, %v", cs, err)
	}
	tr.Git("gc", "-q", "--prune=now")

	// Packed, the history the last read found is kept: a new commit on
	// top is read loose, the rest from what was kept — as git gives it.
	if _, err := r.CommitPaths(ctx, vaultRequest("- four\n")); err != nil {
		t.Fatal(err)
	}
	tip = tr.GitTrim("rev-parse", VaultRef)
	fresh := tr.open()
	got, ok = fresh.vaultLogLoose(tip, 50)
	fresh.noLoose = true
	want, err = fresh.vaultLog(ctx, fresh.Git, tip, 50)
	if err != nil || !ok || len(got) != 4 || len(want) != 4 {
		t.Fatalf("after gc: kept %d commits (%v), git %d (%v)", len(got), ok, len(want), err)
	}
	for i := range want {
		if got[i].SHA != want[i].SHA || got[i].Subject != want[i].Subject || got[i].Date != want[i].Date ||
			!maps.Equal(got[i].Trailers, want[i].Trailers) {
			t.Errorf("after gc, commit %d: kept %+v, git %+v", i, got[i], want[i])
		}
	}
	// Damaged, the kept history is not there: packed commits are git's.
	path := fresh.vaultLogPath()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 1
	os.WriteFile(path, b, 0o644)
	tr.Git("gc", "-q", "--prune=now")
	if _, ok := tr.open().vaultLogLoose(tip, 50); ok {
		t.Error("packed commits read in process from a damaged kept history")
	}
}

// A path with a newline is one request of cat-file's line-based batch no
// more: read on its own, it leaves the answers to the other paths theirs.
func TestReadVaultPlumbingPathWithANewline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	odd := "notes/a\nb.md"
	blob := func(s string) string {
		return strings.TrimSpace(tr.GitStdin([]byte(s), "hash-object", "-w", "--stdin"))
	}
	notes := strings.TrimSpace(tr.GitStdin([]byte("100644 blob "+blob("odd\n")+"\ta\nb.md\x00100644 blob "+blob("plain\n")+"\tb.md\x00"), "mktree", "-z"))
	root := strings.TrimSpace(tr.GitStdin([]byte("040000 tree "+notes+"\tnotes\n100644 blob "+blob("j\n")+"\tjournal.md\n"), "mktree"))
	commit := strings.TrimSpace(tr.GitStdin([]byte("vault\n"), "commit-tree", root))
	r := tr.open()
	paths := []string{"journal.md", odd, "notes/b.md", "notes/a"}
	files, _, err := r.readVaultPlumbing(ctx, commit, treeDirs(paths), paths)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"journal.md": []byte("j\n"), odd: []byte("odd\n"), "notes/b.md": []byte("plain\n")}
	if !maps.EqualFunc(files, want, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("files = %q, want %q", files, want)
	}
}

// A listing and a history read at a commit id are read once per Repo: a
// prefetch and its use share them, whichever reader served them (here the
// objects are gone for the second call, which a second read would need).
func TestImmutableReadsAreReadOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	if _, err := r.CommitPaths(ctx, vaultRequest("- one\n")); err != nil {
		t.Fatal(err)
	}
	tip := tr.GitTrim("rev-parse", VaultRef)
	files, err := r.ListFiles(ctx, tip, "")
	if err != nil || len(files) != 1 {
		t.Fatalf("ListFiles = %q, %v", files, err)
	}
	log, err := r.VaultLog(ctx, tip, 50)
	if err != nil || len(log) != 1 {
		t.Fatalf("VaultLog = %+v, %v", log, err)
	}
	objects := filepath.Join(tr.Dir, ".git", "objects")
	os.Rename(objects, objects+".away")
	defer os.Rename(objects+".away", objects)
	again, err := r.ListFiles(ctx, tip, "")
	if err != nil || !slices.Equal(again, files) {
		t.Errorf("second ListFiles = %q, %v: read again", again, err)
	}
	again[0] = "changed by a caller"
	if l, _ := r.ListFiles(ctx, tip, ""); l[0] == "changed by a caller" {
		t.Error("a caller's change reached the kept listing")
	}
	if l, err := r.VaultLog(ctx, tip, 50); err != nil || len(l) != 1 || l[0].SHA != log[0].SHA {
		t.Errorf("second VaultLog = %+v, %v: read again", l, err)
	}
}

// TestVaultPathHistoryMatchesGit pins VaultPathHistory to what it stands in
// for, `git log -z -m --raw --full-history [--since] tip -- paths`: commits
// that add, edit, chmod, delete and re-add the journal and its archive, and
// commits that touch neither, each a second apart, cut at every date.
func TestVaultPathHistoryMatchesGit(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	blob := func(s string) string {
		return strings.TrimSpace(tr.GitStdin([]byte(s), "hash-object", "-w", "--stdin"))
	}
	mktree := func(lines ...string) string {
		return strings.TrimSpace(tr.GitStdin([]byte(strings.Join(lines, "\n")+"\n"), "mktree"))
	}
	j := func(s string) string { return "100644 blob " + blob(s) + "\tjournal.md" }
	a := func(mode, s string) string { return mode + " blob " + blob(s) + "\tjournal-archive.md" }
	other := func(s string) string {
		return "040000 tree " + mktree("100644 blob "+blob(s)+"\ts1.yaml") + "\tsessions"
	}
	trees := [][]string{
		{other("0")},                                   // root without either path
		{j("- a\n"), other("0")},                       // journal added
		{j("- a\n"), other("1")},                       // neither changed
		{j("- a\n- b\n"), other("1")},                  // journal edited
		{j("- b\n"), a("100644", "- a\n"), other("1")}, // archived
		{j("- b\n"), a("100755", "- a\n"), other("1")}, // archive's mode only
		{a("100755", "- a\n"), other("2")},             // journal deleted
		{j("- c\n"), a("100755", "- a\n"), other("2")}, // journal back
	}
	env := func(i int) []string {
		d := fmt.Sprintf("%d +0200", 1700000000+i)
		return []string{"GIT_COMMITTER_DATE=" + d, "GIT_AUTHOR_DATE=" + d}
	}
	tip := ""
	var dates []string
	for i, lines := range trees {
		args := []string{"commit-tree", mktree(lines...)}
		if tip != "" {
			args = append(args, "-p", tip)
		}
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = tr.Dir, append(os.Environ(), env(i)...), strings.NewReader(fmt.Sprintf("v%d\n", i))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		tip = strings.TrimSpace(string(out))
		dates = append(dates, time.Unix(int64(1700000000+i), 0).In(time.FixedZone("", 2*3600)).Format(time.RFC3339))
	}
	paths := []string{"journal.md", "journal-archive.md"}
	r := tr.open()
	// Six commits change a path; the cut at commit i's date keeps those
	// from i on.
	changed := []int{6, 6, 5, 5, 4, 3, 2, 1}
	for i, since := range append([]string{""}, dates...) {
		got, ok := r.VaultPathHistory(tip, since, paths, 0)
		if !ok {
			t.Fatalf("since %q: not read from loose objects", since)
		}
		if len(got) != changed[max(i-1, 0)] {
			t.Errorf("since %q: %d commits, want %d", since, len(got), changed[max(i-1, 0)])
		}
		args := []string{"log", "-z", "-m", "--raw", "--no-abbrev", "--full-history", "--format=%x1e%H %P"}
		if since != "" {
			args = append(args, "--since="+since)
		}
		want, err := ParseRawLog(tr.Git(append(args, tip, "--", paths[0], paths[1])...))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("since %q:\n loose %+v\n git   %+v", since, got, want)
		}
	}
	// A chain longer than the limit is git's; one within it is read.
	if _, ok := r.VaultPathHistory(tip, "", paths, len(trees)-1); ok {
		t.Errorf("a chain of %d commits was read under a limit of %d", len(trees), len(trees)-1)
	}
	if _, ok := r.VaultPathHistory(tip, "", paths, len(trees)); !ok {
		t.Errorf("a chain of %d commits was not read under a limit of as many", len(trees))
	}
	// What is not a chain of loose plain files is git's.
	merge := strings.TrimSpace(tr.GitStdin([]byte("m\n"), "commit-tree", mktree(j("- m\n")), "-p", tip, "-p", tip+"~1"))
	if _, ok := r.VaultPathHistory(merge, "", paths, 0); ok {
		t.Error("a merge was read, not left to git")
	}
	dir := strings.TrimSpace(tr.GitStdin([]byte("d\n"), "commit-tree", mktree("040000 tree "+mktree(j("- x\n"))+"\tjournal.md"), "-p", tip))
	if _, ok := r.VaultPathHistory(dir, "", paths, 0); ok {
		t.Error("a directory at journal.md was read, not left to git")
	}
	tr.Git("update-ref", "refs/scribe/test", tip)
	tr.Git("gc", "-q")
	if _, ok := r.VaultPathHistory(tip, "", paths, 0); ok {
		t.Error("packed commits were read, not left to git")
	}
}
