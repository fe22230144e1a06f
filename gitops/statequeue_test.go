package gitops

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// breakQueueDir makes the git dir's queue unwritable the way a read-only
// .git does for scribe (the tests run as root, where chmod stops nothing):
// the queue path is a regular file, so creating a record there fails.
func breakQueueDir(t *testing.T, r *Repo) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(r.QueueDir()), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(r.QueueDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.QueueDir(), []byte("not a directory\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStateQueueWhenTheGitDirCannotBeWritten(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	tr := newRepo(t)
	r := tr.open()

	// One record while the git dir is writable, then the git dir breaks.
	first, err := r.Enqueue("plan", "before", map[string]int{"n": 1})
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	saved := filepath.Join(t.TempDir(), "saved")
	if err := os.Rename(r.QueueDir(), saved); err != nil {
		t.Fatal(err)
	}
	breakQueueDir(t, r)

	second, err := r.Enqueue("plan", "read-only", map[string]int{"n": 2})
	if err != nil {
		t.Fatalf("Enqueue with an unwritable git dir: %v", err)
	}
	want := filepath.Join(state, "git-scribe")
	if !strings.HasPrefix(r.StateQueueDir(), want+string(filepath.Separator)) {
		t.Fatalf("StateQueueDir %s is not under %s", r.StateQueueDir(), want)
	}
	if _, err := os.Stat(filepath.Join(r.StateQueueDir(), second.ID+".json")); err != nil {
		t.Fatalf("record not in the state queue: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(r.StateQueueDir()), "repository")); err != nil || strings.TrimSpace(string(b)) != r.CommonDir {
		t.Errorf("state dir does not name its repository: %q, %v", b, err)
	}
	fi, err := os.Stat(r.StateQueueDir())
	if err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("state queue is not private: %v %v", fi.Mode(), err)
	}
	ok, err := r.RecordOnce("commit", "abc123", map[string]string{"sha": "abc123"})
	if err != nil || !ok {
		t.Fatalf("RecordOnce with an unwritable git dir = %v, %v", ok, err)
	}
	if again, err := r.RecordOnce("commit", "abc123", map[string]string{"sha": "abc123"}); err != nil || again {
		t.Errorf("RecordOnce twice = %v, %v; want one record", again, err)
	}

	// The git dir is writable again: Queued lists both places, oldest first.
	if err := os.Remove(r.QueueDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(saved, r.QueueDir()); err != nil {
		t.Fatal(err)
	}
	if again, err := r.RecordOnce("commit", "abc123", map[string]string{"sha": "abc123"}); err != nil || again {
		t.Errorf("RecordOnce of a key waiting in the state queue = %v, %v; want no second record", again, err)
	}
	items, err := r.Queued()
	if err != nil {
		t.Fatalf("Queued: %v", err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Kind+":"+it.Reason)
	}
	if len(items) != 3 || items[0].ID != first.ID || items[1].ID != second.ID || items[2].Kind != "commit" {
		t.Fatalf("Queued = %q; want the git dir's record, then the two state records", got)
	}
	var p map[string]int
	if err := json.Unmarshal(items[1].Payload, &p); err != nil || p["n"] != 2 {
		t.Errorf("state record payload = %s, %v", items[1].Payload, err)
	}

	// Landing removes them from wherever they were.
	if err := r.Dequeue(items); err != nil {
		t.Fatalf("Dequeue: %v", err)
	}
	if rest, err := r.Queued(); err != nil || len(rest) != 0 {
		t.Errorf("after Dequeue = %+v, %v", rest, err)
	}
	if st := tr.Git("status", "--porcelain=v2", "--untracked-files=all"); st != "" {
		t.Errorf("status = %q", st)
	}
}

func TestStateQueueIsPerRepository(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	a, b := newRepo(t).open(), newRepo(t).open()
	if a.StateQueueDir() == b.StateQueueDir() {
		t.Fatalf("two repositories share %s", a.StateQueueDir())
	}
	breakQueueDir(t, a)
	if _, err := a.Enqueue("plan", "a only", nil); err != nil {
		t.Fatal(err)
	}
	if items, err := b.Queued(); err != nil || len(items) != 0 {
		t.Errorf("another repository sees the record: %+v, %v", items, err)
	}
}

func TestStateHome(t *testing.T) {
	t.Setenv("HOME", "/home/ada")
	for _, tt := range []struct{ xdg, want string }{
		{"/var/state", "/var/state"},
		{"", "/home/ada/.local/state"},
		{"relative/state", "/home/ada/.local/state"}, // the XDG spec ignores relative values
	} {
		t.Setenv("XDG_STATE_HOME", tt.xdg)
		if got := stateHome(); got != tt.want {
			t.Errorf("XDG_STATE_HOME=%q: stateHome = %s, want %s", tt.xdg, got, tt.want)
		}
	}
}

func TestDeferUnwritable(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r := newRepo(t).open()
	rofs := fmt.Errorf("write lock holder: %w", &os.PathError{Op: "open", Path: ".git/x", Err: syscall.EROFS})
	err := r.DeferUnwritable(rofs)
	var de *DeferredError
	if !errors.As(err, &de) || !strings.Contains(de.Reason, r.StateQueueDir()) || !strings.Contains(de.Reason, "lands at the next git scribe command") {
		t.Errorf("DeferUnwritable(EROFS) = %v", err)
	}
	gitMsg := errors.New("git hash-object -w --stdin: error: unable to create temporary file: Read-only file system")
	if !errors.As(r.DeferUnwritable(gitMsg), &de) {
		t.Errorf("git's read-only message is not deferred")
	}
	other := errors.New("bad object")
	if got := r.DeferUnwritable(other); got != other {
		t.Errorf("DeferUnwritable(other) = %v, want it unchanged", got)
	}
	if r.DeferUnwritable(nil) != nil {
		t.Error("DeferUnwritable(nil) != nil")
	}
}

// TestDeferFull: every way git and the file system say a write ran out of
// space defers the write (queued where a small record still fits), and the
// reason says so without claiming the state queue.
func TestDeferFull(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	r := newRepo(t).open()
	for _, err := range []error{
		fmt.Errorf("stage blob: %w", &os.PathError{Op: "write", Path: ".git/scribe/blobs-1/0", Err: syscall.ENOSPC}),
		fmt.Errorf("queue: %w", &os.PathError{Op: "write", Path: ".git/scribe/queue/x", Err: syscall.EDQUOT}),
		errors.New("git hash-object -w --stdin: fatal: unable to write loose object file: No space left on device"),
		errors.New("git write-tree: fatal: sha1 file '.git/scribe/vault-index-1.lock' write error. Out of diskspace"),
		errors.New("git update-ref --stdin: fatal: cannot update ref 'refs/scribe/locks/journal': couldn't write '.git/refs/scribe/locks/journal.lock'"),
	} {
		var de *DeferredError
		if !IsFull(err) || IsReadOnly(err) {
			t.Errorf("IsFull(%v) = %v, IsReadOnly = %v", err, IsFull(err), IsReadOnly(err))
		}
		if !errors.As(r.DeferUnwritable(err), &de) || !strings.Contains(de.Reason, "no space left") || strings.Contains(de.Reason, r.StateQueueDir()) {
			t.Errorf("DeferUnwritable(%v) = %v", err, r.DeferUnwritable(err))
		}
	}
	if IsFull(errors.New("git update-ref: cannot lock ref 'refs/scribe/locks/journal': reference already exists")) {
		t.Error("a lock held by another is not a full disk")
	}
}

// TestStateQueueUnderAReadOnlyGitDir runs Enqueue and RecordOnce in a
// process that sees the git dir through a read-only bind mount (a user and
// mount namespace: chmod stops nothing for root), as Codex's sandbox does.
func TestStateQueueUnderAReadOnlyGitDir(t *testing.T) {
	if err := exec.Command("unshare", "-rm", "true").Run(); err != nil {
		t.Skipf("no user and mount namespaces here (unshare -rm: %v)", err)
	}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	tr := newRepo(t)
	r := tr.open()
	h := helperCmd(t, "enqueue", "GITOPS_REPO="+tr.Dir, "GITOPS_ID=1", "XDG_STATE_HOME="+state)
	cmd := exec.Command("unshare", append([]string{"-rm", "sh", "-c",
		`mount --bind -o ro "$0" "$0" && touch "$0/probe" 2>/dev/null && { echo "mount is writable" >&2; exit 9; }; exec "$@"`,
		r.CommonDir}, h.Args...)...)
	cmd.Path, _ = exec.LookPath("unshare")
	cmd.Env = h.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper under a read-only git dir: %v\n%s", err, out)
	}
	if _, err := os.Stat(r.QueueDir()); err == nil {
		t.Errorf("the read-only git dir got a queue: %s", r.QueueDir())
	}
	items, err := r.Queued()
	if err != nil || len(items) != 2 {
		t.Fatalf("Queued = %+v, %v; want the two records from the state queue", items, err)
	}
	for _, it := range items {
		if !strings.HasPrefix(it.path, r.StateQueueDir()) {
			t.Errorf("%s is at %s, not in the state queue", it.ID, it.path)
		}
	}
	if err := r.Dequeue(items); err != nil {
		t.Fatal(err)
	}
	if rest, err := r.Queued(); err != nil || len(rest) != 0 {
		t.Errorf("after Dequeue = %+v, %v", rest, err)
	}
}
