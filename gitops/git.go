package gitops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Sentinel errors at the package boundary.
var (
	// ErrNotARepo means the directory is not inside a git work tree.
	ErrNotARepo = errors.New("not a git repository (or any parent up to the mount point)")
	// ErrLocked means a scribe ref lock could not be acquired before the timeout.
	ErrLocked = errors.New("scribe lock is held")
	// ErrDeferred means a commit could not be made now; the caller should queue it.
	ErrDeferred = errors.New("scribe commit deferred")
	// ErrNoBranch means HEAD does not point at a branch.
	ErrNoBranch = errors.New("HEAD is detached")
)

// ActiveEnv is the guard variable exported to every child so that nothing
// scribe starts recurses into scribe.
const ActiveEnv = "GIT_SCRIBE_ACTIVE"

// GitError is a failed git invocation: the command and its stderr.
type GitError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *GitError) Unwrap() error { return e.Err }

// traceGit prints every git invocation with its duration to stderr when
// GIT_SCRIBE_TRACE is set: the tool for finding where a command's time goes.
// Each line carries the step's number (stepDone), counting atomic file
// writes too, whose lines say "write".
var traceGit = os.Getenv("GIT_SCRIBE_TRACE") != ""

// runOpts tweaks one git invocation.
type runOpts struct {
	stdin []byte
	env   []string
	// network runs git in a process group of its own, killed whole when
	// the context ends (a hanging transport is git's grandchild).
	network bool
}

// git runs the git binary in dir and returns its stdout.
func git(ctx context.Context, dir string, o runOpts, args ...string) ([]byte, error) {
	cmd := gitCmd(ctx, dir, o, args)
	if o.stdin != nil {
		cmd.Stdin = bytes.NewReader(o.stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	var err error
	if o.network {
		cmd.Stdout = &out
		err = cmd.Run()
	} else {
		err = runParked(cmd, &out)
	}
	gitDone(cmd, args, start)
	if err != nil {
		return out.Bytes(), &GitError{Args: args, Stderr: errb.String(), Err: err}
	}
	return out.Bytes(), nil
}

// runParked is cmd.Run with stdout read into out to its end before the
// wait. A goroutine blocked reading a pipe is parked and its P runs other
// goroutines; one blocked in the wait system call keeps its P until the
// runtime's monitor takes it back, after 20 us to 10 ms. check runs its
// rules on one P beside two git processes: the walk's wait held that P
// while --since's resolution waited to start (3.8 ms of nothing, runtime
// trace). When git closes its stdout it is exiting, so the wait that
// follows is short. (A network command's grandchild can keep the pipe
// open: those keep cmd.Run and its WaitDelay.)
func runParked(cmd *exec.Cmd, out *bytes.Buffer) error {
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	_, rerr := out.ReadFrom(stdout)
	if err := cmd.Wait(); err != nil {
		return err
	}
	return rerr
}

// gitCmd is the git process for args in dir: its environment, and the
// options every one of scribe's gets.
func gitCmd(ctx context.Context, dir string, o runOpts, args []string) *exec.Cmd {
	argv := args
	if len(args) > 0 && args[0] == "update-ref" {
		// Another process's update-ref on the same ref holds its .lock
		// file for a moment; wait for it (git's default is 100 ms, which a
		// loaded machine overruns) instead of failing a lock release.
		argv = append([]string{"-c", "core.filesRefLockTimeout=5000"}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), ActiveEnv+"=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	cmd.Env = append(cmd.Env, o.env...)
	if o.network {
		ownGroup(cmd)
		cmd.WaitDelay = time.Second
	}
	return cmd
}

// gitDone numbers a finished git process as a step (stepDone).
func gitDone(cmd *exec.Cmd, args []string, start time.Time) {
	stepDone(func() string {
		cpu := time.Duration(0)
		if ps := cmd.ProcessState; ps != nil {
			cpu = ps.UserTime() + ps.SystemTime()
		}
		return fmt.Sprintf("%6.1f ms git %s  [@%.1f ms, cpu %.1f ms]", float64(time.Since(start).Microseconds())/1000, strings.Join(args, " "),
			float64(start.Sub(traceEpoch).Microseconds())/1000, float64(cpu.Microseconds())/1000)
	})
}

// refTxn is a `git update-ref --stdin` transaction held open: prepared —
// its refs locked and their old values checked — while the command does
// other work, then committed (a write published in the time of one line)
// or aborted. A process that dies holding one closes git's input, and git
// aborts a prepared transaction at the end of its input.
type refTxn struct {
	cmd   *exec.Cmd
	args  []string
	in    io.WriteCloser
	out   *bufio.Reader
	errb  bytes.Buffer
	start time.Time
}

// prepareRefs starts a transaction of the update-ref --stdin lines
// (update, verify, delete) and prepares it. It never waits for a ref's
// lock file: a transaction prepared ahead is worth nothing once another
// writer holds the ref (its old value will have moved).
func (r *Repo) prepareRefs(ctx context.Context, msg, lines string) (*refTxn, error) {
	t := &refTxn{args: []string{"-c", "core.filesRefLockTimeout=0", "update-ref", "-m", msg, "--stdin"}, start: time.Now()}
	t.cmd = gitCmd(ctx, r.WorkTree, runOpts{env: r.env}, t.args)
	t.cmd.Stderr = &t.errb
	in, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t.in, t.out = in, bufio.NewReader(out)
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	io.WriteString(t.in, "start\n"+lines+"prepare\n")
	if err := t.expect("start: ok", "prepare: ok"); err != nil {
		if werr := t.end(""); werr != nil {
			return nil, werr // git's own words
		}
		return nil, err
	}
	return t, nil
}

// expect reads git's answers (what it said on stderr is read once it
// has exited: end).
func (t *refTxn) expect(lines ...string) error {
	for _, want := range lines {
		got, err := t.out.ReadString('\n')
		if err != nil || strings.TrimSuffix(got, "\n") != want {
			return fmt.Errorf("git update-ref answered %q, not %q", strings.TrimSpace(got), want)
		}
	}
	return nil
}

// commit publishes the prepared transaction.
func (t *refTxn) commit() error { return t.end("commit") }

// abort lets the prepared transaction go: no ref moves.
func (t *refTxn) abort() { t.end("abort") }

// end sends the last command, if any, and waits for git.
func (t *refTxn) end(last string) error {
	var err error
	if last != "" {
		io.WriteString(t.in, last+"\n")
	}
	t.in.Close()
	if last != "" {
		err = t.expect(last + ": ok")
	}
	werr := t.cmd.Wait()
	gitDone(t.cmd, t.args, t.start)
	if err == nil && werr != nil {
		err = &GitError{Args: t.args, Stderr: t.errb.String(), Err: werr}
	}
	return err
}

// exitCode reports git's exit status from an error returned by git, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
