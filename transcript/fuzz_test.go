package transcript_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/transcript"
)

// Seed corpora beyond these live in testdata/fuzz/<FuzzName>/.

func FuzzReadClaude(f *testing.F) {
	addFileSeed(f, "testdata/claude/short.jsonl")
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}}` + "\n" +
		`{"type":"assistant","message":{"id":"m","content":"late text"}}`))
	f.Add([]byte("{\"type\":\"user\",\"isMeta\":true,\"message\":{\"content\":\"\xff<command-name>/x</command-name>\"}}\r\n{\"type\":"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRead(t, data, transcript.FormatClaude)
		checkRead(t, data, "")
	})
}

func FuzzReadCodex(f *testing.F) {
	addFileSeed(f, codexRollout)
	addFileSeed(f, "testdata/codex/legacy-rollout.jsonl")
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":[{"type":"input_text","text":"t"}]}}}` + "\n" +
		`{"type":"session_meta","payload":{"id":"s","cwd":"/w"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRead(t, data, transcript.FormatCodex)
		checkRead(t, data, "")
	})
}

func FuzzReadText(f *testing.F) {
	addFileSeed(f, "testdata/text/session.md")
	addFileSeed(f, "testdata/text/notes.txt")
	f.Add([]byte("intro\n**User**：\xe9\nAI:\n\n사용자: 다음 세션\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRead(t, data, transcript.FormatText)
		checkRead(t, data, "")
	})
}

func addFileSeed(f *testing.F, path string) {
	f.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
}

// checkRead reads data as format and checks what must hold for any input:
// no error from an in-memory reader, Stats agreeing with the input and the
// turns, valid UTF-8 text, consistent flags and helpers.
func checkRead(t *testing.T, data []byte, format transcript.Format) {
	t.Helper()
	tr, err := transcript.Read(bytes.NewReader(data), format)
	if err != nil {
		t.Fatalf("Read(%q): %v", format, err)
	}
	if format != "" && tr.Format != format {
		t.Fatalf("Format = %q, want %q", tr.Format, format)
	}
	if d := transcript.Detect(data); format == "" && tr.Format != d && len(bytes.Split(data, []byte("\n"))) <= 32 {
		// With few lines Read sees what Detect sees.
		t.Fatalf("Read detected %q, Detect %q", tr.Format, d)
	}
	st := tr.Stats
	if want := nonBlankLines(data); st.Lines != want {
		t.Fatalf("Stats.Lines = %d, want %d non-blank lines", st.Lines, want)
	}
	if st.Turns != len(tr.Turns) {
		t.Fatalf("Stats.Turns = %d, len(Turns) = %d", st.Turns, len(tr.Turns))
	}
	if st.Corrupt < 0 || st.Ignored < 0 || st.Corrupt+st.Ignored+st.Turns > st.Lines {
		t.Fatalf("Stats %+v: corrupt + ignored + turns exceeds lines", st)
	}
	for i, turn := range tr.Turns {
		if turn.Index != i {
			t.Fatalf("turn %d has Index %d", i, turn.Index)
		}
		if turn.Role != transcript.RoleUser && turn.Role != transcript.RoleAssistant {
			t.Fatalf("turn %d: role %q", i, turn.Role)
		}
		if turn.ToolResultOnly && turn.Role != transcript.RoleUser {
			t.Fatalf("turn %d: tool results on an %s turn", i, turn.Role)
		}
		if !utf8.ValidString(turn.Text) {
			t.Fatalf("turn %d: Text is not UTF-8: %q", i, turn.Text)
		}
		for _, b := range turn.Blocks {
			if !utf8.ValidString(b.Text) || !utf8.ValidString(b.ToolName) {
				t.Fatalf("turn %d: block %q is not UTF-8", i, b.Kind)
			}
		}
	}
	for _, turn := range tr.Conversation() {
		if turn.ToolResultOnly || turn.Meta || turn.Sidechain || strings.TrimSpace(turn.Text) == "" {
			t.Fatalf("Conversation kept turn %d: %+v", turn.Index, turn)
		}
	}
	if n := len(tr.Last(50)); n != min(50, len(tr.Turns)) {
		t.Fatalf("Last(50) = %d turns of %d", n, len(tr.Turns))
	}
}

func nonBlankLines(data []byte) int {
	n := 0
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}
