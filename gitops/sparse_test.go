package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sparseRepo is a repository whose docs/ and .claude/ a sparse checkout
// leaves out of the work tree (mode: "cone", "sparse-index" or "no-cone"),
// with the user's staged, unstaged and untracked work inside it.
func sparseRepo(t *testing.T, mode string) *testRepo {
	t.Helper()
	tr := newRepo(t)
	tr.Commit("layout", map[string]string{
		"src/main.go":           "package main\n",
		"docs/PROGRESS.md":      "- [ ] one\n",
		"docs/old.md":           "old\n",
		".claude/settings.json": "{}\n",
	})
	switch mode {
	case "cone":
		tr.Git("sparse-checkout", "set", "src")
	case "sparse-index":
		tr.Git("sparse-checkout", "set", "--sparse-index", "src")
	case "no-cone":
		tr.Git("sparse-checkout", "set", "--no-cone", "/*", "!/docs/", "!/.claude/")
	}
	tr.Write("src/main.go", "package main\n// unstaged\n")
	tr.Write("src/staged.go", "package main\n")
	tr.Git("add", "src/staged.go")
	tr.Write("src/new.go", "untracked\n")
	return tr
}

func TestCommitPathsSparseCheckout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, mode := range []string{"cone", "sparse-index", "no-cone"} {
		for _, tt := range []struct {
			name  string
			path  string
			write []byte // nil deletes
		}{
			{name: "update outside the cone", path: "docs/PROGRESS.md", write: []byte("- [x] one\n")},
			{name: "create outside the cone", path: ".claude/sonmat/trap.md", write: []byte("# Trap: t\n")},
			{name: "delete outside the cone", path: "docs/old.md"},
		} {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				tr := sparseRepo(t, mode)
				if tr.Exists("docs") || tr.Exists(".claude") {
					t.Fatalf("the sparse checkout did not leave docs/ and .claude/ out")
				}
				cone := tr.Git("sparse-checkout", "list")
				before := tr.snapshot()
				res, err := tr.open().CommitPaths(ctx, CommitRequest{
					Paths:   []string{tt.path},
					Build:   func(map[string][]byte) (map[string][]byte, error) { return map[string][]byte{tt.path: tt.write}, nil },
					Message: message("sparse"),
					Locks:   []string{"progress"},
				})
				if err != nil || res.SHA == "" {
					t.Fatalf("CommitPaths = %+v, %v", res, err)
				}
				if got := tr.GitTrim("diff-tree", "--name-only", "-r", "HEAD~1", "HEAD"); got != tt.path {
					t.Errorf("commit touches %q, want only %s", got, tt.path)
				}
				out, err := tr.GitErr("cat-file", "blob", "HEAD:"+tt.path)
				if tt.write == nil && err == nil {
					t.Errorf("%s is still in HEAD", tt.path)
				}
				if tt.write != nil && out != string(tt.write) {
					t.Errorf("HEAD:%s = %q, %v; want %q", tt.path, out, err, tt.write)
				}
				// Nothing materialised, the entry kept out of the work tree.
				for _, dir := range []string{"docs", ".claude"} {
					if tr.Exists(dir) {
						t.Errorf("%s/ was materialised in the work tree", dir)
					}
				}
				lsT := tr.GitTrim("ls-files", "-t", "--", tt.path)
				if tt.write != nil && lsT != "S "+tt.path {
					t.Errorf("ls-files -t = %q, want the entry with skip-worktree (S)", lsT)
				}
				if tt.write == nil && lsT != "" {
					t.Errorf("ls-files -t = %q, want the entry gone", lsT)
				}
				after := tr.snapshot()
				if after.status != before.status || after.cached != before.cached || after.unstaged != before.unstaged {
					t.Errorf("user work changed:\nbefore %+v\nafter  %+v", before, after)
				}
				if got := tr.Git("diff", "--cached", "HEAD", "--name-only"); got != "src/staged.go\n" {
					t.Errorf("index differs from HEAD in %q, want only the user's staged file", got)
				}
				if got := tr.Git("sparse-checkout", "list"); got != cone {
					t.Errorf("sparse-checkout list = %q, was %q", got, cone)
				}
				tr.fsck()
			})
		}
	}
}

// A skip-worktree file in the work tree (the bit set by hand to keep local
// edits out of git status): with edits the write is deferred and the file
// kept; without, it is written and the bit kept, no staged deletion left.
func TestCommitPathsSkipWorktreeByHand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, edited := range []bool{true, false} {
		t.Run(map[bool]string{true: "local edits", false: "no edits"}[edited], func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			tr.Commit("progress", map[string]string{"progress.md": "- [ ] one\n"})
			tr.Git("update-index", "--skip-worktree", "progress.md")
			if edited {
				tr.Write("progress.md", "- [ ] one\n- [ ] my own line\n")
			}
			before := tr.snapshot()
			req := CommitRequest{
				Paths: []string{"progress.md"},
				Build: func(map[string][]byte) (map[string][]byte, error) {
					return map[string][]byte{"progress.md": []byte("- [x] one\n")}, nil
				},
				Message: message("tick"),
				Locks:   []string{"progress"},
			}
			res, err := tr.open().CommitPaths(ctx, req)
			if edited {
				var de *DeferredError
				if !errors.As(err, &de) || !strings.Contains(de.Reason, "skip-worktree") {
					t.Fatalf("CommitPaths over hidden edits = %+v, %v; want a *DeferredError naming skip-worktree", res, err)
				}
				if got := tr.Read("progress.md"); got != "- [ ] one\n- [ ] my own line\n" {
					t.Errorf("the hidden edits were overwritten: %q", got)
				}
				if after := tr.snapshot(); after != before {
					t.Errorf("state changed:\nbefore %+v\nafter  %+v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatalf("CommitPaths: %v", err)
			}
			if got := tr.Read("progress.md"); got != "- [x] one\n" {
				t.Errorf("work tree = %q, want the tick", got)
			}
			if got := tr.GitTrim("ls-files", "-t", "progress.md"); got != "S progress.md" {
				t.Errorf("ls-files -t = %q, want the bit kept", got)
			}
			if got := tr.Git("status", "--porcelain=v2", "--untracked-files=all"); got != "" {
				t.Errorf("status = %q, want clean", got)
			}
			tr.fsck()
		})
	}
}

// A write killed after the index got its new contents but before the
// branch moved, outside a sparse checkout: the next write finds the index
// holding the commit's blob (the work tree holds nothing) and finishes it.
func TestCommitPathsFinishesAnInterruptedSparseWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := sparseRepo(t, "cone")
	base := tr.Head()
	r := tr.open()
	// The killed write: its commit, its intent, the index updated.
	blob := tr.GitStdin([]byte("- [x] one\n"), "hash-object", "-w", "--stdin")
	oids := map[string]string{"docs/PROGRESS.md": strings.TrimSpace(blob)}
	tree, err := r.buildTree(ctx, base, []string{"docs/PROGRESS.md"}, oids)
	if err != nil {
		t.Fatal(err)
	}
	killed, err := r.commitTree(ctx, tree, base, "progress: killed\n", false)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(pendingCheckout{Commit: killed, Parent: base, Ref: "refs/heads/main", Paths: []string{"docs/PROGRESS.md"}})
	os.MkdirAll(filepath.Join(r.ScribeDir(), "pending"), 0o755)
	os.WriteFile(filepath.Join(r.ScribeDir(), "pending", killed+".json"), data, 0o644)
	if err := r.checkout(ctx, []string{"docs/PROGRESS.md"}, map[string][]byte{"docs/PROGRESS.md": []byte("- [x] one\n")}); err != nil {
		t.Fatal(err)
	}

	res, err := r.CommitPaths(ctx, CommitRequest{
		Paths: []string{"docs/PROGRESS.md"},
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			return map[string][]byte{"docs/PROGRESS.md": append(cur["docs/PROGRESS.md"], "- [ ] two\n"...)}, nil
		},
		Message: message("next"),
		Locks:   []string{"progress"},
	})
	if err != nil || res.Parent != killed {
		t.Fatalf("CommitPaths = %+v, %v; want it built on the finished %s", res, err, killed)
	}
	if got := tr.Git("cat-file", "blob", "HEAD:docs/PROGRESS.md"); got != "- [x] one\n- [ ] two\n" {
		t.Errorf("HEAD:docs/PROGRESS.md = %q", got)
	}
	if got := tr.Git("diff", "--cached", "HEAD", "--name-only"); got != "src/staged.go\n" {
		t.Errorf("index differs from HEAD in %q, want only the user's staged file", got)
	}
	if tr.Exists("docs") {
		t.Error("docs/ was materialised")
	}
	tr.fsck()
}

func TestSparseIncludes(t *testing.T) {
	t.Parallel()
	cone := &sparseCheckout{cone: true, dirs: []string{"src", "a/b"}}
	for p, want := range map[string]bool{
		"README.md":        true, // the top is always in a cone
		"src/x.go":         true,
		"src/deep/x.go":    true,
		"a/file.md":        true, // directly in a parent of a cone directory
		"a/b/c/d.md":       true,
		"a/c/d.md":         false,
		"docs/PROGRESS.md": false,
		"srcx/y.go":        false,
	} {
		if got := cone.includes(p); got != want {
			t.Errorf("cone includes(%q) = %v, want %v", p, got, want)
		}
	}
	var none *sparseCheckout
	if !none.includes("docs/x.md") {
		t.Error("without a sparse checkout every path is checked out")
	}
}
