package transcript_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/git-scribe/git-scribe/transcript"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	short, err := os.ReadFile("testdata/claude/short.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rollout, err := os.ReadFile(codexRollout)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want transcript.Format
	}{
		{"claude real file", string(short), transcript.FormatClaude},
		{"claude first 300 bytes, truncated", string(short[:300]), transcript.FormatClaude},
		{"claude summary record", `{"type":"summary","summary":"x","leafUuid":"u"}`, transcript.FormatClaude},
		{"claude unknown record with sessionId", `{"type":"new","sessionId":"s"}`, transcript.FormatClaude},
		{"codex rollout", string(rollout), transcript.FormatCodex},
		{"codex after an unknown line", "{\"weird\":1}\n" + `{"timestamp":"t","type":"event_msg","payload":{"type":"task_started"}}`, transcript.FormatCodex},
		{"codex bare item", `{"type":"message","role":"user","content":[]}`, transcript.FormatCodex},
		{"codex bare function call", `{"type":"function_call","name":"shell","arguments":"{}"}`, transcript.FormatCodex},
		{"text", "User: hi\nAssistant: hello\n", transcript.FormatText},
		{"markdown", "# Notes\n\n{\"type\":\"user\"}\n", transcript.FormatText},
		{"blank lines before text", "\n\n  \nplain words", transcript.FormatText},
		{"empty", "", transcript.FormatText},
		{"unsettled JSON reads as claude", "{\"a\":1}\n{broken", transcript.FormatClaude},
		{"binary", "\x00\xff\xfe{", transcript.FormatText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := transcript.Detect([]byte(tt.in)); got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
			tr, err := transcript.Read(strings.NewReader(tt.in), "")
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != tt.want {
				t.Errorf("Read(\"\").Format = %q, want %q", tr.Format, tt.want)
			}
		})
	}
}

// TestReadDetectsAfterManyLines checks that the lines held back for
// detection are replayed, not lost.
func TestReadDetectsAfterManyLines(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("{\"x\":1}\n\n", 40) + `{"type":"user","message":{"role":"user","content":"late"}}` + "\n"
	tr, err := transcript.Read(strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	want := transcript.Stats{Lines: 41, Ignored: 40, Turns: 1}
	if tr.Format != transcript.FormatClaude || tr.Stats != want {
		t.Errorf("Format, Stats = %q, %+v; want claude, %+v", tr.Format, tr.Stats, want)
	}
}

func TestReadLongLines(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 5<<20) // well past bufio.Scanner's 64 KiB
	tests := []struct {
		name string
		in   string
		f    transcript.Format
	}{
		{"claude", `{"type":"user","message":{"role":"user","content":"` + big + `"}}` + "\n" + `{"type":"user","message":{"role":"user","content":"after"}}`, transcript.FormatClaude},
		{"codex", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + big + `"}]}}` + "\n" + `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"after"}]}}`, transcript.FormatCodex},
		{"text", "User: " + big + "\nUser: after", transcript.FormatText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.Read(strings.NewReader(tt.in), "")
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != tt.f || len(tr.Turns) != 2 || len(tr.Turns[0].Text) != len(big) || tr.Turns[1].Text != "after" {
				t.Errorf("Format %q, %d turns, want %q with a %d-byte turn then \"after\"", tr.Format, len(tr.Turns), tt.f, len(big))
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	if _, err := transcript.Read(strings.NewReader(""), "yaml"); !errors.Is(err, transcript.ErrUnknownFormat) {
		t.Errorf("unknown format: err = %v, want ErrUnknownFormat", err)
	}
	boom := errors.New("disk on fire")
	for _, f := range []transcript.Format{"", transcript.FormatClaude, transcript.FormatText} {
		if _, err := transcript.Read(iotest.ErrReader(boom), f); !errors.Is(err, boom) {
			t.Errorf("format %q, failing at once: err = %v, want the reader's error", f, err)
		}
		midway := io.MultiReader(strings.NewReader("User: hi\n"), iotest.ErrReader(boom))
		if _, err := transcript.Read(midway, f); !errors.Is(err, boom) {
			t.Errorf("format %q, failing midway: err = %v, want the reader's error", f, err)
		}
	}
	_, err := transcript.ReadFile("testdata/no-such-file.jsonl")
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no-such-file.jsonl") {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestLastAndConversation(t *testing.T) {
	t.Parallel()
	in := "User: one\nAssistant: two\nUser: three\nAssistant:\n"
	tr, err := transcript.Read(strings.NewReader(in), transcript.FormatText)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		n    int
		want []int
	}{
		{-1, nil}, {0, nil}, {1, []int{3}}, {3, []int{1, 2, 3}}, {50, []int{0, 1, 2, 3}},
	}
	for _, tt := range tests {
		var got []int
		for _, turn := range tr.Last(tt.n) {
			got = append(got, turn.Index)
		}
		if !equalInts(got, tt.want) {
			t.Errorf("Last(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
	last := tr.Last(2)
	_ = append(last, transcript.Turn{Text: "clobber"})
	if tr.Turns[len(tr.Turns)-1].Text == "clobber" {
		t.Error("appending to Last's result wrote into the transcript")
	}
	var texts []string
	for _, turn := range tr.Conversation() {
		texts = append(texts, turn.Text)
	}
	if got := strings.Join(texts, "|"); got != "one|two|three" {
		t.Errorf("Conversation = %q, want one|two|three (empty turn left out)", got)
	}
	var nilT *transcript.Transcript
	if nilT.Last(3) != nil || nilT.Conversation() != nil {
		t.Error("nil transcript: want nil results")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReadFileFormats checks extension handling: .md and .txt are text even
// when they hold JSON lines; other files are detected.
func TestReadFileFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := []byte(`{"type":"user","message":{"role":"user","content":"hi"}}` + "\n")
	tests := []struct {
		name string
		want transcript.Format
	}{
		{"export.md", transcript.FormatText},
		{"export.TXT", transcript.FormatText},
		{"session.jsonl", transcript.FormatClaude},
		{"session", transcript.FormatClaude},
	}
	for _, tt := range tests {
		path := dir + "/" + tt.name
		if err := os.WriteFile(path, line, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := transcript.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Format != tt.want {
			t.Errorf("%s: Format = %q, want %q", tt.name, tr.Format, tt.want)
		}
	}
}
