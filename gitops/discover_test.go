package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/internal/gittest"
)

func TestDiscover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	type want struct{ workTree, gitDir, commonDir string }
	tests := []struct {
		name  string
		setup func(t *testing.T) (dir string, w want)
	}{
		{
			name: "top level",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				g := filepath.Join(tr.Dir, ".git")
				return tr.Dir, want{tr.Dir, g, g}
			},
		},
		{
			name: "from a subdirectory",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				sub := tr.Path("a/b/c")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				g := filepath.Join(tr.Dir, ".git")
				return sub, want{tr.Dir, g, g}
			},
		},
		{
			name: "linked worktree",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				wt := filepath.Join(filepath.Dir(tr.Dir), "wt")
				tr.Git("worktree", "add", "-q", "-b", "feature", wt)
				g := filepath.Join(tr.Dir, ".git")
				return wt, want{wt, filepath.Join(g, "worktrees", "wt"), g}
			},
		},
		{
			name: "subdirectory of a linked worktree",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				wt := filepath.Join(filepath.Dir(tr.Dir), "wt2")
				tr.Git("worktree", "add", "-q", "-b", "feature2", wt)
				sub := filepath.Join(wt, "deep", "er")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				g := filepath.Join(tr.Dir, ".git")
				return sub, want{wt, filepath.Join(g, "worktrees", "wt2"), g}
			},
		},
		{
			name: "extensions.worktreeConfig",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				tr.Git("config", "core.repositoryformatversion", "1")
				tr.Git("config", "extensions.worktreeConfig", "true")
				g := filepath.Join(tr.Dir, ".git")
				return tr.Dir, want{tr.Dir, g, g}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, w := tt.setup(t)
			r, err := Discover(ctx, dir)
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			got := want{r.WorkTree, r.GitDir, r.CommonDir}
			if got != w {
				t.Errorf("Discover(%s) = %+v, want %+v", dir, got, w)
			}
			if r.ScribeDir() != filepath.Join(w.commonDir, "scribe") {
				t.Errorf("ScribeDir = %s, want it under the common dir %s", r.ScribeDir(), w.commonDir)
			}
		})
	}
}

func TestDiscoverNotARepo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T) string
	}{
		{"plain directory", func(t *testing.T) string { return t.TempDir() }},
		{"bare repository", func(t *testing.T) string {
			dir := filepath.Join(t.TempDir(), "bare.git")
			gittest.GitIn(t, filepath.Dir(dir), "init", "-q", "--bare", dir)
			return dir
		}},
		{"inside the .git dir", func(t *testing.T) string {
			return filepath.Join(newRepo(t).Dir, ".git")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Discover(ctx, tt.setup(t))
			if !errors.Is(err, ErrNotARepo) {
				t.Fatalf("Discover = %+v, %v; want an error wrapping ErrNotARepo", r, err)
			}
		})
	}
}

// go-git's repository layer refuses extensions.worktreeConfig (left behind by
// sparse-checkout and agent worktree isolation); discovery and reads must
// keep working, whichever read path serves them.
func TestWorktreeConfigRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	files := map[string]string{
		".claude/sonmat/journal.md": "# Journal\n\n- one\n",
		"progress.md":               "- [ ] task\n",
		"bin.dat":                   "a\x00b\x00c",
	}
	head := tr.Commit("vault", files)
	tr.Git("config", "core.repositoryformatversion", "1")
	tr.Git("config", "extensions.worktreeConfig", "true")
	tr.Git("config", "--worktree", "core.sparseCheckout", "false")

	r := tr.open()
	paths := []string{".claude/sonmat/journal.md", "progress.md", "bin.dat", "missing.md", ".claude"}
	want := map[string][]byte{}
	for p := range files {
		want[p] = []byte(tr.Git("show", head+":"+p))
	}
	got, err := r.ReadFiles(ctx, head, paths)
	if err != nil {
		t.Fatalf("ReadFiles: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadFiles = %q, want (git show) %q", got, want)
	}
	viaPlumbing, err := r.readFilesPlumbing(ctx, head, paths)
	if err != nil || !reflect.DeepEqual(viaPlumbing, want) {
		t.Errorf("plumbing read = %q, %v; want %q", viaPlumbing, err, want)
	}
	h, err := r.Head(ctx)
	if err != nil || h.Commit != head || h.Ref != "refs/heads/main" {
		t.Errorf("Head = %+v, %v; want main at %s", h, err, head)
	}
	// And a scribe commit works there too.
	if _, err := r.CommitPaths(ctx, journalRequest("- two\n")); err != nil {
		t.Fatalf("CommitPaths: %v", err)
	}
	if got := tr.Git("show", "HEAD:"+journal); got != files[journal]+"- two\n" {
		t.Errorf("journal after CommitPaths = %q", got)
	}
	tr.fsck()
}

// When go-git cannot serve a read, ReadFiles falls back to plumbing and
// still returns exactly what `git show` does.
func TestReadFilesFallsBackToPlumbing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		bug   string
		setup func(t *testing.T) (tr *testRepo, rev string)
	}{
		{"objects only in an alternate (clone --shared)", "", func(t *testing.T) (*testRepo, string) {
			src := newRepo(t)
			src.Commit("vault", map[string]string{journal: "shared\n"})
			dst := filepath.Join(filepath.Dir(src.Dir), "shared-clone")
			gittest.GitIn(t, filepath.Dir(src.Dir), "clone", "-q", "--shared", src.Dir, dst)
			tr := repoAt(t, dst)
			return tr, tr.Head()
		}},
		{"new commit local, its unchanged subtrees in an alternate", "go-git reports a path whose tree or blob it cannot load as absent instead of failing", func(t *testing.T) (*testRepo, string) {
			src := newRepo(t)
			src.Commit("vault", map[string]string{journal: "- old entry\n"})
			dst := filepath.Join(filepath.Dir(src.Dir), "shared-clone")
			gittest.GitIn(t, filepath.Dir(src.Dir), "clone", "-q", "--shared", src.Dir, dst)
			tr := repoAt(t, dst)
			tr.Commit("unrelated", map[string]string{"x.md": "x\n"})
			return tr, tr.Head()
		}},
		{"a revision that is not an object id", "", func(t *testing.T) (*testRepo, string) {
			tr := newRepo(t)
			tr.Commit("vault", map[string]string{journal: "by name\n"})
			return tr, "HEAD"
		}},
		{"sha256 repository", "", func(t *testing.T) (*testRepo, string) {
			dir := filepath.Join(t.TempDir(), "sha256")
			gittest.GitIn(t, filepath.Dir(dir), "init", "-q", "--object-format=sha256", dir)
			real, _ := filepath.EvalSymlinks(dir)
			tr := repoAt(t, real)
			tr.Commit("vault", map[string]string{journal: "sha256\n", "README.md": "r\n"})
			return tr, tr.Head()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, rev := tt.setup(t)
			r := tr.open()
			if st := r.objects(); st == nil {
				t.Log("go-git is not used for this repository: plumbing serves it")
			} else if _, err := readFilesGoGit(st, tr.GitTrim("rev-parse", rev), []string{journal}); err != nil {
				t.Logf("go-git cannot serve this read (%v): the fallback is exercised", err)
			}
			got, err := r.ReadFiles(ctx, rev, []string{journal, "README.md", "nope"})
			if err != nil {
				t.Fatalf("ReadFiles: %v", err)
			}
			want := map[string][]byte{
				journal:     []byte(tr.Git("show", rev+":"+journal)),
				"README.md": []byte(tr.Git("show", rev+":README.md")),
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReadFiles = %q, want %q", got, want)
			}
		})
	}
}

// An append-only journal must never be truncated because go-git could read
// the commit but not the journal's blob (objects in an alternate, as in
// `git clone --shared/--reference`): "absent" must not be guessed.
func TestCommitPathsWithObjectsInAnAlternate(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	src.Commit("vault", map[string]string{journal: "- old entry\n"})
	dst := filepath.Join(filepath.Dir(src.Dir), "shared-clone")
	gittest.GitIn(t, filepath.Dir(src.Dir), "clone", "-q", "--shared", src.Dir, dst)
	tr := repoAt(t, dst)
	tr.Commit("unrelated", map[string]string{"x.md": "x\n"})
	if _, err := tr.open().CommitPaths(context.Background(), journalRequest("- new entry\n")); err != nil {
		t.Fatalf("CommitPaths: %v", err)
	}
	if got := tr.Git("show", "HEAD:"+journal); got != "- old entry\n- new entry\n" {
		t.Errorf("journal = %q, want the old entry kept and the new one appended", got)
	}
	tr.fsck()
}

// A long-lived Repo must keep reading correctly after git repacks the object
// store and new commits arrive (go-git caches pack indexes).
func TestReadFilesAfterRepack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	for i := 0; i < 3; i++ {
		head := tr.Commit("round", map[string]string{journal: strings.Repeat("entry\n", i+1)})
		got, err := r.ReadFiles(ctx, head, []string{journal})
		if err != nil || string(got[journal]) != strings.Repeat("entry\n", i+1) {
			t.Fatalf("round %d: ReadFiles = %q, %v", i, got, err)
		}
		tr.Git("repack", "-q", "-a", "-d")
		tr.Git("prune-packed")
	}
	old := tr.GitTrim("rev-parse", "HEAD~2")
	got, err := r.ReadFiles(ctx, old, []string{journal})
	if err != nil || string(got[journal]) != "entry\n" {
		t.Errorf("ReadFiles of an old commit after repacks = %q, %v", got, err)
	}
}

// ReadFiles' two implementations must agree with `git show` on every kind of
// tree entry.
func TestReadFilesGoGitMatchesPlumbing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	tr.Write("exec.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(tr.Path("exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", tr.Path("link")); err != nil {
		t.Fatal(err)
	}
	tr.Write("dir/ünï cödé.md", "unicode\n")
	tr.Write("empty", "")
	tr.Git("add", "-A")
	tr.Git("commit", "-q", "-m", "kinds")
	head := tr.Head()
	r := tr.open()
	paths := []string{"README.md", "exec.sh", "link", "dir/ünï cödé.md", "empty", "dir", "nope", "dir/nope"}
	if r.objects() == nil {
		t.Fatal("go-git could not open a plain repository")
	}
	viaGoGit, err := readFilesGoGit(r.objects(), head, paths)
	if err != nil {
		t.Fatalf("readFilesGoGit: %v", err)
	}
	viaPlumbing, err := r.readFilesPlumbing(ctx, head, paths)
	if err != nil {
		t.Fatalf("readFilesPlumbing: %v", err)
	}
	want := map[string][]byte{}
	for _, p := range []string{"README.md", "exec.sh", "link", "dir/ünï cödé.md", "empty"} {
		want[p] = []byte(tr.Git("cat-file", "blob", head+":"+p))
	}
	if !reflect.DeepEqual(viaGoGit, want) {
		t.Errorf("go-git read %q, want %q", viaGoGit, want)
	}
	if !reflect.DeepEqual(viaPlumbing, want) {
		t.Errorf("plumbing read %q, want %q", viaPlumbing, want)
	}
	if m, err := r.ReadFiles(ctx, "", paths); err != nil || len(m) != 0 {
		t.Errorf("ReadFiles on an unborn branch = %q, %v; want empty", m, err)
	}
}

// Environment variables are process-wide, so these cases are not parallel.
func TestDiscoverGitDirEnv(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	work := filepath.Join(base, "work")
	store := filepath.Join(base, "store.git")
	gittest.GitIn(t, base, "init", "-q", "--separate-git-dir", store, work)
	tr := repoAt(t, work)
	head := tr.Commit("initial", map[string]string{"README.md": "hi\n", ".claude/sonmat/journal.md": "j\n"})
	// A plain .git file would let discovery succeed without the env; remove
	// it so only GIT_DIR/GIT_WORK_TREE lead to the repository.
	if err := os.Remove(filepath.Join(work, ".git")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(work, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, cwd, gitDir, workTree string
		bug                         string
	}{
		{name: "absolute", cwd: base, gitDir: store, workTree: work},
		{name: "absolute from a subdirectory", cwd: sub, gitDir: store, workTree: work},
		// `git --git-dir=../store.git scribe` exports the relative value as given.
		{name: "relative to the caller's directory", cwd: sub, gitDir: "../../store.git", workTree: "..",
			bug: "relative GIT_DIR/GIT_WORK_TREE are re-resolved against WorkTree by every later git call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GIT_DIR", tt.gitDir)
			t.Setenv("GIT_WORK_TREE", tt.workTree)
			t.Chdir(tt.cwd)
			r, err := Discover(ctx, tt.cwd)
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			if r.WorkTree != work || r.GitDir != store || r.CommonDir != store {
				t.Errorf("Discover = {%s %s %s}, want {%s %s %s}", r.WorkTree, r.GitDir, r.CommonDir, work, store, store)
			}
			h, err := r.Head(ctx)
			if err != nil || h.Commit != head {
				t.Errorf("Head = %+v, %v; want %s", h, err, head)
			}
			m, err := r.ReadFiles(ctx, head, []string{".claude/sonmat/journal.md"})
			if err != nil || string(m[".claude/sonmat/journal.md"]) != "j\n" {
				t.Errorf("ReadFiles = %q, %v", m, err)
			}
		})
	}
}

// TestDiscoverRelativeGitDirFromSubdirectory: GIT_DIR=../.git (what `git
// --git-dir=../.git scribe` exports) from a subdirectory, without
// GIT_WORK_TREE, names the repository whose work tree holds that .git — not
// the subdirectory, which git alone would take as the top and so see every
// other file as deleted. Environment variables are process-wide: not
// parallel.
func TestDiscoverRelativeGitDirFromSubdirectory(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	head := tr.Commit("initial", map[string]string{"README.md": "hi\n", "sub/x.txt": "x\n"})
	sub := filepath.Join(tr.Dir, "sub")
	t.Setenv("GIT_DIR", "../.git")
	t.Setenv("GIT_WORK_TREE", "")
	os.Unsetenv("GIT_WORK_TREE")
	t.Chdir(sub)
	r, err := Discover(ctx, sub)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if r.WorkTree != tr.Dir || r.GitDir != filepath.Join(tr.Dir, ".git") {
		t.Fatalf("Discover = {%s %s}, want {%s %s}", r.WorkTree, r.GitDir, tr.Dir, filepath.Join(tr.Dir, ".git"))
	}
	if h, err := r.Head(ctx); err != nil || h.Commit != head {
		t.Errorf("Head = %+v, %v; want %s", h, err, head)
	}
	// Every later git call sees the real work tree: nothing is "deleted".
	if out, err := r.Git(ctx, "status", "--porcelain"); err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("status = %q, %v; want clean", out, err)
	}
}

// A read follows a symlink that stays inside the repository (moby's
// CLAUDE.md -> AGENTS.md); writing through it, or reading one that leads
// out, is refused.
func TestAbsReadFollowsInRepoSymlinks(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.Write("AGENTS.md", "# Agents\n")
	if err := os.Symlink("AGENTS.md", filepath.Join(tr.Dir, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("x\n"), 0o644)
	if err := os.Symlink(outside, filepath.Join(tr.Dir, "OUT.md")); err != nil {
		t.Fatal(err)
	}
	r := tr.open()
	if _, err := r.Abs("CLAUDE.md"); err == nil {
		t.Error("Abs (for writing) accepted a symlink")
	}
	abs, err := r.AbsRead("CLAUDE.md")
	if err != nil || filepath.Base(abs) != "AGENTS.md" {
		t.Errorf("AbsRead(CLAUDE.md) = %q, %v; want the in-repo target", abs, err)
	}
	if _, err := r.AbsRead("OUT.md"); err == nil {
		t.Error("AbsRead followed a symlink out of the repository")
	}
}

// The in-process discovery answers what `git rev-parse` answers, or leaves
// the question to it: every layout below is compared with git's own answer,
// and the ones it must not answer are named.
func TestDiscoverFastMatchesGit(t *testing.T) {
	ctx := context.Background()
	type layout struct {
		name string
		dir  func(t *testing.T) string
		fast bool // answered in process
	}
	layouts := []layout{
		{"top level", func(t *testing.T) string { return newRepo(t).Dir }, true},
		{"subdirectory", func(t *testing.T) string {
			tr := newRepo(t)
			sub := tr.Path("a/b")
			os.MkdirAll(sub, 0o755)
			return sub
		}, true},
		{"through a symlink", func(t *testing.T) string {
			tr := newRepo(t)
			os.MkdirAll(tr.Path("real/dir"), 0o755)
			link := filepath.Join(t.TempDir(), "link")
			os.Symlink(tr.Path("real"), link)
			return filepath.Join(link, "dir")
		}, true},
		{"linked worktree", func(t *testing.T) string {
			tr := newRepo(t)
			wt := filepath.Join(t.TempDir(), "wt")
			tr.Git("worktree", "add", "-q", "-b", "side", wt)
			return wt
		}, true},
		{"separate git dir", func(t *testing.T) string {
			base := t.TempDir()
			gittest.GitIn(t, base, "init", "-q", "--separate-git-dir", filepath.Join(base, "store.git"), filepath.Join(base, "work"))
			return filepath.Join(base, "work")
		}, true},
		{"nested repository", func(t *testing.T) string {
			tr := newRepo(t)
			inner := tr.Path("inner")
			gittest.GitIn(t, tr.Dir, "init", "-q", inner)
			return inner
		}, true},
		{"core.worktree", func(t *testing.T) string {
			tr := newRepo(t)
			tr.Git("config", "core.worktree", tr.Dir)
			return tr.Dir
		}, false},
		{"extensions", func(t *testing.T) string {
			tr := newRepo(t)
			tr.Git("config", "core.repositoryformatversion", "1")
			tr.Git("config", "extensions.worktreeConfig", "true")
			return tr.Dir
		}, false},
		{"an include", func(t *testing.T) string {
			tr := newRepo(t)
			tr.Git("config", "include.path", "/nonexistent")
			return tr.Dir
		}, false},
		{".git a symlink", func(t *testing.T) string {
			tr := newRepo(t)
			moved := filepath.Join(t.TempDir(), "moved.git")
			os.Rename(filepath.Join(tr.Dir, ".git"), moved)
			os.Symlink(moved, filepath.Join(tr.Dir, ".git"))
			return tr.Dir
		}, false},
		{"inside the git dir", func(t *testing.T) string { return filepath.Join(newRepo(t).Dir, ".git", "refs") }, false},
		{"no repository", func(t *testing.T) string { return t.TempDir() }, false},
	}
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			dir := l.dir(t)
			fast, ok := discoverFast(dir)
			if ok != l.fast {
				t.Fatalf("answered in process: %v, want %v", ok, l.fast)
			}
			if !ok {
				return
			}
			slow, err := discoverGit(ctx, dir)
			if err != nil {
				t.Fatalf("git: %v", err)
			}
			if fast.WorkTree != slow.WorkTree || fast.GitDir != slow.GitDir || fast.CommonDir != slow.CommonDir || fast.objectFormat != slow.objectFormat {
				t.Errorf("in process %+v, git %+v", []string{fast.WorkTree, fast.GitDir, fast.CommonDir, fast.objectFormat},
					[]string{slow.WorkTree, slow.GitDir, slow.CommonDir, slow.objectFormat})
			}
		})
	}
	t.Run("a ceiling between the directory and its repository", func(t *testing.T) {
		tr := newRepo(t)
		sub := tr.Path("a/b")
		os.MkdirAll(sub, 0o755)
		t.Setenv("GIT_CEILING_DIRECTORIES", tr.Path("a"))
		if r, ok := discoverFast(sub); ok {
			t.Errorf("found %s above a ceiling", r.WorkTree)
		}
		if _, err := discoverGit(ctx, sub); !errors.Is(err, ErrNotARepo) {
			t.Errorf("git: %v, want not a repository", err)
		}
		// The start directory itself as a ceiling: git still looks above it.
		t.Setenv("GIT_CEILING_DIRECTORIES", tr.Path("a/b"))
		slow, err := discoverGit(ctx, sub)
		if r, ok := discoverFast(sub); !ok || err != nil || r.WorkTree != slow.WorkTree {
			t.Errorf("with the start directory as ceiling: %+v, %v; git %+v, %v", r, ok, slow, err)
		}
	})
	t.Run("GIT_DIR set", func(t *testing.T) {
		tr := newRepo(t)
		t.Setenv("GIT_DIR", filepath.Join(tr.Dir, ".git"))
		if _, ok := discoverFast(tr.Dir); ok {
			t.Error("answered with GIT_DIR set")
		}
	})
}
