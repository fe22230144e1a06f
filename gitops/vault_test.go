package gitops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func vaultRequest(text string) CommitRequest {
	return CommitRequest{
		Vault:   true,
		Paths:   []string{"journal.md"},
		Build:   appendBuild("journal.md", text),
		Message: message("vault journal"),
		Locks:   []string{"journal"},
	}
}

// A vault commit moves refs/scribe/vault only: HEAD, the branch, the index
// and every work-tree file are exactly as they were, whatever the user has
// staged, edited or left untracked (SPEC principle 1, section 4).
func TestVaultCommitTouchesNoBranchIndexOrWorkTree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	userWork(t, tr)
	head, before := tr.Head(), tr.snapshot()
	r := tr.open()
	first, err := r.CommitPaths(ctx, vaultRequest("- one\n"))
	if err != nil || first.SHA == "" || first.Parent != "" || first.Branch != VaultRef {
		t.Fatalf("first vault commit = %+v, %v", first, err)
	}
	second, err := r.CommitPaths(ctx, vaultRequest("- two\n"))
	if err != nil || second.Parent != first.SHA {
		t.Fatalf("second vault commit = %+v, %v; want it built on %s", second, err, first.SHA)
	}
	if tr.Head() != head {
		t.Errorf("HEAD moved")
	}
	if after := tr.snapshot(); after != before {
		t.Errorf("the user's work changed:\n%+v\n---\n%+v", before, after)
	}
	if got := tr.Git("cat-file", "blob", VaultRef+":journal.md"); got != "- one\n- two\n" {
		t.Errorf("vault journal = %q", got)
	}
	if got := tr.GitTrim("ls-tree", "--name-only", VaultRef); got != "journal.md" {
		t.Errorf("vault tree holds %q, want only journal.md", got)
	}
	if _, err := os.Stat(filepath.Join(tr.Dir, "journal.md")); err == nil {
		t.Errorf("a vault commit wrote into the work tree")
	}
	if got := tr.GitTrim("log", "--format=%s", "-1", VaultRef); got != "progress: vault journal" {
		t.Errorf("subject %q", got)
	}
	// Rebuilt on the same content: nothing to commit.
	none, err := r.CommitPaths(ctx, CommitRequest{Vault: true, Paths: []string{"journal.md"}, Message: message("x"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) { return cur, nil }})
	if err != nil || none.SHA != "" {
		t.Errorf("no-op vault commit = %+v, %v", none, err)
	}
	tr.fsck()
}

// A vault write goes through while the branch cannot take one: detached
// HEAD, a merge in progress, the index locked.
func TestVaultCommitDoesNotWaitForTheBranch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	tr.Git("checkout", "-q", "--detach")
	tr.Write(".git/index.lock", "")
	if _, err := tr.open().CommitPaths(ctx, vaultRequest("- detached\n")); err != nil {
		t.Fatalf("vault commit with a detached HEAD and index.lock held: %v", err)
	}
	if _, err := tr.open().CommitPaths(ctx, journalRequest("- x\n")); !errors.Is(err, ErrDeferred) {
		t.Errorf("a branch write in the same state = %v, want deferred", err)
	}
	os.Remove(filepath.Join(tr.Dir, ".git/index.lock"))
}

// 16 processes appending to the vault at once: every entry once, a linear
// vault history of 16 commits, the branch untouched, no lock left.
func TestVaultCommitsFromManyProcesses(t *testing.T) {
	t.Parallel()
	const n = 16
	tr := newRepo(t)
	userWork(t, tr)
	head, before := tr.Head(), tr.snapshot()
	errs, outs := runHelpers(t, n, "commit", func(i int) []string {
		return []string{"GITOPS_REPO=" + tr.Dir, "GITOPS_VAULT=1"}
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	lines := strings.Split(strings.TrimSpace(tr.Git("cat-file", "blob", VaultRef+":journal.md")), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(lines) != n || len(seen) != n {
		t.Errorf("vault journal has %d lines (%d distinct), want %d", len(lines), len(seen), n)
	}
	if got := tr.GitTrim("rev-list", "--count", VaultRef); got != strconv.Itoa(n) {
		t.Errorf("%s commits in the vault, want %d", got, n)
	}
	if got := tr.GitTrim("rev-list", "--merges", "--count", VaultRef); got != "0" {
		t.Errorf("%s merge commits, want a linear history", got)
	}
	if tr.Head() != head || tr.snapshot() != before {
		t.Errorf("the branch or the user's work changed")
	}
	if l := tr.lockRefs(); l != "" {
		t.Errorf("locks left behind: %s", l)
	}
	tr.fsck()
}

// Vault writes elide their locks, yet never land while another process
// holds one of them the waiting way: twelve writers and four holders, all
// at once.
func TestElidedLocksRespectHoldersAcrossProcesses(t *testing.T) {
	t.Parallel()
	const writers, holders = 12, 4
	tr := newRepo(t)
	errs, outs := runHelpers(t, writers+holders, "commit", func(i int) []string {
		env := []string{"GITOPS_REPO=" + tr.Dir, "GITOPS_VAULT=1"}
		if i >= writers {
			env = append(env, helperEnv+"=holdvault", "GITOPS_ITERS=10") // the last value counts
		}
		return env
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	lines := strings.Split(strings.TrimSpace(tr.Git("cat-file", "blob", VaultRef+":journal.md")), "\n")
	if len(lines) != writers {
		t.Errorf("vault journal has %d lines, want %d", len(lines), writers)
	}
	if l := tr.lockRefs(); l != "" {
		t.Errorf("locks left behind: %s", l)
	}
	tr.fsck()
}

// A branch write meant for one branch waits while another is checked out.
func TestBranchWriteLandsOnlyOnItsBranch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	tr.Git("checkout", "-q", "-b", "feature")
	req := journalRequest("- for main\n")
	req.Branch = "refs/heads/main"
	_, err := tr.open().CommitPaths(ctx, req)
	var de *DeferredError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "feature is checked out") {
		t.Fatalf("write for main while on feature = %v, want deferred naming both", err)
	}
	tr.Git("checkout", "-q", "main")
	if res, err := tr.open().CommitPaths(ctx, req); err != nil || res.Branch != "refs/heads/main" {
		t.Fatalf("on main: %+v, %v", res, err)
	}
}

// A branch write is signed when the user signs commits (commit.gpgsign),
// as git commit would; plumbing alone would not sign it.
func TestBranchWriteSignsWhenTheUserSigns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	fake := filepath.Join(t.TempDir(), "fake-gpg")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ncat >/dev/null\necho '[GNUPG:] SIG_CREATED D 1 8 00 1700000000 0' >&2\n"+
		"printf -- '-----BEGIN PGP SIGNATURE-----\\n\\nZmFrZQ==\\n-----END PGP SIGNATURE-----\\n'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tr.Git("config", "commit.gpgsign", "true")
	tr.Git("config", "gpg.program", fake)
	tr.Git("config", "user.signingkey", "FAKEKEY")
	res, err := tr.open().CommitPaths(ctx, journalRequest("- signed\n"))
	if err != nil {
		t.Fatalf("signed branch write: %v", err)
	}
	if obj := tr.Git("cat-file", "commit", res.SHA); !strings.Contains(obj, "gpgsig -----BEGIN PGP SIGNATURE-----") {
		t.Errorf("the commit is not signed:\n%s", obj)
	}
	// Signing that fails defers the write (nothing lost), saying why.
	tr.Git("config", "gpg.program", "false")
	_, err = tr.open().CommitPaths(ctx, journalRequest("- unsigned\n"))
	var de *DeferredError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "commit.gpgsign") {
		t.Errorf("failed signing = %v, want a deferral naming commit.gpgsign", err)
	}
	if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != "- signed\n" {
		t.Errorf("journal at HEAD = %q", got)
	}
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("status after a deferred signed write = %q, want clean", st)
	}
}

// A branch write killed after the index got its change but before the
// branch moved is finished by the next command: the write lands exactly
// once and the index is never left ahead of (or behind) HEAD.
func TestBranchWriteKilledBeforeUpdateRefIsFinished(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	hook := tr.Path(".git/hooks/reference-transaction")
	tr.Write(".git/hooks/reference-transaction", "#!/bin/sh\n"+
		"[ -n \"$GITOPS_SELF_PID\" ] || exit 0\n"+
		"grep -q ' refs/heads/main$' || exit 0\n"+
		// Kill scribe and abort the ref update: as if the process died
		// just before running update-ref.
		"[ \"$1\" = prepared ] && { kill -9 \"$GITOPS_SELF_PID\"; exit 1; }\n"+
		"exit 0\n")
	os.Chmod(hook, 0o755)
	cmd := helperCmd(t, "commit-killed", "GITOPS_REPO="+tr.Dir)
	if err := cmd.Run(); err == nil {
		t.Fatal("helper was not killed")
	}
	os.Remove(hook)
	if got := tr.GitTrim("log", "-1", "--format=%s"); got == "progress: killed" {
		t.Fatal("the branch moved although the kill came before update-ref committed")
	}
	time.Sleep(1100 * time.Millisecond) // the dead holder's lock TTL
	if _, err := tr.open().CommitPaths(ctx, journalRequest("- second\n")); err != nil {
		t.Fatalf("CommitPaths after the crash: %v", err)
	}
	if got := tr.GitTrim("log", "--format=%s", "-2"); got != "progress: journal\nprogress: killed" {
		t.Errorf("history = %q, want the killed write finished, then the new one", got)
	}
	if got := tr.Git("cat-file", "blob", "HEAD:"+journal); got != "- first\n- second\n" || tr.Read(journal) != got {
		t.Errorf("journal = %q, work tree %q; want both entries once", got, tr.Read(journal))
	}
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("status = %q, want clean", st)
	}
	tr.fsck()
}

// A vault write takes its locks in the transaction that publishes it: it
// leaves no lock ref, writes no holder object, and a lock another process
// takes while it builds is respected — the write waits for it (queued
// past the timeout, the holder's lock kept) and lands once it is free.
func TestVaultCommitTakesItsLocksInTheSameTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	req := vaultRequest("- one\n")
	req.Locks = []string{"journal", "session"}
	res, err := r.CommitPaths(ctx, req)
	if err != nil || res.SHA == "" {
		t.Fatalf("vault commit = %+v, %v", res, err)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("locks left after the write: %q", got)
	}
	if got := tr.Git("fsck", "--dangling", "--no-progress"); strings.Contains(got, "dangling") {
		t.Errorf("the write left an object nothing names (a holder it did not need):\n%s", got)
	}

	other := strings.TrimSpace(tr.GitStdin([]byte("another holder\n"), "hash-object", "-w", "--stdin"))
	take := func(b func(map[string][]byte) (map[string][]byte, error), then func()) func(map[string][]byte) (map[string][]byte, error) {
		first := true
		return func(cur map[string][]byte) (map[string][]byte, error) {
			if first {
				// Another process takes the lock while this one builds.
				first = false
				tr.Git("update-ref", LockRefPrefix+"journal", other)
				if then != nil {
					go then()
				}
			}
			return b(cur)
		}
	}
	req = vaultRequest("- two\n")
	req.LockOptions.Timeout = 300 * time.Millisecond
	req.Build = take(req.Build, nil)
	_, err = r.CommitPaths(ctx, req)
	var de *DeferredError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, "journal") {
		t.Fatalf("a write meeting a held lock = %v, want it deferred naming the lock", err)
	}
	if got := tr.GitTrim("rev-parse", VaultRef); got != res.SHA {
		t.Errorf("the vault moved to %s while the lock was held", got)
	}
	if got := tr.GitTrim("rev-parse", LockRefPrefix+"journal"); got != other {
		t.Errorf("the holder's lock is %q, want %s kept", got, other)
	}

	req = vaultRequest("- three\n")
	req.Build = take(req.Build, func() {
		time.Sleep(100 * time.Millisecond)
		tr.Git("update-ref", "-d", LockRefPrefix+"journal", other)
	})
	third, err := r.CommitPaths(ctx, req)
	if err != nil || third.Parent != res.SHA {
		t.Fatalf("a write waiting for a lock = %+v, %v", third, err)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("locks left after the write: %q", got)
	}
	if got := tr.Git("cat-file", "blob", VaultRef+":journal.md"); got != "- one\n- three\n" {
		t.Errorf("vault journal = %q", got)
	}
	tr.fsck()
}
