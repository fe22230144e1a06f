package gitops

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoUpstream means the branch has no upstream to sync with.
var ErrNoUpstream = errors.New("no upstream")

// SyncLock is the lock a sync holds, locally and on the remote.
const SyncLock = "sync"

// SyncOptions configures Sync.
type SyncOptions struct {
	// Remote overrides the branch's upstream remote (the remote branch is
	// still the upstream's name).
	Remote string
	// Branch is the vault branch ("main" or "refs/heads/main"); "" is the
	// current branch.
	Branch string
	// RemoteLock takes refs/scribe/locks/sync on the remote around the whole
	// fetch–replay–push.
	RemoteLock bool
	// Locks are local locks held while the branch and the work tree move
	// (the vault writers' locks, so no scribe commit lands in between).
	Locks []string
	// LockOptions tunes every lock acquisition.
	LockOptions LockOptions
	// Resolve merges conflicted files by repo-relative path (the journal
	// files, entry by entry). Any other conflict stops the sync.
	Resolve map[string]Resolver
}

// RefChange is one tracked ref that a fetch created, moved or pruned.
type RefChange struct {
	Ref string `json:"ref"`
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// SyncReport says what a sync moved.
type SyncReport struct {
	Remote       string `json:"remote"`
	Branch       string `json:"branch"`
	RemoteBranch string `json:"remote_branch"`
	Tracking     string `json:"tracking"`
	LocalBefore  string `json:"local_before"`
	// RemoteBefore is empty when the remote had no such branch yet.
	RemoteBefore string `json:"remote_before,omitempty"`
	After        string `json:"after"`
	// Fetched counts the remote's commits the local branch gained; Pushed
	// the commits the remote branch gained.
	Fetched  int              `json:"fetched_commits"`
	Pushed   int              `json:"pushed_commits"`
	Replayed []ReplayedCommit `json:"replayed,omitempty"`
	// RefsPushed are scribe refs published; RefsFetched tracked scribe refs
	// (refs/scribe/remotes/<remote>/…) that changed.
	RefsPushed  []string    `json:"refs_pushed,omitempty"`
	RefsFetched []RefChange `json:"refs_fetched,omitempty"`
	// AddedRefspec is the fetch refspec this sync configured, so that plain
	// `git fetch` tracks the remote's scribe refs from now on.
	AddedRefspec string   `json:"added_fetch_refspec,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
}

// SyncRefusedError is a sync that did not start or stopped before changing
// anything it could not put back: the reason says what to do.
type SyncRefusedError struct{ Reason string }

func (e *SyncRefusedError) Error() string { return e.Reason }

// NoUpstreamError is a branch without an upstream.
type NoUpstreamError struct{ Branch, Remote string }

func (e *NoUpstreamError) Error() string {
	return fmt.Sprintf("branch %s has no upstream, so there is nothing to sync with; set one with `git push -u %s %s` (or `git branch --set-upstream-to=%s/%s`) and run git scribe sync again",
		e.Branch, e.Remote, e.Branch, e.Remote, e.Branch)
}

func (e *NoUpstreamError) Unwrap() error { return ErrNoUpstream }

// Upstream is where a branch syncs.
type Upstream struct {
	Branch       string // refs/heads/main
	Remote       string // origin
	RemoteBranch string // refs/heads/main, on the remote
	Tracking     string // refs/remotes/origin/main
}

// Upstream resolves branch's upstream; remote, when set, replaces the
// upstream's remote (and the tracking ref becomes refs/remotes/<remote>/…).
func (r *Repo) Upstream(ctx context.Context, branch, remote string) (Upstream, error) {
	short := strings.TrimPrefix(branch, "refs/heads/")
	up := Upstream{Branch: "refs/heads/" + short}
	merge, err := r.configValue(ctx, "branch."+short+".merge")
	if err != nil {
		return up, err
	}
	upRemote, err := r.configValue(ctx, "branch."+short+".remote")
	if err != nil {
		return up, err
	}
	if merge == "" {
		name := remote
		if name == "" {
			name = upRemote
		}
		if name == "" {
			name = "origin"
		}
		return up, &NoUpstreamError{Branch: short, Remote: name}
	}
	if !strings.HasPrefix(merge, "refs/heads/") {
		return up, &SyncRefusedError{Reason: fmt.Sprintf("the upstream of %s is %s, not a branch; sync publishes to a branch", short, merge)}
	}
	up.RemoteBranch = merge
	up.Remote = remote
	if up.Remote == "" {
		up.Remote = upRemote
	}
	if up.Remote == "" || up.Remote == "." {
		return up, &SyncRefusedError{Reason: fmt.Sprintf("the upstream of %s is a local branch; sync needs a remote (git branch --set-upstream-to=origin/%s)", short, short)}
	}
	if ok, err := r.HasRemote(ctx, up.Remote); err != nil {
		return up, err
	} else if !ok {
		return up, &SyncRefusedError{Reason: fmt.Sprintf("no remote named %q; sync works with a configured remote (git remote add %s URL)", up.Remote, up.Remote)}
	}
	if up.Remote == upRemote {
		out, err := r.Git(ctx, "for-each-ref", "--format=%(upstream)", up.Branch)
		if t := strings.TrimSpace(string(out)); err == nil && strings.HasPrefix(t, "refs/remotes/") {
			up.Tracking = t
		}
	}
	if up.Tracking == "" {
		up.Tracking = "refs/remotes/" + up.Remote + "/" + strings.TrimPrefix(merge, "refs/heads/")
	}
	return up, nil
}

// Sync brings a branch and refs/scribe/* in line with the remote, with the
// git CLI (so credential helpers work): it fetches the remote branch and the
// remote's scribe refs (into refs/scribe/remotes/<remote>/), replays the
// local commits the remote lacks on top of the remote branch (see replay:
// only objects are written), pushes the result and the local scribe refs the
// remote lacks, and only then moves the local branch — by compare-and-swap
// and, when it is checked out, with git's two-tree checkout
// (`read-tree -m -u`), which updates exactly the files that changed and
// refuses before touching anything when one of them has uncommitted edits.
//
// It never force-pushes: the branch push is a fast-forward the server
// checks, scribe refs are only created or fast-forwarded. Local lock refs
// (refs/scribe/locks/*) are never published: a remote's locks are taken on
// the remote itself (AcquireRemote).
func (r *Repo) Sync(ctx context.Context, o SyncOptions) (rep SyncReport, err error) {
	head, err := r.Head(ctx)
	if err != nil {
		return rep, err
	}
	branch := o.Branch
	if branch == "" {
		if head.Ref == "" {
			return rep, &SyncRefusedError{Reason: "HEAD is detached; check out the vault branch (or set sync.branch in .scribe.yaml) and run git scribe sync again"}
		}
		branch = head.Ref
	}
	if !strings.HasPrefix(branch, "refs/heads/") {
		branch = "refs/heads/" + branch
	}
	current := branch == head.Ref
	if current {
		if why := r.Busy(); why != "" {
			return rep, &SyncRefusedError{Reason: why + "; finish it and run git scribe sync again"}
		}
	} else if wt, err := r.checkedOutElsewhere(ctx, branch); err != nil {
		return rep, err
	} else if wt != "" {
		return rep, &SyncRefusedError{Reason: fmt.Sprintf("%s is checked out in %s; run git scribe sync there", strings.TrimPrefix(branch, "refs/heads/"), wt)}
	}
	up, err := r.Upstream(ctx, branch, o.Remote)
	if err != nil {
		return rep, err
	}
	rep.Remote, rep.Branch, rep.RemoteBranch, rep.Tracking = up.Remote, up.Branch, up.RemoteBranch, up.Tracking

	lopts := o.LockOptions
	lopts.Purpose = "sync"
	local, err := r.AcquireAll(ctx, []string{SyncLock}, lopts)
	if err != nil {
		return rep, err
	}
	defer r.releaseAll(ctx, local)
	var remoteLock *RemoteLock
	if o.RemoteLock {
		if remoteLock, err = r.AcquireRemote(ctx, up.Remote, []string{SyncLock}, lopts); err != nil {
			return rep, err
		}
		defer func() {
			if err := remoteLock.Release(ctx); err != nil {
				rep.Warnings = append(rep.Warnings, err.Error())
			}
		}()
	}
	tracked := RemoteScribePrefix + up.Remote + "/"
	before, err := r.refValues(ctx, tracked)
	if err != nil {
		return rep, err
	}
	for attempt := 0; ; attempt++ {
		done, err := r.syncOnce(ctx, o, up, current, &rep)
		if err != nil {
			return rep, err
		}
		if done {
			break
		}
		if attempt == 4 {
			return rep, fmt.Errorf("%s moved during every attempt to publish %s; run git scribe sync again", up.Remote, strings.TrimPrefix(up.RemoteBranch, "refs/heads/"))
		}
	}
	after, err := r.refValues(ctx, tracked)
	if err != nil {
		return rep, err
	}
	own := ""
	if remoteLock != nil {
		own = remoteLock.OID
	}
	rep.RefsFetched = refChanges(before, after, own)
	if added, err := r.EnsureScribeFetchRefspec(ctx, up.Remote); err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	} else if added {
		rep.AddedRefspec = ScribeFetchRefspec(up.Remote)
	}
	return rep, nil
}

// refChanges lists refs created, moved or removed between two listings,
// leaving out this process's own lock holder.
func refChanges(before, after map[string]string, own string) []RefChange {
	var out []RefChange
	for ref, v := range after {
		if v != before[ref] && v != own {
			out = append(out, RefChange{Ref: ref, Old: before[ref], New: v})
		}
	}
	for ref, v := range before {
		if _, ok := after[ref]; !ok && v != own {
			out = append(out, RefChange{Ref: ref, Old: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref < out[j].Ref })
	return out
}

// syncOnce is one fetch–replay–push–move round; done is false when the
// remote branch moved under the push and the round must be redone.
func (r *Repo) syncOnce(ctx context.Context, o SyncOptions, up Upstream, current bool, rep *SyncReport) (bool, error) {
	tracked := RemoteScribePrefix + up.Remote + "/"
	scribeSpecs := []string{ScribeFetchRefspec(up.Remote), "^" + RemoteScribePrefix + "*"}
	remoteExists := true
	err := r.fetch(ctx, up.Remote, append([]string{"+" + up.RemoteBranch + ":" + up.Tracking}, scribeSpecs...)...)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
		remoteExists = false
		err = r.fetch(ctx, up.Remote, scribeSpecs...)
	}
	if err != nil {
		return false, err
	}
	R := ""
	if remoteExists {
		if R, err = r.resolveRef(ctx, up.Tracking); err != nil {
			return false, err
		}
	}
	L, err := r.resolveRef(ctx, up.Branch)
	if err != nil {
		return false, err
	}
	if L == "" {
		return false, &SyncRefusedError{Reason: fmt.Sprintf("%s has no commits yet; commit something first", strings.TrimPrefix(up.Branch, "refs/heads/"))}
	}
	if rep.LocalBefore == "" {
		rep.LocalBefore, rep.RemoteBefore = L, R
	}
	ontoName := strings.TrimPrefix(up.Tracking, "refs/remotes/")

	N := L
	var replayed []ReplayedCommit
	switch {
	case R == "" || R == L || r.IsAncestor(ctx, R, L):
	case r.IsAncestor(ctx, L, R):
		N = R
	default:
		commits, err := r.localCommits(ctx, R, L)
		if err != nil {
			return false, err
		}
		if N, replayed, err = r.replay(ctx, R, ontoName, commits, o.Resolve); err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) {
				return false, &SyncRefusedError{Reason: ce.Error() + "; nothing was changed (your branch, work tree and the remote are as they were): resolve it by hand with `git pull --rebase` and run git scribe sync again"}
			}
			return false, err
		}
	}
	if N != L && current {
		if err := r.checkoutDryRun(ctx, L, N); err != nil {
			return false, err
		}
	}

	// Publish: the branch (a fast-forward of the remote's) and the local
	// scribe refs the remote lacks.
	var specs, pushedRefs []string
	if N != R {
		specs = append(specs, N+":"+up.RemoteBranch)
	}
	localRefs, err := r.refValues(ctx, ScribeRefPrefix)
	if err != nil {
		return false, err
	}
	remoteRefs, err := r.refValues(ctx, tracked)
	if err != nil {
		return false, err
	}
	var names []string
	for ref := range localRefs {
		names = append(names, ref)
	}
	sort.Strings(names)
	var warns []string
	for _, ref := range names {
		rest := strings.TrimPrefix(ref, ScribeRefPrefix)
		if strings.HasPrefix(ref, LockRefPrefix) || strings.HasPrefix(ref, RemoteScribePrefix) {
			continue
		}
		oid, theirs := localRefs[ref], remoteRefs[tracked+rest]
		switch {
		case theirs == oid:
		case theirs == "":
			specs = append(specs, oid+":"+ref)
			pushedRefs = append(pushedRefs, ref)
		case r.isCommit(ctx, oid) && r.isCommit(ctx, theirs) && r.IsAncestor(ctx, theirs, oid):
			specs = append(specs, oid+":"+ref)
			pushedRefs = append(pushedRefs, ref)
		case r.isCommit(ctx, oid) && r.isCommit(ctx, theirs) && r.IsAncestor(ctx, oid, theirs):
		default:
			warns = append(warns, fmt.Sprintf("%s differs on %s and was left alone (sync never force-pushes); compare with %s%s", ref, up.Remote, tracked, rest))
		}
	}
	if len(specs) > 0 {
		_, err := r.push(ctx, up.Remote, append([]string{"--atomic", "--recurse-submodules=no", up.Remote}, specs...)...)
		var rej *RejectedError
		if errors.As(err, &rej) {
			for _, why := range rej.Refs {
				// Lost a race with another push: fetch and replay again.
				if strings.Contains(why, "fetch first") || strings.Contains(why, "non-fast-forward") ||
					strings.Contains(why, "stale info") || strings.Contains(why, "atomic") || strings.Contains(why, "already exists") ||
					strings.Contains(why, "failed to update ref") || strings.Contains(why, "cannot lock ref") {
					continue
				}
				return false, fmt.Errorf("%w; nothing was changed locally", err)
			}
			return false, nil // the remote moved meanwhile: fetch and replay again
		}
		if err != nil {
			return false, err
		}
		if N != R {
			r.Git(ctx, "update-ref", "-m", "scribe sync: pushed", up.Tracking, N)
		}
		for _, ref := range pushedRefs {
			r.Git(ctx, "update-ref", tracked+strings.TrimPrefix(ref, ScribeRefPrefix), localRefs[ref])
		}
	}
	rep.Warnings = append(rep.Warnings, warns...)
	rep.RefsPushed = append(rep.RefsPushed, pushedRefs...)
	rep.Replayed = replayed
	if N != R {
		rep.Pushed = r.countRange(ctx, R, N)
	}

	if N != L {
		if err := r.moveBranch(ctx, o, up.Branch, L, N, current); err != nil {
			return false, err
		}
		rep.Fetched = r.countRange(ctx, L, R)
	}
	rep.After = N
	return true, nil
}

// localCommits lists R..L oldest first, refusing merges (sync replays a
// linear history only).
func (r *Repo) localCommits(ctx context.Context, R, L string) ([]string, error) {
	out, err := r.Git(ctx, "rev-list", "--reverse", "--topo-order", "--parents", R+".."+L)
	if err != nil {
		return nil, fmt.Errorf("list local commits: %w", err)
	}
	var commits []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, &SyncRefusedError{Reason: fmt.Sprintf("your unpushed commits include the merge %s; sync replays linear history only: integrate by hand (git pull --rebase=merges, or git pull) and run git scribe sync again", shortOID(f[0]))}
		}
		commits = append(commits, f[0])
	}
	return commits, nil
}

// checkoutDryRun makes sure moving the checked-out branch from L to N can
// update the work tree without touching the user's edits.
func (r *Repo) checkoutDryRun(ctx context.Context, L, N string) error {
	r.Git(ctx, "update-index", "-q", "--refresh") // stat-only refresh, like git pull does
	if _, err := r.Git(ctx, "read-tree", "-m", "-u", "-n", L, N); err != nil {
		return &SyncRefusedError{Reason: "the remote changed files you have uncommitted changes in or untracked files at (" +
			gitReason(err) + "); commit or stash them and run git scribe sync again; nothing was changed"}
	}
	return nil
}

// moveBranch moves the local branch from L to N by compare-and-swap, under
// the vault writers' locks; a checked-out branch's work tree and index
// follow with git's two-tree checkout, and the branch is put back when that
// fails.
func (r *Repo) moveBranch(ctx context.Context, o SyncOptions, branch, L, N string, current bool) error {
	lopts := o.LockOptions
	lopts.Purpose = "sync"
	return r.WithLocks(ctx, o.Locks, lopts, func() error {
		if _, err := r.Git(ctx, "update-ref", "-m", "scribe sync: onto the remote branch", branch, N, L); err != nil {
			return &SyncRefusedError{Reason: fmt.Sprintf("the remote is up to date, but %s moved meanwhile (%s); run git scribe sync again to bring it along",
				strings.TrimPrefix(branch, "refs/heads/"), gitReason(err))}
		}
		if !current {
			return nil
		}
		if _, err := r.Git(ctx, "read-tree", "-m", "-u", L, N); err != nil {
			r.Git(ctx, "update-ref", "-m", "scribe sync: put back", branch, L, N)
			return &SyncRefusedError{Reason: "the remote is up to date, but your work tree could not follow (" + gitReason(err) +
				"); your branch is where it was: commit or stash your edits and run git scribe sync again"}
		}
		return nil
	})
}

// checkedOutElsewhere names the linked work tree that has branch checked out.
func (r *Repo) checkedOutElsewhere(ctx context.Context, branch string) (string, error) {
	out, err := r.Git(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return "", fmt.Errorf("list work trees: %w", err)
	}
	var wt string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			wt = p
		}
		if b, ok := strings.CutPrefix(line, "branch "); ok && b == branch {
			return wt, nil
		}
	}
	return "", nil
}

func (r *Repo) isCommit(ctx context.Context, oid string) bool {
	out, err := r.Git(ctx, "cat-file", "-t", oid)
	return err == nil && strings.TrimSpace(string(out)) == "commit"
}

// countRange counts commits in from..to (all of to when from is empty).
func (r *Repo) countRange(ctx context.Context, from, to string) int {
	rng := to
	if from != "" {
		rng = from + ".." + to
	}
	out, err := r.Git(ctx, "rev-list", "--count", rng)
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(strings.TrimSpace(string(out)), &n)
	return n
}

// gitReason is git's stderr in one line, for a user-facing message.
func gitReason(err error) string {
	var ge *GitError
	if errors.As(err, &ge) {
		if s := oneLineStderr(ge.Stderr); s != "" {
			return s
		}
	}
	return err.Error()
}
