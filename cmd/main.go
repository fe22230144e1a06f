package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// Exit statuses (SPEC §3).
const (
	ExitOK       = 0
	ExitFindings = 1 // findings, refused, nothing confirmed
	ExitUsage    = 2 // usage or environment error
)

// ExitError carries an exit status chosen by a command; a nil Err means the
// command already said everything.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Main runs git-scribe with args and streams and returns the exit status.
// It is the only place that decides one.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer gitops.TraceEnd()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ios := NewIOStreams(stdin, stdout, stderr)
	f := &Factory{IO: ios, Env: os.Environ()}
	ios.getenv = f.getenv
	ios.gitColor = func() string {
		dir := f.Dir
		if dir == "" {
			dir = "."
		}
		return gitops.ColorConfig(ctx, dir)
	}
	root := NewRootCmd(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = fmt.Errorf("%w\nrun 'git scribe --help' for the list of commands", err)
	}
	if msg := errorText(err); msg != "" {
		fmt.Fprintln(stderr, "git-scribe: "+msg)
	}
	if f.hookMode && code == ExitUsage {
		// An agent hook must never be blocked by scribe: Claude Code treats
		// exit 2 from a Stop hook as "do not stop".
		code = ExitFindings
	}
	return code
}

func exitCode(err error) int {
	var ee *ExitError
	var ue *notes.UsageError
	var le *gitops.LockedError
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ue), errors.As(err, &le), errors.Is(err, gitops.ErrNotARepo), isFlagError(err):
		return ExitUsage
	default:
		return ExitUsage
	}
}

func errorText(err error) string {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return ""
	}
	return strings.TrimSpace(err.Error())
}

func isFlagError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown flag") || strings.HasPrefix(s, "unknown command") ||
		strings.Contains(s, "flag needs an argument") || strings.HasPrefix(s, "invalid argument") ||
		strings.Contains(s, "accepts ") || strings.Contains(s, "requires at least")
}
