package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Exit codes of helper processes.
const (
	helperOK       = 0
	helperFailed   = 1
	helperNotFirst = 3 // RecordOnce reported an existing record
)

// runHelper is the main of a re-executed test binary. Its inputs come from
// the environment: GITOPS_REPO (work tree), GITOPS_FILE (shared file),
// GITOPS_ID (this process's index), GITOPS_GATE (wait for it to exist).
func runHelper(name string) int {
	ctx := context.Background()
	waitGate(os.Getenv("GITOPS_GATE"))
	r, err := Discover(ctx, os.Getenv("GITOPS_REPO"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return helperFailed
	}
	id := os.Getenv("GITOPS_ID")
	iters, _ := strconv.Atoi(os.Getenv("GITOPS_ITERS"))
	if iters == 0 {
		iters = 1
	}
	timeout := 90 * time.Second
	if ms, _ := strconv.Atoi(os.Getenv("GITOPS_TIMEOUT_MS")); ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	switch name {
	case "hold":
		// Take the lock, say so, and hold it until killed.
		if _, err := r.Acquire(ctx, "counter", LockOptions{Timeout: timeout, Purpose: "test hold " + id}); err != nil {
			fmt.Fprintln(os.Stderr, "helper hold:", err)
			return helperFailed
		}
		if err := os.WriteFile(os.Getenv("GITOPS_FILE"), []byte("held\n"), 0o644); err != nil {
			return helperFailed
		}
		time.Sleep(10 * time.Minute)
		return helperFailed
	case "enqueue":
		// Queue one record of each kind: run with the git dir mounted
		// read-only, they must go to the state queue.
		if _, err := r.Enqueue("plan", "read-only git dir", map[string]string{"id": id}); err != nil {
			fmt.Fprintln(os.Stderr, "helper enqueue:", err)
			return helperFailed
		}
		if ok, err := r.RecordOnce("commit", "c0ffee"+id, map[string]string{"sha": "c0ffee" + id}); err != nil || !ok {
			fmt.Fprintln(os.Stderr, "helper record:", ok, err)
			return helperFailed
		}
		return helperOK
	case "lock":
		// Append to a shared file non-atomically: read, sleep, write. Only
		// mutual exclusion keeps every line.
		for k := 0; k < iters; k++ {
			l, err := r.Acquire(ctx, "counter", LockOptions{Timeout: timeout, Purpose: "test " + id})
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper acquire:", err)
				return helperFailed
			}
			file := os.Getenv("GITOPS_FILE")
			b, err := os.ReadFile(file)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				fmt.Fprintln(os.Stderr, "helper read:", err)
				return helperFailed
			}
			time.Sleep(3 * time.Millisecond)
			b = append(b, fmt.Sprintf("line %s.%d\n", id, k)...)
			if err := os.WriteFile(file, b, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "helper write:", err)
				return helperFailed
			}
			if err := l.Release(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "helper release:", err)
				return helperFailed
			}
		}
		return helperOK
	case "lockset":
		// Like "lock", under a set of locks taken all at once; every set
		// shares "status", so the shared file is still exclusive.
		names := strings.Split(os.Getenv("GITOPS_LOCKS"), ",")
		for k := 0; k < iters; k++ {
			err := r.WithLocks(ctx, names, LockOptions{Timeout: 90 * time.Second}, func() error {
				file := os.Getenv("GITOPS_FILE")
				b, err := os.ReadFile(file)
				if err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				time.Sleep(3 * time.Millisecond)
				return os.WriteFile(file, append(b, fmt.Sprintf("line %s.%d\n", id, k)...), 0o644)
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper lockset:", err)
				return helperFailed
			}
		}
		return helperOK
	case "commit-killed":
		// A reference-transaction hook kills this process right after the
		// branch moved, before the work tree and index are updated.
		os.Setenv("GITOPS_SELF_PID", strconv.Itoa(os.Getpid()))
		_, err := r.CommitPaths(ctx, CommitRequest{
			Paths: []string{".claude/sonmat/journal.md"},
			Locks: []string{"journal"},
			Build: func(map[string][]byte) (map[string][]byte, error) {
				return map[string][]byte{".claude/sonmat/journal.md": []byte("- first\n")}, nil
			},
			Message: func([]string) string { return "progress: killed\n\nScribe-Mode: test\n" },
			// The dead process's lock must expire before the next command
			// may take it over.
			LockOptions: LockOptions{TTL: time.Second},
		})
		fmt.Fprintln(os.Stderr, "helper commit-killed survived:", err)
		return helperFailed
	case "holdvault":
		// Hold the journal lock the waiting way, again and again: while it
		// is held no vault write may land (a write elides its locks, and
		// must still respect this holder).
		for k := 0; k < iters; k++ {
			err := r.WithLocks(ctx, []string{"journal"}, LockOptions{Timeout: timeout, Purpose: "test holdvault " + id}, func() error {
				before, err := r.VaultTip(ctx)
				if err != nil {
					return err
				}
				time.Sleep(5 * time.Millisecond)
				after, err := r.VaultTip(ctx)
				if err != nil {
					return err
				}
				if after != before {
					return fmt.Errorf("the vault moved from %s to %s while this process held the journal lock", before, after)
				}
				return nil
			})
			if err != nil {
				fmt.Fprintln(os.Stderr, "helper holdvault:", err)
				return helperFailed
			}
		}
		return helperOK
	case "commit":
		if ms, _ := strconv.Atoi(os.Getenv("GITOPS_DELAY_MS")); ms > 0 {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		path := ".claude/sonmat/journal.md"
		vault := os.Getenv("GITOPS_VAULT") != ""
		if vault {
			path = "journal.md"
		}
		line := fmt.Sprintf("- entry from process %s\n", id)
		req := CommitRequest{
			Vault: vault,
			Paths: []string{path},
			Locks: []string{"journal"},
			Build: func(cur map[string][]byte) (map[string][]byte, error) {
				return map[string][]byte{path: append(append([]byte(nil), cur[path]...), line...)}, nil
			},
			Message:     func([]string) string { return "progress: entry " + id + "\n\nScribe-Mode: test\n" },
			LockOptions: LockOptions{Timeout: 90 * time.Second},
		}
		res, err := r.CommitPaths(ctx, req)
		// With GITOPS_RETRY_DEFERRED the helper reports a deferral (there is no
		// user work, so any deferral is spurious) and tries again, so the rest
		// of the contract can still be checked.
		for tries := 0; os.Getenv("GITOPS_RETRY_DEFERRED") != "" && tries < 100; tries++ {
			var de *DeferredError
			if !errors.As(err, &de) {
				break
			}
			fmt.Fprintln(os.Stderr, "spurious deferral:", err)
			time.Sleep(10 * time.Millisecond)
			res, err = r.CommitPaths(ctx, req)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper commit:", err)
			return helperFailed
		}
		if res.SHA == "" {
			fmt.Fprintln(os.Stderr, "helper commit: no commit made")
			return helperFailed
		}
		return helperOK
	case "recordonce":
		ok, err := r.RecordOnce("commit", "samekey", map[string]string{"by": id})
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper recordonce:", err)
			return helperFailed
		}
		if !ok {
			return helperNotFirst
		}
		return helperOK
	}
	fmt.Fprintln(os.Stderr, "unknown helper", name)
	return helperFailed
}

func waitGate(gate string) {
	if gate == "" {
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(gate); err == nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
