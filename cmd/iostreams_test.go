package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"
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
