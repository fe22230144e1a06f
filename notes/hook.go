package notes

import (
	"encoding/json"
	"fmt"
	"github.com/git-scribe/git-scribe/internal/sentence"
	"strings"
)

// Hook is an agent hook's JSON on stdin (Claude Code Stop, SessionEnd,
// SessionStart); unknown fields are ignored.
type Hook struct {
	SessionID            string `json:"session_id"`
	TranscriptPath       string `json:"transcript_path"`
	CWD                  string `json:"cwd"`
	HookEventName        string `json:"hook_event_name"`
	StopHookActive       bool   `json:"stop_hook_active"`
	LastAssistantMessage string `json:"last_assistant_message"`
	Source               string `json:"source"`
	TurnID               string `json:"turn_id"`
	Reason               string `json:"reason"`
}

// ParseHook reads a hook's JSON; empty input is an empty hook.
func ParseHook(data []byte) (Hook, error) {
	var h Hook
	if len(strings.TrimSpace(string(data))) == 0 {
		return h, nil
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("hook input is not JSON (%v); nothing written", err)
	}
	return h, nil
}

// Apply fills what the hook says into a wrap's input: the hint from the
// agent's last message (when none is given) and the session's end.
func (h Hook) Apply(in WrapInput) WrapInput {
	if in.Hint == "" {
		in.Hint = firstSentences(h.LastAssistantMessage, 2, 300)
	}
	if h.HookEventName == "SessionEnd" {
		in.SessionEnd = true
	}
	return in
}

// firstSentences keeps the first n sentences of s (the one sentence
// splitter, internal/sentence: "Bumped Go to 1.26." is one sentence), at
// most max runes.
func firstSentences(s string, n, max int) string {
	s = sentence.FirstN(strings.Join(strings.Fields(s), " "), n)
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// Overlay returns in with the fields that set names (by wrap's flag names:
// loop, session-end, trivial, hint, tests, witness, base, done, next,
// urgent, question, result, mode) taken from over; done, next and question
// are appended. DryRun is always over's: values given on the command line
// win over the artifacts' and the hook's.
func (in WrapInput) Overlay(over WrapInput, set func(name string) bool) WrapInput {
	apply := func(name string, f func()) {
		if set(name) {
			f()
		}
	}
	apply("loop", func() { in.Loop = over.Loop })
	apply("session-end", func() { in.SessionEnd = over.SessionEnd })
	apply("trivial", func() { in.Trivial = over.Trivial })
	apply("hint", func() { in.Hint = over.Hint })
	apply("tests", func() { in.Tests = over.Tests })
	apply("witness", func() { in.Witness = over.Witness })
	apply("base", func() { in.Base = over.Base })
	apply("done", func() { in.Done = append(in.Done, over.Done...) })
	apply("next", func() { in.Next = append(in.Next, over.Next...) })
	apply("urgent", func() { in.Urgent = over.Urgent })
	apply("question", func() { in.Questions = append(in.Questions, over.Questions...) })
	apply("result", func() { in.Result = over.Result })
	apply("mode", func() { in.Mode = over.Mode })
	in.DryRun = over.DryRun
	return in
}
