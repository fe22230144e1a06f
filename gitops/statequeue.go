package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// The state queue is where deferred writes wait when the git dir cannot be
// written: Codex's default sandbox mounts .git read-only, and a Stop hook
// there must not lose the turn. Records go to
// $XDG_STATE_HOME/git-scribe/<repository key>/queue (default
// ~/.local/state/git-scribe/…), one directory per repository, keyed by a
// hash of its common git dir, and Queued lists them with the git dir's own,
// so the next command that can write lands them and Dequeue removes them.

// StateQueueDir is this repository's queue outside the git dir.
func (r *Repo) StateQueueDir() string {
	return filepath.Join(stateHome(), "git-scribe", stateKey(r.CommonDir), "queue")
}

// stateHome is $XDG_STATE_HOME, or ~/.local/state when it is unset or not
// absolute (the XDG base directory specification ignores relative values).
func stateHome() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "git-scribe-state")
	}
	return filepath.Join(home, ".local", "state")
}

var unsafeName = lazyre.New(`[^A-Za-z0-9._-]+`)

// stateKey names a repository's state directory: its directory name for
// people, then a hash of the absolute common git dir for uniqueness.
func stateKey(commonDir string) string {
	abs, err := filepath.Abs(commonDir)
	if err != nil {
		abs = commonDir
	}
	sum := sha256.Sum256([]byte(abs))
	name := filepath.Base(abs)
	if name == ".git" || strings.HasSuffix(abs, string(filepath.Separator)+".git") {
		name = filepath.Base(filepath.Dir(abs))
	}
	name = strings.Trim(unsafeName().ReplaceAllString(strings.TrimSuffix(name, ".git"), "-"), "-.")
	if name == "" {
		name = "repo"
	}
	if len(name) > 40 {
		name = name[:40]
	}
	return name + "-" + hex.EncodeToString(sum[:8])
}

// prepareStateQueue creates the state queue (private: records may carry
// session text) and notes which repository it belongs to.
func (r *Repo) prepareStateQueue() (string, error) {
	dir := r.StateQueueDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	marker := filepath.Join(filepath.Dir(dir), "repository")
	if _, err := os.Stat(marker); errors.Is(err, fs.ErrNotExist) {
		WriteFileAtomic(marker, []byte(r.CommonDir+"\n"))
	}
	return dir, nil
}

// IsUnwritable reports an error that means the git dir cannot be written
// now: a read-only file system or no permission (IsReadOnly), or no space
// left (IsFull). The write should wait in a queue rather than fail.
func IsUnwritable(err error) bool { return IsReadOnly(err) || IsFull(err) }

// IsReadOnly reports a read-only file system or missing permission: the
// write waits in the state queue, outside the git dir.
func IsReadOnly(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission) ||
		strings.Contains(strings.ToLower(fmt.Sprint(err)), "read-only file system")
}

// fullMessages are how git says a write ran out of space: its own errno
// text, index writes' "Out of diskspace", and a ref's lock file that could
// not be written ("couldn't write '….lock'", which carries no errno).
var fullMessages = []string{"no space left on device", "disk quota exceeded", "out of diskspace", "couldn't write '"}

// IsFull reports a write that ran out of space (ENOSPC, EDQUOT, or git
// saying so): a small queue record may still fit where a commit did not,
// in the git dir or in the state queue.
func IsFull(err error) bool {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	msg := strings.ToLower(fmt.Sprint(err))
	for _, m := range fullMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// DeferUnwritable turns an error writing the git dir into a *DeferredError
// whose reason says where the write waits, so the caller queues it (a
// read-only git dir: in the state queue, as Enqueue falls back there)
// instead of failing; other errors are returned unchanged.
func (r *Repo) DeferUnwritable(err error) error {
	if err == nil || !IsUnwritable(err) {
		return err
	}
	var de *DeferredError
	if errors.As(err, &de) {
		return err
	}
	why, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n") // git's stderr runs on with a fatal: line
	if !IsReadOnly(err) {
		return &DeferredError{Reason: fmt.Sprintf("no space left to write the git dir %s (%s); the write is queued and lands at the next git scribe command that has the space",
			r.CommonDir, why)}
	}
	return &DeferredError{Reason: fmt.Sprintf("the git dir %s cannot be written (%s); the write is queued under %s and lands at the next git scribe command that can write",
		r.CommonDir, why, r.StateQueueDir())}
}
