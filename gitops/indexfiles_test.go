package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The index read in process lists what `git ls-files -z -- paths` lists,
// for the index versions and entries it reads; the others (version 4, a
// split or sparse index, a conflict) are left to git.
func TestTrackedPathsMatchLsFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	paths := []string{".claude/sonmat/journal.md", ".claude/sonmat/bridge-note.md", "ACTIVE-STATUS.md", "dir"}
	setups := []struct {
		name   string
		setup  func(tr *testRepo)
		inProc bool
	}{
		{"none tracked", func(tr *testRepo) {}, true},
		{"some tracked, one a directory", func(tr *testRepo) {
			tr.Commit("view", map[string]string{".claude/sonmat/journal.md": "j\n", "dir/x": "x\n", "dir/y/z": "z\n", "dirt": "no\n", "ACTIVE-STATUS.md.bak": "b\n",
				"dir/ab.txt": "padded by eight\n", "dir/abcdefghijklmnopq": "n\n"})
		}, true},
		{"long names and many entries", func(tr *testRepo) {
			files := map[string]string{"ACTIVE-STATUS.md": "a\n"}
			for i := 0; i < 300; i++ {
				files[fmt.Sprintf("pkg/%03d/f%d.go", i, i%7)] = "x\n"
			}
			tr.Commit("many", files)
			// A name past the 12-bit length field (4095), in the index only.
			blob := strings.TrimSpace(tr.GitStdin([]byte("deep\n"), "hash-object", "-w", "--stdin"))
			tr.Git("update-index", "--add", "--cacheinfo", "100644,"+blob+",dir/"+strings.Repeat("n", 4200))
			tr.Git("update-index", "--add", "--cacheinfo", "100644,"+blob+",zz/"+strings.Repeat("m", 4100))
		}, true},
		{"version 3, intent to add", func(tr *testRepo) {
			tr.Commit("one", map[string]string{"a.txt": "a\n"})
			os.MkdirAll(tr.Path(".claude/sonmat"), 0o755)
			os.WriteFile(tr.Path(".claude/sonmat/bridge-note.md"), []byte("n\n"), 0o644)
			tr.Git("add", "-N", ".claude/sonmat/bridge-note.md")
		}, true},
		{"core.ignorecase", func(tr *testRepo) {
			tr.Commit("view", map[string]string{"ACTIVE-STATUS.md": "a\n"})
			tr.Git("config", "core.ignorecase", "true")
		}, false},
		{"version 4", func(tr *testRepo) {
			tr.Commit("view", map[string]string{"ACTIVE-STATUS.md": "a\n"})
			tr.Git("update-index", "--index-version", "4")
		}, false},
		{"split index", func(tr *testRepo) {
			tr.Commit("view", map[string]string{"ACTIVE-STATUS.md": "a\n"})
			tr.Git("update-index", "--split-index")
		}, false},
		{"a conflict", func(tr *testRepo) {
			tr.Commit("base", map[string]string{"ACTIVE-STATUS.md": "base\n"})
			tr.Git("checkout", "-q", "-b", "other")
			tr.Commit("other", map[string]string{"ACTIVE-STATUS.md": "other\n"})
			tr.Git("checkout", "-q", "main")
			tr.Commit("main", map[string]string{"ACTIVE-STATUS.md": "main\n"})
			tr.GitErr("merge", "-q", "other")
		}, false},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			s.setup(tr)
			r := tr.open()
			got, ok := r.trackedInIndex(paths)
			if ok != s.inProc {
				t.Fatalf("read in process: %v, want %v", ok, s.inProc)
			}
			want := tr.Git(append([]string{"ls-files", "-z", "--"}, paths...)...)
			if ok && string(got) != want {
				t.Errorf("in process %q, ls-files %q", got, want)
			}
			if via, err := r.TrackedPaths(ctx, paths); err != nil || string(via) != want {
				t.Errorf("TrackedPaths = %q, %v; ls-files %q", via, err, want)
			}
		})
	}
	t.Run("no index yet", func(t *testing.T) {
		t.Parallel()
		tr := newEmptyRepo(t)
		os.Remove(filepath.Join(tr.Dir, ".git", "index"))
		if got, ok := tr.open().trackedInIndex(paths); !ok || len(got) != 0 {
			t.Errorf("= %q, %v", got, ok)
		}
	})
}

func FuzzIndexMatches(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + string(make([]byte, 20))))
	f.Fuzz(func(t *testing.T, b []byte) {
		indexMatches(b, []string{"a", "b/c"}) // must not panic or loop
	})
}
