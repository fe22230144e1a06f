package notes_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/notes"
)

var kst = time.FixedZone("KST", 9*3600)

func TestFormatTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"offset", time.Date(2026, 11, 30, 21, 25, 32, 999, kst), "2026-11-30T21:25:32+09:00"},
		{"utc is numeric", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "2026-01-02T03:04:05+00:00"},
		{"negative", time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", -5*3600-30*60)), "2026-01-02T03:04:05-05:30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := notes.FormatTime(tt.in); got != tt.want {
				t.Errorf("FormatTime = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"2026-11-30T21:25:32+09:00", time.Date(2026, 11, 30, 21, 25, 32, 0, kst), false},
		{"2026-11-30T12:25:32Z", time.Date(2026, 11, 30, 12, 25, 32, 0, time.UTC), false},
		{"2026-11-30T21:25:32.5+09:00", time.Date(2026, 11, 30, 21, 25, 32, 5e8, kst), false},
		{"2026-11-30 21:25 KST", time.Date(2026, 11, 30, 21, 25, 0, 0, kst), false},
		{"2026-11-30 21:25:32 +0900", time.Date(2026, 11, 30, 21, 25, 32, 0, kst), false},
		{"2026-11-30", time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), false},
		{"yesterday", time.Time{}, true},
		{"", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := notes.ParseTime(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("ParseTime(%q) err = %v, want error %v", tt.in, err, tt.err)
			}
			if !got.Equal(tt.want) {
				t.Errorf("ParseTime(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func bullets(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d", prefix, i+1)
	}
	return out
}

func TestBridgeNoteRender(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 21, 25, 32, 0, kst)
	tests := []struct {
		name string
		note notes.BridgeNote
		want string
	}{
		{
			name: "full spacious",
			note: notes.BridgeNote{
				Urgent:        "prod deploy is half done",
				Updated:       at,
				Witness:       "WARN",
				Context:       []string{"Parser rewritten for CRLF input."},
				CarryForward:  []string{"Fuzzing of the archive path is not finished."},
				OpenQuestions: []string{"Should archive keep 50 entries?"},
				Traps:         []string{"go test caches fuzz results."},
				Commit:        "abc1234",
				Cites:         []string{"notes/journal.go", "dir/b.go"},
			},
			want: "⚠️ URGENT: prod deploy is half done\n\n" +
				"# Bridge Note\n\n" +
				"Updated: 2026-11-30T21:25:32+09:00\n" +
				"Witness: WARN\n" +
				"\n## Context\n\n- Parser rewritten for CRLF input.\n" +
				"\n## Carry Forward\n\n- Fuzzing of the archive path is not finished.\n" +
				"\n## Open Questions\n\n- Should archive keep 50 entries?\n" +
				"\n## Traps to Avoid\n\n- go test caches fuzz results.\n" +
				"\n<!-- scribe: commit=abc1234 cites=notes/journal.go,dir/b.go --> <!-- markdownlint-disable-file MD013 MD041 -->\n",
		},
		{
			name: "empty sections",
			note: notes.BridgeNote{Updated: at},
			want: "# Bridge Note\n\nUpdated: 2026-11-30T21:25:32+09:00\n" +
				"\n## Context\n\nNone.\n" +
				"\n## Carry Forward\n\nNo carryover.\n" +
				"\n## Open Questions\n\nNone.\n" +
				"\n<!-- markdownlint-disable-file MD013 -->\n",
		},
		{
			name: "bad witness dropped and multi-line bullets collapsed",
			note: notes.BridgeNote{
				Updated:      at,
				Witness:      "WARN: not-covered-by-tests in parser.go:12",
				Context:      []string{"line one\nline two\r\n  three", "   ", ""},
				CarryForward: []string{"x"},
			},
			want: "# Bridge Note\n\nUpdated: 2026-11-30T21:25:32+09:00\n" +
				"\n## Context\n\n- line one line two three\n" +
				"\n## Carry Forward\n\n- x\n" +
				"\n## Open Questions\n\nNone.\n" +
				"\n<!-- markdownlint-disable-file MD013 -->\n",
		},
		{
			name: "hostile cites escaped",
			note: notes.BridgeNote{Updated: at, Commit: "deadbeef", Cites: []string{"a,b.go", "x --> y.md", "100%.txt", "한글.md"}},
			want: "# Bridge Note\n\nUpdated: 2026-11-30T21:25:32+09:00\n" +
				"\n## Context\n\nNone.\n\n## Carry Forward\n\nNo carryover.\n\n## Open Questions\n\nNone.\n" +
				"\n<!-- scribe: commit=deadbeef cites=a%2Cb.go,x%20--%3E%20y.md,100%25.txt,한글.md --> <!-- markdownlint-disable-file MD013 -->\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.note.Render()
			if got != tt.want {
				t.Errorf("Render =\n%s\nwant\n%s", got, tt.want)
			}
			if n := tt.note.LineCount(); n > notes.MaxBridgeLines {
				t.Errorf("LineCount = %d, over budget", n)
			}
			assertBridgeRoundTrip(t, tt.note)
		})
	}
}

func TestBridgeNoteBudget(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 21, 25, 32, 0, kst)
	tests := []struct {
		name string
		note notes.BridgeNote
		// wantMore are substrings that must appear.
		wantMore []string
	}{
		{
			name:     "huge carry forward",
			note:     notes.BridgeNote{Updated: at, CarryForward: bullets("carry", 1000)},
			wantMore: []string{"- carry 1\n", "more\n"},
		},
		{
			name: "everything huge",
			note: notes.BridgeNote{
				Urgent: "fire", Updated: at, Witness: "BLOCK",
				Context: bullets("ctx", 40), CarryForward: bullets("carry", 40),
				OpenQuestions: bullets("q", 40), Traps: bullets("trap", 40),
				Commit: "abc1234", Cites: bullets("file", 40),
			},
			wantMore: []string{"⚠️ URGENT: fire\n", "- ctx 1\n", "- carry 1\n", "- q 1\n", "- trap 1\n", "- carry 2\n"},
		},
		{
			name:     "twelve bullets fit",
			note:     notes.BridgeNote{Updated: at, Context: bullets("ctx", 12)},
			wantMore: []string{"- ctx 12\n"},
		},
		{
			// Without provenance the lint directive is a line of its own,
			// which the budget does not count: the note keeps its bullets.
			name:     "urgent and no provenance",
			note:     notes.BridgeNote{Urgent: "fire", Updated: at, Context: bullets("ctx", 11)},
			wantMore: []string{"- ctx 11\n", "\n<!-- markdownlint-disable-file MD013 MD041 -->\n"},
		},
		{
			name:     "very long bullet capped",
			note:     notes.BridgeNote{Updated: at, Context: []string{strings.Repeat("word ", 500)}},
			wantMore: []string{"…\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.note.Render()
			if n := notes.TextLines(got); n > notes.MaxBridgeLines {
				t.Fatalf("rendered %d lines of text, want at most %d:\n%s", n, notes.MaxBridgeLines, got)
			}
			for _, want := range tt.wantMore {
				if !strings.Contains(got, want) {
					t.Errorf("Render lacks %q:\n%s", want, got)
				}
			}
			if tt.note.Urgent != "" && !strings.HasPrefix(got, "⚠️ URGENT: ") {
				t.Errorf("URGENT is not the first line:\n%s", got)
			}
			for _, line := range strings.Split(got, "\n") {
				if r := []rune(line); len(r) > notes.MaxBridgeItemRunes+20 && !strings.HasPrefix(line, "<!--") {
					t.Errorf("line of %d runes", len(r))
				}
			}
			assertBridgeRoundTrip(t, tt.note)
		})
	}
}

func TestBridgeNoteWitnessIsolation(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"PASS", "WARN", "BLOCK", "pass", " warn ", "", "FAIL", "WARN iter2 not-covered", "BLOCK: secret leak in a.go", "PASS\nfindings"} {
		t.Run(w, func(t *testing.T) {
			t.Parallel()
			got := notes.BridgeNote{Witness: w}.Render()
			var line string
			for _, l := range strings.Split(got, "\n") {
				if strings.HasPrefix(l, "Witness:") {
					line = l
				}
			}
			want := ""
			if v := notes.CanonicalVerdict(w); v != "" {
				want = "Witness: " + v
			}
			if line != want {
				t.Errorf("Witness %q rendered line %q, want %q", w, line, want)
			}
		})
	}
}

func TestParseBridgeNote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    notes.BridgeNote
		wantErr error
	}{
		{
			name: "hand edited",
			in: "# Bridge Note\r\nUpdated: 2026-03-01 14:22 KST\r\nWitness: block\r\n\r\n" +
				"## Context\r\n* did a thing\r\n  that wrapped\r\nprose line\r\n" +
				"## Notes\r\n- ignored\r\n" +
				"## Carry forward:\r\nNo carryover.\r\n" +
				"## Open Questions\r\n- why?\r\n" +
				"### sub\r\n- still a question\r\n",
			want: notes.BridgeNote{
				Updated:       time.Date(2026, 3, 1, 14, 22, 0, 0, kst),
				Witness:       "BLOCK",
				Context:       []string{"did a thing that wrapped", "prose line"},
				OpenQuestions: []string{"why?", "still a question"},
			},
		},
		{
			name: "urgent without emoji, bad witness, bad time",
			in:   "URGENT: fix it\n# Bridge Note\nUpdated: soon\nWitness: WARN see a.go\n## Traps\n- t\n<!-- scribe: cites=a.go,,a.go,b%zz -->\n",
			want: notes.BridgeNote{Urgent: "fix it", Traps: []string{"t"}, Cites: []string{"a.go", "b%zz"}},
		},
		{name: "empty", in: "", wantErr: notes.ErrNotBridgeNote},
		{name: "not a note", in: "hello\nworld\n", wantErr: notes.ErrNotBridgeNote},
		{name: "non-utf8", in: "# Bridge Note\n## Context\n- \xff\xfe ok\n", want: notes.BridgeNote{Context: []string{"\uFFFD ok"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := notes.ParseBridgeNote(tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				return
			}
			if !bridgeEqual(got, tt.want) {
				t.Errorf("ParseBridgeNote =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

// TestBridgeNoteEscapesMarkdown: the note holds the session's text as
// markdown that lints clean (autolinks, an escaped "<") and reads back as
// it was written.
func TestBridgeNoteEscapesMarkdown(t *testing.T) {
	t.Parallel()
	b := notes.BridgeNote{
		Urgent:        "the <form> posts to https://example.com/x twice",
		Updated:       time.Date(2026, 3, 1, 14, 22, 0, 0, kst),
		Context:       []string{"Moved <div class=\"a\"> into the layout; see https://example.com/pr/7."},
		CarryForward:  []string{"(web) mail ada@example.com about www.example.com"},
		OpenQuestions: []string{`Is \<b> still needed? Or <!-- this -->?`, "> not a quote"},
		Traps:         []string{"`<br>` in code stays as it is"},
		Commit:        "abc1234",
	}
	r := b.Render()
	for _, want := range []string{"⚠️ URGENT: the \\<form> posts to <https://example.com/x> twice", `- Moved \<div class="a"> into the layout; see <https://example.com/pr/7>.`,
		"<ada@example.com> about www\\.example.com", `\\\<b>`, `\<!-- this -->`, "- `<br>` in code", "- \\> not a quote"} {
		if !strings.Contains(r, want) {
			t.Errorf("the note lacks %q:\n%s", want, r)
		}
	}
	assertBridgeRoundTrip(t, b)
}

// bridgeEqual compares notes, times by instant.
func bridgeEqual(a, b notes.BridgeNote) bool {
	if !a.Updated.Equal(b.Updated) {
		return false
	}
	a.Updated, b.Updated = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// assertBridgeRoundTrip checks Parse(Render(b)) == Normalize(b) and that a
// second render is byte-identical.
func assertBridgeRoundTrip(t *testing.T, b notes.BridgeNote) {
	t.Helper()
	r1 := b.Render()
	p, err := notes.ParseBridgeNote(r1)
	if err != nil {
		t.Fatalf("ParseBridgeNote(Render) error: %v\n%s", err, r1)
	}
	if want := b.Normalize(); !bridgeEqual(p, want) {
		t.Fatalf("ParseBridgeNote(Render(b)) =\n%#v\nwant Normalize(b) =\n%#v\nrendered:\n%s", p, want, r1)
	}
	if r2 := p.Render(); r2 != r1 {
		t.Fatalf("render not stable:\n%s\nthen\n%s", r1, r2)
	}
	if n := notes.TextLines(r1); n > notes.MaxBridgeLines {
		t.Fatalf("rendered %d lines of text", n)
	}
}
