package setup

import (
	"strings"
	"testing"
)

func TestClaudeMDImportsTheMemoryIndex(t *testing.T) {
	t.Parallel()
	const idx = ".claude/memory/MEMORY.md"
	tests := []struct {
		name, claude, in string
		exists, changed  bool
		want             string
	}{
		{name: "new file starts with an H1", claude: "CLAUDE.md", changed: true, want: "# Project instructions\n\n## Memory index (git-scribe)\n"},
		{name: "empty file too", claude: "CLAUDE.md", exists: true, in: "\n", changed: true, want: "# Project instructions\n"},
		{name: "user text kept first", claude: "CLAUDE.md", exists: true, in: "# Mine\n\n## Project Rules\n\n- a\n", changed: true,
			want: "# Mine\n\n## Project Rules\n\n- a\n\n## Memory index (git-scribe)\n"},
		{name: "import already there, inline", claude: "CLAUDE.md", exists: true, in: "# Mine\nsee @.claude/memory/MEMORY.md.\n"},
		{name: "import already there, ./ form", claude: "CLAUDE.md", exists: true, in: "# Mine\n@./.claude/memory/MEMORY.md\n"},
		{name: "an import in a code span does not count", claude: "CLAUDE.md", exists: true, in: "# Mine\n`@.claude/memory/MEMORY.md`\n", changed: true, want: "\n@.claude/memory/MEMORY.md\n"},
		{name: "nor in a code block", claude: "CLAUDE.md", exists: true, in: "# Mine\n```\n@.claude/memory/MEMORY.md\n```\n", changed: true, want: "```\n\n## Memory index"},
		{name: "CLAUDE.md in a subdirectory imports relative to itself", claude: "docs/CLAUDE.md", changed: true, want: "\n@../.claude/memory/MEMORY.md\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, what := claudeMD(tt.claude, idx)([]byte(tt.in), tt.exists)
			if (out != nil) != tt.changed {
				t.Fatalf("changed = %v, want %v (%s)\n%s", out != nil, tt.changed, what, out)
			}
			if out == nil {
				return
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("want %q in\n%s", tt.want, out)
			}
			if tt.exists && !strings.HasPrefix(string(out), strings.TrimSpace(tt.in)) {
				t.Errorf("user content not kept first:\n%s", out)
			}
			if again, _ := claudeMD(tt.claude, idx)(out, true); again != nil {
				t.Errorf("second run changed it:\n%s", again)
			}
		})
	}
}

func TestAgentsMDSection(t *testing.T) {
	t.Parallel()
	const idx = ".claude/memory/MEMORY.md"
	fresh, _ := agentsMD(idx)(nil, false)
	if !strings.HasPrefix(string(fresh), "# ") || !strings.Contains(string(fresh), "`"+idx+"`") {
		t.Errorf("new AGENTS.md: %s", fresh)
	}
	old := "# A\n\nmine\n\n" + agentsBegin + "\nold text\n" + agentsEnd + "\nafter\n"
	out, what := agentsMD(idx)([]byte(old), true)
	if out == nil || !strings.HasPrefix(what, "refresh") {
		t.Fatalf("old section not refreshed: %q", what)
	}
	if !strings.HasPrefix(string(out), "# A\n\nmine\n\n"+agentsBegin) || !strings.HasSuffix(string(out), agentsEnd+"\nafter\n") || strings.Contains(string(out), "old text") {
		t.Errorf("refresh did not keep the user's text around exactly one section:\n%s", out)
	}
	if again, _ := agentsMD(idx)(out, true); again != nil {
		t.Error("refreshed section rewritten again")
	}
	if _, what := agentsMD(idx)([]byte(agentsBegin+"\nno end\n"), true); !strings.HasPrefix(what, "warning: ") {
		t.Errorf("a section without its end marker: %q", what)
	}
}
