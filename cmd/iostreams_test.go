package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
)

func TestProgressOnlyAfterASecondOnATerminal(t *testing.T) {
	t.Parallel()
	var quick, slow, pipe bytes.Buffer
	s := NewIOStreams(strings.NewReader(""), &bytes.Buffer{}, &quick)
	s.errTTY = true
	s.Progress("checking")()
	if quick.Len() != 0 {
		t.Errorf("fast work printed progress: %q", quick.String())
	}
	s = NewIOStreams(strings.NewReader(""), &bytes.Buffer{}, &slow)
	s.errTTY = true
	done := s.Progress("checking")
	time.Sleep(1100 * time.Millisecond)
	done()
	if got := slow.String(); got != "checking…\r\x1b[K" {
		t.Errorf("slow work printed %q, want the label then a cleared line", got)
	}
	s = NewIOStreams(strings.NewReader(""), &bytes.Buffer{}, &pipe)
	done = s.Progress("checking")
	time.Sleep(1100 * time.Millisecond)
	done()
	if pipe.Len() != 0 {
		t.Errorf("progress printed to a pipe: %q", pipe.String())
	}
}

// TestColorFollowsGit decides colour as git does: TERM=dumb and
// color.ui=never (read by the real git from a repository's config) turn it
// off on a terminal; a pipe never gets it.
func TestColorFollowsGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	chkGit(t, dir, "", "init", "-q")
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	gitColor := func() string { return gitops.ColorConfig(context.Background(), dir) }
	tty := func(e map[string]string) *IOStreams {
		s := NewIOStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		s.outTTY, s.getenv, s.gitColor = true, env(e), gitColor
		return s
	}
	if !tty(map[string]string{"TERM": "xterm"}).Color() {
		t.Error("a terminal with color.ui unset should get colour")
	}
	if tty(map[string]string{"TERM": "dumb"}).Color() {
		t.Error("TERM=dumb got colour")
	}
	if tty(map[string]string{"TERM": "xterm", "NO_COLOR": "1"}).Color() {
		t.Error("NO_COLOR got colour")
	}
	chkGit(t, dir, "", "config", "color.ui", "never")
	if tty(map[string]string{"TERM": "xterm"}).Color() {
		t.Error("color.ui=never got colour")
	}
	chkGit(t, dir, "", "config", "color.scribe", "always")
	if !tty(map[string]string{"TERM": "dumb"}).Color() {
		t.Error("color.scribe=always (over color.ui=never) should colour even TERM=dumb")
	}
	pipe := NewIOStreams(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	pipe.gitColor = func() string { return "always" }
	if pipe.Color() || pipe.Bold("x") != "x" {
		t.Error("a pipe got colour")
	}
}
