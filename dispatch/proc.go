package dispatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
)

// procRun is one child process run by a CLI backend.
type procRun struct {
	Name  string   // executable, looked up on the PATH of Env
	Args  []string // never includes a secret
	Dir   string
	Env   []string
	Stdin string
	// MaxOutput caps stdout; past it the child is killed.
	MaxOutput int
}

// procResult is what a child printed.
type procResult struct {
	Stdout []byte
	// StderrTail is the last few KiB of stderr, for error messages.
	StderrTail string
}

const stderrTail = 4 << 10

// run starts the child in its own process group with GIT_SCRIBE_ACTIVE=1,
// feeds stdin, and waits. On cancel or timeout the whole group is killed;
// after any exit the group is killed again so nothing the agent started
// keeps running. Stdout past MaxOutput kills the child and fails the run.
func (p procRun) run(ctx context.Context) (procResult, error) {
	var res procResult
	exe, err := lookPath(p.Name, p.Env)
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var c *exec.Cmd
	var out *capBuffer
	var errb *tailBuffer
	for attempt := 0; ; attempt++ {
		c = exec.CommandContext(ctx, exe, p.Args...)
		c.Dir = p.Dir
		c.Env = append(withoutKey(p.Env, gitops.ActiveEnv), gitops.ActiveEnv+"=1")
		c.Stdin = strings.NewReader(p.Stdin)
		out = &capBuffer{max: p.MaxOutput, onOverflow: func() { cancel(ErrOutputTooLarge) }}
		errb = &tailBuffer{max: stderrTail}
		c.Stdout, c.Stderr = out, errb
		ownGroup(c)
		c.Cancel = func() error { return killGroup(c) }
		c.WaitDelay = 2 * time.Second
		err = c.Start()
		// "text file busy": an executable just written (an agent wrapper
		// being installed) is still open in a process forking at that
		// moment; it clears within milliseconds.
		if errors.Is(err, syscall.ETXTBSY) && attempt < 20 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		break
	}
	if err == nil {
		err = c.Wait()
	}
	_ = killGroup(c) // reap whatever the agent left behind
	res.Stdout, res.StderrTail = out.Bytes(), strings.TrimSpace(errb.String())
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		if errors.Is(cause, ErrOutputTooLarge) {
			return res, fmt.Errorf("%s: %w (cap %d bytes; raise dispatch.max_output)", p.Name, ErrOutputTooLarge, p.MaxOutput)
		}
		return res, fmt.Errorf("%s: %w", p.Name, cause)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return res, fmt.Errorf("%s exited with status %d: %s", p.Name, ee.ExitCode(), orNone(res.StderrTail))
		}
		return res, fmt.Errorf("run %s: %w", p.Name, err)
	}
	return res, nil
}

func orNone(s string) string {
	if s == "" {
		return "(no error output)"
	}
	return lastLines(s, 5)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// lookPath finds name on the PATH of env (not of this process, so that a
// caller's environment decides which agent binary runs).
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return name, nil
	}
	for _, dir := range filepath.SplitList(getenv(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		cand := filepath.Join(dir, name)
		if runtime.GOOS == "windows" {
			cand += ".exe"
		}
		if fi, err := os.Stat(cand); err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return cand, nil
		}
	}
	return "", fmt.Errorf("%s is not installed (not found on PATH); install it or route this skill to another runner", name)
}

func withoutKey(env []string, key string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			out = append(out, kv)
		}
	}
	return out
}

// capBuffer keeps up to max bytes and calls onOverflow once when more come.
type capBuffer struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	max        int
	over       bool
	onOverflow func()
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over {
		return len(p), nil
	}
	if b.max > 0 && b.buf.Len()+len(p) > b.max {
		b.over = true
		b.buf.Write(p[:b.max-b.buf.Len()])
		if b.onOverflow != nil {
			b.onOverflow()
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *capBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
