package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCP drives `git scribe mcp` with the SDK's own client over a command
// transport, the way an agent does: initialize, tools/list, every tool, and
// a proposal refused for want of confirmation (nothing written) that lands
// once confirmed.
func TestMCP(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	home := filepath.Join(work, "home")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	for k, v := range gitEnv {
		if k != "GIT_AUTHOR_DATE" && k != "GIT_COMMITTER_DATE" {
			env = append(env, k+"="+v)
		}
	}
	repo := filepath.Join(work, "repo")
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command(args[0], args[1:]...)
		c.Dir, c.Env = repo, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	run("git", "init", "-q", "-b", "main")
	write("progress.md", "# Plan\n\n## Phase 1\n- [ ] Phase 1 parser\n- [ ] Phase 1 docs\n")
	write("api.go", "package api\n")
	write("CLAUDE.md", "# Project\n")
	run("git", "scribe", "init")
	run("git", "add", "-A")
	run("git", "commit", "-q", "-m", "initial")
	run("git", "scribe", "wrap", "--mode", "bridge+journal", "--hint", "Parser streams now.", "--next", "(api) add paging")
	write("api.go", "package api\n\n// changed since the note\n") // cited by the note: stale now
	run("git", "commit", "-q", "-am", "change api")
	write("session.txt", "User: next session we should migrate the cache\nAssistant: noted.\n")

	var stderr lockedBuffer // written by exec's copier while the test reads it
	server := exec.Command("git", "scribe", "mcp")
	server.Dir, server.Env, server.Stderr = repo, env, &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "scribe-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, stderr.String())
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "git-scribe" {
		t.Errorf("server info = %+v", info)
	}

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := map[string]*mcp.Tool{}
	var names []string
	for _, tl := range list.Tools {
		tools[tl.Name] = tl
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	t.Logf("tools: %v", names)
	for _, want := range []string{"bridge_read", "journal_tail", "progress_list", "progress_done", "status"} {
		if tools[want] == nil {
			t.Fatalf("tools/list lacks %s: %v", want, names)
		}
	}
	if schema, _ := json.Marshal(tools["progress_done"].InputSchema); !strings.Contains(string(schema), `"items"`) || !strings.Contains(string(schema), `"array"`) {
		t.Errorf("progress_done's input schema does not type items: %s", schema)
	}

	call := func(name string, args any) (map[string]any, *mcp.CallToolResult) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: protocol error %v", name, err)
		}
		out, _ := res.StructuredContent.(map[string]any)
		if out == nil && !res.IsError {
			// The JSON text content carries the same value.
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					json.Unmarshal([]byte(tc.Text), &out)
				}
			}
		}
		return out, res
	}
	text := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}

	out, res := call("bridge_read", map[string]any{})
	if res.IsError || !strings.Contains(out["text"].(string), "# Bridge Note") || !strings.Contains(out["text"].(string), "Parser streams now") {
		t.Errorf("bridge_read = %v %v", res.IsError, out)
	}
	if w, _ := out["staleness_warning"].(string); !strings.Contains(w, "api.go") {
		t.Errorf("bridge_read has no staleness warning naming api.go: %v", out)
	}

	out, res = call("journal_tail", map[string]any{"n": 1})
	if entries, _ := out["entries"].([]any); res.IsError || len(entries) != 1 {
		t.Errorf("journal_tail = %v", out)
	}

	out, res = call("progress_list", map[string]any{})
	if items, _ := out["items"].([]any); res.IsError || len(items) != 2 {
		t.Errorf("progress_list = %v", out)
	}

	out, res = call("progress_done", map[string]any{"items": []string{"parser"}})
	if res.IsError || out["status"] != "committed" {
		t.Errorf("progress_done = %v %s", out, text(res))
	}
	if log := run("git", "log", "-1", "--format=%s"); !strings.Contains(log, "progress: Phase 1 parser done") {
		t.Errorf("last commit %q", log)
	}
	_, res = call("progress_done", map[string]any{"items": []string{"Phase 1"}})
	if !res.IsError || !strings.Contains(text(res), `"Phase 1"`) {
		t.Errorf("an ambiguous item is not a tool error with the CLI's message: %s", text(res))
	}

	out, res = call("status", map[string]any{})
	if res.IsError || out["branch"] != "main" {
		t.Errorf("status = %v", out)
	}

	if tools["followups_extract"] != nil {
		out, res = call("followups_extract", map[string]any{"transcript": "session.txt"})
		if res.IsError || !strings.Contains(text(res), "migrate the cache") {
			t.Errorf("followups_extract = %s", text(res))
		}
	}

	if tools["rule_propose"] != nil {
		rule := "Always run go vet before saying done."
		before := run("git", "rev-parse", "HEAD")
		out, res = call("rule_propose", map[string]any{"rule": rule})
		if res.IsError || out["written"] != false || !strings.Contains(text(res), rule) || !strings.Contains(text(res), "confirmed=true") {
			t.Errorf("unconfirmed rule_propose = %v %s", res.IsError, text(res))
		}
		if after := run("git", "rev-parse", "HEAD"); after != before {
			t.Errorf("an unconfirmed proposal made a commit")
		}
		if b, _ := os.ReadFile(filepath.Join(repo, "CLAUDE.md")); strings.Contains(string(b), rule) {
			t.Errorf("an unconfirmed proposal wrote CLAUDE.md")
		}
		out, res = call("rule_propose", map[string]any{"rule": rule, "confirmed": true})
		if res.IsError || out["written"] != true {
			t.Errorf("confirmed rule_propose = %s", text(res))
		}
		if b, _ := os.ReadFile(filepath.Join(repo, "CLAUDE.md")); !strings.Contains(string(b), rule) {
			t.Errorf("a confirmed rule is not in CLAUDE.md:\n%s", b)
		}
	}
	if tools["trap_propose"] != nil {
		out, res = call("trap_propose", map[string]any{"title": "Mocked clock hid a timezone bug",
			"pattern": "Tests froze time in UTC", "context": "Date arithmetic", "catch_signal": "Run tests under another TZ"})
		if res.IsError || out["written"] != false {
			t.Errorf("unconfirmed trap_propose = %s", text(res))
		}
	}
	if tools["compound_gate"] != nil {
		out, res = call("compound_gate", map[string]any{})
		if res.IsError || out["written"] != false {
			t.Errorf("compound_gate without decisions = %s", text(res))
		}
	}

	// The typed schema is enforced: a wrong argument type never reaches the CLI.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress_done", Arguments: map[string]any{"items": "not a list"}}); err == nil && !res.IsError {
		t.Errorf("an argument of the wrong type was accepted: %s", text(res))
	}
	if s := stderr.String(); strings.Contains(s, "panic") {
		t.Errorf("server stderr: %s", s)
	}
}

// lockedBuffer is a bytes.Buffer safe to read while a child's output is
// still being copied into it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
