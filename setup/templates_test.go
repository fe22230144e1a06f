package setup

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
)

func TestClaudeSettingsMergeKeepsKeysAndOrder(t *testing.T) {
	t.Parallel()
	in := []byte(`{
  "permissions": {"allow": ["Bash(ls)"], "deny": []},
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]},
  "model": "opus",
  "n": 1.50
}`)
	out, what := claudeSettings(in, true)
	if out == nil {
		t.Fatalf("no change: %s", what)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, out)
	}
	s := string(out)
	if !(strings.Index(s, `"permissions"`) < strings.Index(s, `"hooks"`) && strings.Index(s, `"hooks"`) < strings.Index(s, `"model"`)) {
		t.Errorf("key order changed:\n%s", s)
	}
	for _, want := range []string{`"echo hi"`, BridgeHookCmd, StopHookCmd, SessionEndHookCmd, `"startup|resume|clear|compact"`, `"n": 1.50`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s in\n%s", want, s)
		}
	}
	again, _ := claudeSettings(out, true)
	if again != nil {
		t.Errorf("second merge changed the file:\n%s", again)
	}
}

func TestClaudeSettingsLeavesBadFilesAlone(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"{not json", `["a"]`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`} {
		out, what := claudeSettings([]byte(in), true)
		if out != nil || !strings.HasPrefix(what, "warning: ") {
			t.Errorf("%s: got %q, %q; want untouched with a warning", in, out, what)
		}
	}
}

func TestBlocksAreIdempotent(t *testing.T) {
	t.Parallel()
	gi, _ := gitignore([]byte("*.log"), config.Defaults().Paths, false)
	if again, _ := gitignore(gi, config.Defaults().Paths, false); again != nil {
		t.Error("gitignore block added twice")
	}
	if !strings.HasPrefix(string(gi), "*.log\n\n") {
		t.Errorf("existing content not kept first: %q", gi)
	}
	ga, _ := gitattributes([]byte("*.png binary\n"), ".claude/sonmat/journal.md", ".claude/sonmat/journal-archive.md")
	if again, _ := gitattributes(ga, ".claude/sonmat/journal.md", ".claude/sonmat/journal-archive.md"); again != nil {
		t.Error("attributes added twice")
	}
	if !strings.Contains(string(ga), "/.claude/sonmat/journal.md merge=union") || !strings.HasPrefix(string(ga), "*.png binary\n") {
		t.Errorf("attributes: %q", ga)
	}
	am, _ := agentsMD(".claude/memory/MEMORY.md")([]byte("# Agents\n"), true)
	if again, _ := agentsMD(".claude/memory/MEMORY.md")(am, true); again != nil {
		t.Error("AGENTS.md section added twice")
	}
}

func FuzzParseJSONRoundTrip(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":null}],"c":"d\u00e9","e":true}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON(data)
		if err != nil {
			return
		}
		out := v.render()
		var a, b any
		if json.Unmarshal(data, &a) != nil {
			return
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("render produced invalid JSON: %v\n%s", err, out)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("round trip changed the value:\n%s\n%s", ja, jb)
		}
	})
}
