package gitops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// plantHolder points refs/scribe/locks/<name> at a holder blob written with
// the git CLI, as another process would have left it.
func plantHolder(t *testing.T, tr *testRepo, name string, h Holder) string {
	t.Helper()
	body, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	oid := strings.TrimSpace(tr.GitStdin(body, "hash-object", "-w", "--stdin"))
	tr.Git("update-ref", LockRefPrefix+name, oid)
	return oid
}

func refValue(tr *testRepo, ref string) string {
	out, err := tr.GitErr("rev-parse", "-q", "--verify", ref)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

func TestAcquireRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	l, err := r.Acquire(ctx, "journal", LockOptions{Purpose: "test"})
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	if l.Ref != LockRefPrefix+"journal" || refValue(tr, l.Ref) != l.OID {
		t.Errorf("lock %+v, ref value %s", l, refValue(tr, l.Ref))
	}
	// The ref points at a blob describing the holder.
	if typ := tr.GitTrim("cat-file", "-t", l.OID); typ != "blob" {
		t.Errorf("lock object is a %s, want a blob", typ)
	}
	var h Holder
	if err := json.Unmarshal([]byte(tr.Git("cat-file", "blob", l.OID)), &h); err != nil {
		t.Fatalf("holder blob: %v", err)
	}
	host, _ := os.Hostname()
	if h.PID != os.Getpid() || h.Host != host || h.Purpose != "test" || h.Nonce == "" || !h.Expires.After(time.Now()) {
		t.Errorf("holder = %+v", h)
	}
	locks, err := r.Locks(ctx)
	if err != nil || len(locks) != 1 || locks[0].Name != "journal" || locks[0].OID != l.OID || locks[0].Expired || locks[0].Holder == nil {
		t.Errorf("Locks = %+v, %v", locks, err)
	}
	// Lock refs are not branches and never show in status.
	if st := tr.Git("status", "--porcelain=v2"); st != "" {
		t.Errorf("status = %q", st)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock ref left after Release: %s", got)
	}
	if locks, err := r.Locks(ctx); err != nil || len(locks) != 0 {
		t.Errorf("Locks after release = %+v, %v", locks, err)
	}
	// Release with a cancelled context still releases.
	l, err = r.Acquire(ctx, "journal", LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.Release(cctx); err != nil || tr.lockRefs() != "" {
		t.Errorf("Release with a cancelled context: %v, refs %q", err, tr.lockRefs())
	}
	var nilLock *Lock
	if err := nilLock.Release(ctx); err != nil {
		t.Errorf("nil Release = %v", err)
	}
	tr.fsck()
}

func TestAcquireInvalidNames(t *testing.T) {
	t.Parallel()
	r := newRepo(t).open()
	for _, name := range []string{"", "Journal", "a/b", "../x", "-x", ".x", "x y", strings.Repeat("a", 65)} {
		if l, err := r.Acquire(context.Background(), name, LockOptions{Timeout: 50 * time.Millisecond}); err == nil {
			t.Errorf("Acquire(%q) = %+v, want an error", name, l)
			l.Release(context.Background())
		}
	}
}

// Names the lock regexp admits but git refuses as ref names must be rejected
// up front, not reported as "held by an unknown holder" after the timeout.
func TestAcquireRejectsNamesGitRefuses(t *testing.T) {
	t.Parallel()
	r := newRepo(t).open()
	for _, name := range []string{"x.lock", "a..b", "x."} {
		l, err := r.Acquire(context.Background(), name, LockOptions{Timeout: 50 * time.Millisecond})
		if err == nil {
			t.Errorf("Acquire(%q) = %+v, want an error", name, l)
			l.Release(context.Background())
		} else if errors.Is(err, ErrLocked) {
			t.Errorf("Acquire(%q) = %v; an invalid name must not look like a held lock", name, err)
		}
	}
}

func TestAcquireHeldLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name       string
		holder     *Holder // nil: unparseable holder blob
		wantTaken  bool
		wantHolder bool
	}{
		{
			name:      "expired holder is taken over",
			holder:    &Holder{Host: "elsewhere", PID: 4242, Started: time.Now().Add(-time.Hour).UTC(), Expires: time.Now().Add(-time.Minute).UTC(), Nonce: "old"},
			wantTaken: true,
		},
		{
			name:       "live holder times out naming the holder",
			holder:     &Holder{Host: "elsewhere", PID: 4242, Started: time.Now().UTC(), Expires: time.Now().Add(time.Hour).UTC(), Nonce: "live"},
			wantHolder: true,
		},
		{
			name: "live holder with a dead pid on this host is not taken over",
			holder: &Holder{Host: func() string { h, _ := os.Hostname(); return h }(), PID: 1 << 30,
				Started: time.Now().UTC(), Expires: time.Now().Add(time.Hour).UTC(), Nonce: "deadpid"},
			wantHolder: true,
		},
		{name: "unreadable holder is never taken over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			r := tr.open()
			var old string
			if tt.holder != nil {
				old = plantHolder(t, tr, "journal", *tt.holder)
			} else {
				old = strings.TrimSpace(tr.GitStdin([]byte("not json"), "hash-object", "-w", "--stdin"))
				tr.Git("update-ref", LockRefPrefix+"journal", old)
			}
			l, err := r.Acquire(ctx, "journal", LockOptions{Timeout: 300 * time.Millisecond})
			if tt.wantTaken {
				if err != nil {
					t.Fatalf("Acquire: %v", err)
				}
				if l.OID == old || refValue(tr, LockRefPrefix+"journal") != l.OID {
					t.Errorf("takeover did not install the new holder: lock %s, ref %s, old %s", l.OID, refValue(tr, LockRefPrefix+"journal"), old)
				}
				if err := l.Release(ctx); err != nil || tr.lockRefs() != "" {
					t.Errorf("Release after takeover: %v, refs %q", err, tr.lockRefs())
				}
				return
			}
			if err == nil {
				l.Release(ctx)
				t.Fatalf("Acquire took a live lock")
			}
			var le *LockedError
			if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
				t.Fatalf("Acquire = %v, want *LockedError wrapping ErrLocked", err)
			}
			if le.Name != "journal" {
				t.Errorf("LockedError.Name = %q", le.Name)
			}
			if tt.wantHolder {
				if le.Holder == nil || le.Holder.PID != tt.holder.PID || le.Holder.Host != tt.holder.Host {
					t.Errorf("LockedError.Holder = %+v, want %+v", le.Holder, tt.holder)
				}
				if msg := err.Error(); !strings.Contains(msg, "4242") && !strings.Contains(msg, "1073741824") {
					t.Errorf("error %q does not name the holder's pid", msg)
				}
			}
			if !strings.Contains(err.Error(), LockRefPrefix+"journal") {
				t.Errorf("error %q does not name the lock ref", err)
			}
			if refValue(tr, LockRefPrefix+"journal") != old {
				t.Errorf("a failed Acquire changed the lock ref")
			}
		})
	}
}

func TestAcquireHonoursContext(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	plantHolder(t, tr, "journal", Holder{Host: "x", PID: 1, Expires: time.Now().Add(time.Hour)})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.Acquire(ctx, "journal", LockOptions{Timeout: time.Minute})
	if err == nil {
		t.Fatal("Acquire took a held lock")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire = %v, want the context's error", err)
	}
	t.Logf("returned after %v", time.Since(start))
}

// After an expired lock is taken over, the old holder's Release must not
// delete the new holder's ref.
func TestReleaseOnlyDeletesOwnValue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r1, r2 := tr.open(), tr.open()
	// A TTL this short expires at once (holders store whole seconds).
	first, err := r1.Acquire(ctx, "journal", LockOptions{TTL: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	second, err := r2.Acquire(ctx, "journal", LockOptions{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("takeover of the expired lock: %v", err)
	}
	if err := first.Release(ctx); err == nil {
		t.Errorf("the old holder's Release reported success after a takeover")
	}
	if got := refValue(tr, LockRefPrefix+"journal"); got != second.OID {
		t.Fatalf("lock ref = %q after the old holder's Release, want the new holder %s", got, second.OID)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock refs left: %s", got)
	}
}

func TestLocksListsExpired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	plantHolder(t, tr, "old", Holder{Host: "h", PID: 1, Expires: time.Now().Add(-time.Minute)})
	plantHolder(t, tr, "new", Holder{Host: "h", PID: 2, Expires: time.Now().Add(time.Minute)})
	locks, err := tr.open().Locks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(locks, func(i, j int) bool { return locks[i].Name < locks[j].Name })
	if len(locks) != 2 || locks[0].Name != "new" || locks[0].Expired || locks[1].Name != "old" || !locks[1].Expired ||
		locks[0].Holder.PID != 2 || locks[1].Holder.PID != 1 {
		t.Errorf("Locks = %+v", locks)
	}
}

func TestWithLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	var during string
	err := r.WithLocks(ctx, []string{"status", "journal", "status"}, LockOptions{}, func() error {
		during = tr.GitTrim("for-each-ref", "--format=%(refname)", LockRefPrefix)
		return errors.New("fn failed")
	})
	if err == nil || err.Error() != "fn failed" {
		t.Errorf("WithLocks = %v, want fn's error", err)
	}
	if during != LockRefPrefix+"journal\n"+LockRefPrefix+"status" {
		t.Errorf("locks held during fn = %q", during)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("locks left after WithLocks: %s", got)
	}

	// A held lock stops WithLocks before fn runs and releases what it took.
	plantHolder(t, tr, "zz", Holder{Host: "x", PID: 7, Expires: time.Now().Add(time.Hour)})
	ran := false
	err = r.WithLocks(ctx, []string{"zz", "aa"}, LockOptions{Timeout: 100 * time.Millisecond}, func() error { ran = true; return nil })
	if !errors.Is(err, ErrLocked) || ran {
		t.Errorf("WithLocks with a held lock = %v, ran %v", err, ran)
	}
	if got := tr.GitTrim("for-each-ref", "--format=%(refname)", LockRefPrefix); got != LockRefPrefix+"zz" {
		t.Errorf("locks after a failed WithLocks = %q, want only the planted one", got)
	}
}

// Sixteen processes increment a shared file under one lock with a
// read-sleep-write: a lost line means two held the lock at once.
func TestAcquireMutualExclusionAcrossProcesses(t *testing.T) {
	t.Parallel()
	const n, iters = 16, 3
	tr := newRepo(t)
	file := filepath.Join(t.TempDir(), "shared.txt")
	start := time.Now()
	errs, outs := runHelpers(t, n, "lock", func(int) []string {
		return []string{"GITOPS_REPO=" + tr.Dir, "GITOPS_FILE=" + file, "GITOPS_ITERS=" + string(rune('0'+iters))}
	})
	t.Logf("%d processes × %d lock round trips took %v", n, iters, time.Since(start))
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	if len(lines) != n*iters || len(seen) != n*iters {
		t.Errorf("shared file has %d lines (%d distinct), want %d: mutual exclusion broke", len(lines), len(seen), n*iters)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock refs left: %s", got)
	}
	tr.fsck()
}

func TestAcquireAll(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	live := Holder{Host: "elsewhere", PID: 99, Expires: time.Now().Add(time.Hour)}
	expired := Holder{Host: "elsewhere", PID: 98, Expires: time.Now().Add(-time.Minute)}
	tests := []struct {
		name     string
		planted  map[string]Holder
		names    []string
		wantErr  bool
		wantRefs []string // lock refs after the call (before any release)
	}{
		{name: "all free", names: []string{"status", "journal", "progress"},
			wantRefs: []string{"journal", "progress", "status"}},
		{name: "duplicates taken once", names: []string{"journal", "journal"}, wantRefs: []string{"journal"}},
		{name: "expired ones taken over together with free ones", planted: map[string]Holder{"journal": expired},
			names: []string{"journal", "status"}, wantRefs: []string{"journal", "status"}},
		{name: "one live holder: nothing taken", planted: map[string]Holder{"progress": live},
			names: []string{"journal", "progress", "status"}, wantErr: true, wantRefs: []string{"progress"}},
		{name: "live and expired: nothing taken over", planted: map[string]Holder{"progress": live, "journal": expired},
			names: []string{"journal", "progress"}, wantErr: true, wantRefs: []string{"journal", "progress"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			plantedOIDs := map[string]string{}
			for n, h := range tt.planted {
				plantedOIDs[n] = plantHolder(t, tr, n, h)
			}
			locks, err := tr.open().AcquireAll(ctx, tt.names, LockOptions{Timeout: 200 * time.Millisecond})
			if tt.wantErr != (err != nil) {
				t.Fatalf("AcquireAll = %v, want error %v", err, tt.wantErr)
			}
			var refs []string
			for _, line := range strings.Split(tr.GitTrim("for-each-ref", "--format=%(refname)", LockRefPrefix), "\n") {
				if line != "" {
					refs = append(refs, strings.TrimPrefix(line, LockRefPrefix))
				}
			}
			if strings.Join(refs, ",") != strings.Join(tt.wantRefs, ",") {
				t.Errorf("lock refs = %q, want %q", refs, tt.wantRefs)
			}
			if tt.wantErr {
				if !errors.Is(err, ErrLocked) {
					t.Errorf("error %v does not wrap ErrLocked", err)
				}
				for n, oid := range plantedOIDs {
					if refValue(tr, LockRefPrefix+n) != oid {
						t.Errorf("a failed AcquireAll changed %s", n)
					}
				}
				return
			}
			if len(locks) != len(tt.wantRefs) {
				t.Errorf("got %d locks, want %d", len(locks), len(tt.wantRefs))
			}
			for _, l := range locks {
				if refValue(tr, l.Ref) != l.OID {
					t.Errorf("%s does not hold our value", l.Ref)
				}
				if err := l.Release(ctx); err != nil {
					t.Errorf("Release %s: %v", l.Name, err)
				}
			}
			if got := tr.lockRefs(); got != "" {
				t.Errorf("refs left after release: %s", got)
			}
		})
	}
}

// Processes taking overlapping lock sets in different orders neither
// deadlock nor overlap: every set contains "status", which guards the file.
func TestAcquireAllAcrossProcesses(t *testing.T) {
	t.Parallel()
	const n, iters = 12, 2
	sets := []string{"journal,status", "status,progress", "progress,status,journal"}
	tr := newRepo(t)
	file := filepath.Join(t.TempDir(), "shared.txt")
	errs, outs := runHelpers(t, n, "lockset", func(i int) []string {
		return []string{"GITOPS_REPO=" + tr.Dir, "GITOPS_FILE=" + file, "GITOPS_ITERS=2", "GITOPS_LOCKS=" + sets[i%len(sets)]}
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	b, _ := os.ReadFile(file)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != n*iters {
		t.Errorf("shared file has %d lines, want %d: two sets overlapped", len(lines), n*iters)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock refs left: %s", got)
	}
}

// validLockName is the expression it replaced, on every name the fuzzer
// finds.
func FuzzValidLockName(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9](?:[a-z0-9_-]|\.[a-z0-9_-]){0,63}$`)
	for _, s := range []string{"journal", "active-status", "a.b", "a..b", "a.", ".a", "-a", "x.lock", strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a.", 63) + "a", strings.Repeat("a.", 64) + "a", "A", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, n string) {
		want := re.MatchString(n) && !strings.HasSuffix(n, ".lock")
		if got := validLockName(n); got != want {
			t.Errorf("validLockName(%q) = %v, the expression says %v", n, got, want)
		}
	})
}
