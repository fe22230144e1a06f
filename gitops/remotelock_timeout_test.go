package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/internal/gittest"
)

// lockRemote is a bare repository seeded with one commit, and a clone of
// it whose origin it is: the two sides of a remote lock.
func lockRemote(t *testing.T) (bare string, clone *testRepo) {
	t.Helper()
	seed := newRepo(t)
	seed.Commit("journal", map[string]string{"journal.md": "# Journal\n"})
	bare = filepath.Join(t.TempDir(), "remote.git")
	gittest.GitIn(t, filepath.Dir(bare), "clone", "-q", "--bare", seed.Dir, bare)
	dir := filepath.Join(t.TempDir(), "clone")
	gittest.GitIn(t, filepath.Dir(dir), "clone", "-q", bare, dir)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return bare, repoAt(t, real)
}

// hangingTransport makes origin's receive-pack and upload-pack a script
// that writes its pid to a file and sleeps ten minutes: a remote that
// accepts the connection and never answers.
func hangingTransport(t *testing.T, c *testRepo) (pidFile string) {
	t.Helper()
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "pids")
	script := filepath.Join(dir, "hang.sh")
	body := "#!/bin/sh\necho $$ >> '" + pidFile + "'\nexec sleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	c.Git("config", "remote.origin.receivepack", script)
	c.Git("config", "remote.origin.uploadpack", script)
	return pidFile
}

// TestRemoteLockHangingTransport: a remote that never answers costs a
// remote lock the network timeout, not forever; git and the transport it
// started are killed, and CommitPaths queues the write (DeferredError)
// with the branch and the user's files untouched.
func TestRemoteLockHangingTransport(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a shell script transport")
	}
	t.Parallel()
	ctx := context.Background()
	_, c := lockRemote(t)
	pidFile := hangingTransport(t, c)
	head := c.Head()
	r := c.open()
	r.NetworkTimeout = 500 * time.Millisecond
	start := time.Now()
	_, err := r.CommitPaths(ctx, CommitRequest{
		Paths: []string{"journal.md"}, Locks: []string{"journal"}, RemoteLock: "origin",
		LockOptions: LockOptions{Timeout: 30 * time.Second},
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			return map[string][]byte{"journal.md": []byte("x\n")}, nil
		},
		Message: func([]string) string { return "progress: x\n" },
	})
	t.Logf("CommitPaths with a hanging remote returned after %v", time.Since(start))
	var de *DeferredError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "no answer within 500ms") {
		t.Fatalf("CommitPaths = %v, want a deferral naming the timeout", err)
	}
	if c.Head() != head || c.lockRefs() != "" {
		t.Errorf("a deferred commit moved the branch or left a lock")
	}
	b, _ := os.ReadFile(pidFile)
	pids := strings.Fields(string(b))
	if len(pids) == 0 {
		t.Fatal("the hanging transport never ran")
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		// Killed and reaped (its parent, git, is gone): signal 0 fails.
		gone := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, running, dead, err := processStart(pid); err == nil && (dead || !running) {
				gone = true
				break
			}
		}
		if !gone {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("transport process %d outlived the timeout", pid)
		}
	}
}

// TestRemoteLockOnlyUsesConfiguredRemotes: a remote lock named after
// something that is not remote.<name>.url in the git config (a URL from a
// committed .scribe.yaml) contacts nothing, and the write is queued with an
// error that says why.
func TestRemoteLockOnlyUsesConfiguredRemotes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bare, c := lockRemote(t)
	for _, remote := range []string{bare, "file://" + bare, "upstream", "origin\nurl=x"} {
		_, err := c.open().AcquireRemote(ctx, remote, []string{"journal"}, LockOptions{Timeout: time.Second})
		var ue *UnreachableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not a remote configured in this repository's git config") {
			t.Errorf("AcquireRemote(%q) = %v, want a refusal naming the git config", remote, err)
		}
	}
	if out := strings.TrimSpace(gittest.GitIn(t, bare, "for-each-ref", LockRefPrefix)); out != "" {
		t.Errorf("a lock reached the remote through an unconfigured name: %s", out)
	}
	l, err := c.open().AcquireRemote(ctx, "origin", []string{"journal"}, LockOptions{Timeout: time.Second})
	if err != nil {
		t.Fatalf("AcquireRemote(origin) = %v", err)
	}
	l.Release(ctx)
}
