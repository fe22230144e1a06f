package gitops

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledHolderIsTakenOverAtOnce: a holder killed with SIGKILL leaves
// its lock ref behind with two minutes to live; eight processes racing for
// the lock right after take it over from that exact value (one by CAS, the
// others after it) well inside a 3 s timeout, and stay mutually exclusive.
func TestKilledHolderIsTakenOverAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	t.Parallel()
	tr := newRepo(t)
	dir := t.TempDir()
	held := filepath.Join(dir, "held")
	holder := helperCmd(t, "hold", "GITOPS_REPO="+tr.Dir, "GITOPS_FILE="+held, "GITOPS_ID=holder")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(held); err == nil {
			break
		}
		if time.Now().After(deadline) {
			holder.Process.Kill()
			t.Fatal("holder never took the lock")
		}
	}
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	holder.Wait()
	left := refValue(tr, LockRefPrefix+"counter")
	if left == "" {
		t.Fatal("the killed holder's lock ref is gone; nothing to take over")
	}

	const n = 8
	file := filepath.Join(dir, "shared.txt")
	start := time.Now()
	errs, outs := runHelpers(t, n, "lock", func(int) []string {
		return []string{"GITOPS_REPO=" + tr.Dir, "GITOPS_FILE=" + file, "GITOPS_TIMEOUT_MS=3000"}
	})
	t.Logf("%d processes took over a killed holder's lock in %v", n, time.Since(start))
	for i, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	b, _ := os.ReadFile(file)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != n {
		t.Errorf("shared file has %d lines, want %d: mutual exclusion broke\n%s", len(lines), n, b)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock refs left: %s", got)
	}
}

// TestHolderDead: only a holder that provably died on this host is dead.
func TestHolderDead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times are read from /proc")
	}
	t.Parallel()
	host, _ := os.Hostname()
	self, running, _, err := processStart(os.Getpid())
	if err != nil || !running {
		t.Fatalf("processStart(self) = %d, %v, %v", self, running, err)
	}
	boot := bootIdentity()
	tests := []struct {
		name string
		h    Holder
		dead bool
	}{
		{"running", Holder{Host: host, PID: os.Getpid(), Boot: boot, PIDStart: self}, false},
		{"pid reused by a later process", Holder{Host: host, PID: os.Getpid(), Boot: boot, PIDStart: self - 1}, true},
		{"pid gone", Holder{Host: host, PID: 1 << 30, Boot: boot, PIDStart: 12345}, true},
		{"pid gone, another boot", Holder{Host: host, PID: 1 << 30, Boot: "other " + boot, PIDStart: 12345}, false},
		{"pid gone, another host", Holder{Host: "elsewhere", PID: 1 << 30, Boot: boot, PIDStart: 12345}, false},
		{"pid gone, no boot recorded", Holder{Host: host, PID: 1 << 30}, false},
	}
	for _, tt := range tests {
		if got := tt.h.Dead(); got != tt.dead {
			t.Errorf("%s: Dead() = %v, want %v", tt.name, got, tt.dead)
		}
	}
	// A lock this process holds records what Dead needs.
	tr := newRepo(t)
	l, err := tr.open().Acquire(context.Background(), "journal", LockOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.Background())
	if l.Owner.Boot != boot || l.Owner.PIDStart != self || l.Owner.Dead() {
		t.Errorf("holder = %+v, want boot %q, start %d, alive", l.Owner, boot, self)
	}
}
