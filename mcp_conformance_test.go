package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tsSDK is the official TypeScript SDK release the conformance test runs
// (SCRIBE_MCP_TS_SDK overrides it, e.g. "latest").
const tsSDK = "1.32.2"

// TestMCPTypeScriptClient runs `git scribe mcp` against the official
// TypeScript SDK client (@modelcontextprotocol/sdk), installed from npm into
// a temporary directory: the injection calls, elicitation accepted /
// declined / unsupported, a read-only bridge_read, and ten calls answered
// after stdin closes. Without node and npm, or without the network, it skips
// and says why.
func TestMCPTypeScriptClient(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the TypeScript SDK conformance test: %s is not on PATH", tool)
		}
	}
	version := tsSDK
	if v := os.Getenv("SCRIBE_MCP_TS_SDK"); v != "" {
		version = v
	}
	client := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "mcp", "ts_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"package.json": `{"name":"scribe-ts-conformance","private":true,"type":"module"}`, "ts_client.mjs": string(src)} {
		if err := os.WriteFile(filepath.Join(client, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ictx, icancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer icancel()
	install := exec.CommandContext(ictx, "npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
		"@modelcontextprotocol/sdk@"+version)
	install.Dir = client
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("skipping the TypeScript SDK conformance test: npm install @modelcontextprotocol/sdk@%s failed (no network or registry?): %v\n%s", version, err, out)
	}

	r := newMCPRepo(t)
	r.run("git", "scribe", "wrap", "--mode", "bridge+journal", "--hint", "Parser streams now.")
	other := filepath.Join(r.work, "other")
	os.MkdirAll(other, 0o755)
	r.runIn(other, "git", "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(other, "progress.md"), []byte("- [ ] Paging\n"), 0o644)
	r.runIn(other, "git", "add", "-A")
	r.runIn(other, "git", "commit", "-q", "-m", "other")

	type callResult struct {
		IsError           bool           `json:"isError"`
		ProtocolError     string         `json:"protocolError"`
		StructuredContent map[string]any `json:"structuredContent"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	type stepOut struct {
		SDKVersion     string         `json:"sdkVersion"`
		LatestProtocol string         `json:"latestProtocol"`
		ServerVersion  map[string]any `json:"serverVersion"`
		Tools          []struct {
			Name        string         `json:"name"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
		Results  []callResult `json:"results"`
		Shown    []string     `json:"shown"`
		Answered int          `json:"answered"`
		ExitCode *int         `json:"exitCode"`
	}
	rule := "Run the TypeScript conformance client before a release."
	step := func(name string) stepOut {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, "node", "ts_client.mjs", name)
		c.Dir = client
		c.Env = append(append([]string{}, r.env...), "REPO="+r.dir, "OTHER="+other, "RULE="+rule)
		var stderr lockedBuffer
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			t.Fatalf("node ts_client.mjs %s: %v\nstderr: %s\nstdout: %s", name, err, stderr.String(), out)
		}
		var so stepOut
		if err := json.Unmarshal(out, &so); err != nil {
			t.Fatalf("step %s printed %q: %v", name, out, err)
		}
		return so
	}
	text := func(c callResult) string {
		return fmt.Sprintf("%s %v %s", c.ProtocolError, c.StructuredContent, c.Content)
	}

	before := fingerprint(t, r, r.dir, other)
	inj := step("inject")
	t.Logf("client: @modelcontextprotocol/sdk %s (latest protocol %s); server: %v", inj.SDKVersion, inj.LatestProtocol, inj.ServerVersion)
	for i, want := range []string{`"-C"`, "confirmed", "minimum"} {
		if c := inj.Results[i]; !c.IsError || !strings.Contains(text(c), want) {
			t.Errorf("injection %d: want a tool error mentioning %s, got %s", i, want, text(c))
		}
	}
	if d := diffLines(before, fingerprint(t, r, r.dir, other)); d != "" {
		t.Errorf("the injection calls changed:\n%s", d)
	}
	for _, tl := range inj.Tools {
		ro, _ := tl.Annotations["readOnlyHint"].(bool)
		if want := contains([]string{"bridge_read", "journal_tail", "progress_list", "status", "followups_extract", "compound_list"}, tl.Name); ro != want {
			t.Errorf("%s: readOnlyHint %v, want %v", tl.Name, ro, want)
		}
	}

	for _, mode := range []string{"none", "decline"} {
		so := step(mode)
		if c := so.Results[0]; c.IsError || c.StructuredContent["written"] != false {
			t.Errorf("rule_propose with %s: %s", mode, text(c))
		}
		if strings.Contains(r.read("CLAUDE.md"), rule) {
			t.Fatalf("rule_propose with %s wrote CLAUDE.md", mode)
		}
		if mode == "decline" && (len(so.Shown) != 1 || !strings.Contains(so.Shown[0], rule)) {
			t.Errorf("the person was shown %q", so.Shown)
		}
	}
	so := step("accept")
	if c := so.Results[0]; c.IsError || c.StructuredContent["written"] != true || len(so.Shown) != 1 || !strings.Contains(so.Shown[0], rule) {
		t.Errorf("rule_propose accepted: %s (shown %q)", text(c), so.Shown)
	}
	if !strings.Contains(r.read("CLAUDE.md"), rule) {
		t.Errorf("an accepted rule is not in CLAUDE.md:\n%s", r.read("CLAUDE.md"))
	}

	r.run("git", "checkout", "-q", "--detach")
	r.run("git", "scribe", "progress", "done", "Phase 1 docs") // queued (HEAD is detached): a write the read tools must not land
	r.run("git", "checkout", "-q", "main")
	before = fingerprint(t, r, r.dir)
	so = step("bridge")
	for _, c := range so.Results {
		if c.IsError || c.ProtocolError != "" {
			t.Errorf("read-only call failed: %s", text(c))
		}
	}
	if d := diffLines(before, fingerprint(t, r, r.dir)); d != "" {
		t.Errorf("bridge_read, status and progress_list changed:\n%s", d)
	}

	so = step("eof")
	t.Logf("end of input: %d of 10 calls answered", so.Answered)
	if so.Answered != 10 || so.ExitCode == nil || *so.ExitCode != 0 {
		t.Errorf("end of input: %d of 10 answered, exit %v", so.Answered, so.ExitCode)
	}
	if !strings.Contains(r.read("progress.md"), "- [x] Paging") {
		t.Errorf("progress_done sent before end of input did not run")
	}
}
