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
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// LockRefPrefix is where scribe's ref locks live.
const LockRefPrefix = "refs/scribe/locks/"

// validLockName admits flat names git accepts as a ref component, as
// ^[a-z0-9](?:[a-z0-9_-]|\.[a-z0-9_-]){0,63}$ does (no "..", no dot
// last), not ending in ".lock". Hand-written: every write validates its
// lock names, and compiling the expression was a fifth of a millisecond.
func validLockName(n string) bool {
	word := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' }
	if n == "" || !word(n[0]) || n[0] == '_' || n[0] == '-' || strings.HasSuffix(n, ".lock") {
		return false
	}
	units := 0
	for i := 1; i < len(n); i++ {
		if n[i] == '.' {
			i++
			if i == len(n) || !word(n[i]) {
				return false
			}
		} else if !word(n[i]) {
			return false
		}
		units++
	}
	return units <= 63
}

// Holder describes who holds a lock; it is stored as the blob the lock ref
// points at.
type Holder struct {
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Expires time.Time `json:"expires"`
	Nonce   string    `json:"nonce"`
	Purpose string    `json:"purpose,omitempty"`
	// Boot names the kernel boot and pid namespace PID lives in, and
	// PIDStart is that process's start time (clock ticks since boot): with
	// them a lock whose holder died on this host is taken over at once
	// instead of when it expires. Empty where they cannot be read.
	Boot     string `json:"boot,omitempty"`
	PIDStart uint64 `json:"pid_start,omitempty"`
}

// Dead reports whether the holder's process provably no longer runs: it
// was on this host, in this boot and pid namespace, and its pid is gone,
// a zombie, or now belongs to a process that started at another time. A
// holder without boot and start time (another machine, an older scribe)
// is never dead: only its expiry frees its lock.
func (h *Holder) Dead() bool {
	if h == nil || h.Boot == "" || h.PIDStart == 0 || h.PID <= 0 {
		return false
	}
	if host, _ := os.Hostname(); h.Host != host || h.Boot != bootIdentity() {
		return false
	}
	start, running, gone, err := processStart(h.PID)
	if err != nil {
		return false
	}
	return gone || !running || start != h.PIDStart
}

// freeable reports whether a held lock may be taken over now, by
// compare-and-swap from its exact current value: it expired, or its holder
// is provably dead.
func (h *Holder) freeable() bool {
	return h != nil && (time.Now().After(h.Expires) || h.Dead())
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on %s since %s (expires %s)", h.PID, h.Host,
		h.Started.Format(time.RFC3339), h.Expires.Format(time.RFC3339))
}

// LockOptions tunes acquisition.
type LockOptions struct {
	// Timeout is how long to wait for a held lock (default 30s).
	Timeout time.Duration
	// TTL is how long the lock is valid before others may take it over
	// (default 2m: scribe holds locks for milliseconds; a killed holder
	// blocks others only this long).
	TTL time.Duration
	// Purpose is recorded in the holder object.
	Purpose string
}

// Lock is a held ref lock.
type Lock struct {
	repo  *Repo
	Name  string
	Ref   string
	OID   string // the holder blob this process wrote
	Owner Holder
}

// LockedError names the holder of a lock that could not be taken.
type LockedError struct {
	Name   string
	Holder *Holder
}

func (e *LockedError) Error() string {
	who := "an unknown holder"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("lock %s%s is held by %s; wait for it, or if that process is gone run `git update-ref -d %s%s` once it has expired",
		LockRefPrefix, e.Name, who, LockRefPrefix, e.Name)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// Acquire takes refs/scribe/locks/<name> by compare-and-swap (create: fails
// if the ref exists), backing off with jitter until opts.Timeout. A lock past
// its expiry, or whose holder is provably dead (Holder.Dead: a missing pid
// alone is no proof, pids are reused and hosts shared), is taken over only
// by CAS from its exact old value.
func (r *Repo) Acquire(ctx context.Context, name string, opts LockOptions) (*Lock, error) {
	locks, err := r.AcquireAll(ctx, []string{name}, opts)
	if err != nil {
		return nil, err
	}
	return locks[0], nil
}

// AcquireAll takes several locks all-or-nothing in one `update-ref --stdin`
// transaction per attempt: free locks by create, expired ones by CAS from
// their exact old value. A process never holds part of a set while waiting,
// so two callers cannot deadlock.
func (r *Repo) AcquireAll(ctx context.Context, names []string, opts LockOptions) ([]*Lock, error) {
	names, oid, h, opts, err := r.prepareLocks(ctx, names, opts)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	held := func() []*Lock { return r.locksOf(names, oid, h) }
	var create strings.Builder
	for _, n := range names {
		fmt.Fprintf(&create, "create %s%s %s\n", LockRefPrefix, n, oid)
	}
	deadline := time.Now().Add(opts.Timeout)
	delay := 2 * time.Millisecond
	for {
		_, err := r.gitIn(ctx, runOpts{stdin: []byte(create.String())}, "update-ref", "--stdin")
		if err == nil {
			return held(), nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err() // the git call was cut short, not refused
		}
		if IsUnwritable(err) {
			// Not held: the ref cannot be written (a full disk). Waiting
			// for it to be free would wait out the whole timeout.
			return nil, fmt.Errorf("take lock %s: %w", strings.Join(names, ", "), err)
		}
		// Someone holds at least one: take over what has expired, all in one
		// transaction with the free ones, or wait.
		var tx strings.Builder
		var blocker *LockedError
		for _, n := range names {
			ref := LockRefPrefix + n
			cur, holder, err := r.readLock(ctx, ref)
			switch {
			case err != nil:
				blocker = &LockedError{Name: n}
			case cur == "":
				fmt.Fprintf(&tx, "create %s %s\n", ref, oid)
			case holder.freeable():
				fmt.Fprintf(&tx, "update %s %s %s\n", ref, oid, cur)
			default:
				blocker = &LockedError{Name: n, Holder: holder}
			}
			if blocker != nil {
				break
			}
		}
		if blocker == nil {
			_, err := r.gitIn(ctx, runOpts{stdin: []byte(tx.String())}, "update-ref", "--stdin")
			if err == nil {
				return held(), nil
			}
			if IsUnwritable(err) {
				return nil, fmt.Errorf("take lock %s: %w", strings.Join(names, ", "), err)
			}
		}
		if time.Now().After(deadline) {
			if blocker == nil {
				blocker = &LockedError{Name: strings.Join(names, ", ")}
			}
			return nil, blocker
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay + time.Duration(mrand.Int64N(int64(delay)))):
		}
		if delay < 200*time.Millisecond {
			delay *= 2
		}
	}
}

// prepareLocks is what every acquisition starts with, local or remote: the
// names validated and sorted, the default timeout, and the holder object
// written. No names means nothing to take.
func (r *Repo) prepareLocks(ctx context.Context, names []string, opts LockOptions) ([]string, string, Holder, LockOptions, error) {
	names, err := lockNames(names)
	if err != nil || len(names) == 0 {
		return nil, "", Holder{}, opts, err
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	oid, h, err := r.writeHolder(ctx, names, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", Holder{}, opts, ctx.Err()
		}
		return nil, "", Holder{}, opts, err
	}
	return names, oid, h, opts, nil
}

// lockNames sorts, deduplicates and validates lock names.
func lockNames(names []string) ([]string, error) {
	names = append([]string(nil), names...)
	sort.Strings(names)
	uniq := names[:0]
	for i, n := range names {
		if i > 0 && names[i-1] == n {
			continue
		}
		if !validLockName(n) {
			return nil, fmt.Errorf("invalid lock name %q: use lowercase letters, digits, . _ -", n)
		}
		uniq = append(uniq, n)
	}
	return uniq, nil
}

// locksOf are the locks names held with holder object oid.
func (r *Repo) locksOf(names []string, oid string, h Holder) []*Lock {
	locks := make([]*Lock, len(names))
	for i, n := range names {
		locks[i] = &Lock{repo: r, Name: n, Ref: LockRefPrefix + n, OID: oid, Owner: h}
	}
	return locks
}

// writeHolder stores the holder object a lock ref points at (TTL default 2m:
// scribe holds locks for milliseconds; a killed holder blocks others only
// this long).
func (r *Repo) writeHolder(ctx context.Context, names []string, opts LockOptions) (string, Holder, error) {
	if opts.TTL == 0 {
		opts.TTL = 2 * time.Minute
	}
	host, _ := os.Hostname()
	nonce := make([]byte, 8)
	rand.Read(nonce)
	now := time.Now()
	h := Holder{Host: host, PID: os.Getpid(), Started: now.UTC().Truncate(time.Second),
		Expires: now.Add(opts.TTL).UTC().Truncate(time.Second), Nonce: hex.EncodeToString(nonce), Purpose: opts.Purpose}
	if start, running, _, err := processStart(h.PID); err == nil && running {
		h.Boot, h.PIDStart = bootIdentity(), start
	}
	body, _ := json.Marshal(h)
	out, err := r.gitIn(ctx, runOpts{stdin: body}, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", h, fmt.Errorf("write lock holder for %s: %w", strings.Join(names, ", "), err)
	}
	return strings.TrimSpace(string(out)), h, nil
}

// readLock returns the lock ref's value and decoded holder ("" when free).
func (r *Repo) readLock(ctx context.Context, ref string) (string, *Holder, error) {
	out, err := r.Git(ctx, "rev-parse", "-q", "--verify", ref)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil, nil
		}
		return "", nil, err
	}
	oid := strings.TrimSpace(string(out))
	blob, err := r.Git(ctx, "cat-file", "blob", oid)
	if err != nil {
		return oid, nil, err
	}
	var h Holder
	if err := json.Unmarshal(blob, &h); err != nil {
		return oid, nil, nil
	}
	return oid, &h, nil
}

// Release deletes the lock ref only if it still holds this process's value.
func (l *Lock) Release(ctx context.Context) error {
	if l == nil {
		return nil
	}
	// Release must happen even when the command's context was cancelled.
	if ctx.Err() != nil {
		ctx = context.Background()
	}
	if _, err := l.repo.Git(ctx, "update-ref", "-d", l.Ref, l.OID); err != nil {
		return fmt.Errorf("release lock %s: %w", l.Name, err)
	}
	return nil
}

// HeldLock is one lock ref as status reports it.
type HeldLock struct {
	Name    string  `json:"name"`
	OID     string  `json:"oid"`
	Holder  *Holder `json:"holder,omitempty"`
	Expired bool    `json:"expired"`
	// Dead: the holder provably died on this host (Holder.Dead); the next
	// acquirer takes the lock over at once.
	Dead bool `json:"dead,omitempty"`
}

// Locks lists the scribe locks currently held.
func (r *Repo) Locks(ctx context.Context) ([]HeldLock, error) {
	if r.noLockRefs() {
		return nil, nil // every wrap asks; nearly always there are none
	}
	out, err := r.Git(ctx, "for-each-ref", "--format=%(refname) %(objectname)", LockRefPrefix)
	if err != nil {
		return nil, fmt.Errorf("list locks: %w", err)
	}
	var locks []HeldLock
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ref, oid, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		hl := HeldLock{Name: strings.TrimPrefix(ref, LockRefPrefix), OID: oid}
		if blob, err := r.Git(ctx, "cat-file", "blob", oid); err == nil {
			var h Holder
			if json.Unmarshal(blob, &h) == nil {
				hl.Holder = &h
				hl.Expired = time.Now().After(h.Expires)
				hl.Dead = h.Dead()
			}
		}
		locks = append(locks, hl)
	}
	return locks, nil
}

// ReapDeadLocks deletes the lock refs whose holder provably died on this
// host (Holder.Dead: a command killed while it held them), each by
// compare-and-swap from the exact value read, so a lock taken over in the
// meantime is left alone. A write takes such a lock over when it needs it;
// this is for the commands that do not, so that a kill leaves no lock
// behind for status and check to report. With no lock held it runs one git
// process. It returns how many it deleted.
// noLockRefs reports, from the ref files, that no lock ref exists: no
// loose ref under refs/scribe/locks/ and none in packed-refs. False when
// the files cannot tell (reftable, an unreadable file): git is asked.
func (r *Repo) noLockRefs() bool {
	if r.CommonDir == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return false
	}
	dir := filepath.Join(r.CommonDir, filepath.FromSlash(strings.TrimSuffix(LockRefPrefix, "/")))
	empty := true
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			empty = false
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) || !empty {
		return false
	}
	packed, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil {
		return os.IsNotExist(err)
	}
	return !bytes.Contains(packed, []byte(" "+LockRefPrefix))
}

func (r *Repo) ReapDeadLocks(ctx context.Context) int {
	locks, err := r.Locks(ctx)
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range locks {
		if !l.Dead {
			continue
		}
		if _, err := r.Git(ctx, "update-ref", "-d", LockRefPrefix+l.Name, l.OID); err == nil {
			n++
		}
	}
	return n
}

// A vault write needs its locks only where it publishes: the ref
// transaction that moves refs/scribe/vault by compare-and-swap. So it
// takes them there (elidedLocks): the transaction verifies that each lock
// ref does not exist, and git holds every ref of a transaction locked
// while it runs, so a write races neither a holder nor a taker, and no
// holder object or lock ref is written for the milliseconds a lock would
// be held. When one is held, the write takes the locks the waiting way
// (AcquireAll) and publishes again. What it read before, it reads again
// on the tip it publishes on (commitVaultOnce), as a lost race always did.
// Two git processes fewer per write (a holder object and a create
// transaction): a tenth of a Stop hook on git/git.

// errLocksBusy says a write whose locks were elided met one held.
var errLocksBusy = errors.New("a lock the write takes is held")

// elidedLocks are locks names as a vault write verifies them free in its
// own ref transaction: no holder object, no ref written (OID is "").
func (r *Repo) elidedLocks(names []string) ([]*Lock, error) {
	names, err := lockNames(names)
	if err != nil {
		return nil, err
	}
	return r.locksOf(names, "", Holder{}), nil
}

// WithLocks runs fn holding the named locks (taken all-or-nothing) and
// releases them in one transaction afterwards.
func (r *Repo) WithLocks(ctx context.Context, names []string, opts LockOptions, fn func() error) error {
	return r.withLocks(ctx, names, opts, func([]*Lock) (bool, error) { return false, fn() })
}

// withLocks is WithLocks for a write that may release the locks itself in
// the ref transaction that publishes it (one git process fewer): fn gets
// the held locks and reports whether it released them all.
func (r *Repo) withLocks(ctx context.Context, names []string, opts LockOptions, fn func(held []*Lock) (bool, error)) error {
	held, err := r.AcquireAll(ctx, names, opts)
	if err != nil {
		return err
	}
	released := false
	defer func() {
		if !released {
			r.releaseAll(ctx, held)
		}
	}()
	released, err = fn(held)
	return err
}

// releaseAll CAS-deletes every lock in one transaction; when that fails (one
// was taken over after expiring) each is released on its own.
func (r *Repo) releaseAll(ctx context.Context, held []*Lock) {
	if len(held) == 0 {
		return
	}
	if ctx.Err() != nil {
		ctx = context.Background()
	}
	var tx strings.Builder
	for _, l := range held {
		fmt.Fprintf(&tx, "delete %s %s\n", l.Ref, l.OID)
	}
	if _, err := r.gitIn(ctx, runOpts{stdin: []byte(tx.String())}, "update-ref", "--stdin"); err == nil {
		return
	}
	for _, l := range held {
		l.Release(ctx)
	}
}
