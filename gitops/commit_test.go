package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/internal/gittest"
)

const journal = ".claude/sonmat/journal.md"

// appendBuild appends text to path.
func appendBuild(path, text string) Build {
	return func(cur map[string][]byte) (map[string][]byte, error) {
		return map[string][]byte{path: append(append([]byte(nil), cur[path]...), text...)}, nil
	}
}

func message(subject string) func([]string) string {
	return func([]string) string { return "progress: " + subject + "\n\nScribe-Mode: test\n" }
}

func journalRequest(text string) CommitRequest {
	return CommitRequest{
		Paths:   []string{journal},
		Build:   appendBuild(journal, text),
		Message: message("journal"),
		Locks:   []string{"journal"},
	}
}

// userWork leaves the repository with a staged edit to A, a staged new file,
// an intent-to-add file, an unstaged edit to B, a deleted file and untracked
// files — every kind of user work a scribe commit must not touch.
func userWork(t *testing.T, tr *testRepo) {
	t.Helper()
	tr.Commit("user files", map[string]string{"A.md": "a1\n", "B.md": "b1\n", "gone.md": "g\n", "src/x.go": "package x\n",
		".claude/settings.json": "{}\n", ".claude/sonmat/bridge-note.md": "# Bridge Note\n"})
	// The user's staged and unstaged work next to the vault file, in the
	// same directories scribe rebuilds.
	tr.Write(".claude/settings.json", "{\"staged\": true}\n")
	tr.Git("add", ".claude/settings.json")
	tr.Write(".claude/sonmat/bridge-note.md", "# Bridge Note\n\nunstaged user edit\n")
	tr.Write("A.md", "a1\nstaged\n")
	tr.Git("add", "A.md")
	tr.Write("A.md", "a1\nstaged\nand unstaged on top\n")
	tr.Write("staged-new.md", "new\n")
	tr.Git("add", "staged-new.md")
	tr.Write("ita.md", "intent\n")
	tr.Git("add", "-N", "ita.md")
	tr.Write("B.md", "b1\nunstaged\n")
	os.Remove(tr.Path("gone.md"))
	tr.Write("C.md", "untracked\n")
	tr.Write(".claude/sonmat/scratch.md", "untracked next to the vault file\n")
}

func TestCommitPathsLeavesUserWorkAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name     string
		existing string // committed journal content before; "" = absent
		unborn   bool
	}{
		{name: "new vault file in a new directory"},
		{name: "existing vault file", existing: "# Journal\n\n- first\n"},
		{name: "unborn branch", unborn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var tr *testRepo
			if tt.unborn {
				tr = newEmptyRepo(t)
				tr.Write("A.md", "a\n")
				tr.Git("add", "A.md")
				tr.Write("C.md", "untracked\n")
			} else {
				tr = newRepo(t)
				if tt.existing != "" {
					tr.Commit("journal", map[string]string{journal: tt.existing})
				}
				userWork(t, tr)
			}
			var oldHead, oldTree string
			if !tt.unborn {
				oldHead = tr.Head()
				oldTree = tr.GitTrim("rev-parse", "HEAD^{tree}")
			}
			before := tr.snapshot()
			r := tr.open()

			res, err := r.CommitPaths(ctx, journalRequest("- scribe entry\n"))
			if err != nil {
				t.Fatalf("CommitPaths: %v", err)
			}
			newHead := tr.Head()
			if res.SHA != newHead || res.Parent != oldHead || res.Branch != "refs/heads/main" ||
				!reflect.DeepEqual(res.Changed, []string{journal}) {
				t.Errorf("result = %+v; want SHA %s parent %q on main changing only %s", res, newHead, oldHead, journal)
			}

			// History: exactly one new commit on top of the old HEAD.
			parents := strings.Fields(tr.GitTrim("rev-list", "--parents", "-n1", "HEAD"))
			if tt.unborn {
				if len(parents) != 1 {
					t.Errorf("first commit has parents %v, want a root commit", parents[1:])
				}
			} else {
				if len(parents) != 2 || parents[1] != oldHead {
					t.Errorf("new commit's parents = %v, want [%s]", parents[1:], oldHead)
				}
				if got := tr.GitTrim("diff-tree", "--name-only", "-r", "HEAD~1", "HEAD"); got != journal {
					t.Errorf("commit touches %q, want only %s", got, journal)
				}
				// The tree is the old tree plus only that path.
				oldLs := withoutPaths(tr.Git("ls-tree", "-r", oldTree), journal)
				newLs := withoutPaths(tr.Git("ls-tree", "-r", "HEAD"), journal)
				if oldLs != newLs {
					t.Errorf("tree changed outside %s:\nold %s\nnew %s", journal, oldLs, newLs)
				}
			}
			if got := tr.GitTrim("ls-tree", "-r", "--name-only", "HEAD"); tt.unborn && got != journal {
				t.Errorf("first commit's tree = %q, want only %s", got, journal)
			}
			wantBlob := tt.existing + "- scribe entry\n"
			if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != wantBlob {
				t.Errorf("committed journal = %q, want %q", got, wantBlob)
			}
			if got := tr.Read(journal); got != wantBlob {
				t.Errorf("work tree journal = %q, want the committed blob %q", got, wantBlob)
			}
			if got := tr.Git("log", "-1", "--format=%B"); got != "progress: journal\n\nScribe-Mode: test\n\n" {
				t.Errorf("message = %q", got)
			}
			if got := tr.GitTrim("log", "-1", "--format=%an <%ae>|%cn <%ce>"); got != "Ada Author <ada@example.com>|Cy Committer <cy@example.com>" {
				t.Errorf("author|committer = %q, want them from the GIT_* environment", got)
			}
			if got := tr.GitTrim("reflog", "-1", "--format=%gs", "refs/heads/main"); got != "scribe: progress commit" {
				t.Errorf("branch reflog = %q, want %q", got, "scribe: progress commit")
			}

			// The user's work is exactly as it was.
			after := tr.snapshot()
			if after.cached != before.cached {
				t.Errorf("git diff --cached changed:\nbefore %q\nafter  %q", before.cached, after.cached)
			}
			if after.unstaged != before.unstaged {
				t.Errorf("git diff changed:\nbefore %q\nafter  %q", before.unstaged, after.unstaged)
			}
			if after.status != before.status {
				t.Errorf("git status --porcelain=v2 changed:\nbefore %q\nafter  %q", before.status, after.status)
			}
			if strings.Contains(after.status, journal) {
				t.Errorf("status mentions the vault path: %q", after.status)
			}
			if withoutPaths(after.lsFilesMeta, journal) != withoutPaths(before.lsFilesMeta, journal) {
				t.Errorf("index entries outside the vault path changed:\nbefore %s\nafter  %s", before.lsFilesMeta, after.lsFilesMeta)
			}
			if out := tr.Git("diff", "HEAD", "--", journal); out != "" {
				t.Errorf("vault path differs from HEAD: %s", out)
			}
			if got := tr.GitTrim("for-each-ref", LockRefPrefix); got != "" {
				t.Errorf("lock refs left behind: %s", got)
			}
			tr.fsck()
		})
	}
}

func TestCommitPathsResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name       string
		setup      func(tr *testRepo)
		req        CommitRequest
		wantCommit bool
		wantErr    bool
		bug        string
		check      func(t *testing.T, tr *testRepo, res CommitResult)
	}{
		{
			name:  "build returns the same content: no commit",
			setup: func(tr *testRepo) { tr.Commit("j", map[string]string{journal: "same\n"}) },
			req: CommitRequest{Paths: []string{journal}, Message: message("noop"),
				Build: func(cur map[string][]byte) (map[string][]byte, error) {
					return map[string][]byte{journal: []byte("same\n")}, nil
				}},
		},
		{
			name: "build returns nothing: no commit",
			req: CommitRequest{Paths: []string{journal}, Message: message("noop"),
				Build: func(map[string][]byte) (map[string][]byte, error) { return nil, nil }},
		},
		{
			name: "nil deletes an absent path: no commit",
			req: CommitRequest{Paths: []string{journal}, Message: message("noop"),
				Build: func(map[string][]byte) (map[string][]byte, error) { return map[string][]byte{journal: nil}, nil }},
		},
		{
			name:    "build error: no commit",
			wantErr: true,
			req: CommitRequest{Paths: []string{journal}, Message: message("noop"),
				Build: func(map[string][]byte) (map[string][]byte, error) { return nil, errors.New("boom") }},
		},
		{
			name:       "nil deletes the last file of a directory",
			setup:      func(tr *testRepo) { tr.Commit("j", map[string]string{journal: "old\n", "keep.md": "k\n"}) },
			wantCommit: true,
			req: CommitRequest{Paths: []string{journal}, Message: message("delete"),
				Build: func(cur map[string][]byte) (map[string][]byte, error) {
					if string(cur[journal]) != "old\n" {
						return nil, errors.New("build did not see the committed content")
					}
					return map[string][]byte{journal: nil}, nil
				}},
			check: func(t *testing.T, tr *testRepo, res CommitResult) {
				if got := tr.GitTrim("ls-tree", "HEAD", ".claude"); got != "" {
					t.Errorf("an empty directory is left in the tree: %q", got)
				}
				if got := tr.GitTrim("diff-tree", "--name-status", "-r", "HEAD~1", "HEAD"); got != "D\t"+journal {
					t.Errorf("commit = %q, want only the deletion", got)
				}
				if _, err := os.Stat(tr.Path(journal)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("work tree still has %s: %v", journal, err)
				}
				if got := tr.Git("ls-files", "--", journal); got != "" {
					t.Errorf("index still has %s", got)
				}
			},
		},
		{
			name: "nil deletes one file of a directory that keeps others",
			setup: func(tr *testRepo) {
				tr.Commit("j", map[string]string{journal: "old\n", ".claude/sonmat/bridge-note.md": "b\n", ".claude/other/x.md": "x\n"})
			},
			wantCommit: true,
			req: CommitRequest{Paths: []string{journal}, Message: message("delete"),
				Build: func(map[string][]byte) (map[string][]byte, error) { return map[string][]byte{journal: nil}, nil }},
			check: func(t *testing.T, tr *testRepo, res CommitResult) {
				if got := tr.GitTrim("diff-tree", "--name-status", "-r", "HEAD~1", "HEAD"); got != "D\t"+journal {
					t.Errorf("commit = %q, want only the deletion", got)
				}
			},
		},
		{
			name: "top-level and nested paths in one commit",
			setup: func(tr *testRepo) {
				tr.Commit("j", map[string]string{"progress.md": "- [ ] a\n", "notes/a/b/c.md": "c\n"})
			},
			wantCommit: true,
			req: CommitRequest{Paths: []string{"progress.md", "notes/a/b/new.md", "notes/x.md"}, Message: message("mixed"),
				Build: func(map[string][]byte) (map[string][]byte, error) {
					return map[string][]byte{"progress.md": []byte("- [x] a\n"), "notes/a/b/new.md": []byte("n\n"), "notes/x.md": []byte("x\n")}, nil
				}},
			check: func(t *testing.T, tr *testRepo, res CommitResult) {
				if got := tr.GitTrim("diff-tree", "--name-status", "-r", "HEAD~1", "HEAD"); got != "A\tnotes/a/b/new.md\nA\tnotes/x.md\nM\tprogress.md" {
					t.Errorf("commit = %q", got)
				}
				if got := tr.Git("show", "HEAD:notes/a/b/c.md"); got != "c\n" {
					t.Errorf("sibling file lost: %q", got)
				}
			},
		},
		{
			name:       "several paths, one sorted change list",
			wantCommit: true,
			req: CommitRequest{Paths: []string{"progress.md", journal, "ACTIVE-STATUS.md"}, Message: message("multi"),
				Build: func(cur map[string][]byte) (map[string][]byte, error) {
					return map[string][]byte{journal: []byte("j\n"), "ACTIVE-STATUS.md": []byte("s\n"), "progress.md": nil}, nil
				}},
			check: func(t *testing.T, tr *testRepo, res CommitResult) {
				if want := []string{".claude/sonmat/journal.md", "ACTIVE-STATUS.md"}; !reflect.DeepEqual(res.Changed, want) {
					t.Errorf("Changed = %q, want %q", res.Changed, want)
				}
				if got := tr.GitTrim("diff-tree", "--name-only", "-r", "HEAD~1", "HEAD"); got != ".claude/sonmat/journal.md\nACTIVE-STATUS.md" {
					t.Errorf("commit touches %q", got)
				}
			},
		},
		{
			name:       "message sees the changed paths",
			wantCommit: true,
			req: CommitRequest{Paths: []string{journal}, Build: appendBuild(journal, "x\n"),
				Message: func(changed []string) string { return "progress: " + strings.Join(changed, ",") + "\n" }},
			check: func(t *testing.T, tr *testRepo, res CommitResult) {
				if got := tr.GitTrim("log", "-1", "--format=%s"); got != "progress: "+journal {
					t.Errorf("subject = %q", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			if tt.setup != nil {
				tt.setup(tr)
			}
			oldHead := tr.Head()
			oldReflog := tr.Git("reflog", "refs/heads/main")
			before := tr.snapshot()
			res, err := tr.open().CommitPaths(ctx, tt.req)
			if tt.wantErr != (err != nil) {
				t.Fatalf("CommitPaths error = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantCommit {
				if !reflect.DeepEqual(res, CommitResult{}) {
					t.Errorf("result = %+v, want the zero result", res)
				}
				if tr.Head() != oldHead || tr.Git("reflog", "refs/heads/main") != oldReflog {
					t.Errorf("HEAD or reflog moved without a change")
				}
				if after := tr.snapshot(); after != before {
					t.Errorf("repository changed without a commit:\nbefore %+v\nafter  %+v", before, after)
				}
			} else {
				if res.SHA != tr.Head() || res.Parent != oldHead {
					t.Errorf("result = %+v, want a commit on %s", res, oldHead)
				}
				if st := tr.Git("status", "--porcelain=v2"); st != "" {
					t.Errorf("status not clean after the commit: %q", st)
				}
			}
			if tt.check != nil {
				tt.check(t, tr, res)
			}
			if got := tr.GitTrim("for-each-ref", LockRefPrefix); got != "" {
				t.Errorf("lock refs left behind: %s", got)
			}
			tr.fsck()
		})
	}
}

// Writing a vault file that is executable in HEAD must leave the index and
// HEAD agreeing, so status stays clean.
func TestCommitPathsExecutableVaultFile(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.Write("tool.sh", "#!/bin/sh\n")
	if err := os.Chmod(tr.Path("tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr.Git("add", "tool.sh")
	tr.Git("commit", "-q", "-m", "exec")
	_, err := tr.open().CommitPaths(context.Background(), CommitRequest{
		Paths: []string{"tool.sh"}, Build: appendBuild("tool.sh", "echo hi\n"), Message: message("exec"),
	})
	if err != nil {
		t.Fatalf("CommitPaths: %v", err)
	}
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("status after committing an executable vault file = %q, want clean", st)
	}
	if got := tr.GitTrim("diff-tree", "-r", "--format=", "HEAD~1", "HEAD"); !strings.HasPrefix(got, ":100755 100755 ") {
		t.Errorf("file mode changed by the scribe commit: %q", got)
	}
	tr.fsck()
}

// A scribe commit from a linked worktree moves that worktree's branch only.
func TestCommitPathsLinkedWorktree(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	mainHead := tr.Head()
	wtDir := filepath.Join(filepath.Dir(tr.Dir), "wt")
	tr.Git("worktree", "add", "-q", "-b", "feature", wtDir)
	wt := repoAt(t, wtDir)
	wt.Write("user.md", "untracked in the worktree\n")
	before := wt.snapshot()
	res, err := wt.open().CommitPaths(context.Background(), journalRequest("- from the worktree\n"))
	if err != nil {
		t.Fatalf("CommitPaths: %v", err)
	}
	if res.Branch != "refs/heads/feature" || res.Parent != mainHead {
		t.Errorf("result = %+v, want a commit on feature", res)
	}
	if tr.Head() != mainHead {
		t.Errorf("main moved")
	}
	if got := wt.Git("cat-file", "blob", "feature:"+journal); got != "- from the worktree\n" || wt.Read(journal) != got {
		t.Errorf("journal = %q, work tree %q", got, wt.Read(journal))
	}
	after := wt.snapshot()
	after.lsFilesMeta = withoutPaths(after.lsFilesMeta, journal)
	if after != before {
		t.Errorf("worktree state changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if _, err := os.Stat(tr.Path(journal)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the main work tree got the file: %v", err)
	}
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("main work tree status = %q", st)
	}
	tr.fsck()
}

func TestCheckWritableDefers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// conflict makes branches main and other disagree on README.md.
	conflict := func(tr *testRepo) {
		tr.Git("checkout", "-q", "-b", "other")
		tr.Commit("other side", map[string]string{"README.md": "other\n"})
		tr.Git("checkout", "-q", "main")
		tr.Commit("main side", map[string]string{"README.md": "main\n"})
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, tr *testRepo)
		want  string // substring of the reason
		bug   string
	}{
		{"detached HEAD", func(t *testing.T, tr *testRepo) { tr.Git("checkout", "-q", "--detach") }, "detached", ""},
		{"merge conflict", func(t *testing.T, tr *testRepo) {
			conflict(tr)
			if _, err := tr.GitErr("merge", "other"); err == nil {
				t.Fatal("merge did not conflict")
			}
		}, "merge", ""},
		{"merge stopped without committing", func(t *testing.T, tr *testRepo) {
			tr.Git("checkout", "-q", "-b", "side")
			tr.Commit("side", map[string]string{"side.md": "s\n"})
			tr.Git("checkout", "-q", "main")
			tr.Commit("main", map[string]string{"m.md": "m\n"})
			tr.Git("merge", "--no-commit", "--no-ff", "side")
		}, "merge", ""},
		{"rebase stopped on a conflict", func(t *testing.T, tr *testRepo) {
			conflict(tr)
			if _, err := tr.GitErr("rebase", "other"); err == nil {
				t.Fatal("rebase did not stop")
			}
			// The branch is still checked out by name during a rebase only
			// as rebase-merge state; HEAD itself is detached.
		}, "", ""},
		{"interactive rebase stopped at edit", func(t *testing.T, tr *testRepo) {
			tr.Commit("c2", map[string]string{"c2.md": "2\n"})
			cmd := exec.Command("git", "rebase", "-i", "HEAD~1")
			cmd.Dir = tr.Dir
			cmd.Env = append(os.Environ(), "GIT_SEQUENCE_EDITOR=sed -i -e s/^pick/edit/")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("rebase -i: %v\n%s", err, out)
			}
		}, "", ""},
		{"cherry-pick conflict", func(t *testing.T, tr *testRepo) {
			conflict(tr)
			if _, err := tr.GitErr("cherry-pick", "other"); err == nil {
				t.Fatal("cherry-pick did not conflict")
			}
		}, "cherry-pick", ""},
		{"revert conflict", func(t *testing.T, tr *testRepo) {
			tr.Commit("c1", map[string]string{"README.md": "one\n"})
			tr.Commit("c2", map[string]string{"README.md": "two\n"})
			if _, err := tr.GitErr("revert", "--no-edit", "HEAD~1"); err == nil {
				t.Fatal("revert did not conflict")
			}
		}, "revert", ""},
		{"am stopped", func(t *testing.T, tr *testRepo) {
			tr.Commit("c1", map[string]string{"README.md": "one\n"})
			patch := tr.Git("format-patch", "-1", "--stdout")
			tr.Git("reset", "-q", "--hard", "HEAD~1")
			tr.Commit("diverge", map[string]string{"README.md": "different\n"})
			if out, err := gittest.GitInErr(tr.Dir, []byte(patch), "am"); err == nil {
				t.Fatalf("am applied: %s", out)
			}
		}, "am", ""},
		{"bisect started", func(t *testing.T, tr *testRepo) {
			tr.Commit("c1", map[string]string{"c1.md": "1\n"})
			tr.Git("bisect", "start")
		}, "bisect", ""},
		{"index.lock held", func(t *testing.T, tr *testRepo) {
			if err := os.WriteFile(filepath.Join(tr.Dir, ".git", "index.lock"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "index.lock", ""},
		{"user staged the vault path", func(t *testing.T, tr *testRepo) {
			tr.Commit("j", map[string]string{journal: "j\n"})
			tr.Write(journal, "j\nuser staged\n")
			tr.Git("add", journal)
		}, "staged", ""},
		{"user staged a new vault file", func(t *testing.T, tr *testRepo) {
			tr.Write(journal, "user staged\n")
			tr.Git("add", journal)
		}, "staged", ""},
		{"user has an unstaged edit to the vault path", func(t *testing.T, tr *testRepo) {
			tr.Commit("j", map[string]string{journal: "j\n"})
			tr.Write(journal, "j\nuser edit\n")
		}, "uncommitted", ""},
		{"user deleted the vault path", func(t *testing.T, tr *testRepo) {
			tr.Commit("j", map[string]string{journal: "j\n"})
			os.Remove(tr.Path(journal))
		}, "uncommitted", ""},
		{"vault path untracked", func(t *testing.T, tr *testRepo) {
			tr.Write(journal, "the user's own file\n")
		}, "not committed", ""},
		{"vault path untracked and ignored", func(t *testing.T, tr *testRepo) {
			tr.Commit("ignore", map[string]string{".gitignore": ".claude/\n"})
			tr.Write(journal, "the user's own ignored file\n")
		}, "", "CheckWritable runs status with --ignored=no, so an ignored file at a vault path is overwritten"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			tt.setup(t, tr)
			r := tr.open()
			_, err := r.CheckWritable(ctx, []string{journal})
			var de *DeferredError
			if !errors.As(err, &de) || !errors.Is(err, ErrDeferred) {
				t.Fatalf("CheckWritable = %v, want a *DeferredError wrapping ErrDeferred", err)
			}
			if !strings.Contains(de.Reason, tt.want) {
				t.Errorf("reason %q does not mention %q", de.Reason, tt.want)
			}

			refs := tr.Git("for-each-ref")
			headFile, _ := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
			worktreeJournal, _ := os.ReadFile(tr.Path(journal))
			before := tr.snapshot()
			res, err := r.CommitPaths(ctx, journalRequest("- scribe\n"))
			if !errors.As(err, &de) {
				t.Fatalf("CommitPaths = %+v, %v; want a *DeferredError", res, err)
			}
			if got := tr.Git("for-each-ref"); got != refs {
				t.Errorf("refs changed by a deferred commit:\nbefore %s\nafter  %s", refs, got)
			}
			if got, _ := os.ReadFile(filepath.Join(r.GitDir, "HEAD")); string(got) != string(headFile) {
				t.Errorf("HEAD changed: %q → %q", headFile, got)
			}
			if got, _ := os.ReadFile(tr.Path(journal)); string(got) != string(worktreeJournal) {
				t.Errorf("work tree vault file changed: %q → %q", worktreeJournal, got)
			}
			if after := tr.snapshot(); after != before {
				t.Errorf("repository changed by a deferred commit:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

func TestCheckWritableFree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	userWork(t, tr)
	tr.Commit("j", map[string]string{journal: "j\n"})
	r := tr.open()
	if busy := r.Busy(); busy != "" {
		t.Errorf("Busy = %q, want free", busy)
	}
	for _, paths := range [][]string{nil, {journal}, {journal, "progress.md"}} {
		h, err := r.CheckWritable(ctx, paths)
		if err != nil || h.Ref != "refs/heads/main" || h.Commit != tr.Head() {
			t.Errorf("CheckWritable(%q) = %+v, %v; want main at HEAD", paths, h, err)
		}
	}
}

func TestCommitPathsRefusesUnsafePaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		path  string
		setup func(t *testing.T, tr *testRepo, outside string)
	}{
		{name: "dot-dot", path: "../escape.md"},
		{name: "dot-dot inside", path: "notes/../../escape.md"},
		{name: "absolute", path: "/tmp/escape.md"},
		{name: "absolute into outside", path: "OUTSIDE/escape.md"},
		{name: ".git", path: ".git/escape"},
		{name: ".git case folded", path: ".GIT/config"},
		{name: "nested .git", path: "sub/.git/hooks/post-commit"},
		{name: "empty segment", path: "a//b.md"},
		{name: "dot segment", path: "./a.md"},
		{name: "backslash", path: `a\..\..\escape.md`},
		{name: "empty", path: ""},
		{
			name: "symlinked directory leading outside",
			path: "vault/escape.md",
			setup: func(t *testing.T, tr *testRepo, outside string) {
				if err := os.Symlink(outside, tr.Path("vault")); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "committed symlinked directory leading outside",
			path: "vault/escape.md",
			setup: func(t *testing.T, tr *testRepo, outside string) {
				if err := os.Symlink(outside, tr.Path("vault")); err != nil {
					t.Fatal(err)
				}
				tr.Git("add", "vault")
				tr.Git("commit", "-q", "-m", "symlink")
			},
		},
		{
			name: "symlinked grandparent leading outside",
			path: "deep/vault/sub/escape.md",
			setup: func(t *testing.T, tr *testRepo, outside string) {
				os.MkdirAll(tr.Path("deep"), 0o755)
				if err := os.Symlink(outside, tr.Path("deep/vault")); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "committed symlink file leading outside",
			path: "escape.md",
			setup: func(t *testing.T, tr *testRepo, outside string) {
				if err := os.Symlink(filepath.Join(outside, "escape.md"), tr.Path("escape.md")); err != nil {
					t.Fatal(err)
				}
				tr.Git("add", "escape.md")
				tr.Git("commit", "-q", "-m", "symlink")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			outside := filepath.Join(filepath.Dir(tr.Dir), "OUTSIDE")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			path := tt.path
			if path == "OUTSIDE/escape.md" {
				path = filepath.ToSlash(filepath.Join(outside, "escape.md"))
			}
			if tt.setup != nil {
				tt.setup(t, tr, outside)
			}
			head := tr.Head()
			before := tr.snapshot()
			res, err := tr.open().CommitPaths(ctx, CommitRequest{
				Paths: []string{path}, Build: appendBuild(path, "x\n"), Message: message("unsafe"),
			})
			if err == nil {
				t.Fatalf("CommitPaths(%q) = %+v, want an error", path, res)
			}
			if tr.Head() != head {
				t.Errorf("HEAD moved to %s", tr.Head())
			}
			if after := tr.snapshot(); after != before {
				t.Errorf("repository changed:\nbefore %+v\nafter  %+v", before, after)
			}
			assertEmptyDir(t, outside)
			if _, err := os.Stat(filepath.Join(filepath.Dir(tr.Dir), "escape.md")); err == nil {
				t.Errorf("a file was written next to the repository")
			}
			if CheckRelPath(path) == nil {
				if _, err := tr.open().Abs(path); err == nil {
					t.Errorf("Abs(%q) accepted a path CommitPaths refused", path)
				}
			}
		})
	}
}

// Build may only write the paths it declared: anything else could be the
// user's file (with staged or unstaged work) or lead out of the repository.
func TestCommitPathsRefusesUndeclaredBuildPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const bug = "paths Build returns beyond req.Paths skip CheckWritable and Abs"
	tests := []struct {
		name  string
		extra string
		bug   string
		setup func(t *testing.T, tr *testRepo, outside string)
	}{
		{name: "dot-dot", extra: "../escape.md"},
		{name: "user's file with unstaged work", extra: "B.md", bug: bug, setup: func(t *testing.T, tr *testRepo, _ string) {
			tr.Commit("b", map[string]string{"B.md": "b\n"})
			tr.Write("B.md", "b\nunsaved user work\n")
		}},
		{name: "symlinked directory leading outside", extra: "vault/escape.md", bug: bug, setup: func(t *testing.T, tr *testRepo, outside string) {
			if err := os.Symlink(outside, tr.Path("vault")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			outside := filepath.Join(filepath.Dir(tr.Dir), "OUTSIDE")
			os.MkdirAll(outside, 0o755)
			if tt.setup != nil {
				tt.setup(t, tr, outside)
			}
			head := tr.Head()
			before := tr.snapshot()
			res, err := tr.open().CommitPaths(ctx, CommitRequest{
				Paths: []string{journal},
				Build: func(map[string][]byte) (map[string][]byte, error) {
					return map[string][]byte{journal: []byte("j\n"), tt.extra: []byte("clobbered\n")}, nil
				},
				Message: message("undeclared"),
			})
			if err == nil {
				t.Errorf("CommitPaths wrote an undeclared path %q: %+v", tt.extra, res)
			}
			if tr.Head() != head {
				t.Errorf("HEAD moved: the commit includes %q", tr.GitTrim("diff-tree", "--name-only", "-r", head, "HEAD"))
			}
			if after := tr.snapshot(); after != before {
				t.Errorf("user work changed:\nbefore %+v\nafter  %+v", before, after)
			}
			assertEmptyDir(t, outside)
		})
	}
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("wrote outside the repository: %s contains %q", dir, names)
	}
}

func TestCheckRelPath(t *testing.T) {
	t.Parallel()
	good := []string{"a.md", journal, "projects/p/todos.md", "ünï/日本.md", "with space.md", "..dots", "a..b/c", ".gitattributes", ".github/x"}
	bad := []string{"", "/abs", "../x", "a/../../x", "a/..", ".", "./a", "a//b", "a/", ".git", ".git/config", "x/.Git/y", `a\b`, "nul\x00byte"}
	for _, p := range good {
		if err := CheckRelPath(p); err != nil {
			t.Errorf("CheckRelPath(%q) = %v, want ok", p, err)
		}
	}
	for _, p := range bad {
		if err := CheckRelPath(p); err == nil {
			t.Errorf("CheckRelPath(%q) = nil, want an error", p)
		}
	}
}

// A user commit landing between scribe's read and its compare-and-swap makes
// scribe rebuild on the new tip: both commits survive, history stays linear.
func TestCommitPathsRetriesWhenTheBranchMoves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	tr.Commit("j", map[string]string{journal: "- one\n"})
	userWork(t, tr)
	base := tr.Head()
	before := tr.snapshot()
	var calls atomic.Int32
	var userCommit string
	res, err := tr.open().CommitPaths(ctx, CommitRequest{
		Paths: []string{journal}, Locks: []string{"journal"}, Message: message("retry"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			if calls.Add(1) == 1 {
				// The user commits while scribe is building (their staged work stays staged:
				// --allow-empty with --only and no paths commits nothing of the index).
				tr.Git("commit", "-q", "--allow-empty", "--only", "-m", "user commit meanwhile")
				userCommit = tr.Head()
			}
			return appendBuild(journal, "- two\n")(cur)
		},
	})
	if err != nil {
		t.Fatalf("CommitPaths: %v", err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("Build called %d times, want 2 (one retry)", n)
	}
	if res.Parent != userCommit || res.SHA != tr.Head() {
		t.Errorf("result = %+v, want a commit on the user's commit %s", res, userCommit)
	}
	if got := tr.GitTrim("log", "--format=%s", base+"..HEAD"); got != "progress: retry\nuser commit meanwhile" {
		t.Errorf("history since base = %q, want the user commit then the scribe commit", got)
	}
	if merges := tr.GitTrim("rev-list", "--merges", "HEAD"); merges != "" {
		t.Errorf("history has merges: %s", merges)
	}
	if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != "- one\n- two\n" || tr.Read(journal) != got {
		t.Errorf("journal = %q, work tree %q", got, tr.Read(journal))
	}
	after := tr.snapshot()
	if after.cached != before.cached || after.status != before.status {
		t.Errorf("user work changed:\nbefore %+v\nafter  %+v", before, after)
	}
	tr.fsck()
}

// A branch that keeps moving makes CommitPaths give up with an error, and
// never half-commit.
func TestCommitPathsGivesUpWhenTheBranchKeepsMoving(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("20 retries")
	}
	tr := newRepo(t)
	var calls atomic.Int32
	_, err := tr.open().CommitPaths(context.Background(), CommitRequest{
		Paths: []string{journal}, Locks: []string{"journal"}, Message: message("never"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			calls.Add(1)
			tr.Git("commit", "-q", "--allow-empty", "-m", "user")
			return appendBuild(journal, "x\n")(cur)
		},
	})
	if err == nil {
		t.Fatalf("CommitPaths succeeded although the branch moved on every attempt")
	}
	if got := tr.GitTrim("log", "--format=%s", "--grep=^progress:"); got != "" {
		t.Errorf("a scribe commit landed: %q", got)
	}
	if got := tr.GitTrim("for-each-ref", LockRefPrefix); got != "" {
		t.Errorf("lock refs left behind: %s", got)
	}
	if _, err := os.Stat(tr.Path(journal)); err == nil {
		t.Errorf("the work tree got the file although nothing was committed")
	}
	t.Logf("gave up after %d builds: %v", calls.Load(), err)
}

// Sixteen processes appending to one journal under lock "journal": every
// entry lands, one linear commit each, and the work tree ends clean.
//
// "staggered" starts each process a little later than the one before, so
// most of them check the repository while another is mid-commit.
func TestCommitPathsConcurrentProcesses(t *testing.T) {
	t.Parallel()
	for _, stagger := range []time.Duration{0, 15 * time.Millisecond} {
		name := "simultaneous"
		if stagger > 0 {
			name = "staggered"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if stagger > 0 {
			}
			testConcurrentCommits(t, stagger)
		})
	}
}

func testConcurrentCommits(t *testing.T, stagger time.Duration) {
	const n = 16
	tr := newRepo(t)
	if stagger > 0 {
		userWork(t, tr)
	}
	base := tr.Head()
	before := tr.snapshot()
	start := time.Now()
	errs, outs := runHelpers(t, n, "commit", func(i int) []string {
		env := []string{"GITOPS_REPO=" + tr.Dir, "GITOPS_DELAY_MS=" + strconv.Itoa(int(stagger.Milliseconds())*i)}
		if stagger == 0 {
			// Until the pre-lock CheckWritable race is fixed (see
			// TestCommitPathsWaitsForACommitInFlight), retry spurious
			// deferrals here so this variant checks the rest reliably.
			env = append(env, "GITOPS_RETRY_DEFERRED=1")
		}
		return env
	})
	t.Logf("%d concurrent CommitPaths processes took %v", n, time.Since(start))
	if spurious := strings.Count(strings.Join(outs, ""), "spurious deferral"); spurious > 0 {
		t.Logf("%d spurious deferrals retried (known bug: CheckWritable runs before the lock)", spurious)
	}
	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	journalAtHead := tr.Git("cat-file", "blob", "HEAD:"+journal)
	lines := strings.Split(strings.TrimSpace(journalAtHead), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(lines) != n-failed || len(seen) != n-failed {
		t.Errorf("journal has %d lines (%d distinct), want %d:\n%s", len(lines), len(seen), n-failed, journalAtHead)
	}
	if got := tr.GitTrim("rev-list", "--count", base+"..HEAD"); got != strconv.Itoa(n-failed) {
		t.Errorf("%s new commits, want %d", got, n-failed)
	}
	for _, line := range strings.Split(tr.GitTrim("rev-list", "--parents", base+"..HEAD"), "\n") {
		if f := strings.Fields(line); len(f) != 2 {
			t.Errorf("commit with %d parents in a history that must be linear: %s", len(f)-1, line)
		}
	}
	if tr.Read(journal) != journalAtHead {
		t.Errorf("work tree journal differs from HEAD")
	}
	after := tr.snapshot()
	after.lsFilesMeta = withoutPaths(after.lsFilesMeta, journal)
	if after != before {
		t.Errorf("user work changed by concurrent commits:\nbefore %+v\nafter  %+v", before, after)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock refs left behind: %s", got)
	}
	tr.fsck()
}

// A second scribe command that starts while another one is between moving
// the branch and updating the index must wait for the lock and then commit;
// it must not mistake the other scribe's half-done checkout for user work.
// A reference-transaction hook holds the first commit in exactly that window.
func TestCommitPathsWaitsForACommitInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	marker := filepath.Join(t.TempDir(), "in-flight")
	hook := "#!/bin/sh\n" +
		"[ \"$1\" = committed ] || exit 0\n" +
		"grep -q ' refs/heads/main$' || exit 0\n" +
		"[ -e '" + marker + "' ] && exit 0\n" +
		": > '" + marker + "'\n" +
		"sleep 1\n"
	tr.Write(".git/hooks/reference-transaction", hook)
	if err := os.Chmod(tr.Path(".git/hooks/reference-transaction"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() {
		_, err := tr.open().CommitPaths(ctx, journalRequest("- first\n"))
		first <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first commit never reached update-ref")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The branch has moved; the first commit has not updated the index yet.
	_, err := tr.open().CommitPaths(ctx, journalRequest("- second\n"))
	if err := <-first; err != nil {
		t.Fatalf("first CommitPaths: %v", err)
	}
	if err != nil {
		t.Fatalf("second CommitPaths, started while the first was in flight: %v", err)
	}
	if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != "- first\n- second\n" {
		t.Errorf("journal = %q, want both entries", got)
	}
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("status = %q, want clean", st)
	}
	tr.fsck()
}

// Plumbing commits run none of the user's commit hooks, and every git child
// carries GIT_SCRIBE_ACTIVE=1 so a hook that does run (reference-transaction)
// can tell scribe is the caller and not recurse.
func TestCommitPathsRunsNoCommitHooks(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	marks := t.TempDir()
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change"} {
		tr.Write(".git/hooks/"+h, "#!/bin/sh\n: > '"+filepath.Join(marks, h)+"'\n")
		os.Chmod(tr.Path(".git/hooks/"+h), 0o755)
	}
	tr.Write(".git/hooks/reference-transaction",
		"#!/bin/sh\necho \"$1 ${GIT_SCRIBE_ACTIVE:-unset}\" >> '"+filepath.Join(marks, "reference-transaction")+"'\n")
	os.Chmod(tr.Path(".git/hooks/reference-transaction"), 0o755)
	if _, err := tr.open().CommitPaths(context.Background(), journalRequest("- x\n")); err != nil {
		t.Fatalf("CommitPaths: %v", err)
	}
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"} {
		if _, err := os.Stat(filepath.Join(marks, h)); err == nil {
			t.Errorf("the user's %s hook ran for a scribe commit", h)
		}
	}
	b, err := os.ReadFile(filepath.Join(marks, "reference-transaction"))
	if err != nil {
		t.Fatalf("reference-transaction hook never ran: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasSuffix(line, " 1") {
			t.Errorf("a git child ran without %s=1: %q", ActiveEnv, line)
		}
	}
}

// A scribe command killed between moving the branch and updating the work
// tree and index must lose nothing: the next command completes the update
// (never mistaking it for user work), unless the user has touched the path
// since, in which case their edit wins and the write is deferred.
func TestCommitPathsRecoversFromAKillAfterUpdateRef(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name      string
		userEdit  string // written to the vault path after the crash; "" = none
		wantDefer bool
	}{
		{name: "next command completes the checkout"},
		{name: "user edited the path since: left alone, deferred", userEdit: "- the user's own line\n", wantDefer: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			userWork(t, tr)
			before := tr.snapshot()
			base := tr.Head()
			hook := tr.Path(".git/hooks/reference-transaction")
			tr.Write(".git/hooks/reference-transaction", "#!/bin/sh\n"+
				"[ \"$1\" = committed ] || exit 0\n"+
				"grep -q ' refs/heads/main$' || exit 0\n"+
				"[ -n \"$GITOPS_SELF_PID\" ] && kill -9 \"$GITOPS_SELF_PID\"\n")
			os.Chmod(hook, 0o755)
			cmd := helperCmd(t, "commit-killed", "GITOPS_REPO="+tr.Dir)
			out, err := cmd.CombinedOutput()
			if err == nil || strings.Contains(string(out), "survived") {
				t.Fatalf("helper was not killed in the window: %v\n%s", err, out)
			}
			os.Remove(hook)
			if got := tr.GitTrim("log", "-1", "--format=%s"); got != "progress: killed" {
				t.Fatalf("the killed commit did not move the branch: HEAD is %q", got)
			}
			// Crash state: HEAD has the file, the index and work tree do not.
			if tt.userEdit != "" {
				tr.Write(journal, tt.userEdit)
			}
			_, err = tr.open().CommitPaths(ctx, journalRequest("- second\n"))
			if tt.wantDefer {
				var de *DeferredError
				if !errors.As(err, &de) || strings.Contains(de.Reason, LockRefPrefix) {
					t.Fatalf("CommitPaths over the user's edit = %v, want a *DeferredError", err)
				}
				if got := tr.Read(journal); got != tt.userEdit {
					t.Errorf("the user's edit was overwritten: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("CommitPaths after the crash: %v", err)
			}
			if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != "- first\n- second\n" || tr.Read(journal) != got {
				t.Errorf("journal = %q, work tree %q; want both entries", got, tr.Read(journal))
			}
			if got := tr.GitTrim("rev-list", "--count", base+"..HEAD"); got != "2" {
				t.Errorf("%s commits since base, want 2", got)
			}
			after := tr.snapshot()
			after.lsFilesMeta = withoutPaths(after.lsFilesMeta, journal)
			if after != before {
				t.Errorf("user work changed:\nbefore %+v\nafter  %+v", before, after)
			}
			tr.fsck()
		})
	}
}

// A lock held past the timeout defers the commit (queue it, nothing lost)
// and names the holder; nothing is written.
func TestCommitPathsDefersWhenTheLockIsHeld(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	plantHolder(t, tr, "journal", Holder{Host: "elsewhere", PID: 4242, Started: time.Now().UTC(), Expires: time.Now().Add(time.Hour).UTC()})
	head := tr.Head()
	req := journalRequest("- x\n")
	req.LockOptions.Timeout = 200 * time.Millisecond
	_, err := tr.open().CommitPaths(context.Background(), req)
	var de *DeferredError
	if !errors.As(err, &de) || !errors.Is(err, ErrDeferred) {
		t.Fatalf("CommitPaths under a held lock = %v, want a *DeferredError", err)
	}
	if !strings.Contains(err.Error(), "4242") || !strings.Contains(err.Error(), "elsewhere") {
		t.Errorf("error %q does not name the holder", err)
	}
	if tr.Head() != head {
		t.Errorf("HEAD moved")
	}
	if _, err := os.Stat(tr.Path(journal)); err == nil {
		t.Errorf("the vault file was written")
	}
}

// Another scribe command that checks the repository while a commit is
// prepared but not yet on the branch must not discard that commit's
// recovery record: if the committing process is then killed, the next
// command still completes its checkout.
func TestCommitPathsRecoveryRecordSurvivesAConcurrentCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	marker := filepath.Join(t.TempDir(), "prepared")
	hook := tr.Path(".git/hooks/reference-transaction")
	tr.Write(".git/hooks/reference-transaction", "#!/bin/sh\n"+
		"[ -n \"$GITOPS_SELF_PID\" ] || exit 0\n"+
		"grep -q ' refs/heads/main$' || exit 0\n"+
		"case \"$1\" in\n"+
		"prepared) : > '"+marker+"'; sleep 1 ;;\n"+
		"committed) kill -9 \"$GITOPS_SELF_PID\" ;;\n"+
		"esac\n")
	os.Chmod(hook, 0o755)
	cmd := helperCmd(t, "commit-killed", "GITOPS_REPO="+tr.Dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the helper never reached update-ref")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Another scribe command starts now: the branch has not moved yet.
	// (It may find the path staged: a branch write brings the index up to
	// date before it moves the branch, so no user commit can revert it.)
	tr.open().CheckWritable(ctx, []string{journal})
	if err := cmd.Wait(); err == nil {
		t.Fatal("helper was not killed")
	}
	os.Remove(hook)
	if got := tr.GitTrim("log", "-1", "--format=%s"); got != "progress: killed" {
		t.Fatalf("the killed commit did not move the branch: HEAD is %q", got)
	}
	if _, err := tr.open().CommitPaths(ctx, journalRequest("- second\n")); err != nil {
		t.Fatalf("CommitPaths after the crash: %v", err)
	}
	if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != "- first\n- second\n" || tr.Read(journal) != got {
		t.Errorf("journal = %q, work tree %q; want both entries", got, tr.Read(journal))
	}
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("status = %q, want clean", st)
	}
}

// TestCommitPathsAdopt pins Adopt: a person's uncommitted edit of their own
// file is the input of the branch write (ratify and the inbox ticks), and
// every other kind of user work stays exactly as it was.
func TestCommitPathsAdopt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const inbox = "control/inbox.md"
	tick := func(cur map[string][]byte) (map[string][]byte, error) {
		if _, ok := cur[inbox]; !ok {
			return map[string][]byte{}, nil
		}
		return map[string][]byte{inbox: append(append([]byte(nil), cur[inbox]...), "- ratified\n"...)}, nil
	}
	req := func() CommitRequest {
		return CommitRequest{Paths: []string{inbox}, Adopt: []string{inbox}, Locks: []string{"inbox"}, Message: message("ratify"), Build: tick}
	}
	tests := []struct {
		name      string
		setup     func(tr *testRepo)
		untracked bool   // no inbox committed before
		want      string // committed inbox; "" = deferred
		deferred  string
	}{
		{name: "unstaged tick", setup: func(tr *testRepo) { tr.Write(inbox, "- [x] a\n") }, want: "- [x] a\n- ratified\n"},
		{name: "staged tick", setup: func(tr *testRepo) { tr.Write(inbox, "- [x] a\n"); tr.Git("add", inbox) }, want: "- [x] a\n- ratified\n"},
		{name: "untracked inbox", untracked: true, setup: func(tr *testRepo) { tr.Write(inbox, "- [x] new\n") }, want: "- [x] new\n- ratified\n"},
		{name: "staged and unstaged differ", setup: func(tr *testRepo) {
			tr.Write(inbox, "- [x] a\n")
			tr.Git("add", inbox)
			tr.Write(inbox, "- [x] a\n- more\n")
		}, deferred: "staged changes to " + inbox},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			if !tt.untracked {
				tr.Commit("inbox", map[string]string{inbox: "- [ ] a\n"})
			}
			userWork(t, tr)
			tt.setup(tr)
			before := tr.snapshot()
			// others is every user change but the inbox's, byte for byte.
			others := func() string {
				x := ":(exclude)" + inbox
				return withoutPaths(tr.Git("status", "--porcelain=v2", "--untracked-files=all"), inbox) +
					tr.Git("diff", "--cached", "--binary", "--", ".", x) + tr.Git("diff", "--binary", "--", ".", x) +
					withoutPaths(tr.Git("ls-files", "--stage"), inbox)
			}
			othersBefore := others()
			worktree := tr.Read(inbox)
			head := tr.Head()
			_, err := tr.open().CommitPaths(ctx, req())
			if tt.deferred != "" {
				var de *DeferredError
				if !errors.As(err, &de) || !strings.Contains(de.Reason, tt.deferred) {
					t.Fatalf("err = %v, want deferred: %s", err, tt.deferred)
				}
				if tr.Head() != head || tr.Read(inbox) != worktree || tr.snapshot() != before {
					t.Fatalf("a deferred write changed something")
				}
				return
			}
			if err != nil {
				t.Fatalf("CommitPaths: %v", err)
			}
			if got := tr.Git("cat-file", "blob", "HEAD:"+inbox); got != tt.want || tr.Read(inbox) != tt.want {
				t.Errorf("committed %q, work tree %q; want %q", got, tr.Read(inbox), tt.want)
			}
			if got := tr.GitTrim("diff-tree", "--name-only", "-r", "HEAD~1", "HEAD"); got != inbox {
				t.Errorf("commit touches %q, want only %s", got, inbox)
			}
			if out := tr.Git("status", "--porcelain=v2", "--", inbox); out != "" {
				t.Errorf("inbox not clean after the write: %s", out)
			}
			if after := others(); after != othersBefore {
				t.Errorf("user work changed:\nbefore %s\nafter  %s", othersBefore, after)
			}
			tr.fsck()
		})
	}

	t.Run("failed attempt puts the person's file back", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.Commit("inbox", map[string]string{inbox: "- [ ] a\n"})
		tr.Write(inbox, "- [x] a\n")
		var inputs []string
		r := req()
		r.Build = func(cur map[string][]byte) (map[string][]byte, error) {
			inputs = append(inputs, string(cur[inbox]))
			if len(inputs) == 1 {
				// The branch moves after the build: this attempt's update-ref fails.
				tr.Git("commit", "-q", "--allow-empty", "--only", "-m", "user commit meanwhile")
			}
			return tick(cur)
		}
		if _, err := tr.open().CommitPaths(ctx, r); err != nil {
			t.Fatalf("CommitPaths: %v", err)
		}
		if len(inputs) != 2 || inputs[0] != "- [x] a\n" || inputs[1] != "- [x] a\n" {
			t.Fatalf("Build inputs = %q, want the person's ticked file both times", inputs)
		}
		if got := tr.Git("cat-file", "blob", "HEAD:"+inbox); got != "- [x] a\n- ratified\n" {
			t.Errorf("committed %q", got)
		}
		if got := tr.GitTrim("log", "--format=%s", "-2"); got != "progress: ratify\nuser commit meanwhile" {
			t.Errorf("history = %q", got)
		}
		tr.fsck()
	})

	t.Run("restore", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.Commit("inbox", map[string]string{inbox: "- [ ] a\n"})
		tr.Write(inbox, "- [x] a\n")
		tr.Git("add", inbox)
		tr.Write("new.md", "untracked\n")
		before := tr.snapshot()
		r := tr.open()
		_, kept, err := r.adopt(ctx, []string{inbox, "new.md"}, map[string][]byte{})
		if err != nil {
			t.Fatal(err)
		}
		tr.Write(inbox, "scribe's version\n")
		tr.Git("add", inbox, "new.md")
		kept.restore(ctx, r)
		if after := tr.snapshot(); after != before {
			t.Errorf("restore did not put the work tree and index back:\nbefore %+v\nafter  %+v", before, after)
		}
	})
}

// movingSigner is a gpg.program that makes a user commit of progress.md as
// the work tree has it (git commit --only: the rest of the index stays)
// while the file $MOVING (replaced by its path) exists, then says it signed: the branch moves during every
// attempt of a signed branch write, after its Build and before its
// compare-and-swap, exactly when a person's commit can take the write's
// change from the work tree.
const movingSigner = `#!/bin/sh
cat > /dev/null
if [ -e "$MOVING" ]; then
	git -c commit.gpgsign=false commit -q --allow-empty -m "user commit meanwhile" -- progress.md >&2 || exit 1
fi
echo '[GNUPG:] SIG_CREATED D 22 8 00 0 0 0' >&2
printf -- '-----BEGIN PGP SIGNATURE-----\n\nZmFrZQ==\n-----END PGP SIGNATURE-----\n'
`

// TestCommitPathsWhileUserCommitsTakeTheChange pins the two ways a branch
// write follows a branch that moves during every attempt. An idempotent
// change (a tick) stays in the work tree and index between attempts, so a
// user commit that takes it along lands it, once, and the write ends with
// nothing to do. Any other change is set back to the new tip before the
// rebuild, so no user commit takes it along and it is never applied twice:
// after 20 attempts it is deferred, and the work tree and index hold the
// tip's version.
func TestCommitPathsWhileUserCommitsTakeTheChange(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the signing program is a shell script")
	}
	for _, idem := range []bool{true, false} {
		t.Run(fmt.Sprintf("idempotent=%v", idem), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			tr := newRepo(t)
			tr.Commit("plan", map[string]string{"progress.md": "- [ ] a\n", "A.md": "a\n"})
			tr.Write("A.md", "a\nstaged\n")
			tr.Git("add", "A.md")
			signer := filepath.Join(t.TempDir(), "signer")
			moving := filepath.Join(t.TempDir(), "moving")
			script := strings.ReplaceAll(movingSigner, "$MOVING", moving)
			if err := os.WriteFile(signer, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(moving, nil, 0o644)
			tr.Git("config", "commit.gpgsign", "true")
			tr.Git("config", "gpg.program", signer)
			tr.Git("config", "user.signingkey", "ada@example.com")
			before := tr.snapshot()
			build := appendBuild("progress.md", "- appended\n")
			if idem {
				build = func(cur map[string][]byte) (map[string][]byte, error) {
					return map[string][]byte{"progress.md": bytes.Replace(cur["progress.md"], []byte("- [ ] a"), []byte("- [x] a"), 1)}, nil
				}
			}
			req := CommitRequest{Paths: []string{"progress.md"}, Locks: []string{"progress"}, Message: message("a done"),
				Build: build, Idempotent: idem}
			res, err := tr.open().CommitPaths(ctx, req)
			var de *DeferredError
			if idem {
				if err != nil || res.SHA != "" {
					t.Fatalf("CommitPaths = %+v, %v; want nothing left to do (a user commit took the tick)", res, err)
				}
				if got := tr.Git("show", "HEAD:progress.md"); got != "- [x] a\n" {
					t.Fatalf("progress.md at HEAD = %q", got)
				}
			} else {
				if !errors.As(err, &de) || !strings.Contains(de.Reason, "kept moving") {
					t.Fatalf("CommitPaths = %+v, %v; want deferred, the branch kept moving", res, err)
				}
				if got := tr.Git("show", "HEAD:progress.md"); got != "- [ ] a\n" {
					t.Fatalf("progress.md at HEAD = %q: a user commit took the change along", got)
				}
			}
			if got := tr.Read("progress.md"); got != tr.Git("show", "HEAD:progress.md") || tr.Git("diff", "--cached", "--", "progress.md") != "" {
				t.Fatalf("progress.md in the work tree (%q) or index is not HEAD's", got)
			}
			after := tr.snapshot()
			if after.cached != before.cached || after.status != before.status {
				t.Fatalf("the user's work changed:\nbefore %+v\nafter  %+v", before, after)
			}
			if !idem {
				// Once the branch holds still, the change lands once.
				os.Remove(moving)
				if res, err := tr.open().CommitPaths(ctx, req); err != nil || res.SHA == "" {
					t.Fatalf("CommitPaths once the branch holds still = %+v, %v", res, err)
				}
				if got := tr.Git("show", "HEAD:progress.md"); got != "- [ ] a\n- appended\n" {
					t.Fatalf("progress.md at HEAD = %q, want the change once", got)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(tr.open().ScribeDir(), "pending")); len(entries) > 0 {
				t.Errorf("intent records left: %v", entries)
			}
			tr.fsck()
		})
	}
}
