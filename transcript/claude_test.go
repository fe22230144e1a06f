package transcript_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/transcript"
)

// sharedDir holds the real Claude Code transcripts described in
// ../shared/testdata/README.md; CI checks ../shared out beside this repo.
const sharedDir = "../../shared/testdata/transcripts/claude-code"

const mainSession = "4d5611e5-241a-462a-8d15-5122611a9569"

// needShared skips t when the shared test data is not checked out.
func needShared(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(sharedDir); errors.Is(err, fs.ErrNotExist) {
		tb.Skipf("%s not present", sharedDir)
	}
}

// realCounts is what a real transcript must read as. Each number was checked
// with jq against the file (commands in TestReadClaudeReal).
type realCounts struct {
	stats          transcript.Stats
	user           int // user lines
	assistant      int // distinct assistant message.id
	toolResultOnly int // user lines with only tool_result blocks
	meta           int // tool-written user lines
	sidechain      int
	convUser       int // Conversation(): what the person typed
	convAssistant  int // Conversation(): responses with non-blank text
	sessionID      string
	cwd            string
}

func checkCounts(t *testing.T, tr *transcript.Transcript, want realCounts) {
	t.Helper()
	if tr.Format != transcript.FormatClaude {
		t.Errorf("Format = %q, want claude", tr.Format)
	}
	if tr.Stats != want.stats {
		t.Errorf("Stats = %+v, want %+v", tr.Stats, want.stats)
	}
	var got realCounts
	for _, turn := range tr.Turns {
		switch turn.Role {
		case transcript.RoleUser:
			got.user++
		case transcript.RoleAssistant:
			got.assistant++
		}
		if turn.ToolResultOnly {
			got.toolResultOnly++
		}
		if turn.Meta {
			got.meta++
		}
		if turn.Sidechain {
			got.sidechain++
		}
	}
	for _, turn := range tr.Conversation() {
		if turn.Role == transcript.RoleUser {
			got.convUser++
		} else {
			got.convAssistant++
		}
	}
	got.stats, got.sessionID, got.cwd = tr.Stats, tr.SessionID, tr.CWD
	if got != want {
		t.Errorf("counts = %+v\n want %+v", got, want)
	}
}

// TestReadClaudeReal reads every real transcript. The expected numbers come
// from jq, for example on the main session:
//
//	jq -r .type F | sort | uniq -c                        # 254 assistant, 154 user, 1104 other
//	jq -r 'select(.type=="assistant").message.id' F | sort -u | wc -l                  # 139
//	jq -c 'select(.type=="user") | [.message.content[]?.type]' F | grep -c '^\["tool_result"\]$'  # 150
//	jq -r 'select(.type=="assistant") | select([.message.content[]|select(.type=="text" and (.text|test("\\S")))]|length>0) | .message.id' F | sort -u | wc -l  # 84
//
// and the four string prompts read by eye: two typed, one isCompactSummary,
// one <task-notification>.
func TestReadClaudeReal(t *testing.T) {
	t.Parallel()
	needShared(t)
	const cwdMain = "/home/USER/projects/spotter-worktrees/spotter-dov"
	const cwdSpotter = "/home/marco/projects/spotter"
	tests := []struct {
		file string
		want realCounts
	}{
		{
			file: mainSession + ".jsonl",
			want: realCounts{
				stats: transcript.Stats{Lines: 1512, Ignored: 1083 + 14 + 6 + 1, Turns: 154 + 139},
				user:  154, assistant: 139, toolResultOnly: 150, meta: 2,
				convUser: 2, convAssistant: 84,
				sessionID: mainSession, cwd: cwdMain,
			},
		},
		{
			file: "short.jsonl",
			want: realCounts{
				stats: transcript.Stats{Lines: 15, Ignored: 6, Turns: 5},
				user:  4, assistant: 1, toolResultOnly: 2, meta: 1,
				convUser: 1, convAssistant: 1,
				sessionID: "55604662-cf2a-4331-851a-ec234028f8ca", cwd: cwdSpotter,
			},
		},
		{
			// caveat (isMeta), <local-command-stdout>, two interruptions are
			// meta; "/mcp" was typed.
			file: "tool_heavy.jsonl",
			want: realCounts{
				stats: transcript.Stats{Lines: 39, Ignored: 17, Turns: 17},
				user:  13, assistant: 4, toolResultOnly: 6, meta: 4,
				convUser: 3, convAssistant: 1,
				sessionID: "d6e0bada-1959-4eec-a9d2-0bfade768d8f", cwd: cwdSpotter,
			},
		},
		{
			file: "subagent.jsonl",
			want: realCounts{
				stats: transcript.Stats{Lines: 96, Ignored: 48, Turns: 32},
				user:  20, assistant: 12, toolResultOnly: 16, meta: 2,
				convUser: 2, convAssistant: 7,
				sessionID: "491e126e-1e71-469c-ade2-fcc8af567c74", cwd: cwdSpotter,
			},
		},
		{
			// Every line isSidechain: nothing in it is the person's.
			file: mainSession + "/subagents/agent-a2898e3.jsonl",
			want: realCounts{
				stats: transcript.Stats{Lines: 144, Ignored: 70, Turns: 34 + 12},
				user:  34, assistant: 12, toolResultOnly: 33, sidechain: 46,
				sessionID: mainSession, cwd: cwdMain,
			},
		},
		{
			// Three <system-reminder> hook lines (isMeta) and the compaction
			// prompt.
			file: mainSession + "/subagents/agent-acompact-e1f845.jsonl",
			want: realCounts{
				stats: transcript.Stats{Lines: 5, Turns: 5},
				user:  4, assistant: 1, meta: 3, sidechain: 5,
				sessionID: mainSession, cwd: cwdMain,
			},
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.ReadFile(filepath.Join(sharedDir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, tr, tt.want)
		})
	}
}

// TestReadClaudeLocalCopy pins the copy in testdata/ so the package is tested
// even without ../shared.
func TestReadClaudeLocalCopy(t *testing.T) {
	t.Parallel()
	tr, err := transcript.ReadFile("testdata/claude/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, tr, realCounts{
		stats: transcript.Stats{Lines: 15, Ignored: 6, Turns: 5},
		user:  4, assistant: 1, toolResultOnly: 2, meta: 1,
		convUser: 1, convAssistant: 1,
		sessionID: "55604662-cf2a-4331-851a-ec234028f8ca", cwd: "/home/marco/projects/spotter",
	})
	want := []string{
		`user "mix phx.server doesnt seem to start" text`,
		// Five lines sharing msg_01MKH1ccEGrZGNPvu8pYiiQa: one response.
		`assistant "Let me check the project structure and try running the server to see the error." text,thinking,text,tool_use:Bash,tool_use:Glob`,
		`user "" tool_result:Bash result`,
		`user "" tool_result:Glob result`,
		`user "[Request interrupted by user for tool use]" text meta`,
	}
	checkTurns(t, tr, want)
	a := tr.Turns[1]
	if a.ID != "msg_01MKH1ccEGrZGNPvu8pYiiQa" {
		t.Errorf("assistant ID = %q", a.ID)
	}
	if want := time.Date(2026, 2, 10, 21, 11, 59, 186e6, time.UTC); !a.Time.Equal(want) {
		t.Errorf("assistant Time = %v, want %v (its first line)", a.Time, want)
	}
	if tr.Turns[0].ID != "7d48cbd2-6615-4dd8-87f6-38f12b8167d6" {
		t.Errorf("user ID = %q, want the line's uuid", tr.Turns[0].ID)
	}
}

// TestClaudeGroupsResponses checks grouping on the long session, where 10
// responses have their lines interleaved with the tool_result lines of
// parallel tool calls.
func TestClaudeGroupsResponses(t *testing.T) {
	t.Parallel()
	needShared(t)
	tr, err := transcript.ReadFile(filepath.Join(sharedDir, mainSession+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	blocks, results := 0, 0
	for _, turn := range tr.Turns {
		if turn.Role == transcript.RoleAssistant {
			if ids[turn.ID] {
				t.Errorf("message.id %s split over two turns", turn.ID)
			}
			ids[turn.ID] = true
			blocks += len(turn.Blocks)
			continue
		}
		for _, b := range turn.Blocks {
			if b.Kind == transcript.KindToolResult {
				results++
				if b.ToolName == "" {
					t.Errorf("turn %d: tool_result with no tool name", turn.Index)
				}
			}
		}
	}
	// 254 assistant lines, one content block each: none lost in grouping.
	if blocks != 254 || results != 150 {
		t.Errorf("assistant blocks = %d, tool results = %d; want 254, 150", blocks, results)
	}
	last := tr.Last(50)
	if len(last) != 50 || last[49].Index != len(tr.Turns)-1 || last[0].Index != len(tr.Turns)-50 {
		t.Errorf("Last(50) = %d turns from %d", len(last), last[0].Index)
	}
}

// turnSummary renders a turn for table comparisons:
// role "text" kinds[:tool] flags.
func turnSummary(turn transcript.Turn) string {
	kinds := make([]string, 0, len(turn.Blocks))
	for _, b := range turn.Blocks {
		k := b.Kind
		if b.ToolName != "" {
			k += ":" + b.ToolName
		}
		kinds = append(kinds, k)
	}
	s := string(turn.Role) + " " + strconv.Quote(turn.Text) + " " + strings.Join(kinds, ",")
	if turn.ToolResultOnly {
		s += " result"
	}
	if turn.Meta {
		s += " meta"
	}
	if turn.Sidechain {
		s += " side"
	}
	return s
}

func checkTurns(t *testing.T, tr *transcript.Transcript, want []string) {
	t.Helper()
	got := make([]string, len(tr.Turns))
	for i, turn := range tr.Turns {
		got[i] = turnSummary(turn)
		if turn.Index != i {
			t.Errorf("turn %d has Index %d", i, turn.Index)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("turns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadClaudeEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		stats transcript.Stats
		turns []string
	}{
		{
			name: "corrupt and truncated lines are skipped",
			in: "not json at all\n" +
				`{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" +
				`{"type":"assistant","message":{"id":"m1","role":"assist`,
			stats: transcript.Stats{Lines: 3, Corrupt: 2, Turns: 1},
			turns: []string{`user "hi" text`},
		},
		{
			name:  "JSON that is not an object is corrupt",
			in:    "[1,2]\n\"str\"\n42\n",
			stats: transcript.Stats{Lines: 3, Corrupt: 3},
		},
		{
			name: "unknown types and fields are ignored",
			in: `{"type":"brand-new-record","sessionId":"s1","x":{"y":1}}` + "\n" +
				`{"type":"progress","data":{"type":"hook_progress"},"cwd":"/w"}` + "\n" +
				`{"type":"user","futureField":[1,2],"message":{"role":"user","content":"hello","extra":true}}` + "\n",
			stats: transcript.Stats{Lines: 3, Ignored: 2, Turns: 1},
			turns: []string{`user "hello" text`},
		},
		{
			name: "a wrong field type only corrupts a record that is read",
			in: `{"type":"progress","timestamp":5}` + "\n" +
				`{"type":"user","timestamp":5,"message":{"role":"user","content":"x"}}` + "\n" +
				`{"type":"user","message":{"role":"user","content":5}}` + "\n" +
				`{"type":"user","message":"not an object"}` + "\n",
			stats: transcript.Stats{Lines: 4, Corrupt: 3, Ignored: 1},
		},
		{
			name: "one response split over lines around tool results is one turn",
			in: `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Checking both."}]}}` + "\n" +
				`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}` + "\n" +
				`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}}` + "\n" +
				`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"REDACTED"}]}}` + "\n" +
				`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.go"}}]}}` + "\n" +
				`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"package a"}]}]}}` + "\n" +
				`{"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Done."}]}}` + "\n",
			stats: transcript.Stats{Lines: 7, Turns: 4},
			turns: []string{
				`assistant "Checking both." text,tool_use:Bash,thinking,tool_use:Read`,
				`user "" tool_result:Bash result`,
				`user "" tool_result:Read result`,
				`assistant "Done." text`,
			},
		},
		{
			name: "sidechain, meta and compaction flags",
			in: `{"type":"user","isSidechain":true,"message":{"role":"user","content":"explore the parser"}}` + "\n" +
				`{"type":"user","isMeta":true,"message":{"role":"user","content":"<system-reminder>hook said</system-reminder>"}}` + "\n" +
				`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued…"}}` + "\n" +
				`{"type":"user","message":{"role":"user","content":"<local-command-stdout>ok</local-command-stdout>"}}` + "\n" +
				`{"type":"assistant","isApiErrorMessage":true,"message":{"id":"m9","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"API Error: 529"}]}}` + "\n",
			stats: transcript.Stats{Lines: 5, Turns: 5},
			turns: []string{
				`user "explore the parser" text side`,
				`user "<system-reminder>hook said</system-reminder>" text meta`,
				`user "This session is being continued…" text meta`,
				`user "<local-command-stdout>ok</local-command-stdout>" text meta`,
				`assistant "API Error: 529" text meta`,
			},
		},
		{
			name: "slash command reads as typed",
			in: `{"type":"user","message":{"role":"user","content":"<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 42</command-args>"}}` + "\n" +
				`{"type":"user","message":{"role":"user","content":"<command-name>/clear</command-name><command-args></command-args>"}}` + "\n",
			stats: transcript.Stats{Lines: 2, Turns: 2},
			turns: []string{`user "/review PR 42" text`, `user "/clear" text`},
		},
		{
			name:  "text beside tool results is what the person said",
			in:    `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"out"},{"type":"text","text":"and stop after this"},{"type":"image","source":{}}]}}`,
			stats: transcript.Stats{Lines: 1, Turns: 1},
			turns: []string{`user "and stop after this" tool_result,text,image`},
		},
		{
			name: "empty content, blank lines and CRLF",
			in: "\r\n   \n" + `{"type":"user","message":{"role":"user","content":""}}` + "\r\n" +
				`{"type":"user","message":{"role":"user","content":[]}}` + "\r\n\r\n" +
				`{"type":"user","message":{"role":"user","content":"next session: archive"}}` + "\r\n",
			stats: transcript.Stats{Lines: 3, Ignored: 2, Turns: 1},
			turns: []string{`user "next session: archive" text`},
		},
		{
			name:  "invalid UTF-8 is replaced, not fatal",
			in:    "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9 \xff\xfe\"}}\n\xff\xfe\xfd\n",
			stats: transcript.Stats{Lines: 2, Corrupt: 1, Turns: 1},
			turns: []string{"user \"caf\ufffd \ufffd\ufffd\" text"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.Read(strings.NewReader(tt.in), transcript.FormatClaude)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Stats != tt.stats {
				t.Errorf("Stats = %+v, want %+v", tr.Stats, tt.stats)
			}
			checkTurns(t, tr, tt.turns)
		})
	}
}

func TestReadFileMarksSubagentTranscripts(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "sess", "subagents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent-x1.jsonl")
	line := `{"type":"user","sessionId":"sess","message":{"role":"user","content":"look around"}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Turns) != 1 || !tr.Turns[0].Sidechain || len(tr.Conversation()) != 0 {
		t.Errorf("turns = %+v, want one sidechain turn outside Conversation", tr.Turns)
	}
}
