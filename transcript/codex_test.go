package transcript_test

import (
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/transcript"
)

const codexRollout = "testdata/codex/rollout-2026-02-12T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"

func TestReadCodexFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		sessionID string
		cwd       string
		stats     transcript.Stats
		turns     []string
		conv      int
	}{
		{
			// 24 lines: 12 metadata or mirror lines (session_meta, developer,
			// 2 turn_context, 7 event_msg, compacted), a truncated last line.
			file:      codexRollout,
			sessionID: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
			cwd:       "/home/dev/projects/vault",
			stats:     transcript.Stats{Lines: 24, Corrupt: 1, Ignored: 12, Turns: 10},
			turns: []string{
				`user "# AGENTS.md instructions for /home/dev/projects/vault\n\n<INSTRUCTIONS>\nAlways run go test before committing.\n</INSTRUCTIONS>" text meta`,
				`user "<environment_context>\n  <cwd>/home/dev/projects/vault</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n</environment_context>" text meta`,
				`user "Fix the flaky journal test. We can come back to the archive rotation in the next session." text`,
				`assistant "" thinking,tool_use:shell`,
				`user "" tool_result:shell result`,
				`assistant "" tool_use:apply_patch`,
				`user "" tool_result:apply_patch result`,
				`assistant "The test sorted with the wrong comparator; fixed. TODO: archive rotation is still open for a later session." text`,
				`user "그건 틀렸다. 이 프로젝트에서는 항상 slices.Sort를 써. 아카이브는 다음 세션에 하자." text`,
				`assistant "알겠습니다. 아카이브 회전은 다음 세션으로 미룹니다." text`,
			},
			conv: 4,
		},
		{
			// Pre-envelope rollout: bare meta line, bare items, state lines.
			file:      "testdata/codex/legacy-rollout.jsonl",
			sessionID: "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
			stats:     transcript.Stats{Lines: 9, Ignored: 3, Turns: 5},
			turns: []string{
				`user "<environment_context>\n  <cwd>/home/dev/site</cwd>\n</environment_context>" text meta`,
				`user "add a follow-up: revisit the cache headers later" text`,
				`assistant "" thinking,tool_use:local_shell`,
				`user "" tool_result:local_shell result`,
				`assistant "Noted the follow-up about cache headers." text`,
			},
			conv: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != transcript.FormatCodex {
				t.Errorf("Format = %q, want codex (detected)", tr.Format)
			}
			if tr.SessionID != tt.sessionID || tr.CWD != tt.cwd {
				t.Errorf("SessionID, CWD = %q, %q; want %q, %q", tr.SessionID, tr.CWD, tt.sessionID, tt.cwd)
			}
			if tr.Stats != tt.stats {
				t.Errorf("Stats = %+v, want %+v", tr.Stats, tt.stats)
			}
			checkTurns(t, tr, tt.turns)
			if got := len(tr.Conversation()); got != tt.conv {
				t.Errorf("Conversation() = %d turns, want %d", got, tt.conv)
			}
		})
	}
}

func TestReadCodexDetails(t *testing.T) {
	t.Parallel()
	tr, err := transcript.ReadFile(codexRollout)
	if err != nil {
		t.Fatal(err)
	}
	// The person's message is counted once although event_msg mirrors it.
	n := 0
	for _, turn := range tr.Conversation() {
		if strings.Contains(turn.Text, "next session") && turn.Role == transcript.RoleUser {
			n++
		}
	}
	if n != 1 {
		t.Errorf("user message counted %d times, want 1", n)
	}
	a := tr.Turns[3]
	if a.Blocks[0].Text != "**Locating the flaky test**" {
		t.Errorf("reasoning summary = %q", a.Blocks[0].Text)
	}
	if !strings.Contains(a.Blocks[1].Text, `"go test ./notes/ -run Journal -count=20"`) {
		t.Errorf("function_call arguments = %q", a.Blocks[1].Text)
	}
	if !strings.Contains(tr.Turns[4].Blocks[0].Text, "FAIL: TestJournalAppend") {
		t.Errorf("function_call_output = %q", tr.Turns[4].Blocks[0].Text)
	}
	if want := time.Date(2026, 2, 12, 10, 0, 5, 10e6, time.UTC); !tr.Turns[2].Time.Equal(want) {
		t.Errorf("user Time = %v, want %v", tr.Turns[2].Time, want)
	}
	if tr.Turns[9].ID != "msg_b2" {
		t.Errorf("assistant ID = %q, want msg_b2", tr.Turns[9].ID)
	}
}

func TestReadCodexEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		stats transcript.Stats
		turns []string
	}{
		{
			name: "developer and system messages are not turns",
			in: `{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"be terse"}]}}` + "\n" +
				`{"type":"response_item","payload":{"type":"message","role":"system","content":[{"type":"input_text","text":"sys"}]}}` + "\n",
			stats: transcript.Stats{Lines: 2, Ignored: 2},
		},
		{
			name: "corrupt envelope and payload",
			in: `{"type":"response_item","payload":"oops"}` + "\n" +
				`{"type":"response_item","payload":{"type":"message","role":7}}` + "\n" +
				"{\"type\":\n" +
				`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}]}}` + "\n",
			stats: transcript.Stats{Lines: 4, Corrupt: 3, Turns: 1},
			turns: []string{`user "ok" text`},
		},
		{
			name: "unknown items, empty messages and images",
			in: `{"type":"response_item","payload":{"type":"ghost_call"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"message","role":"user","content":[]}}` + "\n" +
				`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:"},{"type":"input_text","text":"see screenshot"}]}}` + "\n" +
				`{"type":"brand_new","payload":{}}` + "\n",
			stats: transcript.Stats{Lines: 4, Ignored: 3, Turns: 1},
			turns: []string{`user "see screenshot" image,text`},
		},
		{
			name: "parallel calls: outputs share one tool-result turn",
			in: `{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"function_call","name":"read","arguments":"{}","call_id":"c2"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"one"}}` + "\n" +
				`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":{"content":"two","success":true}}}` + "\n" +
				`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"both ran"}]}}` + "\n",
			stats: transcript.Stats{Lines: 5, Turns: 3},
			turns: []string{
				`assistant "" tool_use:shell,tool_use:read`,
				`user "" tool_result:shell,tool_result:read result`,
				`assistant "both ran" text`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.Read(strings.NewReader(tt.in), transcript.FormatCodex)
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
