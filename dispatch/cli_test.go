//go:build !windows

package dispatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// claudeStub reproduces `claude -p --output-format json`: it records its
// stdin, arguments and GIT_SCRIBE_ACTIVE, then prints what $STUB_MODE asks
// for. The success reply is the shape Claude Code prints.
const claudeStub = `#!/bin/sh
cat > "$STUB_DIR/stdin"
printf '%s\n' "$@" > "$STUB_DIR/args"
printf '%s' "$GIT_SCRIBE_ACTIVE" > "$STUB_DIR/active"
case "$STUB_MODE" in
ok) cat <<'EOF'
{"type":"result","subtype":"success","is_error":false,"duration_ms":2141,"duration_api_ms":2050,"num_turns":1,"result":"verdict: issues\n\n## Findings\n- the lantern steams too early","session_id":"8f1c2d3e-0a1b-4c5d-9e8f-7a6b5c4d3e2f","total_cost_usd":0.01234,"usage":{"input_tokens":1200,"cache_creation_input_tokens":0,"cache_read_input_tokens":300,"output_tokens":80,"server_tool_use":{"web_search_requests":0},"service_tier":"standard"},"modelUsage":{"claude-sonnet-4-5":{"inputTokens":1500,"outputTokens":80}},"permission_denials":[],"uuid":"0b3f"}
EOF
;;
is_error) echo '{"type":"result","subtype":"success","is_error":true,"duration_ms":120,"num_turns":1,"result":"Credit balance is too low","session_id":"s","total_cost_usd":0}' ;;
max_turns) echo '{"type":"result","subtype":"error_max_turns","is_error":true,"duration_ms":120,"num_turns":3,"session_id":"s","total_cost_usd":0.2}'; exit 1 ;;
array) echo '[{"type":"system","subtype":"init","session_id":"s"},{"type":"assistant","message":{}},{"type":"result","subtype":"success","is_error":false,"result":"from the array","session_id":"s"}]' ;;
exit) echo 'Error: Invalid API key · Please run /login' >&2; exit 1 ;;
garbage) echo 'Hello from an old CLI' ;;
empty) echo '{"type":"result","subtype":"success","is_error":false,"result":"  "}' ;;
big) head -c 300000 /dev/zero | tr '\0' 'a' ;;
hang) sleep 30 & echo $! > "$STUB_DIR/child"; wait ;;
esac
`

// codexStub reproduces `codex exec -o FILE -`: the last message goes to
// the -o file, progress and the token count to stderr.
const codexStub = `#!/bin/sh
cat > "$STUB_DIR/stdin"
printf '%s\n' "$@" > "$STUB_DIR/args"
printf '%s' "$GIT_SCRIBE_ACTIVE" > "$STUB_DIR/active"
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
case "$STUB_MODE" in
ok) printf '[2026-07-12T09:30:00] OpenAI Codex v0.46.0 (research preview)\n--------\nworkdir: %s\nmodel: gpt-5-codex\nsandbox: read-only\n--------\n' "$PWD" >&2
    printf 'The draft reads well.\n\n## Introduced candidates\nNone.\n' > "$out"
    printf '[2026-07-12T09:30:04] tokens used: 1,234\n' >&2
    printf 'The draft reads well.\n' ;;
nofile) echo 'thinking…' >&2 ;;
exit) echo 'ERROR: stream error: unexpected status 401 Unauthorized' >&2; exit 1 ;;
hang) sleep 30 & echo $! > "$STUB_DIR/child"; wait ;;
esac
`

func stubEnv(t *testing.T, name, script, mode string) ([]string, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell stubs")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "STUB_DIR=" + dir, "STUB_MODE=" + mode, "HOME=" + dir}
	return env, dir
}

func TestClaudeRunner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, want, wantErr string
	}{
		{"ok", "verdict: issues\n\n## Findings\n- the lantern steams too early", ""},
		{"is_error", "", "claude reported an error (subtype success): Credit balance is too low"},
		{"max_turns", "", "subtype error_max_turns"},
		{"array", "from the array", ""},
		{"exit", "", "claude exited with status 1: Error: Invalid API key"},
		{"garbage", "", "not the JSON result object"},
		{"empty", "", "no text"},
		{"big", "", "exceeds the output cap"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			env, dir := stubEnv(t, "claude", claudeStub, tt.mode)
			c := &Claude{Model: "sonnet", Env: env, Dir: dir, MaxOutput: 50000}
			out, u, err := c.GenerateUsage(context.Background(), "the prompt\nline two")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || out != tt.want {
				t.Fatalf("out %q, err %v", out, err)
			}
			stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
			args, _ := os.ReadFile(filepath.Join(dir, "args"))
			active, _ := os.ReadFile(filepath.Join(dir, "active"))
			if string(stdin) != "the prompt\nline two" || string(args) != "-p\n--output-format\njson\n--model\nsonnet\n" || string(active) != "1" {
				t.Fatalf("stdin %q args %q GIT_SCRIBE_ACTIVE %q", stdin, args, active)
			}
			if tt.mode == "ok" && (u.InputTokens != 1500 || u.OutputTokens != 80 || u.CostUSD != 0.01234 || u.Model != "claude-sonnet-4-5") {
				t.Fatalf("usage %+v", u)
			}
		})
	}
}

func TestCodexRunner(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode, want, wantErr string
	}{
		{"ok", "The draft reads well.\n\n## Introduced candidates\nNone.\n", ""},
		{"nofile", "", "wrote no last-message file"},
		{"exit", "", "codex exited with status 1: ERROR: stream error: unexpected status 401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			env, dir := stubEnv(t, "codex", codexStub, tt.mode)
			scratch := filepath.Join(dir, "scratch")
			c := &Codex{Model: "gpt-5-codex", Env: env, Dir: dir, Scratch: scratch, MaxOutput: 50000}
			out, u, err := c.GenerateUsage(context.Background(), "the prompt")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || out != tt.want || u.TotalTokens != 1234 {
				t.Fatalf("out %q usage %+v err %v", out, u, err)
			}
			args, _ := os.ReadFile(filepath.Join(dir, "args"))
			a := strings.Split(strings.TrimSpace(string(args)), "\n")
			if len(a) != 9 || strings.Join(a[:5], " ") != "exec --ephemeral -s read-only -o" || !strings.HasPrefix(a[5], scratch+"/") ||
				strings.Join(a[6:], " ") != "-m gpt-5-codex -" {
				t.Fatalf("args %q", a)
			}
			if stdin, _ := os.ReadFile(filepath.Join(dir, "stdin")); string(stdin) != "the prompt" {
				t.Fatalf("stdin %q", stdin)
			}
			if active, _ := os.ReadFile(filepath.Join(dir, "active")); string(active) != "1" {
				t.Fatalf("GIT_SCRIBE_ACTIVE %q", active)
			}
			if left, _ := os.ReadDir(scratch); len(left) != 0 {
				t.Fatalf("the -o file was left behind: %v", left)
			}
		})
	}
}

// On timeout the whole process group dies: the agent and what it spawned.
func TestCLITimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"claude", "codex"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			script := map[string]string{"claude": claudeStub, "codex": codexStub}[name]
			env, dir := stubEnv(t, name, script, "hang")
			r, err := NewRunner(Route{Runner: name}, env, dir, filepath.Join(dir, "scratch"))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, _, err = generate(context.Background(), r, "p", Limits{Timeout: 300 * time.Millisecond})
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v, want a timeout", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("took %s to give up", d)
			}
			data, err := os.ReadFile(filepath.Join(dir, "child"))
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			deadline := time.Now().Add(3 * time.Second)
			for alive(pid) {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("the agent's child %d survived the cancel", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// alive reports whether pid runs (a zombie awaiting its reaper is dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return runtime.GOOS != "linux"
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func TestCLINotInstalled(t *testing.T) {
	t.Parallel()
	_, err := (&Claude{Env: []string{"PATH=" + t.TempDir()}}).Generate(context.Background(), "p")
	if err == nil || !strings.Contains(err.Error(), "claude is not installed") {
		t.Fatalf("err = %v", err)
	}
}
