package setup

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMCPJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		exists  bool
		changed bool
		warn    bool
		keep    []string // substrings in order
	}{
		{name: "no file", changed: true, keep: []string{`"mcpServers"`, `"git-scribe"`, `"stdio"`, `"scribe"`, `"mcp"`}},
		{name: "other servers and keys kept in order", exists: true, changed: true,
			in:   `{"zeta": 1, "mcpServers": {"other": {"command": "other-mcp", "args": ["--x"]}}, "alpha": true}`,
			keep: []string{`"zeta": 1`, `"other"`, `"other-mcp"`, `"git-scribe"`, `"alpha": true`}},
		{name: "already named", exists: true, in: `{"mcpServers": {"git-scribe": {"command": "/opt/bin/git-scribe", "args": ["mcp"]}}}`},
		{name: "already runs it under another name", exists: true, in: `{"mcpServers": {"scribe": {"command": "git", "args": ["scribe", "mcp"]}}}`},
		{name: "not JSON", exists: true, in: `{nope`, warn: true},
		{name: "servers not an object", exists: true, in: `{"mcpServers": []}`, warn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, what := mcpJSON([]byte(tt.in), tt.exists)
			if got := strings.HasPrefix(what, "warning: "); got != tt.warn {
				t.Fatalf("warning = %q, want warning %v", what, tt.warn)
			}
			if (out != nil) != tt.changed {
				t.Fatalf("changed = %v, want %v (%s)", out != nil, tt.changed, what)
			}
			if out == nil {
				return
			}
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("invalid JSON: %v\n%s", err, out)
			}
			last := -1
			for _, k := range tt.keep {
				i := strings.Index(string(out), k)
				if i < last {
					t.Errorf("%s missing or out of order in\n%s", k, out)
				}
				last = i
			}
			if again, _ := mcpJSON(out, true); again != nil {
				t.Errorf("second merge changed the file:\n%s", again)
			}
		})
	}
}
