package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
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

// The MCP tests drive the real `git scribe mcp` binary over stdio with the
// SDK's own client (and, for end of input, with raw JSON-RPC lines), in real
// git repositories. They assert on tool results, refs, file bytes and
// CLAUDE.md — never on where scribe keeps its own vault files.

// mcpRepo is a repository set up for the MCP tests.
type mcpRepo struct {
	t    *testing.T
	work string // temp root: home/, repo/, other/
	dir  string // the repository
	env  []string
	// proto is the protocol version the client asks for ("": the SDK's
	// latest, where input is asked by multi round-trip; older versions get
	// elicitation/create and roots/list requests while a call is served).
	proto string
}

func newMCPRepo(t *testing.T) *mcpRepo {
	t.Helper()
	work := t.TempDir()
	home := filepath.Join(work, "home")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	for k, v := range gitEnv {
		if k != "GIT_AUTHOR_DATE" && k != "GIT_COMMITTER_DATE" {
			env = append(env, k+"="+v)
		}
	}
	r := &mcpRepo{t: t, work: work, dir: filepath.Join(work, "repo"), env: env}
	for _, d := range []string{filepath.Join(home, ".config"), r.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.run("git", "init", "-q", "-b", "main")
	r.write("progress.md", "# Plan\n\n## Phase 1\n- [ ] Phase 1 parser\n- [ ] Phase 1 docs\n- [ ] Paging\n")
	r.write("api.go", "package api\n")
	r.write("CLAUDE.md", "# Project\n")
	r.run("git", "scribe", "init")
	r.run("git", "add", "-A")
	r.run("git", "commit", "-q", "-m", "initial")
	return r
}

func (r *mcpRepo) runIn(dir string, args ...string) string {
	r.t.Helper()
	c := exec.Command(args[0], args[1:]...)
	c.Dir, c.Env = dir, r.env
	out, err := c.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *mcpRepo) run(args ...string) string { r.t.Helper(); return r.runIn(r.dir, args...) }

func (r *mcpRepo) write(rel, text string) {
	r.t.Helper()
	p := filepath.Join(r.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *mcpRepo) read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(r.dir, rel))
	return string(b)
}

// connect starts `git scribe mcp` in dir and initializes a session.
func (r *mcpRepo) connect(ctx context.Context, dir string, opts *mcp.ClientOptions, roots ...string) (*mcp.ClientSession, *lockedBuffer) {
	r.t.Helper()
	stderr := &lockedBuffer{} // written by exec's copier while the test reads it
	server := exec.Command("git", "scribe", "mcp")
	server.Dir, server.Env, server.Stderr = dir, r.env, stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "scribe-test", Version: "0"}, opts)
	for _, root := range roots {
		client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(root)})
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: server}, &mcp.ClientSessionOptions{ProtocolVersion: r.proto})
	if err != nil {
		r.t.Fatalf("initialize: %v\nstderr: %s", err, stderr.String())
	}
	r.t.Cleanup(func() {
		cs.Close()
		if s := stderr.String(); strings.Contains(s, "panic") {
			r.t.Errorf("server stderr: %s", s)
		}
	})
	return cs, stderr
}

// callTool calls a tool and returns its structured result and its text.
func callTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args any) (map[string]any, *mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	out, _ := res.StructuredContent.(map[string]any)
	if out == nil && !res.IsError {
		json.Unmarshal([]byte(b.String()), &out)
	}
	return out, res, b.String()
}

// fingerprint is every ref and every file (work tree and git dir, bytes and
// mode) of the directories given: what "changed nothing" means.
func fingerprint(t *testing.T, r *mcpRepo, dirs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, dir := range dirs {
		fmt.Fprintf(&b, "== refs of %s\n%s", dir, r.runIn(dir, "git", "for-each-ref", "--format=%(refname) %(objectname)"))
		fmt.Fprintf(&b, "HEAD %s", r.runIn(dir, "git", "rev-parse", "HEAD"))
		var files []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, ierr := d.Info()
			if ierr != nil {
				return ierr
			}
			line := fmt.Sprintf("%s %v", p, info.Mode())
			if info.Mode().IsRegular() {
				data, _ := os.ReadFile(p)
				line += fmt.Sprintf(" %x", sha256.Sum256(data))
			}
			files = append(files, line)
			return nil
		})
		sort.Strings(files)
		b.WriteString(strings.Join(files, "\n") + "\n")
	}
	return b.String()
}

func diffLines(a, b string) string {
	as, bs := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		as[l] = true
	}
	for _, l := range strings.Split(b, "\n") {
		bs[l] = true
	}
	var out []string
	for l := range as {
		if !bs[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range bs {
		if !as[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestMCP drives every tool once the way an agent does, with a client whose
// person accepts every question.
func TestMCP(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := newMCPRepo(t)
	r.run("git", "scribe", "wrap", "--mode", "bridge+journal", "--hint", "Parser streams now.", "--next", "(api) add paging")
	r.write("api.go", "package api\n\n// changed since the note\n") // cited by the note: stale now
	r.run("git", "commit", "-q", "-am", "change api")
	r.write("session.txt", "User: next session we should migrate the cache\nAssistant: noted.\n")

	var asked []string
	var mu sync.Mutex
	cs, _ := r.connect(ctx, r.dir, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}})
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "git-scribe" {
		t.Errorf("server info = %+v", info)
	}

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range list.Tools {
		tools[tl.Name] = tl
	}
	readOnly := []string{"bridge_read", "journal_tail", "progress_list", "status", "followups_extract", "compound_list"}
	writing := []string{"progress_done", "rule_propose", "trap_propose", "compound_gate", "followups_route"}
	for _, name := range append(append([]string{}, readOnly...), writing...) {
		tl := tools[name]
		if tl == nil {
			t.Fatalf("tools/list lacks %s", name)
		}
		ro := tl.Annotations != nil && tl.Annotations.ReadOnlyHint
		if want := contains(readOnly, name); ro != want {
			t.Errorf("%s: readOnlyHint = %v, want %v", name, ro, want)
		}
		if schema, _ := json.Marshal(tl.InputSchema); !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("%s: input schema allows unknown arguments: %s", name, schema)
		}
	}
	if schema, _ := json.Marshal(tools["rule_propose"].InputSchema); strings.Contains(string(schema), "confirmed") {
		t.Errorf("rule_propose still offers a confirmed argument: %s", schema)
	}

	out, res, text := callTool(t, ctx, cs, "bridge_read", map[string]any{})
	if res.IsError || !strings.Contains(fmt.Sprint(out["text"]), "Parser streams now") {
		t.Errorf("bridge_read = %s", text)
	}
	if w, _ := out["staleness_warning"].(string); !strings.Contains(w, "api.go") {
		t.Errorf("bridge_read has no staleness warning naming api.go: %v", out)
	}
	out, res, text = callTool(t, ctx, cs, "journal_tail", map[string]any{"n": 1})
	if entries, _ := out["entries"].([]any); res.IsError || len(entries) != 1 {
		t.Errorf("journal_tail = %s", text)
	}
	out, res, text = callTool(t, ctx, cs, "progress_list", map[string]any{})
	if items, _ := out["items"].([]any); res.IsError || len(items) != 3 {
		t.Errorf("progress_list = %s", text)
	}
	out, res, text = callTool(t, ctx, cs, "status", map[string]any{})
	if res.IsError || out["branch"] != "main" {
		t.Errorf("status = %s", text)
	}
	_, res, text = callTool(t, ctx, cs, "followups_extract", map[string]any{"transcript": "session.txt"})
	if res.IsError || !strings.Contains(text, "migrate the cache") || !strings.Contains(text, "route_command") {
		t.Errorf("followups_extract = %s", text)
	}
	// Routing the orphan asks the person with its destination, then writes it.
	_, res, text = callTool(t, ctx, cs, "followups_route", map[string]any{"transcript": "session.txt", "routes": []any{map[string]any{"item": "9", "to": "journal"}}})
	if !res.IsError || !strings.Contains(text, `"9"`) {
		t.Errorf("followups_route naming no orphan = %s", text)
	}
	_, res, text = callTool(t, ctx, cs, "followups_route", map[string]any{"transcript": "session.txt", "routes": []any{map[string]any{"item": "1", "to": "todos", "project": "../x"}}})
	if !res.IsError || !strings.Contains(text, "pattern") {
		t.Errorf("followups_route with a path for a project = %s", text)
	}
	out, res, text = callTool(t, ctx, cs, "followups_route", map[string]any{"transcript": "session.txt", "routes": []any{map[string]any{"item": "1", "to": "journal"}}})
	if res.IsError || out["written"] != true || out["confirmed_by"] != "mcp-elicitation" {
		t.Errorf("accepted followups_route = %s", text)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "migrate the cache") || !strings.Contains(asked[0], "### Next") {
		t.Errorf("the person was not shown the follow-up and its destination: %q", asked)
	}
	if _, _, text := callTool(t, ctx, cs, "journal_tail", map[string]any{"n": 1}); !strings.Contains(text, "migrate the cache") {
		t.Errorf("the routed follow-up is not in the journal: %s", text)
	}
	_, _, text = callTool(t, ctx, cs, "followups_extract", map[string]any{"transcript": "session.txt"})
	if strings.Contains(text, `"route_command"`) {
		t.Errorf("the routed follow-up is still an orphan: %s", text)
	}
	asked = nil

	_, res, text = callTool(t, ctx, cs, "compound_list", map[string]any{})
	if res.IsError || !strings.Contains(text, `"queue"`) {
		t.Errorf("compound_list = %s", text)
	}

	out, res, text = callTool(t, ctx, cs, "progress_done", map[string]any{"items": []string{"parser"}})
	if res.IsError || out["status"] != "committed" {
		t.Errorf("progress_done = %s", text)
	}
	if !strings.Contains(r.read("progress.md"), "- [x] Phase 1 parser") {
		t.Errorf("progress.md not ticked:\n%s", r.read("progress.md"))
	}
	_, res, text = callTool(t, ctx, cs, "progress_done", map[string]any{"items": []string{"Phase 1"}})
	if !res.IsError || !strings.Contains(text, `"Phase 1"`) {
		t.Errorf("an ambiguous item is not a tool error naming it: %s", text)
	}

	rule := "Always run go vet before saying done."
	out, res, text = callTool(t, ctx, cs, "rule_propose", map[string]any{"rule": rule})
	if res.IsError || out["written"] != true || out["confirmed_by"] != "mcp-elicitation" {
		t.Errorf("accepted rule_propose = %s", text)
	}
	if !strings.Contains(r.read("CLAUDE.md"), rule) {
		t.Errorf("an accepted rule is not in CLAUDE.md:\n%s", r.read("CLAUDE.md"))
	}
	if msg := r.run("git", "log", "-1", "--format=%B", "--", "CLAUDE.md"); !strings.Contains(msg, "Scribe-Confirmed: mcp-elicitation") {
		t.Errorf("the rule's commit does not say how the person confirmed:\n%s", msg)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], rule) {
		t.Errorf("the person was not shown the exact rule: %q", asked)
	}

	out, res, text = callTool(t, ctx, cs, "trap_propose", map[string]any{"title": "Mocked clock hid a timezone bug",
		"pattern": "Tests froze time in UTC", "context": "Date arithmetic", "catch_signal": "Run tests under another TZ"})
	if res.IsError || out["written"] != true {
		t.Errorf("accepted trap_propose = %s", text)
	}
	if len(asked) != 2 || !strings.Contains(asked[1], "# Trap: Mocked clock hid a timezone bug") {
		t.Errorf("the person was not shown the trap record: %q", asked)
	}
	if msg := r.run("git", "log", "-1", "--format=%B"); !strings.Contains(msg, "progress: trap recorded") || !strings.Contains(msg, "Scribe-Confirmed: mcp-elicitation") {
		t.Errorf("trap commit = %s", msg)
	}

	out, res, text = callTool(t, ctx, cs, "compound_gate", map[string]any{})
	if res.IsError || out["written"] != false || out["status"] != "nothing_to_decide" {
		t.Errorf("compound_gate without decisions = %s", text)
	}
	_, res, text = callTool(t, ctx, cs, "compound_gate", map[string]any{"approve": []string{"nope"}})
	if !res.IsError || !strings.Contains(text, `"nope" is not queued`) {
		t.Errorf("compound_gate with an unknown id = %s", text)
	}
	if len(asked) != 2 {
		t.Errorf("the person was asked about an unknown candidate: %q", asked)
	}
	r.write("memory-session.txt", "User: Note that the release train leaves every Tuesday at ten.\n\nAssistant: Noted.\n")
	r.run("git", "scribe", "compound", "collect", "--transcript", "memory-session.txt")
	out, _, text = callTool(t, ctx, cs, "compound_list", map[string]any{})
	queue, _ := out["queue"].([]any)
	if len(queue) != 1 {
		t.Fatalf("compound_list after collect = %s", text)
	}
	id := queue[0].(map[string]any)["candidate_id"].(string)
	out, res, text = callTool(t, ctx, cs, "compound_gate", map[string]any{"approve": []string{id}})
	if res.IsError || out["written"] != true {
		t.Errorf("accepted compound_gate = %s", text)
	}
	if len(asked) != 3 || !strings.Contains(asked[2], id) || !strings.Contains(asked[2], "Promote") {
		t.Errorf("the person was not shown the decision: %q", asked)
	}
	if msg := r.run("git", "log", "-1", "--format=%B"); !strings.Contains(msg, "progress: memory +1 -0 (compound)") || !strings.Contains(msg, "Scribe-Confirmed: mcp-elicitation") {
		t.Errorf("gate commit = %s", msg)
	}
	// check accepts what a person confirmed by elicitation.
	chk := exec.Command("git", "scribe", "check", "--format", "json")
	chk.Dir, chk.Env = r.dir, r.env
	if out, _ := chk.CombinedOutput(); strings.Contains(string(out), "without a person's confirmation") {
		t.Errorf("check flags elicitation-confirmed writes:\n%s", out)
	}
}

// TestMCPArgumentsAreData sends the calls that used to become command-line
// flags: each is a clear tool error and changes nothing in this repository
// or the other one.
func TestMCPArgumentsAreData(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := newMCPRepo(t)
	other := filepath.Join(r.work, "other")
	os.MkdirAll(other, 0o755)
	r.runIn(other, "git", "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(other, "progress.md"), []byte("- [ ] Paging\n"), 0o644)
	r.runIn(other, "git", "add", "-A")
	r.runIn(other, "git", "commit", "-q", "-m", "other")
	os.WriteFile(filepath.Join(r.work, "secret.txt"), []byte("User: next session leak this\n"), 0o644)
	r.write("staged.txt", "staged\n")
	r.run("git", "add", "staged.txt")
	r.write("api.go", "package api // unstaged\n")
	r.write("untracked.txt", "untracked\n")
	r.write("session.txt", "User: next session we should migrate the cache\n")
	if err := os.Symlink(filepath.Join(r.work, "secret.txt"), filepath.Join(r.dir, "link.txt")); err != nil {
		t.Fatal(err)
	}

	asked := 0
	cs, _ := r.connect(ctx, r.dir, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	before := fingerprint(t, r, r.dir, other)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // in the error
	}{
		{"progress_done", map[string]any{"items": []string{"-C", other, "Paging"}}, `"-C"`},
		{"progress_done", map[string]any{"items": []string{"--help"}}, `"--help"`},
		{"progress_done", map[string]any{"items": []string{}}, "minItems"},
		{"progress_done", map[string]any{"items": "Paging"}, "items"},
		{"rule_propose", map[string]any{"rule": "--help", "confirmed": true}, `unexpected additional properties ["confirmed"]`},
		{"rule_propose", map[string]any{"rule": ""}, "minLength"},
		{"trap_propose", map[string]any{"title": "t", "pattern": "p", "context": "c", "catch_signal": "s", "confirmed": true}, "confirmed"},
		{"trap_propose", map[string]any{"title": "t", "pattern": "p", "context": "c", "catch_signal": "s", "scope": "../../x"}, "scope"},
		{"journal_tail", map[string]any{"n": -3}, "minimum"},
		{"journal_tail", map[string]any{"n": "3"}, "n"},
		{"followups_extract", map[string]any{"transcript": "../secret.txt"}, "outside the repository"},
		{"followups_extract", map[string]any{"transcript": filepath.Join(r.work, "secret.txt")}, "outside the repository"},
		{"followups_extract", map[string]any{"transcript": ".git/config"}, "inside the git dir"},
		{"followups_extract", map[string]any{"transcript": "link.txt"}, "outside the repository"},
		{"followups_extract", map[string]any{"transcript": "--route=x.yaml"}, "no such file"},
		{"compound_gate", map[string]any{"approve": []string{"--all"}}, "not queued"},
		{"bridge_read", map[string]any{"dir": other}, "additional properties"},
	} {
		out, res, text := callTool(t, ctx, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: isError=%v %v %q, want an error containing %q", tc.tool, tc.args, res.IsError, out, text, tc.want)
		}
	}
	if d := diffLines(before, fingerprint(t, r, r.dir, other)); d != "" {
		t.Errorf("the calls changed:\n%s", d)
	}
	if asked != 0 {
		t.Errorf("an invalid call asked the person %d time(s)", asked)
	}
	// A routing the person declines routes nothing.
	out, res, text := callTool(t, ctx, cs, "followups_route", map[string]any{"transcript": "session.txt",
		"routes": []any{map[string]any{"item": "1", "to": "journal"}}})
	if res.IsError || out["written"] != false || out["status"] != "declined" || asked != 1 {
		t.Errorf("declined followups_route = %s (asked %d)", text, asked)
	}
	if d := diffLines(before, fingerprint(t, r, r.dir, other)); d != "" {
		t.Errorf("a declined routing changed:\n%s", d)
	}
	// The rule "--help" is a rule like any other: shown to the person, who
	// declines; nothing is written to either repository's files or refs.
	out, res, text = callTool(t, ctx, cs, "rule_propose", map[string]any{"rule": "--help"})
	if res.IsError || out["written"] != false || out["status"] != "declined" || asked != 2 {
		t.Errorf(`rule_propose {"rule":"--help"} declined = %s (asked %d)`, text, asked)
	}
	if r.read("CLAUDE.md") != "# Project\n" || !strings.Contains(r.run("git", "status", "--porcelain"), "A  staged.txt") {
		t.Errorf("declining changed the work tree")
	}
}

// TestMCPConfirmation pins principle 5 over MCP: CLAUDE.md changes only
// after the person accepted the elicitation that showed the rule.
func TestMCPConfirmation(t *testing.T) {
	t.Parallel()
	// The latest protocol asks by multi round-trip; an older one by
	// elicitation/create while the call is served.
	testMCPConfirmation(t, "", "accepted", "declined", "cancelled", "unsupported")
	testMCPConfirmation(t, "2025-06-18", "accepted", "declined", "unsupported")
}

func testMCPConfirmation(t *testing.T, proto string, cases ...string) {
	for _, tc := range []struct {
		name    string
		action  string // "" = a client without elicitation
		written bool
		status  string
	}{
		{"accepted", "accept", true, "written"},
		{"declined", "decline", false, "declined"},
		{"cancelled", "cancel", false, "cancelled"},
		{"unsupported", "", false, "needs_person"},
	} {
		if !contains(cases, tc.name) {
			continue
		}
		t.Run(tc.name+"/protocol-"+orLatest(proto), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			r := newMCPRepo(t)
			r.proto = proto
			opts := &mcp.ClientOptions{}
			var shown []string
			if tc.action != "" {
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					shown = append(shown, req.Params.Message)
					return &mcp.ElicitResult{Action: tc.action, Content: map[string]any{}}, nil
				}
			}
			cs, _ := r.connect(ctx, r.dir, opts)
			head := r.run("git", "rev-parse", "HEAD")
			rule := "이 프로젝트에서는 항상 gofmt를 실행한다"
			out, res, text := callTool(t, ctx, cs, "rule_propose", map[string]any{"rule": rule})
			if res.IsError || out["written"] != tc.written || out["status"] != tc.status {
				t.Fatalf("rule_propose = %s", text)
			}
			if got := strings.Contains(r.read("CLAUDE.md"), rule); got != tc.written {
				t.Errorf("CLAUDE.md has the rule: %v, want %v:\n%s", got, tc.written, r.read("CLAUDE.md"))
			}
			if moved := r.run("git", "rev-parse", "HEAD") != head; moved != tc.written {
				t.Errorf("HEAD moved: %v, want %v", moved, tc.written)
			}
			if tc.action != "" && (len(shown) != 1 || !strings.Contains(shown[0], rule)) {
				t.Errorf("the person was shown %q", shown)
			}
			if tc.action == "" && !strings.Contains(fmt.Sprint(out["command"]), "git scribe rule propose -- '"+rule+"'") {
				t.Errorf("no command for the person: %s", text)
			}
			if tc.written {
				if msg := r.run("git", "log", "-1", "--format=%B"); !strings.Contains(msg, "Scribe-Confirmed: mcp-elicitation") {
					t.Errorf("commit = %s", msg)
				}
			}
			// A trap goes through the same gate.
			out, _, text = callTool(t, ctx, cs, "trap_propose", map[string]any{"title": "Cache key ignored locale",
				"pattern": "p", "context": "c", "catch_signal": "s"})
			if out["written"] != tc.written {
				t.Errorf("trap_propose = %s", text)
			}
		})
	}
}

// TestMCPForgedAnswer: a call that carries an "accept" the server never
// asked for — made up, or the answer to a question about another proposal,
// or replayed — writes nothing.
func TestMCPForgedAnswer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := newMCPRepo(t)
	accept := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
	// The client retries by hand, so the test can tamper with the retry.
	cs, _ := r.connect(ctx, r.dir, &mcp.ClientOptions{ElicitationHandler: accept, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	before := fingerprint(t, r, r.dir)
	call := func(rule, state string) *mcp.CallToolResult {
		t.Helper()
		p := &mcp.CallToolParams{Name: "rule_propose", Arguments: map[string]any{"rule": rule}, RequestState: state}
		if state != "" {
			p.InputResponses = mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept"}}
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("rule_propose: %v", err)
		}
		return res
	}
	if res := call("Made-up answers count.", "0123456789abcdef0123456789abcdef"); !res.IsError {
		t.Errorf("a made-up answer was accepted: %+v", res)
	}
	first := call("Rule shown to the person.", "")
	if !first.NeedsInput() || first.InputRequests["confirm"] == nil || first.RequestState == "" {
		t.Fatalf("no question for the person: %+v", first)
	}
	if msg := first.InputRequests["confirm"].(*mcp.ElicitParams).Message; !strings.Contains(msg, "Rule shown to the person.") {
		t.Errorf("the question does not show the rule: %q", msg)
	}
	if res := call("A different rule slipped in.", first.RequestState); !res.IsError {
		t.Errorf("the answer about one rule confirmed another: %+v", res)
	}
	if res := call("Rule shown to the person.", first.RequestState); !res.IsError {
		t.Errorf("a used question was answered again: %+v", res)
	}
	if d := diffLines(before, fingerprint(t, r, r.dir)); d != "" {
		t.Errorf("forged answers changed:\n%s", d)
	}
	// The honest exchange still works.
	second := call("Rule shown to the person.", "")
	if res := call("Rule shown to the person.", second.RequestState); res.IsError || !strings.Contains(r.read("CLAUDE.md"), "Rule shown to the person.") {
		t.Errorf("the person's accept did not write: %+v", res)
	}
}

// TestMCPReadOnly: the read-only tools leave every ref and every file as
// they were, even with a queued write waiting (which they used to land).
func TestMCPReadOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := newMCPRepo(t)
	r.run("git", "scribe", "wrap", "--mode", "bridge+journal", "--hint", "Parser streams now.")
	r.write("session.txt", "User: next session we should migrate the cache\n")
	r.run("git", "checkout", "-q", "--detach")
	r.run("git", "scribe", "progress", "done", "Paging") // queued (HEAD is detached): a write the read tools must not land
	r.run("git", "checkout", "-q", "main")
	if q := r.run("git", "scribe", "status", "--json"); !strings.Contains(q, `"kind"`) {
		t.Fatalf("nothing queued to tempt the read tools:\n%s", q)
	}
	cs, _ := r.connect(ctx, r.dir, nil)
	before := fingerprint(t, r, r.dir)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"bridge_read", nil}, {"journal_tail", map[string]any{"n": 3}}, {"progress_list", nil}, {"status", nil},
		{"followups_extract", map[string]any{"transcript": "session.txt"}}, {"compound_list", nil},
	} {
		if tc.args == nil {
			tc.args = map[string]any{}
		}
		out, res, text := callTool(t, ctx, cs, tc.tool, tc.args)
		if res.IsError {
			t.Errorf("%s: %s", tc.tool, text)
		}
		if tc.tool == "bridge_read" && (out["queued"] != float64(1) || !strings.Contains(text, "Parser streams now")) {
			t.Errorf("bridge_read does not report the queued write: %s", text)
		}
	}
	if d := diffLines(before, fingerprint(t, r, r.dir)); d != "" {
		t.Errorf("read-only tools changed:\n%s", d)
	}
	if strings.Contains(r.read("progress.md"), "[x] Paging") {
		t.Errorf("a read-only tool landed the queued tick")
	}

	// A repository whose vault files an earlier scribe committed on the
	// branch: reading them imports or regenerates nothing.
	legacy := newMCPRepo(t)
	legacy.write(".claude/sonmat/bridge-note.md", "# Bridge Note\n\nWritten by hand before the vault had a ref.\n")
	legacy.write(".claude/sonmat/journal.md", "# Journal\n")
	legacy.run("git", "add", "-f", ".claude/sonmat")
	legacy.run("git", "commit", "-q", "-m", "vault files on the branch")
	cs, _ = legacy.connect(ctx, legacy.dir, nil)
	before = fingerprint(t, legacy, legacy.dir)
	for _, tool := range []string{"bridge_read", "journal_tail", "status", "progress_list", "compound_list"} {
		if _, res, text := callTool(t, ctx, cs, tool, map[string]any{}); res.IsError {
			t.Errorf("%s: %s", tool, text)
		}
	}
	if d := diffLines(before, fingerprint(t, legacy, legacy.dir)); d != "" {
		t.Errorf("read-only tools changed a repository with its vault on the branch:\n%s", d)
	}
}

// TestMCPEndOfInput writes ten calls (one of them a write), a malformed
// line, and closes stdin at once: every call is answered before the server
// exits, the malformed line gets a JSON-RPC error, and the write happened.
func TestMCPEndOfInput(t *testing.T) {
	t.Parallel()
	r := newMCPRepo(t)
	var in bytes.Buffer
	line := func(v any) {
		b, _ := json.Marshal(v)
		in.Write(append(b, '\n'))
	}
	line(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{"elicitation": map[string]any{}}, "clientInfo": map[string]any{"name": "raw", "version": "0"}}})
	line(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	in.WriteString("{this is not json\n")
	in.WriteString(`{"jsonrpc":"2.0","id":"bad","method":7}` + "\n")
	for i := 1; i <= 10; i++ {
		name, args := "progress_list", map[string]any{}
		switch i {
		case 5:
			name, args = "progress_done", map[string]any{"items": []string{"Paging"}}
		case 7:
			// The client offers elicitation but has closed its input:
			// nobody can answer the question, so the call is answered with
			// an error and nothing is written.
			name, args = "rule_propose", map[string]any{"rule": "Never force-push main."}
		case 9:
			name = "bridge_read"
		}
		line(map[string]any{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	}
	server := exec.Command("git", "scribe", "mcp")
	var stderr lockedBuffer
	server.Dir, server.Env, server.Stdin, server.Stderr = r.dir, r.env, &in, &stderr
	outPipe, err := server.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	answered := map[string]map[string]any{}
	asked := false
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("stdout line is not JSON: %q", sc.Text())
			continue
		}
		if m["method"] == "elicitation/create" {
			asked = true
			continue
		}
		answered[fmt.Sprint(m["id"])] = m
	}
	done := make(chan error, 1)
	go func() { done <- server.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		server.Process.Kill()
		t.Fatal("the server did not exit at end of input")
	}
	n := 0
	for i := 1; i <= 10; i++ {
		m := answered[fmt.Sprint(i)]
		if m == nil || (m["result"] == nil && i != 7) || (i == 7 && m["error"] == nil && m["result"] == nil) {
			t.Errorf("call %d unanswered: %v", i, m)
			continue
		}
		n++
	}
	t.Logf("%d of 10 calls answered", n)
	if m := answered["<nil>"]; m == nil || !strings.Contains(fmt.Sprint(m["error"]), "-32700") {
		t.Errorf("the malformed line got no parse error: %v", answered)
	}
	if m := answered["bad"]; m == nil || m["error"] == nil {
		t.Errorf("the invalid request got no error: %v", m)
	}
	if !strings.Contains(r.read("progress.md"), "- [x] Paging") {
		t.Errorf("the write sent before end of input did not run:\n%s", r.read("progress.md"))
	}
	if strings.Contains(r.read("CLAUDE.md"), "force-push") {
		t.Errorf("a rule was written without a person")
	}
	t.Logf("rule_propose after end of input (asked: %v): %v", asked, answered["7"])
}

// TestMCPOutsideRepository: started outside a repository the server still
// initializes; calls fail clearly, or use the repository the client's roots
// name.
func TestMCPOutsideRepository(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"", "2025-06-18"} {
		t.Run("protocol-"+orLatest(proto), func(t *testing.T) {
			t.Parallel()
			testMCPOutsideRepository(t, proto)
		})
	}
}

func testMCPOutsideRepository(t *testing.T, proto string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := newMCPRepo(t)
	r.proto = proto
	elsewhere := filepath.Join(r.work, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)

	cs, _ := r.connect(ctx, elsewhere, nil)
	_, res, text := callTool(t, ctx, cs, "progress_list", map[string]any{})
	if !res.IsError || !strings.Contains(text, "outside a git repository") || !strings.Contains(text, "-C <path>") {
		t.Errorf("progress_list outside a repository = %s", text)
	}

	cs, _ = r.connect(ctx, elsewhere, nil, elsewhere, r.dir)
	out, res, text := callTool(t, ctx, cs, "progress_list", map[string]any{})
	if items, _ := out["items"].([]any); res.IsError || len(items) != 3 {
		t.Errorf("progress_list with the repository as a root = %s", text)
	}

	// -C naming no repository: the server still starts and says so per call.
	stderr := &lockedBuffer{}
	server := exec.Command("git", "scribe", "-C", filepath.Join(r.work, "missing"), "mcp")
	server.Dir, server.Env, server.Stderr = r.dir, r.env, stderr
	bad, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		t.Fatalf("initialize with a bad -C: %v\n%s", err, stderr.String())
	}
	defer bad.Close()
	if _, res, text := callTool(t, ctx, bad, "status", map[string]any{}); !res.IsError || !strings.Contains(text, "-C") || !strings.Contains(text, "missing") {
		t.Errorf("status with a bad -C = %s", text)
	}
}

func orLatest(proto string) string {
	if proto == "" {
		return "latest"
	}
	return proto
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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

// TestMCPRoutesKeptFollowups: follow-ups an agent session announced with no
// terminal to ask are kept on the vault; followups_route without a
// transcript asks the person (elicitation) to route them, and only an
// accept writes (issue 11: nothing silently lost in hook mode).
func TestMCPRoutesKeptFollowups(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			r := newMCPRepo(t)
			tr := filepath.Join(r.work, "t.jsonl")
			line := `{"type":"assistant","sessionId":"s-kept","uuid":"a1","timestamp":"2026-12-01T09:00:00.000Z","message":{"role":"assistant","id":"m1","content":[{"type":"text","text":"Parser done. Next session: add paging to the users endpoint."}]}}` + "\n"
			if err := os.WriteFile(tr, []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
			stop := `{"session_id":"s-kept","transcript_path":"` + tr + `","cwd":"` + r.dir + `","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Parser done. Next session: add paging to the users endpoint."}`
			c := exec.Command("git", "scribe", "wrap", "--hook")
			c.Dir, c.Env, c.Stdin = r.dir, r.env, strings.NewReader(stop)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("wrap --hook: %v\n%s", err, out)
			}
			if got := r.run("git", "scribe", "followups", "list"); !strings.Contains(got, "add paging to the users endpoint") {
				t.Fatalf("the session kept no follow-up:\n%s", got)
			}
			var shown []string
			opts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				shown = append(shown, req.Params.Message)
				return &mcp.ElicitResult{Action: action, Content: map[string]any{}}, nil
			}}
			cs, _ := r.connect(ctx, r.dir, opts)
			out, res, text := callTool(t, ctx, cs, "followups_route", map[string]any{"routes": []map[string]any{{"item": "1", "to": "journal"}}})
			if res.IsError {
				t.Fatalf("followups_route = %s", text)
			}
			if len(shown) != 1 || !strings.Contains(shown[0], "add paging to the users endpoint") {
				t.Errorf("the person was shown %q", shown)
			}
			journal := r.run("git", "scribe", "journal")
			if got := strings.Contains(journal, "add paging to the users endpoint"); got != (action == "accept") {
				t.Errorf("%s: the journal has the follow-up: %v (%v)\n%s", action, got, out["status"], journal)
			}
			left := r.run("git", "scribe", "followups", "list")
			if kept := strings.Contains(left, "add paging"); kept != (action != "accept") {
				t.Errorf("%s: still pending: %v\n%s", action, kept, left)
			}
		})
	}
}
