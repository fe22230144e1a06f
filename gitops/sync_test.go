package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/internal/gittest"
)

// newBareRemote is a bare repository seeded with one commit on main.
func newBareRemote(t *testing.T) string {
	t.Helper()
	seed := newRepo(t)
	seed.Commit("journal", map[string]string{"journal.md": "# Journal\n\n## e0\nbase\n"})
	bare := filepath.Join(t.TempDir(), "remote.git")
	gittest.GitIn(t, filepath.Dir(bare), "clone", "-q", "--bare", seed.Dir, bare)
	return bare
}

// cloneOf clones remote (main tracks origin/main).
func cloneOf(t *testing.T, remote string) *testRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	gittest.GitIn(t, filepath.Dir(dir), "clone", "-q", remote, dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repoAt(t, real)
}

// unionLines is a test resolver: ours, then theirs' lines ours lacks.
func unionLines(base, ours, theirs []byte) ([]byte, error) {
	have := map[string]bool{}
	for _, l := range strings.Split(string(ours), "\n") {
		have[l] = true
	}
	out := strings.TrimRight(string(ours), "\n") + "\n"
	for _, l := range strings.Split(string(theirs), "\n") {
		if !have[l] {
			out += l + "\n"
			have[l] = true
		}
	}
	return []byte(out), nil
}

func syncOpts() SyncOptions {
	return SyncOptions{Resolve: map[string]Resolver{"journal.md": unionLines}, Locks: []string{"journal"},
		LockOptions: LockOptions{Timeout: 5 * time.Second}}
}

func TestSyncReplaysOntoRemoteAndKeepsUserWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := newBareRemote(t)
	a, b := cloneOf(t, remote), cloneOf(t, remote)

	a.Commit("progress: a", map[string]string{"journal.md": a.Read("journal.md") + "\n## ea\nfrom a\n", "a.txt": "a\n"})
	a.Git("push", "-q")
	b.Commit("progress: b", map[string]string{"journal.md": b.Read("journal.md") + "\n## eb\nfrom b\n"})
	// The user's own work in b: staged, unstaged, untracked.
	b.Write("README.md", "# staged\n")
	b.Git("add", "README.md")
	b.Write("README.md", "# staged and then edited\n")
	b.Write("notes.txt", "untracked\n")
	before := b.snapshot()

	rep, err := b.open().Sync(ctx, syncOpts())
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if len(rep.Replayed) != 1 || rep.Replayed[0].New == "" || len(rep.Replayed[0].Resolved) != 1 {
		t.Fatalf("replayed = %+v, want one commit with the journal resolved", rep.Replayed)
	}
	if rep.Fetched != 1 || rep.Pushed != 1 {
		t.Errorf("fetched %d, pushed %d; want 1 (a's commit) and 1", rep.Fetched, rep.Pushed)
	}
	j := b.Read("journal.md")
	if !strings.Contains(j, "from a") || !strings.Contains(j, "from b") || strings.Index(j, "from a") > strings.Index(j, "from b") {
		t.Errorf("journal after sync:\n%s", j)
	}
	if b.Read("a.txt") != "a\n" {
		t.Errorf("a.txt was not checked out")
	}
	after := b.snapshot()
	if before.cached != after.cached || before.unstaged != after.unstaged {
		t.Errorf("user work changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if b.Read("notes.txt") != "untracked\n" {
		t.Errorf("untracked file changed")
	}
	if got := gittest.GitIn(t, remote, "rev-parse", "main"); strings.TrimSpace(got) != b.Head() {
		t.Errorf("remote main %s, local %s", got, b.Head())
	}
	if n := b.GitTrim("rev-list", "--merges", "--count", "HEAD"); n != "0" {
		t.Errorf("history has %s merges, want linear", n)
	}
	if l := b.lockRefs(); l != "" {
		t.Errorf("locks left behind: %s", l)
	}
	b.fsck()

	// a comes along by fast-forward; a second sync moves nothing.
	rep, err = a.open().Sync(ctx, syncOpts())
	if err != nil || a.Head() != b.Head() || len(rep.Replayed) != 0 {
		t.Fatalf("a's sync: %v, head %s want %s, report %+v", err, a.Head(), b.Head(), rep)
	}
	rep, err = a.open().Sync(ctx, syncOpts())
	if err != nil || rep.Pushed != 0 || rep.Fetched != 0 {
		t.Fatalf("idempotent sync: %v %+v", err, rep)
	}
}

func TestSyncStopsOnConflictWithNothingChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := newBareRemote(t)
	a, b := cloneOf(t, remote), cloneOf(t, remote)
	a.Commit("a", map[string]string{"README.md": "# from a\n"})
	a.Git("push", "-q")
	b.Commit("b", map[string]string{"README.md": "# from b\n"})
	head, remoteHead := b.Head(), strings.TrimSpace(gittest.GitIn(t, remote, "rev-parse", "main"))
	before := b.snapshot()

	_, err := b.open().Sync(ctx, syncOpts())
	var re *SyncRefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "conflicts in README.md") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Sync = %v, want a refusal naming README.md", err)
	}
	if b.Head() != head || strings.TrimSpace(gittest.GitIn(t, remote, "rev-parse", "main")) != remoteHead {
		t.Errorf("a refused sync moved a branch")
	}
	if after := b.snapshot(); after != before {
		t.Errorf("a refused sync changed the work tree or index")
	}
	if l := b.lockRefs(); l != "" {
		t.Errorf("locks left behind: %s", l)
	}
}

func TestSyncRefusesToOverwriteUncommittedEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := newBareRemote(t)
	a, b := cloneOf(t, remote), cloneOf(t, remote)
	a.Commit("a", map[string]string{"README.md": "# from a\n"})
	a.Git("push", "-q")
	b.Write("README.md", "# my edit\n")
	head := b.Head()
	_, err := b.open().Sync(ctx, syncOpts())
	var re *SyncRefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Fatalf("Sync = %v, want a refusal about uncommitted changes", err)
	}
	if b.Head() != head || b.Read("README.md") != "# my edit\n" {
		t.Errorf("refused sync changed the branch or the user's file")
	}
}

func TestSyncRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T) *testRepo
		want  string
	}{
		{"no upstream", func(t *testing.T) *testRepo {
			c := cloneOf(t, newBareRemote(t))
			c.Git("checkout", "-q", "-b", "topic")
			return c
		}, "has no upstream"},
		{"detached", func(t *testing.T) *testRepo {
			c := cloneOf(t, newBareRemote(t))
			c.Git("checkout", "-q", "--detach")
			return c
		}, "HEAD is detached"},
		{"merge in local commits", func(t *testing.T) *testRepo {
			remote := newBareRemote(t)
			a, c := cloneOf(t, remote), cloneOf(t, remote)
			a.Commit("a", map[string]string{"a.txt": "a\n"})
			a.Git("push", "-q")
			c.Git("checkout", "-q", "-b", "side")
			c.Commit("side", map[string]string{"s.txt": "s\n"})
			c.Git("checkout", "-q", "main")
			c.Commit("main", map[string]string{"m.txt": "m\n"})
			c.Git("merge", "-q", "--no-edit", "side")
			return c
		}, "merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := tt.setup(t)
			_, err := c.open().Sync(ctx, syncOpts())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Sync = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestSyncPublishesScribeRefsButNeverLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := newBareRemote(t)
	a, b := cloneOf(t, remote), cloneOf(t, remote)
	oid := strings.TrimSpace(a.GitStdin([]byte("mark\n"), "hash-object", "-w", "--stdin"))
	a.Git("update-ref", "refs/scribe/marks/handoff", oid)
	held, err := a.open().Acquire(ctx, "journal", LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release(ctx)
	rep, err := a.open().Sync(ctx, syncOpts())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.RefsPushed) != 1 || rep.RefsPushed[0] != "refs/scribe/marks/handoff" {
		t.Errorf("refs pushed = %v", rep.RefsPushed)
	}
	refs := gittest.GitIn(t, remote, "for-each-ref", "--format=%(refname)", "refs/scribe/")
	if strings.TrimSpace(refs) != "refs/scribe/marks/handoff" {
		t.Errorf("remote scribe refs = %q, want only the mark (never a local lock)", refs)
	}
	// b tracks it after a sync, in refs/scribe/remotes/origin/.
	rep, err = b.open().Sync(ctx, syncOpts())
	if err != nil {
		t.Fatal(err)
	}
	if got := b.GitTrim("rev-parse", "refs/scribe/remotes/origin/marks/handoff"); got != oid {
		t.Errorf("b tracks %s, want %s", got, oid)
	}
	if len(rep.RefsFetched) != 1 || rep.RefsFetched[0].New != oid {
		t.Errorf("refs fetched = %+v", rep.RefsFetched)
	}
}

func TestRemoteLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := newBareRemote(t)
	a, b := cloneOf(t, remote), cloneOf(t, remote)
	ra, rb := a.open(), b.open()

	la, err := ra.AcquireRemote(ctx, "origin", []string{"journal", "bridge"}, LockOptions{TTL: time.Hour})
	if err != nil {
		t.Fatalf("acquire: %v", err)
	}
	refs := strings.Fields(gittest.GitIn(t, remote, "for-each-ref", "--format=%(refname)", LockRefPrefix))
	if len(refs) != 2 {
		t.Fatalf("remote locks = %v", refs)
	}
	// All or nothing: b cannot take bridge+progress while a holds bridge,
	// and takes nothing meanwhile.
	_, err = rb.AcquireRemote(ctx, "origin", []string{"bridge", "progress"}, LockOptions{Timeout: 300 * time.Millisecond})
	var rle *RemoteLockedError
	if !errors.As(err, &rle) || !errors.Is(err, ErrLocked) || rle.Name != "bridge" || rle.Holder == nil {
		t.Fatalf("contended acquire = %v, want the holder of bridge", err)
	}
	if got := gittest.GitIn(t, remote, "for-each-ref", LockRefPrefix+"progress"); got != "" {
		t.Errorf("a failed acquire left %s", got)
	}
	if err := la.Release(ctx); err != nil {
		t.Fatalf("release: %v", err)
	}
	if got := gittest.GitIn(t, remote, "for-each-ref", LockRefPrefix); got != "" {
		t.Errorf("locks left after release: %s", got)
	}

	// An expired lock is taken over (by lease on its exact value); the old
	// holder's release then leaves the new holder's lock alone.
	old, err := ra.AcquireRemote(ctx, "origin", []string{"journal"}, LockOptions{TTL: -time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	nw, err := rb.AcquireRemote(ctx, "origin", []string{"journal"}, LockOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("take over an expired lock: %v", err)
	}
	if err := old.Release(ctx); err != nil {
		t.Errorf("releasing a lock that was taken over: %v", err)
	}
	if got := strings.TrimSpace(gittest.GitIn(t, remote, "rev-parse", LockRefPrefix+"journal")); got != nw.OID {
		t.Errorf("remote lock = %s, want the new holder %s", got, nw.OID)
	}
	nw.Release(ctx)

	// Unreachable: fails at once, clearly.
	b.Git("remote", "add", "gone", filepath.Join(t.TempDir(), "nowhere.git"))
	start := time.Now()
	_, err = rb.AcquireRemote(ctx, "gone", []string{"journal"}, LockOptions{})
	if !errors.Is(err, ErrRemoteUnreachable) || !strings.Contains(err.Error(), "cannot reach remote gone") {
		t.Fatalf("unreachable acquire = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("unreachable remote took %v", time.Since(start))
	}
}

func TestCommitPathsWithUnreachableRemoteLockDefers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := cloneOf(t, newBareRemote(t))
	c.Git("remote", "set-url", "origin", filepath.Join(t.TempDir(), "nowhere.git"))
	head := c.Head()
	_, err := c.open().CommitPaths(ctx, CommitRequest{
		Paths: []string{"journal.md"}, Locks: []string{"journal"}, RemoteLock: "origin",
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			return map[string][]byte{"journal.md": []byte("x\n")}, nil
		},
		Message: func([]string) string { return "progress: x\n" },
	})
	var de *DeferredError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "cannot reach remote origin") {
		t.Fatalf("CommitPaths = %v, want a deferral naming the unreachable remote", err)
	}
	if c.Head() != head || c.lockRefs() != "" {
		t.Errorf("a deferred commit moved the branch or left a lock")
	}
	if _, err := os.Stat(c.Path("journal.md")); err != nil {
		t.Fatal(err)
	}
}

func TestParseMergeTree(t *testing.T) {
	t.Parallel()
	out := "abc123\x00" +
		"100644 b1 1\tj.md\x00100644 o2 2\tj.md\x00100644 t3 3\tj.md\x00" +
		"\x00" +
		"1\x00j.md\x00Auto-merging\x00Auto-merging j.md\x00" +
		"1\x00j.md\x00CONFLICT (contents)\x00CONFLICT (content): Merge conflict in j.md\x00" +
		"2\x00a\x00b\x00CONFLICT (rename/rename)\x00CONFLICT (rename/rename): a renamed to b\x00"
	tree, conflicts, details := parseMergeTree([]byte(out))
	if tree != "abc123" {
		t.Errorf("tree = %q", tree)
	}
	if mc := conflicts["j.md"]; mc == nil || mc.stages != [4]string{"", "b1", "o2", "t3"} {
		t.Errorf("j.md = %+v", conflicts["j.md"])
	}
	if conflicts["a"] == nil || conflicts["b"] == nil {
		t.Errorf("stage-less conflicts missing: %+v", conflicts)
	}
	if len(details) != 2 {
		t.Errorf("details = %q", details)
	}
}

func TestAttrPattern(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"journal.md", "/journal.md"},
		{"a*b?.md", `/a\*b\?.md`},
		{"my journal.md", `"/my journal.md"`},
	}
	for _, tt := range tests {
		if got := attrPattern(tt.in); got != tt.want {
			t.Errorf("attrPattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSyncRetriesWhenThePushLosesARace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	remote := newBareRemote(t)
	const n = 4
	clones := make([]*testRepo, n)
	for i := range clones {
		clones[i] = cloneOf(t, remote)
		c := clones[i]
		c.Commit("progress: entry", map[string]string{"journal.md": c.Read("journal.md") + "\n## e" + string(rune('a'+i)) + "\nline\n"})
	}
	// No remote lock: the pushes race, and the losers fetch, replay and
	// push again.
	errs := make(chan error, n)
	for _, c := range clones {
		go func(r *Repo) {
			o := syncOpts()
			_, err := r.Sync(ctx, o)
			errs <- err
		}(c.open())
	}
	for range clones {
		if err := <-errs; err != nil {
			t.Errorf("Sync: %v", err)
		}
	}
	j := gittest.GitIn(t, remote, "show", "main:journal.md")
	for i := 0; i < n; i++ {
		if c := strings.Count(j, "## e"+string(rune('a'+i))+"\n"); c != 1 {
			t.Errorf("entry %c appears %d times in\n%s", 'a'+i, c, j)
		}
	}
	if m := strings.TrimSpace(gittest.GitIn(t, remote, "rev-list", "--merges", "--count", "main")); m != "0" {
		t.Errorf("%s merges on the remote", m)
	}
}

func TestRemoteLockDeclinedByTheServerFailsAtOnce(t *testing.T) {
	t.Parallel()
	remote := newBareRemote(t)
	hook := filepath.Join(remote, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := cloneOf(t, remote)
	start := time.Now()
	_, err := c.open().AcquireRemote(context.Background(), "origin", []string{"journal"}, LockOptions{Timeout: 20 * time.Second})
	if err == nil || errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pre-receive hook declined") {
		t.Fatalf("AcquireRemote = %v, want the server's refusal", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a declined push was retried for %v", d)
	}
}
