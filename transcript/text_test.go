package transcript_test

import (
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/transcript"
)

func TestReadTextFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		stats transcript.Stats
		turns []string
	}{
		{
			file:  "testdata/text/session.md",
			stats: transcript.Stats{Lines: 9, Ignored: 2, Turns: 5},
			turns: []string{
				`user "Can you tidy the journal archive?\nIt has entries from 2024 that belong in the archive file." text`,
				`assistant "Done. I moved 14 entries.\n\nFollow-up: the archive index needs regenerating — let's do that in the next session." text`,
				`user "그건 틀렸다, 15개여야 해." text`,
				`user "다음 세션에 인덱스도 다시 만들자." text`,
				`assistant "You're right, one entry had a malformed date. TODO: fix the date parser later." text`,
			},
		},
		{
			file:  "testdata/text/notes.txt",
			stats: transcript.Stats{Lines: 2, Turns: 1},
			turns: []string{
				`user "Remember to come back to the flaky hook test.\n\nAlso: the check command should warn, not block, on untagged follow-ups." text`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != transcript.FormatText {
				t.Errorf("Format = %q, want text", tr.Format)
			}
			if tr.Stats != tt.stats {
				t.Errorf("Stats = %+v, want %+v", tr.Stats, tt.stats)
			}
			checkTurns(t, tr, tt.turns)
		})
	}
}

func TestReadTextMarkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		stats transcript.Stats
		turns []string
	}{
		{
			name:  "labels and decorations",
			in:    "Human: a\nAI: b\nyou: c\n**Claude**: d\n### Assistant: e\n  USER : f\n어시스턴트: g\n",
			stats: transcript.Stats{Lines: 7, Turns: 7},
			turns: []string{
				`user "a" text`, `assistant "b" text`, `user "c" text`, `assistant "d" text`,
				`assistant "e" text`, `user "f" text`, `assistant "g" text`,
			},
		},
		{
			name:  "words that merely start with a label are text",
			in:    "User: look at\nUsername: bob\nAIM: none\nYour call\nAssistant:\n",
			stats: transcript.Stats{Lines: 5, Turns: 2},
			turns: []string{`user "look at\nUsername: bob\nAIM: none\nYour call" text`, `assistant "" `},
		},
		{
			name:  "preamble before the first label is ignored",
			in:    "# Title\n\nintro\nUser: hi\n",
			stats: transcript.Stats{Lines: 3, Ignored: 2, Turns: 1},
			turns: []string{`user "hi" text`},
		},
		{
			name:  "blank input",
			in:    "\n  \n\t\n",
			stats: transcript.Stats{},
		},
		{
			name:  "invalid UTF-8 and CRLF",
			in:    "User: caf\xe9\r\nAssistant: ok\r\n",
			stats: transcript.Stats{Lines: 2, Turns: 2},
			turns: []string{"user \"caf\ufffd\" text", `assistant "ok" text`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.Read(strings.NewReader(tt.in), transcript.FormatText)
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
