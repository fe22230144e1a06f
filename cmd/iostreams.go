package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// IOStreams are a command's injected streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	outTTY bool
	inTTY  bool
	errTTY bool
	// promptable overrides CanPrompt (tests drive prompts over pipes).
	promptable *bool

	// getenv reads the environment (nil: os.Getenv); gitColor reads git's
	// colour setting (color.scribe, else color.ui), asked only on a TTY.
	getenv    func(string) string
	gitColor  func() string
	colorOnce sync.Once
	color     bool
}

// NewIOStreams wraps real or test streams; TTY detection only for *os.File.
func NewIOStreams(in io.Reader, out, errOut io.Writer) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := out.(*os.File); ok {
		s.outTTY = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := errOut.(*os.File); ok {
		s.errTTY = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := in.(*os.File); ok {
		s.inTTY = term.IsTerminal(int(f.Fd()))
	}
	return s
}

// IsStdoutTTY reports whether output goes to a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// CanPrompt reports whether a person can answer a question.
func (s *IOStreams) CanPrompt() bool {
	if s.promptable != nil {
		return *s.promptable
	}
	return s.inTTY && s.outTTY
}

// SetCanPrompt overrides TTY detection for CanPrompt (tests).
func (s *IOStreams) SetCanPrompt(ok bool) { s.promptable = &ok }

// Color reports whether to decorate output, as git decides for its own: only
// on a terminal that is not TERM=dumb, never with NO_COLOR or when
// color.scribe / color.ui is never (or false); color.ui=always colours
// even TERM=dumb, but like NO_COLOR's convention, never a pipe.
func (s *IOStreams) Color() bool {
	s.colorOnce.Do(func() { s.color = s.decideColor() })
	return s.color
}

func (s *IOStreams) decideColor() bool {
	getenv := s.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if !s.outTTY || getenv("NO_COLOR") != "" {
		return false
	}
	setting := ""
	if s.gitColor != nil {
		setting = strings.ToLower(strings.TrimSpace(s.gitColor()))
	}
	switch setting {
	case "never", "false", "no", "off", "0":
		return false
	case "always":
		return true
	}
	return getenv("TERM") != "dumb"
}

// Bold decorates s when colour is on.
func (s *IOStreams) Bold(t string) string {
	if !s.Color() {
		return t
	}
	return "\x1b[1m" + t + "\x1b[0m"
}

// Dim decorates s when colour is on.
func (s *IOStreams) Dim(t string) string {
	if !s.Color() {
		return t
	}
	return "\x1b[2m" + t + "\x1b[0m"
}

// Progress says on stderr that slow work is under way — only on a terminal,
// and only once the work has taken a second — and clears the line when done.
// The returned func ends it; call it before printing results.
func (s *IOStreams) Progress(label string) (done func()) {
	if !s.errTTY {
		return func() {}
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-stop:
			return
		case <-time.After(time.Second):
		}
		fmt.Fprintf(s.ErrOut, "%s…", label)
		<-stop
		fmt.Fprint(s.ErrOut, "\r\x1b[K")
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-finished
		})
	}
}
