package setup

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMergeHooksUpgradesScribesOwnEntries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		specs   []agentHook
		changed bool
		want    []string // substrings, in order
		count   map[string]int
	}{
		{name: "legacy unguarded commands upgraded in place, user hook kept between",
			specs: claudeHooks, changed: true,
			in: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}, {"hooks": [{"type": "command", "command": "git scribe wrap --hook"}]}],
			"SessionEnd": [{"hooks": [{"type": "command", "command": "git scribe wrap --hook --session-end"}]}],
			"SessionStart": [{"matcher": "startup|resume|clear", "hooks": [{"type": "command", "command": "git scribe bridge --hook"}]}]}}`,
			want:  []string{`"echo mine"`, StopHookCmd, SessionEndHookCmd, `"timeout": 30`, `"startup|resume|clear|compact"`, BridgeHookCmd},
			count: map[string]int{"git scribe wrap --hook\"": 1, "git scribe bridge --hook": 1, "--session-end": 1}},
		{name: "current entries: nothing to do", specs: claudeHooks,
			in: string(mustMerge(t, claudeHooks))},
		{name: "a person's command around scribe's is theirs", specs: claudeHooks[1:2],
			in: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "cd sub && git scribe wrap --hook"}]}]}}`},
		{name: "a wrapped SessionEnd is not a Stop", specs: claudeHooks[1:2], changed: true,
			in:   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-wrapper git scribe wrap --hook --session-end"}]}]}}`,
			want: []string{"my-wrapper", StopHookCmd}},
		{name: "a user timeout on scribe's SessionEnd is kept", specs: claudeHooks[2:],
			in:   `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "` + jsonEsc(SessionEndHookCmd) + `", "timeout": 90}]}]}}`,
			want: []string{`"timeout": 90`}},
		{name: "a matcher covering every source is kept", specs: claudeHooks[:1],
			in: `{"hooks": {"SessionStart": [{"matcher": "*", "hooks": [{"type": "command", "command": "` + jsonEsc(BridgeHookCmd) + `"}]}]}}`},
		{name: "codex entries carry timeout and statusMessage", specs: codexHooks, changed: true,
			in:   `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check"}]}]}}`,
			want: []string{`"PreToolUse"`, `"check"`, `"SessionStart"`, BridgeHookCmd, `"timeout": 30`, `"statusMessage"`, `"Stop"`, StopHookCmd}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, what := mergeHooks([]byte(tt.in), true, tt.specs, "added")
			if strings.HasPrefix(what, "warning: ") {
				t.Fatalf("warning: %s", what)
			}
			if (out != nil) != tt.changed {
				t.Fatalf("changed = %v, want %v (%s)\n%s", out != nil, tt.changed, what, out)
			}
			if out == nil {
				return
			}
			var v any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("invalid JSON: %v\n%s", err, out)
			}
			s, at := string(out), 0
			for _, w := range tt.want {
				i := strings.Index(s[at:], w)
				if i < 0 {
					t.Fatalf("missing %q after offset %d in\n%s", w, at, s)
				}
				at += i + len(w)
			}
			for sub, n := range tt.count {
				if got := strings.Count(s, sub); got != n {
					t.Errorf("%q appears %d times, want %d\n%s", sub, got, n, s)
				}
			}
			if again, _ := mergeHooks(out, true, tt.specs, "added"); again != nil {
				t.Errorf("second merge changed the file:\n%s", again)
			}
		})
	}
}

func mustMerge(t *testing.T, specs []agentHook) []byte {
	out, what := mergeHooks(nil, false, specs, "added")
	if out == nil {
		t.Fatalf("fresh merge wrote nothing: %s", what)
	}
	return out
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

func TestHookCommandsAreGuarded(t *testing.T) {
	t.Parallel()
	for _, h := range append(append([]agentHook{}, claudeHooks...), codexHooks...) {
		if !strings.HasPrefix(h.command(), HookGuard) || !strings.HasSuffix(h.command(), h.core) {
			t.Errorf("%s: %q is not guarded", h.event, h.command())
		}
	}
	var end agentHook
	for _, h := range claudeHooks {
		if h.event == "SessionEnd" {
			end = h
		}
	}
	if end.timeout <= 1 {
		t.Errorf("Claude Code's SessionEnd declares no timeout beyond its 1.5 s default: %d", end.timeout)
	}
}
