package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sort"
	"strings"
	"time"
)

// Remote locks are the same refs/scribe/locks/<name> refs, taken on a
// shared remote so that machines serialise on it: the git server is the
// distributed compare-and-swap. Every change is one `git push --atomic`
// whose refs carry a lease:
//
//	acquire   --force-with-lease=<ref>:       <holder>:<ref>   (the ref must not exist)
//	take over --force-with-lease=<ref>:<old>  <holder>:<ref>   (only from that exact expired value)
//	release   --force-with-lease=<ref>:<own>  :<ref>           (only while it is still ours)
//
// The lease is checked against what the server advertises and, for the
// update itself, by the server's own ref transaction (the old value travels
// with the command), so two machines cannot both win.

// RemoteLockedError names the holder of a remote lock that could not be
// taken before the timeout.
type RemoteLockedError struct {
	Remote string
	Name   string
	Holder *Holder
}

func (e *RemoteLockedError) Error() string {
	who := "an unknown holder"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("lock %s%s on remote %s is held by %s; it is taken over once it expires (to remove it by hand: git push %s :%s%s)",
		LockRefPrefix, e.Name, e.Remote, who, e.Remote, LockRefPrefix, e.Name)
}

func (e *RemoteLockedError) Unwrap() error { return ErrLocked }

// DefaultNetworkTimeout bounds one remote operation of a remote lock when
// Repo.NetworkTimeout is not set.
const DefaultNetworkTimeout = 10 * time.Second

// lockNet runs op (one push or fetch for a remote lock) bounded by the
// network timeout (not by the lock timeout, which is how long to wait for
// another holder: a loaded machine's push may take longer than that); git
// and every process it started are killed when it expires, and the result
// is an *UnreachableError saying so (callers queue the write).
func (r *Repo) lockNet(ctx context.Context, remote string, op func(context.Context) error) error {
	limit := r.NetworkTimeout
	if limit <= 0 {
		limit = DefaultNetworkTimeout
	}
	nctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := op(nctx)
	if err != nil && ctx.Err() == nil && errors.Is(nctx.Err(), context.DeadlineExceeded) {
		return &UnreachableError{Remote: remote, Err: fmt.Errorf("no answer within %s; git and its transport were stopped (raise sync.network_timeout in .scribe.yaml if the remote is just slow)", limit)}
	}
	return err
}

// CheckConfiguredRemote refuses a remote that is not configured in the
// repository's git config. The name may come from a committed
// .scribe.yaml, which anyone who can push to the repository writes: as a
// URL it would make every scribe write send this host's name and pid
// there. Only remote.<name>.url, which only the user sets, is trusted. The
// refusal is an *UnreachableError, so the write is queued, never lost.
func (r *Repo) CheckConfiguredRemote(ctx context.Context, remote string) error {
	url := ""
	if remote != "" && !strings.ContainsAny(remote, " \t\r\n=") {
		url, _ = r.configValue(ctx, "remote."+remote+".url")
	}
	if url == "" {
		return &UnreachableError{Remote: remote, Err: fmt.Errorf("%q is not a remote configured in this repository's git config (no remote.%s.url): "+
			"remote locks only use a remote you configured, never a URL from a committed .scribe.yaml; "+
			"add it with `git remote add NAME URL` and set sync.remote to NAME, or pass --no-remote-lock", remote, remote)}
	}
	return nil
}

// RemoteLock is a set of locks held on a remote.
type RemoteLock struct {
	repo   *Repo
	Remote string
	Names  []string
	OID    string // the holder blob pushed to every lock ref
	Owner  Holder
}

// AcquireRemote takes refs/scribe/locks/<name> for every name on remote,
// all or nothing, backing off until opts.Timeout while another holder has
// one. A lock past its expiry is taken over only by a lease on its exact old
// value. A remote that cannot be reached fails at once with an
// *UnreachableError (callers queue the write: it is never done unlocked).
func (r *Repo) AcquireRemote(ctx context.Context, remote string, names []string, opts LockOptions) (*RemoteLock, error) {
	if err := r.CheckConfiguredRemote(ctx, remote); err != nil {
		return nil, err
	}
	names, oid, h, opts, err := r.prepareLocks(ctx, names, opts)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	expect := map[string]string{} // name → expected remote value ("" = absent)
	deadline := time.Now().Add(opts.Timeout)
	delay := 50 * time.Millisecond
	for {
		args := []string{"--atomic", "--no-verify", "--no-follow-tags", "--recurse-submodules=no", remote}
		var specs []string
		for _, n := range names {
			ref := LockRefPrefix + n
			args = append(args, "--force-with-lease="+ref+":"+expect[n])
			specs = append(specs, oid+":"+ref)
		}
		err := r.lockNet(ctx, remote, func(ctx context.Context) error {
			_, err := r.push(ctx, remote, append(args, specs...)...)
			return err
		})
		if err == nil {
			return &RemoteLock{repo: r, Remote: remote, Names: names, OID: oid, Owner: h}, nil
		}
		var rej *RejectedError
		var ue *UnreachableError
		if errors.As(err, &ue) {
			return nil, ue
		}
		if !errors.As(err, &rej) || !lostRace(rej) {
			// Not a lock held by someone (a hook declined, no push access):
			// waiting would not help.
			return nil, fmt.Errorf("take lock %s on %s: %w", strings.Join(names, ", "), remote, err)
		}
		// Someone holds at least one: look at the holders (fetching their
		// objects), take over what has expired, or wait.
		var held map[string]HeldLock
		ferr := r.lockNet(ctx, remote, func(ctx context.Context) (err error) {
			held, err = r.remoteLocks(ctx, remote)
			return err
		})
		var fue *UnreachableError
		if errors.As(ferr, &fue) {
			return nil, fue
		}
		if ferr != nil {
			return nil, fmt.Errorf("read locks on %s: %w", remote, ferr)
		}
		var blocker *RemoteLockedError
		for _, n := range names {
			cur, ok := held[n]
			switch {
			case !ok:
				expect[n] = ""
			case cur.Holder.freeable():
				expect[n] = cur.OID
			default:
				expect[n] = "" // a live lock is never leased: the push fails while it is held
				if blocker == nil {
					blocker = &RemoteLockedError{Remote: remote, Name: n, Holder: cur.Holder}
				}
			}
		}
		if blocker == nil && time.Now().Before(deadline) {
			time.Sleep(time.Duration(mrand.Int64N(int64(20 * time.Millisecond))))
			continue // free or expired now: try again with the new leases
		}
		if time.Now().After(deadline) {
			if blocker == nil {
				blocker = &RemoteLockedError{Remote: remote, Name: strings.Join(names, ", ")}
			}
			return nil, blocker
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay + time.Duration(mrand.Int64N(int64(delay)))):
		}
		if delay < time.Second {
			delay *= 2
		}
	}
}

// lostRace reports whether a rejected push failed only because a ref
// was not what the lease (or the server's compare-and-swap) expected.
func lostRace(rej *RejectedError) bool {
	for _, why := range rej.Refs {
		switch {
		case strings.Contains(why, "stale info"), strings.Contains(why, "already exists"),
			strings.Contains(why, "failed to update ref"), strings.Contains(why, "cannot lock ref"),
			strings.Contains(why, "atomic"):
		default:
			return false
		}
	}
	return true
}

// remoteLocks fetches remote's lock refs into refs/scribe/remotes/<remote>/locks/
// (pruning released ones) and decodes their holders.
func (r *Repo) remoteLocks(ctx context.Context, remote string) (map[string]HeldLock, error) {
	prefix := RemoteScribePrefix + remote + "/locks/"
	if err := r.fetch(ctx, remote, "+"+LockRefPrefix+"*:"+prefix+"*"); err != nil {
		return nil, err
	}
	refs, err := r.refValues(ctx, prefix)
	if err != nil {
		return nil, err
	}
	out := map[string]HeldLock{}
	for ref, oid := range refs {
		hl := HeldLock{Name: strings.TrimPrefix(ref, prefix), OID: oid}
		if blob, err := r.Git(ctx, "cat-file", "blob", oid); err == nil {
			var h Holder
			if json.Unmarshal(blob, &h) == nil {
				hl.Holder = &h
				hl.Expired = time.Now().After(h.Expires)
			}
		}
		out[hl.Name] = hl
	}
	return out, nil
}

// RemoteLocks lists the locks held on remote right now (one fetch).
func (r *Repo) RemoteLocks(ctx context.Context, remote string) ([]HeldLock, error) {
	m, err := r.remoteLocks(ctx, remote)
	if err != nil {
		return nil, err
	}
	var list []HeldLock
	for _, hl := range m {
		list = append(list, hl)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, nil
}

// Release deletes the remote lock refs that still hold this process's value,
// in one atomic push; when that is refused (one was taken over after
// expiring) each is released on its own. The local tracking copies of the
// refs are dropped too.
func (l *RemoteLock) Release(ctx context.Context) error {
	if l == nil {
		return nil
	}
	if ctx.Err() != nil {
		ctx = context.Background()
	}
	del := func(names []string) error {
		args := []string{"--atomic", "--no-verify", "--recurse-submodules=no", l.Remote}
		var specs []string
		for _, n := range names {
			ref := LockRefPrefix + n
			args = append(args, "--force-with-lease="+ref+":"+l.OID)
			specs = append(specs, ":"+ref)
		}
		return l.repo.lockNet(ctx, l.Remote, func(ctx context.Context) error {
			_, err := l.repo.push(ctx, l.Remote, append(args, specs...)...)
			return err
		})
	}
	err := del(l.Names)
	var rej *RejectedError
	if errors.As(err, &rej) && len(l.Names) > 1 {
		var errs []error
		for _, n := range l.Names {
			if e := del([]string{n}); e != nil && !errors.As(e, &rej) {
				errs = append(errs, e)
			}
		}
		err = errors.Join(errs...)
	} else if errors.As(err, &rej) {
		err = nil // taken over after it expired: not ours to delete any more
	}
	for _, n := range l.Names {
		// Drop a tracking copy of our own holder (fetched while waiting).
		l.repo.Git(ctx, "update-ref", "-d", RemoteScribePrefix+l.Remote+"/locks/"+n, l.OID)
	}
	if err != nil {
		return fmt.Errorf("release lock %s on %s (it expires at %s): %w", strings.Join(l.Names, ", "), l.Remote,
			l.Owner.Expires.Format(time.RFC3339), err)
	}
	return nil
}
