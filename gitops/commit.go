package gitops

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const zeroOID = "0000000000000000000000000000000000000000"

// DeferredError says why a commit cannot be made now; the caller queues the
// write and lands it at the next synchronous command.
type DeferredError struct{ Reason string }

func (e *DeferredError) Error() string { return "cannot commit now: " + e.Reason }
func (e *DeferredError) Unwrap() error { return ErrDeferred }

// Build computes the new contents of scribe's paths from their contents at the
// commit being built on (absent paths are missing from current). A nil value
// in the result deletes the path; a path missing from the result is left alone.
type Build func(current map[string][]byte) (map[string][]byte, error)

// CommitRequest is one scribe commit.
type CommitRequest struct {
	// Paths are every path Build may read or write.
	Paths []string
	// Build is called once per attempt, after the locks are taken.
	Build Build
	// Message is the full commit message (subject, body, trailers).
	Message func(changed []string) string
	// Locks are the ref locks held across read-build-commit-checkout.
	Locks []string
	// LockOptions tunes lock acquisition.
	LockOptions LockOptions
	// RemoteLock names a remote on which the same locks are taken first
	// (AcquireRemote); "" takes the local locks only. A remote that cannot
	// be reached, or a lock held there past the timeout, defers the commit.
	RemoteLock string
	// Vault commits onto refs/scribe/vault instead of the current branch:
	// Paths are vault-tree paths, the commit is built on the vault's own
	// tip, and no branch, HEAD, index or work-tree file is touched (SPEC
	// section 4, "Writing the vault"). The caller renders the view.
	Vault bool
	// MergeParent, for a vault commit, is a second parent: the fetched
	// remote vault a sync merges.
	MergeParent string
	// Branch, for a branch write, is the branch the write was meant for
	// (refs/heads/…): when HEAD is on another branch the write is deferred,
	// so a queued write lands only where it was made.
	Branch string
	// Adopt, for a branch write run by a person about a file of theirs
	// (ratify and the ticks they made in the inbox), are paths among Paths
	// whose uncommitted content is the input of the write: Build sees their
	// work-tree content instead of HEAD's, and their edits (unstaged, staged
	// as they are in the work tree, or a new untracked file) do not defer it.
	// Staged content that differs from the work tree still defers: which of
	// the two the person meant is theirs to say. When the write fails they
	// are put back as they were, in the work tree and the index.
	Adopt []string
	// Idempotent, for a branch write, says Build applied to its own result
	// changes nothing more (a tick): while the branch moves under the
	// write, the index and work tree keep the change between attempts, so
	// a user commit that takes it from the index lands it, and no user
	// commit can take the older version back.
	Idempotent bool
}

// CommitResult reports what a scribe commit did.
type CommitResult struct {
	SHA     string   `json:"sha,omitempty"`
	Parent  string   `json:"parent,omitempty"`
	Branch  string   `json:"branch,omitempty"`
	Changed []string `json:"changed,omitempty"`
	// Warnings are problems that did not stop the commit (a remote lock
	// that could not be released and will expire instead).
	Warnings []string `json:"warnings,omitempty"`
}

// CheckWritable returns a *DeferredError when a scribe commit touching paths
// must not be made now: detached HEAD, an operation in progress, the index
// locked, or the user having staged, modified, created or git-ignored-but-kept
// one of the paths. CommitPaths runs the same checks under its locks.
func (r *Repo) CheckWritable(ctx context.Context, paths []string) (Head, error) {
	head, err := r.checkState(ctx)
	if err != nil {
		return head, err
	}
	return head, r.checkPaths(ctx, paths)
}

func (r *Repo) checkState(ctx context.Context) (Head, error) {
	head, err := r.Head(ctx)
	if err != nil {
		return head, err
	}
	why := r.Busy()
	if head.Ref == "" && why == "" {
		return head, &DeferredError{Reason: "HEAD is detached; check out a branch and run any git scribe command to land the queued write"}
	}
	// index.lock is often another scribe command bringing its own paths up
	// to date in the index (milliseconds): give it a moment before deciding
	// the user's git holds it (an open commit editor does, for minutes).
	for wait := 0; strings.Contains(why, "index.lock") && wait < 50; wait++ {
		time.Sleep(20 * time.Millisecond)
		why = r.Busy()
	}
	if why != "" {
		// A rebase detaches HEAD: name the operation, not the symptom.
		return head, &DeferredError{Reason: why + "; finish or abort it and run any git scribe command to land the queued write"}
	}
	return head, nil
}

func (r *Repo) checkPaths(ctx context.Context, paths []string, adopt ...string) error {
	if len(paths) == 0 {
		return nil
	}
	adopted := map[string]bool{}
	for _, p := range adopt {
		adopted[p] = true
	}
	args := append([]string{"status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching", "--"}, paths...)
	out, err := r.Git(ctx, args...)
	if err != nil {
		return fmt.Errorf("check scribe paths: %w", err)
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" || strings.HasPrefix(rec, "#") {
			continue
		}
		f := strings.Fields(rec)
		path := rec[strings.LastIndexByte(rec, ' ')+1:]
		if f[0] == "?" {
			path = strings.TrimPrefix(rec, "? ")
		}
		if adopted[path] && (f[0] == "?" || (f[0] == "1" && (f[1] == ".M" || f[1] == "M." || f[1] == "A."))) {
			continue // the person's input to this write
		}
		switch f[0] {
		case "?":
			return &DeferredError{Reason: fmt.Sprintf("%s exists but is not committed; commit or remove it so scribe can manage it", strings.TrimPrefix(rec, "? "))}
		case "!":
			return &DeferredError{Reason: fmt.Sprintf("%s exists but is ignored by .gitignore; scribe will not overwrite it: commit it (git add -f) or move it away, and un-ignore the vault", strings.TrimPrefix(rec, "! "))}
		case "1", "2", "u":
			if f[1][0] != '.' {
				return &DeferredError{Reason: fmt.Sprintf("you have staged changes to %s; commit or unstage them (scribe never commits over your staged work)", path)}
			}
			return &DeferredError{Reason: fmt.Sprintf("you have uncommitted edits to %s; commit or discard them (scribe never overwrites your work)", path)}
		}
	}
	return r.checkSkipped(ctx, paths)
}

// checkSkipped defers a write over a skip-worktree file that is in the
// work tree with other contents than the index's: edits git status does not
// show (the bit set by hand to keep them out of it), which a write would
// destroy.
func (r *Repo) checkSkipped(ctx context.Context, paths []string) error {
	_, present, err := r.outsideCheckout(ctx, paths)
	if err != nil || len(present) == 0 {
		return err
	}
	var names []string
	for _, p := range paths {
		if _, ok := present[p]; ok {
			names = append(names, p)
		}
	}
	out, err := r.Git(ctx, append([]string{"hash-object", "--"}, names...)...)
	if err != nil {
		return fmt.Errorf("check scribe paths: %w", err)
	}
	for i, oid := range strings.Fields(string(out)) {
		if i < len(names) && oid != present[names[i]].oid {
			return &DeferredError{Reason: fmt.Sprintf("%s is marked skip-worktree and has edits git status does not show; commit them, or run git update-index --no-skip-worktree %s and decide (scribe never overwrites your work)", names[i], names[i])}
		}
	}
	return nil
}

// CommitPaths makes one scribe commit on the current branch: HEAD's tree with
// exactly the built paths replaced, in a temporary index, then write-tree,
// commit-tree and an update-ref compare-and-swap (rebuilt and retried when the
// branch moved). Afterwards only scribe's paths are brought up to date in the
// work tree (atomic writes) and the real index. It returns a zero result when
// Build changed nothing.
func (r *Repo) CommitPaths(ctx context.Context, req CommitRequest) (CommitResult, error) {
	for _, p := range req.Paths {
		if req.Vault {
			if err := CheckRelPath(p); err != nil {
				return CommitResult{}, err
			}
		} else if _, err := r.Abs(p); err != nil {
			return CommitResult{}, err
		}
	}
	// Cheap refusals first, without waiting for a lock.
	if !req.Vault {
		if _, err := r.checkBranchState(ctx, req.Branch); err != nil {
			return CommitResult{}, err
		}
	}
	var res CommitResult
	var remote *RemoteLock
	if req.RemoteLock == "" {
		req.RemoteLock = r.RemoteLock
	}
	if req.RemoteLock != "" && len(req.Locks) > 0 {
		rl, err := r.AcquireRemote(ctx, req.RemoteLock, req.Locks, req.LockOptions)
		var ue *UnreachableError
		var rle *RemoteLockedError
		if errors.As(err, &ue) || errors.As(err, &rle) {
			// Never written unlocked: queue it until the remote answers.
			return res, &DeferredError{Reason: "remote lock: " + err.Error() +
				"; the write lands at the next git scribe command that can take the lock (--no-remote-lock writes without it)"}
		}
		if err != nil {
			return res, err
		}
		remote = rl
	}
	write := func(held []*Lock) (released bool, err error) {
		if !req.Vault {
			// Under the locks nobody else writes these paths, so what differs
			// from HEAD now is the user's (or a killed scribe's, finished here).
			head, err := r.checkBranchState(ctx, req.Branch)
			if err != nil {
				return false, err
			}
			r.finishInterrupted(ctx, head, req.Paths)
			if err := r.checkPaths(ctx, req.Paths, req.Adopt...); err != nil {
				return false, err
			}
		}
		var w branchWrite
		if !req.Vault {
			// A write that did not land leaves the paths as the tip has them.
			defer func() {
				if res.SHA == "" {
					r.settle(ctx, &w)
				}
			}()
		}
		for attempt := 0; attempt < 20; attempt++ {
			var retry bool
			if req.Vault {
				res, retry, err = r.commitVaultOnce(ctx, req, held, &released)
			} else {
				res, retry, err = r.commitOnce(ctx, req, &w)
			}
			if !retry {
				return released, err
			}
			if len(held) > 0 && held[0].OID == "" && attempt >= 3 {
				// A write without its locks (elidedLocks) that lost the
				// race four times takes them the waiting way: it queues
				// behind the other writers instead of racing all of them
				// (32 at once on two loaded cores outran 20 attempts).
				return false, errLocksBusy
			}
			time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
		}
		return false, &DeferredError{Reason: fmt.Sprintf("the ref kept moving during 20 attempts (%v); the write waits for the next git scribe command", err)}
	}
	var err error
	if req.Vault && remote == nil {
		// A vault write takes its locks in the ref transaction that
		// publishes it (elidedLocks); one a holder has is waited for below.
		var held []*Lock
		if held, err = r.elidedLocks(req.Locks); err == nil {
			_, err = write(held)
		}
		if !errors.Is(err, errLocksBusy) {
			goto done
		}
	}
	err = r.withLocks(ctx, req.Locks, req.LockOptions, write)
done:
	if rerr := remote.Release(ctx); rerr != nil {
		res.Warnings = append(res.Warnings, rerr.Error())
	}
	var le *LockedError
	if errors.As(err, &le) {
		// Another scribe command holds the lock past our timeout (or one was
		// killed holding it): queue rather than fail — nothing is lost.
		return res, &DeferredError{Reason: le.Error()}
	}
	if lock, held := heldRefLock(err); held {
		// Another git holds a ref's lock file (the branch's, the vault's),
		// or a crashed one left it: the write waits in the queue.
		return res, &DeferredError{Reason: fmt.Sprintf("a ref is locked by another git process (%s exists; if no git is running, a crashed one left it: remove it); the write is queued and lands at the next git scribe command", lock)}
	}
	// A read-only or full git dir (an agent's sandbox): queue in the state
	// dir, land at the next command that can write (principle 4).
	return res, r.DeferUnwritable(err)
}

// checkBranchState is checkState for a branch write meant for branch
// (refs/heads/…; "" for whatever is checked out): on another branch it
// defers, so a queued write lands only on the branch it was made for.
func (r *Repo) checkBranchState(ctx context.Context, branch string) (Head, error) {
	head, err := r.checkState(ctx)
	if err != nil {
		return head, err
	}
	if branch != "" && head.Ref != branch {
		return head, &DeferredError{Reason: fmt.Sprintf("this write is for %s but %s is checked out; it lands at the next git scribe command run on %s",
			strings.TrimPrefix(branch, "refs/heads/"), strings.TrimPrefix(head.Ref, "refs/heads/"), strings.TrimPrefix(branch, "refs/heads/"))}
	}
	return head, nil
}

// changedPaths returns the declared paths whose contents next changes.
func changedPaths(req CommitRequest, current, next map[string][]byte) ([]string, error) {
	declared := map[string]bool{}
	for _, p := range req.Paths {
		declared[p] = true
	}
	var changed []string
	for p, b := range next {
		if !declared[p] {
			return nil, fmt.Errorf("scribe bug: build wrote %s, which the commit did not declare (and check)", p)
		}
		old, had := current[p]
		if (b == nil && had) || (b != nil && (!had || !bytes.Equal(old, b))) {
			if err := CheckRelPath(p); err != nil {
				return nil, err
			}
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// commitTree writes the commit object: tree, parent (none when ""), the
// message; signed when sign is set.
func (r *Repo) commitTree(ctx context.Context, tree, parent, msg string, sign bool, more ...string) (string, error) {
	args := []string{"commit-tree", tree, "-F", "-"}
	for _, p := range append([]string{parent}, more...) {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	if sign {
		args = append(args, "-S")
	}
	out, err := r.gitIn(ctx, runOpts{stdin: []byte(msg)}, args...)
	if err != nil {
		if sign {
			return "", &DeferredError{Reason: fmt.Sprintf("commit.gpgsign is set and signing the commit failed (%v); fix signing (git commit -S works when it is fixed) and run any git scribe command to land the queued write", err)}
		}
		return "", fmt.Errorf("build scribe commit: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// SignsCommits reports whether the user's config signs commits
// (commit.gpgsign), which plumbing does not do by itself: a branch write
// passes -S to commit-tree, and git signs with gpg.format's program.
func (r *Repo) SignsCommits(ctx context.Context) bool {
	out, err := r.Git(ctx, "config", "--type=bool", "--get", "commit.gpgsign")
	return err == nil && strings.TrimSpace(string(out)) == "true"
}

// commitVaultOnce builds one vault commit on the vault's tip and moves
// refs/scribe/vault by compare-and-swap; retry reports a lost race. The
// same ref transaction deletes the held locks (their own values, by
// compare-and-swap too), and *released says so.
func (r *Repo) commitVaultOnce(ctx context.Context, req CommitRequest, held []*Lock, released *bool) (CommitResult, bool, error) {
	w, err := r.buildVaultWrite(ctx, req, r.takeIdent)
	if err != nil || w == nil {
		r.DropSpeculation()
		return CommitResult{}, false, err
	}
	tip, changed, next := w.tip, w.changed, w.next
	tree, sha, built, err := r.writeVaultTree(ctx, w.trees, changed, next, w.spec)
	if IsUnwritable(err) {
		r.DropSpeculation()
		return CommitResult{}, false, err
	}
	if err != nil {
		oids, err := r.hashObjects(ctx, changed, next)
		if err != nil {
			r.DropSpeculation()
			return CommitResult{}, false, err
		}
		if tree, err = r.buildVaultTree(ctx, tip, changed, oids); err != nil {
			r.DropSpeculation()
			return CommitResult{}, false, fmt.Errorf("build vault commit: %w", err)
		}
	}
	if sha == "" {
		if sha, err = r.commitTree(ctx, tree, tip, w.msg, false, req.MergeParent); err != nil {
			r.DropSpeculation()
			return CommitResult{}, false, err
		}
	}
	done := func() (CommitResult, bool, error) {
		r.keepWritten(sha, tip, changed, next, built)
		return CommitResult{SHA: sha, Parent: tip, Branch: VaultRef, Changed: changed}, false, nil
	}
	if len(held) > 0 {
		tx := vaultTxn(sha, tip, held)
		// The speculated write, when it is this one, holds this very
		// transaction prepared; any other is let go here, before the
		// vault ref is needed.
		if published, err := r.publishSpeculated(tx); published && err == nil {
			*released = true
			return done()
		}
		_, err := r.gitIn(ctx, runOpts{stdin: []byte(tx)}, "update-ref", "-m", vaultCommitMsg, "--stdin")
		if err == nil {
			*released = true
			return done()
		}
		if now, terr := r.VaultTip(ctx); terr == nil && now != tip {
			return CommitResult{}, true, err // another writer won the race: rebuild on its tip
		}
		if lock, held := heldRefLock(err); IsUnwritable(err) || (held && strings.HasSuffix(filepath.ToSlash(lock), "/"+VaultRef+".lock")) {
			// No space, or another git holds (or a crashed one left) the
			// vault ref's lock file: the plain update would fail the same way.
			return CommitResult{}, false, fmt.Errorf("move %s to the new vault commit: %w", VaultRef, err)
		}
		if held[0].OID == "" { // elided locks (elidedLocks): one is held now
			return CommitResult{}, false, errLocksBusy // wait for it (CommitPaths)
		}
		// The vault did not move, so a lock did (taken over past its
		// expiry): move the vault alone, as a write without locks does.
	} else {
		r.DropSpeculation()
	}
	if _, err := r.Git(ctx, "update-ref", "-m", vaultCommitMsg, VaultRef, sha, tip); err != nil {
		if now, terr := r.VaultTip(ctx); terr == nil && now != tip {
			return CommitResult{}, true, err // another writer won the race: rebuild on its tip
		}
		return CommitResult{}, false, fmt.Errorf("move %s to the new vault commit: %w", VaultRef, err)
	}
	return done()
}

// vaultCommitMsg is the reflog message of a vault commit.
const vaultCommitMsg = "scribe: vault commit"

// vaultWrite is one vault write built on the vault's tip.
type vaultWrite struct {
	tip     string
	trees   vaultTrees // the tip's, on the way to the paths
	next    map[string][]byte
	changed []string
	msg     string
	spec    *commitSpec // nil: commit-tree writes the commit
}

// buildVaultWrite reads req's paths at the vault's tip and builds what the
// write changes, with the identities ident gives; nil when it changes
// nothing.
func (r *Repo) buildVaultWrite(ctx context.Context, req CommitRequest, ident func() (string, string, bool)) (*vaultWrite, error) {
	tip, err := r.VaultTip(ctx)
	if err != nil {
		return nil, err
	}
	current, trees, err := r.readVault(ctx, tip, req.Paths)
	if err != nil {
		return nil, fmt.Errorf("read vault paths at %s: %w", tip, err)
	}
	next, err := req.Build(current)
	if err != nil {
		return nil, err
	}
	changed, err := changedPaths(req, current, next)
	if err != nil || (len(changed) == 0 && req.MergeParent == "") {
		return nil, err
	}
	w := &vaultWrite{tip: tip, trees: trees, next: next, changed: changed, msg: req.Message(changed)}
	if author, committer, ok := ident(); ok {
		w.spec = &commitSpec{parents: []string{tip, req.MergeParent}, author: author, committer: committer, msg: w.msg}
	}
	return w, nil
}

// vaultTxn is the update-ref --stdin transaction that moves the vault from
// tip to sha and takes or releases the held locks: each elided one (no
// holder object) verified free, each held one deleted from its own value,
// both by compare-and-swap.
func vaultTxn(sha, tip string, held []*Lock) string {
	old := tip
	if old == "" {
		old = strings.Repeat("0", len(sha)) // the vault ref must not exist yet
	}
	tx := fmt.Sprintf("update %s %s %s\n", VaultRef, sha, old)
	for _, l := range held {
		if l.OID == "" {
			tx += fmt.Sprintf("verify %s\n", l.Ref)
		} else {
			tx += fmt.Sprintf("delete %s %s\n", l.Ref, l.OID)
		}
	}
	return tx
}

// commitOnce is one attempt of a branch write (principle 3). The real index
// and the work tree get the new contents of exactly the changed paths
// before the branch moves: a user commit racing the write then carries
// scribe's change (the retry finds nothing left to do) instead of reverting
// it, and no moment exists in which the index is behind HEAD. w records
// what the attempts put in the index and work tree.
func (r *Repo) commitOnce(ctx context.Context, req CommitRequest, w *branchWrite) (CommitResult, bool, error) {
	head, err := r.checkBranchState(ctx, req.Branch)
	if err != nil {
		return CommitResult{}, false, err
	}
	current, err := r.ReadFiles(ctx, head.Commit, req.Paths)
	if err != nil {
		return CommitResult{}, false, fmt.Errorf("read scribe paths at %s: %w", head.Commit, err)
	}
	if err := r.stillScribes(ctx, w, current); err != nil {
		return CommitResult{}, false, err
	}
	input, kept, err := r.adopt(ctx, req.Adopt, current)
	if err != nil {
		return CommitResult{}, false, err
	}
	next, err := req.Build(input)
	if err != nil {
		return CommitResult{}, false, err
	}
	changed, err := changedPaths(req, current, next)
	if err != nil || len(changed) == 0 {
		return CommitResult{}, false, err
	}
	// fail sets the changed paths back to the tip the attempt was built on
	// and the adopted paths exactly as the person had them.
	fail := func() {
		r.restore(ctx, w, changed, current)
		kept.restore(ctx, r)
	}
	oids, err := r.hashObjects(ctx, changed, next)
	if err != nil {
		return CommitResult{}, false, err
	}
	tree, err := r.buildTree(ctx, head.Commit, changed, oids)
	if err != nil {
		return CommitResult{}, false, fmt.Errorf("build scribe commit: %w", err)
	}
	sha, err := r.commitTree(ctx, tree, head.Commit, req.Message(changed), r.SignsCommits(ctx))
	if err != nil {
		return CommitResult{}, false, err
	}
	// Record the write before the index changes, so a kill anywhere from
	// here on is finished (or undone) by the next run instead of looking
	// like the user's edits.
	intent, err := r.writeIntent(pendingCheckout{Commit: sha, Parent: head.Commit, Ref: head.Ref, Paths: changed})
	if err != nil {
		return CommitResult{}, false, err
	}
	if !w.holds(ctx, r, changed, next) {
		// (An attempt after a lost race may find its change there already.)
		w.record(changed, next)
		if err := r.checkout(ctx, changed, next); err != nil {
			fail()
			os.Remove(intent)
			return CommitResult{}, false, fmt.Errorf("update %s in the work tree and index: %w", strings.Join(changed, " "), err)
		}
	}
	if _, err := r.Git(ctx, "update-ref", "-m", "scribe: progress commit", head.Ref, sha, head.Commit); err != nil {
		now, herr := r.Head(ctx)
		if herr == nil && now.Commit != head.Commit && now.Ref == head.Ref {
			// The branch moved (a user commit, which may now hold our
			// change): rebuild on the new tip.
			if !req.Idempotent {
				// The index goes back to the tip's version, so the rebuild
				// does not apply the change twice on a user commit that
				// took it along; adopted paths go back to the person's
				// version, which the retry adopts again.
				r.settle(ctx, w)
				kept.restore(ctx, r)
			}
			// An idempotent change stays in the index and work tree: setting
			// them back to a tip that has moved on again meanwhile, carrying
			// the change, would have the next user commit take it back
			// (found by TestBranchKeptMoving). The rebuild writes on top, or
			// finds nothing left to do.
			os.Remove(intent)
			return CommitResult{}, true, err
		}
		fail()
		os.Remove(intent)
		return CommitResult{}, false, fmt.Errorf("move %s to the scribe commit: %w", head.Ref, err)
	}
	os.Remove(intent)
	w.landed()
	return CommitResult{SHA: sha, Parent: head.Commit, Branch: head.Ref, Changed: changed}, false, nil
}

// heldRefLock reports a ref update git refused because the ref's lock file
// exists ("Unable to create '….lock': File exists"), and the lock file.
func heldRefLock(err error) (string, bool) {
	var ge *GitError
	if !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "File exists") || !strings.Contains(ge.Stderr, "cannot lock ref") {
		return "", false
	}
	_, rest, ok := strings.Cut(ge.Stderr, "Unable to create '")
	if !ok {
		return "", false
	}
	lock, _, ok := strings.Cut(rest, "'")
	return lock, ok && strings.HasSuffix(lock, ".lock")
}

// adopted is what the work tree and the index held for adopted paths
// before a branch write, so a failed write can put them back.
type adopted []adoptedPath

type adoptedPath struct {
	path   string
	data   []byte // nil: no file in the work tree
	index  string // the path's `git ls-files -s` line ("" when not in the index)
	exists bool
}

// adopt returns the Build input: current with each adopted path's work-tree
// content in place of HEAD's (absent when the work tree has no file), and
// what to restore should the write fail.
func (r *Repo) adopt(ctx context.Context, paths []string, current map[string][]byte) (map[string][]byte, adopted, error) {
	if len(paths) == 0 {
		return current, nil, nil
	}
	input := make(map[string][]byte, len(current))
	for p, b := range current {
		input[p] = b
	}
	var kept adopted
	for _, p := range paths {
		abs, err := r.Abs(p)
		if err != nil {
			return nil, nil, err
		}
		a := adoptedPath{path: p}
		switch data, err := os.ReadFile(abs); {
		case err == nil:
			a.data, a.exists = data, true
			input[p] = data
		case errors.Is(err, fs.ErrNotExist):
			delete(input, p)
		default:
			return nil, nil, fmt.Errorf("read %s: %w", p, err)
		}
		out, err := r.Git(ctx, "ls-files", "-s", "-z", "--", p)
		if err != nil {
			return nil, nil, fmt.Errorf("read the index entry of %s: %w", p, err)
		}
		a.index = strings.TrimSuffix(string(out), "\x00")
		kept = append(kept, a)
	}
	return input, kept, nil
}

// restore puts the adopted paths' work-tree files and index entries back.
func (k adopted) restore(ctx context.Context, r *Repo) {
	for _, a := range k {
		abs, err := r.Abs(a.path)
		if err != nil {
			continue
		}
		if a.exists {
			WriteFileAtomic(abs, a.data)
		} else {
			os.Remove(abs)
		}
		if a.index == "" {
			r.Git(ctx, "update-index", "--force-remove", "--", a.path)
			continue
		}
		r.gitIn(ctx, runOpts{stdin: []byte(a.index + "\x00")}, "update-index", "-z", "--index-info")
	}
}

// branchWrite is what a branch write's attempts have put in the index and
// work tree (nil content: deleted), so that a write that does not land
// sets back exactly that, and nothing a person changed meanwhile.
type branchWrite struct {
	content map[string][]byte
}

func (w *branchWrite) record(paths []string, next map[string][]byte) {
	if w.content == nil {
		w.content = map[string][]byte{}
	}
	for _, p := range paths {
		w.content[p] = next[p]
	}
}

// landed: the branch now holds what was written.
func (w *branchWrite) landed() { w.content = nil }

// holds reports whether the work tree and index already hold next for
// every path, written by an earlier attempt of this write.
func (w *branchWrite) holds(ctx context.Context, r *Repo, paths []string, next map[string][]byte) bool {
	for _, p := range paths {
		have, ok := w.content[p]
		if !ok || !bytes.Equal(have, next[p]) || (have == nil) != (next[p] == nil) {
			return false
		}
	}
	return r.unchanged(ctx, paths, next)
}

// unchanged reports whether the work tree and the index hold exactly want
// for each path (nil: absent from both).
func (r *Repo) unchanged(ctx context.Context, paths []string, want map[string][]byte) bool {
	out, err := r.Git(ctx, append([]string{"ls-files", "-s", "-z", "--"}, paths...)...)
	if err != nil {
		return false
	}
	staged := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 {
			staged[name] = f[1]
		}
	}
	for _, p := range paths {
		abs, err := r.Abs(p)
		if err != nil {
			return false
		}
		cur, rerr := os.ReadFile(abs)
		oid, inIndex := staged[p]
		if want[p] == nil {
			if rerr == nil || inIndex {
				return false
			}
			continue
		}
		if rerr != nil || !bytes.Equal(cur, want[p]) || !inIndex || oid != r.blobID(ctx, want[p]) {
			return false
		}
	}
	return true
}

// blobID is the object id git gives data as a blob, without writing it.
func (r *Repo) blobID(ctx context.Context, data []byte) string {
	out, err := r.gitIn(ctx, runOpts{stdin: data}, "hash-object", "--stdin")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// stillScribes refuses an attempt after the first when a path no longer
// holds what the write put there nor what the tip has: a person edited it
// meanwhile, and principle 3 leaves it to them.
func (r *Repo) stillScribes(ctx context.Context, w *branchWrite, tip map[string][]byte) error {
	for p, mine := range w.content {
		abs, err := r.Abs(p)
		if err != nil {
			return err
		}
		cur, rerr := os.ReadFile(abs)
		switch {
		case rerr == nil && mine != nil && bytes.Equal(cur, mine):
		case rerr != nil && mine == nil:
		case rerr == nil && tip[p] != nil && bytes.Equal(cur, tip[p]):
		case rerr != nil && tip[p] == nil:
		default:
			return &DeferredError{Reason: fmt.Sprintf("%s changed while scribe was writing it; commit or discard your edit (scribe never overwrites your work)", p)}
		}
	}
	return nil
}

// restore sets paths back to before (the tip the attempt was built on)
// after an attempt failed; nothing of the write stays.
func (r *Repo) restore(ctx context.Context, w *branchWrite, paths []string, before map[string][]byte) {
	if r.checkout(ctx, paths, before) == nil {
		for _, p := range paths {
			delete(w.content, p)
		}
	}
}

// settle makes the paths a write put in the index and work tree the
// branch tip's again when the write did not land (there was nothing left
// to do, it failed, or the branch kept moving). A path that no longer
// holds what the write put there is the person's and is left alone. The
// tip is read again after writing: one that moved meanwhile (a user
// commit, which may have taken the change along) is settled on instead.
func (r *Repo) settle(ctx context.Context, w *branchWrite) {
	for round := 0; round < 5 && len(w.content) > 0; round++ {
		head, err := r.Head(ctx)
		if err != nil || head.Commit == "" {
			return
		}
		var paths []string
		for p := range w.content {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		if !r.unchanged(ctx, paths, w.content) {
			// Partly the person's now: keep to the paths still ours.
			var mine []string
			for _, p := range paths {
				if r.unchanged(ctx, []string{p}, w.content) {
					mine = append(mine, p)
				} else {
					delete(w.content, p)
				}
			}
			paths = mine
		}
		tip, err := r.ReadFiles(ctx, head.Commit, paths)
		if err != nil {
			return
		}
		var todo []string
		for _, p := range paths {
			if !bytes.Equal(tip[p], w.content[p]) || (tip[p] == nil) != (w.content[p] == nil) {
				todo = append(todo, p)
			}
		}
		if len(todo) == 0 {
			w.content = nil
			return
		}
		if r.checkout(ctx, todo, tip) != nil {
			return
		}
		w.record(todo, tip)
		if now, err := r.Head(ctx); err == nil && now.Commit == head.Commit {
			w.content = nil
			return
		}
	}
}

// pendingCheckout is a scribe commit whose work-tree and index update may
// not have happened yet.
type pendingCheckout struct {
	Commit string   `json:"commit"`
	Parent string   `json:"parent"`
	Ref    string   `json:"ref,omitempty"`
	Paths  []string `json:"paths"`
}

func (r *Repo) writeIntent(p pendingCheckout) (string, error) {
	dir := filepath.Join(r.ScribeDir(), "pending")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("record pending checkout: %w", err)
	}
	path := filepath.Join(dir, p.Commit+".json")
	data, _ := json.Marshal(p)
	if err := WriteFileAtomic(path, data); err != nil {
		return "", fmt.Errorf("record pending checkout: %w", err)
	}
	return path, nil
}

// FinishInterrupted completes the branch writes to paths that a killed
// command left half done (finishInterrupted), under locks, so that a caller
// about to read those paths from the work tree (progress done reads
// progress.md) sees what was committed, or what was not, and not a
// half-written state. With nothing pending for paths it takes no lock and
// runs no git. It is best effort: what it cannot finish now (the lock is
// held, HEAD is detached) the next write to the paths finishes.
func (r *Repo) FinishInterrupted(ctx context.Context, paths, locks []string, opts LockOptions) {
	if !r.interrupted(paths) {
		return
	}
	r.WithLocks(ctx, locks, opts, func() error {
		head, err := r.checkState(ctx)
		if err == nil {
			r.finishInterrupted(ctx, head, paths)
		}
		return nil
	})
}

// interrupted reports whether an intent record names one of paths.
func (r *Repo) interrupted(paths []string) bool {
	dir := filepath.Join(r.ScribeDir(), "pending")
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		return false
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		var p pendingCheckout
		if err != nil || json.Unmarshal(data, &p) != nil {
			return true // finishInterrupted removes what it cannot read
		}
		for _, q := range p.Paths {
			for _, mine := range paths {
				if q == mine {
					return true
				}
			}
		}
	}
	return false
}

// finishInterrupted completes the work-tree and index update of scribe
// commits whose command was killed after moving the branch. A path is
// brought up to date only while the work tree and index still hold exactly
// the parent's version (or already the commit's): anything else is the
// user's and is left alone.
//
// It runs under the caller's locks and only touches records that share a
// path with ours: their writer cannot be alive (it would hold our lock).
func (r *Repo) finishInterrupted(ctx context.Context, head Head, ours []string) {
	mine := map[string]bool{}
	for _, p := range ours {
		mine[p] = true
	}
	dir := filepath.Join(r.ScribeDir(), "pending")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		var p pendingCheckout
		if err != nil || json.Unmarshal(data, &p) != nil || p.Commit == "" {
			os.Remove(path)
			continue
		}
		shared := false
		for _, q := range p.Paths {
			shared = shared || mine[q]
		}
		if !shared {
			continue
		}
		if p.Ref != "" && p.Ref == head.Ref && p.Parent == head.Commit && r.holds(ctx, p) {
			// Killed after the index got the new contents but before the
			// branch moved: finish the compare-and-swap, so the write lands
			// exactly once and the index is not ahead of HEAD.
			old := p.Parent
			if _, err := r.Git(ctx, "update-ref", "-m", "scribe: finish interrupted commit", p.Ref, p.Commit, old); err == nil {
				head.Commit = p.Commit
			}
		}
		if p.Commit != head.Commit {
			// The branch never moved there (killed before update-ref) or has
			// moved on since; a later commit's own checkout covers its paths.
			if head.Commit == "" || !r.IsAncestor(ctx, p.Commit, head.Commit) {
				os.Remove(path)
				continue
			}
		}
		newer, err1 := r.ReadFiles(ctx, p.Commit, p.Paths)
		older, err2 := r.ReadFiles(ctx, p.Parent, p.Paths)
		if err1 != nil || err2 != nil {
			continue
		}
		var todo []string
		next := map[string][]byte{}
		have, err := r.checkedOut(ctx, p.Paths)
		if err != nil {
			continue
		}
		for _, rel := range p.Paths {
			cur, exists := have[rel]
			old, hadOld := older[rel]
			nb, hasNew := newer[rel]
			switch {
			case exists && hasNew && bytes.Equal(cur, nb):
				todo = append(todo, rel) // written; the index may still lag
				next[rel] = nb
			case (exists && hadOld && bytes.Equal(cur, old)) || (!exists && !hadOld):
				todo = append(todo, rel)
				next[rel] = nb // nil when the commit deleted it
			}
		}
		if len(todo) > 0 && r.checkout(ctx, todo, next) != nil {
			continue
		}
		os.Remove(path)
	}
}

// holds reports whether the work tree already holds the commit's contents
// of every path of an interrupted write.
func (r *Repo) holds(ctx context.Context, p pendingCheckout) bool {
	newer, err := r.ReadFiles(ctx, p.Commit, p.Paths)
	if err != nil {
		return false
	}
	have, err := r.checkedOut(ctx, p.Paths)
	if err != nil {
		return false
	}
	for _, rel := range p.Paths {
		cur, ok := have[rel]
		nb, hasNew := newer[rel]
		if ok != hasNew || (hasNew && !bytes.Equal(cur, nb)) {
			return false
		}
	}
	return true
}

// buildTree returns HEAD's tree with exactly the changed paths replaced
// (a missing oid deletes). Each top-level directory that holds a changed path
// is rebuilt in its own temporary index (GIT_INDEX_FILE) from HEAD's subtree
// (read-tree --prefix, update-index, write-tree --prefix), and the root is
// assembled with mktree: the cost follows the size of the touched
// directories, not of the repository (a full read-tree of a 20,000-file tree
// took 43 ms of a wrap; docs/BENCHMARKS.md). The user's index is never read
// or written here.
func (r *Repo) buildTree(ctx context.Context, base string, changed []string, oids map[string]string) (string, error) {
	type entry struct{ mode, typ, oid string }
	root := map[string]entry{}
	if base != "" {
		out, err := r.Git(ctx, "ls-tree", "-z", base)
		if err != nil {
			return "", err
		}
		for _, rec := range strings.Split(string(out), "\x00") {
			meta, name, ok := strings.Cut(rec, "\t")
			if !ok {
				continue
			}
			f := strings.Fields(meta)
			if len(f) == 3 {
				root[name] = entry{f[0], f[1], f[2]}
			}
		}
	}
	// Keep the mode a path has at base (an executable vault file stays one).
	modes := map[string]string{}
	var nestedPaths []string
	for _, p := range changed {
		if strings.Contains(p, "/") {
			nestedPaths = append(nestedPaths, p)
		} else if e, ok := root[p]; ok && e.typ == "blob" {
			modes[p] = e.mode
		}
	}
	if base != "" && len(nestedPaths) > 0 {
		out, err := r.Git(ctx, append([]string{"ls-tree", "-r", "-z", base, "--"}, nestedPaths...)...)
		if err != nil {
			return "", err
		}
		for _, rec := range strings.Split(string(out), "\x00") {
			meta, name, ok := strings.Cut(rec, "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
				modes[name] = f[0]
			}
		}
	}
	modeOf := func(p string) string {
		if m := modes[p]; m == "100755" {
			return m
		}
		return "100644"
	}
	byDir := map[string][]string{}
	var dirs []string
	for _, p := range changed {
		top, _, nested := strings.Cut(p, "/")
		if !nested {
			if oid, ok := oids[p]; ok {
				root[p] = entry{modeOf(p), "blob", oid}
			} else {
				delete(root, p)
			}
			continue
		}
		if byDir[top] == nil {
			dirs = append(dirs, top)
		}
		byDir[top] = append(byDir[top], p)
	}
	for _, dir := range dirs {
		tmp, err := r.tempPath("index")
		if err != nil {
			return "", err
		}
		env := runOpts{env: []string{"GIT_INDEX_FILE=" + tmp}}
		err = func() error {
			defer os.Remove(tmp)
			if e, ok := root[dir]; ok && e.typ == "tree" {
				if _, err := r.gitIn(ctx, env, "read-tree", "--prefix="+dir+"/", e.oid); err != nil {
					return err
				}
			}
			var info strings.Builder
			for _, p := range byDir[dir] {
				if oid, ok := oids[p]; ok {
					fmt.Fprintf(&info, "%s %s\t%s\n", modeOf(p), oid, p)
				} else {
					fmt.Fprintf(&info, "0 %s\t%s\n", zeroOID, p)
				}
			}
			if _, err := r.gitIn(ctx, runOpts{stdin: []byte(info.String()), env: env.env}, "update-index", "--add", "--index-info"); err != nil {
				return err
			}
			out, err := r.gitIn(ctx, env, "write-tree", "--prefix="+dir+"/")
			var ge *GitError
			if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not found") {
				delete(root, dir) // the last file under dir was deleted
				return nil
			}
			if err != nil {
				return err
			}
			sub := strings.TrimSpace(string(out))
			if empty, _ := r.EmptyTreeID(ctx); sub == empty {
				delete(root, dir)
			} else {
				root[dir] = entry{"040000", "tree", sub}
			}
			return nil
		}()
		if err != nil {
			return "", err
		}
	}
	var in strings.Builder
	for name, e := range root {
		fmt.Fprintf(&in, "%s %s %s\t%s\x00", e.mode, e.typ, e.oid, name)
	}
	out, err := r.gitIn(ctx, runOpts{stdin: []byte(in.String())}, "mktree", "-z", "--missing")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// buildVaultTree is buildTree for the vault's own small tree: one
// temporary index holding the whole tree (read-tree, update-index,
// write-tree: three processes, where the per-directory build of a large
// branch tree takes six).
func (r *Repo) buildVaultTree(ctx context.Context, base string, changed []string, oids map[string]string) (string, error) {
	tmp, err := r.tempPath("vault-index")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	env := runOpts{env: []string{"GIT_INDEX_FILE=" + tmp}}
	if base != "" {
		if _, err := r.gitIn(ctx, env, "read-tree", base); err != nil {
			return "", err
		}
	}
	zero := zeroOID // a deletion's id only has to parse: as long as the repository's ids
	for _, oid := range oids {
		zero = strings.Repeat("0", len(oid))
		break
	}
	if base != "" {
		zero = strings.Repeat("0", len(base))
	}
	var info strings.Builder
	for _, p := range changed {
		if oid, ok := oids[p]; ok {
			fmt.Fprintf(&info, "100644 %s\t%s\n", oid, p)
		} else {
			fmt.Fprintf(&info, "0 %s\t%s\n", zero, p)
		}
	}
	if _, err := r.gitIn(ctx, runOpts{stdin: []byte(info.String()), env: env.env}, "update-index", "--add", "--index-info"); err != nil {
		return "", err
	}
	out, err := r.gitIn(ctx, env, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// hashObjects writes blobs for the changed contents with one git process.
func (r *Repo) hashObjects(ctx context.Context, changed []string, next map[string][]byte) (map[string]string, error) {
	if err := os.MkdirAll(r.ScribeDir(), 0o755); err != nil {
		return nil, fmt.Errorf("stage blobs: %w", err)
	}
	r.scratchOnce.Do(r.removeStaleScratch)
	dir, err := os.MkdirTemp(r.ScribeDir(), "blobs-")
	if err != nil {
		return nil, fmt.Errorf("stage blobs: %w", err)
	}
	defer os.RemoveAll(dir)
	var list strings.Builder
	var order []string
	for i, p := range changed {
		if next[p] == nil {
			continue
		}
		f := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(f, next[p], 0o600); err != nil {
			return nil, fmt.Errorf("stage blob for %s: %w", p, err)
		}
		list.WriteString(f + "\n")
		order = append(order, p)
	}
	oids := map[string]string{}
	if len(order) == 0 {
		return oids, nil
	}
	out, err := r.gitIn(ctx, runOpts{stdin: []byte(list.String())}, "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return nil, fmt.Errorf("write blobs: %w", err)
	}
	got := strings.Fields(string(out))
	if len(got) != len(order) {
		return nil, fmt.Errorf("write blobs: git returned %d ids for %d files", len(got), len(order))
	}
	for i, p := range order {
		oids[p] = got[i]
	}
	return oids, nil
}

// checkout brings exactly the changed scribe paths up to date in the work
// tree (atomic writes) and in the real index; every other index entry is
// untouched. A path outside a sparse checkout (see sparse.go) gets its
// index entry alone, from its blob, skip-worktree kept; a skip-worktree
// entry whose file is there (checkPaths made sure it holds the committed
// text) gets both, the bit kept too.
func (r *Repo) checkout(ctx context.Context, changed []string, next map[string][]byte) error {
	outside, present, err := r.outsideCheckout(ctx, changed)
	if err != nil {
		return err
	}
	var plain []string
	for _, p := range changed {
		if _, ok := outside[p]; ok {
			continue
		}
		if _, ok := present[p]; !ok {
			plain = append(plain, p)
		}
		abs, err := r.Abs(p)
		if err != nil {
			return err
		}
		if next[p] == nil {
			if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := WriteFileAtomic(abs, next[p]); err != nil {
			return err
		}
	}
	if len(plain) > 0 {
		if err := r.updateIndex(ctx, append([]string{"update-index", "--add", "--remove", "--"}, plain...)); err != nil {
			return err
		}
	}
	skipped := map[string]indexEntry{}
	for p, e := range outside {
		skipped[p] = e
	}
	for p, e := range present {
		skipped[p] = e
	}
	if len(skipped) == 0 {
		return nil
	}
	var kept, gone []string
	for _, p := range changed {
		if _, ok := skipped[p]; !ok {
			continue
		}
		if next[p] == nil {
			gone = append(gone, p)
		} else {
			kept = append(kept, p)
		}
	}
	if len(kept) > 0 {
		oids, err := r.hashObjects(ctx, kept, next)
		if err != nil {
			return err
		}
		// The entries from their blobs (the work tree is not read), then
		// the bit on exactly those paths, in one index write.
		args := []string{"update-index", "--add"}
		for _, p := range kept {
			mode := "100644"
			if skipped[p].mode == "100755" {
				mode = "100755" // as buildTree keeps it
			}
			args = append(args, "--cacheinfo", mode+","+oids[p]+","+p)
		}
		args = append(append(args, "--skip-worktree", "--"), kept...)
		if err := r.updateIndex(ctx, args); err != nil {
			return err
		}
	}
	if len(gone) > 0 {
		if err := r.updateIndex(ctx, append([]string{"update-index", "--force-remove", "--"}, gone...)); err != nil {
			return err
		}
	}
	return nil
}

// updateIndex runs an update-index of the real index, waiting out an
// index.lock held for a moment (another scribe command's own update).
func (r *Repo) updateIndex(ctx context.Context, args []string) error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		if _, err = r.Git(ctx, args...); err == nil {
			return nil
		}
		var ge *GitError
		if !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "index.lock") {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

// WriteFileAtomic writes data to path via a temp file, fsync and rename,
// creating parent directories and keeping an existing file's mode.
func WriteFileAtomic(path string, data []byte) error {
	return writeFileWith(path, data, writeFileAtomic)
}

// writeFileWith is what both atomic writers share: the directory made, an
// existing file's mode kept, the step counted for the kill sweep.
func writeFileWith(path string, data []byte, write func(string, []byte, fs.FileMode) error) error {
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	err := write(path, data, perm)
	stepDone(func() string { return "write " + path })
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tempPath returns a unique path under the scribe runtime dir.
func (r *Repo) tempPath(prefix string) (string, error) {
	if err := os.MkdirAll(r.ScribeDir(), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", r.ScribeDir(), err)
	}
	r.scratchOnce.Do(r.removeStaleScratch)
	b := make([]byte, 6)
	rand.Read(b)
	return filepath.Join(r.ScribeDir(), fmt.Sprintf("%s-%d-%s", prefix, os.Getpid(), hex.EncodeToString(b))), nil
}

// scratchPrefixes name what a write keeps under the scribe dir only while
// it runs: temporary indexes (tempPath) and staged blobs (hashObjects).
var scratchPrefixes = []string{"blobs-", "index-", "vault-index-"}

// removeStaleScratch deletes the scratch files and directories a killed
// write left under the scribe dir (its deferred removal never ran), once
// they are StaleTempAge old: a live write's are milliseconds old. Once per
// process, at its first write; errors are ignored (tidying, never a reason
// to fail a write).
func (r *Repo) removeStaleScratch() {
	ents, err := os.ReadDir(r.ScribeDir())
	if err != nil {
		return
	}
	for _, e := range ents {
		scratch := false
		for _, p := range scratchPrefixes {
			scratch = scratch || strings.HasPrefix(e.Name(), p)
		}
		if !scratch {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > StaleTempAge {
			os.RemoveAll(filepath.Join(r.ScribeDir(), e.Name()))
		}
	}
}
