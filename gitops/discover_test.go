package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
				g := filepath.Join(tr.dir, ".git")
				return tr.dir, want{tr.dir, g, g}
			},
		},
		{
			name: "from a subdirectory",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				sub := tr.path("a/b/c")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				g := filepath.Join(tr.dir, ".git")
				return sub, want{tr.dir, g, g}
			},
		},
		{
			name: "linked worktree",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				wt := filepath.Join(filepath.Dir(tr.dir), "wt")
				tr.git("worktree", "add", "-q", "-b", "feature", wt)
				g := filepath.Join(tr.dir, ".git")
				return wt, want{wt, filepath.Join(g, "worktrees", "wt"), g}
			},
		},
		{
			name: "subdirectory of a linked worktree",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				wt := filepath.Join(filepath.Dir(tr.dir), "wt2")
				tr.git("worktree", "add", "-q", "-b", "feature2", wt)
				sub := filepath.Join(wt, "deep", "er")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				g := filepath.Join(tr.dir, ".git")
				return sub, want{wt, filepath.Join(g, "worktrees", "wt2"), g}
			},
		},
		{
			name: "extensions.worktreeConfig",
			setup: func(t *testing.T) (string, want) {
				tr := newRepo(t)
				tr.git("config", "core.repositoryformatversion", "1")
				tr.git("config", "extensions.worktreeConfig", "true")
				g := filepath.Join(tr.dir, ".git")
				return tr.dir, want{tr.dir, g, g}
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
			gitIn(t, filepath.Dir(dir), "init", "-q", "--bare", dir)
			return dir
		}},
		{"inside the .git dir", func(t *testing.T) string {
			return filepath.Join(newRepo(t).dir, ".git")
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

// go-git refuses repositories with extensions.worktreeConfig; discovery and
// reads must keep working through plumbing.
func TestWorktreeConfigFallsBackToPlumbing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	files := map[string]string{
		".claude/sonmat/journal.md": "# Journal\n\n- one\n",
		"progress.md":               "- [ ] task\n",
		"bin.dat":                   "a\x00b\x00c",
	}
	head := tr.commitFiles("vault", files)
	tr.git("config", "core.repositoryformatversion", "1")
	tr.git("config", "extensions.worktreeConfig", "true")
	tr.git("config", "--worktree", "core.sparseCheckout", "false")

	r := tr.open()
	if r.gogit() != nil {
		t.Fatalf("go-git opened a repository with extensions.worktreeConfig; this test no longer exercises the plumbing fallback")
	}
	paths := []string{".claude/sonmat/journal.md", "progress.md", "bin.dat", "missing.md", ".claude"}
	got, err := r.ReadFiles(ctx, head, paths)
	if err != nil {
		t.Fatalf("ReadFiles: %v", err)
	}
	want := map[string][]byte{}
	for p := range files {
		want[p] = []byte(tr.git("show", head+":"+p))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadFiles = %q, want (git show) %q", got, want)
	}
	h, err := r.Head(ctx)
	if err != nil || h.Commit != head || h.Ref != "refs/heads/main" {
		t.Errorf("Head = %+v, %v; want main at %s", h, err, head)
	}
}

// ReadFiles' two implementations must agree with `git show` on every kind of
// tree entry.
func TestReadFilesGoGitMatchesPlumbing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	tr.write("exec.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(tr.path("exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", tr.path("link")); err != nil {
		t.Fatal(err)
	}
	tr.write("dir/ünï cödé.md", "unicode\n")
	tr.write("empty", "")
	tr.git("add", "-A")
	tr.git("commit", "-q", "-m", "kinds")
	head := tr.head()
	r := tr.open()
	paths := []string{"README.md", "exec.sh", "link", "dir/ünï cödé.md", "empty", "dir", "nope", "dir/nope"}
	if r.gogit() == nil {
		t.Fatal("go-git could not open a plain repository")
	}
	viaGoGit, err := readFilesGoGit(r.gogit(), head, paths)
	if err != nil {
		t.Fatalf("readFilesGoGit: %v", err)
	}
	viaPlumbing, err := r.readFilesPlumbing(ctx, head, paths)
	if err != nil {
		t.Fatalf("readFilesPlumbing: %v", err)
	}
	want := map[string][]byte{}
	for _, p := range []string{"README.md", "exec.sh", "link", "dir/ünï cödé.md", "empty"} {
		want[p] = []byte(tr.git("cat-file", "blob", head+":"+p))
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
	gitIn(t, base, "init", "-q", "--separate-git-dir", store, work)
	tr := &testRepo{t: t, dir: work}
	head := tr.commitFiles("initial", map[string]string{"README.md": "hi\n", ".claude/sonmat/journal.md": "j\n"})
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
	}{
		{"absolute", base, store, work},
		{"absolute from a subdirectory", sub, store, work},
		// `git --git-dir=../store.git scribe` exports the relative value as given.
		{"relative to the caller's directory", sub, "../../store.git", ".."},
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
