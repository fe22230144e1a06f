package notes_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/notes"
)

const progressDoc = `# Milestone 1

## Phase 1 parser
- [ ] Phase 1 parser
- [x] parser docs (done 2026-01-01T10:00:00+09:00)
  * [ ] Nested task
+ [X] Shipped thing

` + "```md\n- [ ] not an item\n```" + `

## Phase 2
	- [ ] tabbed item  
- [ ] Write README
- [ ] Write README tests
- [ ]
- [ ] (done 2026-01-01)
-[ ] no space
- [y] bad mark
`

func TestParseProgress(t *testing.T) {
	t.Parallel()
	want := []notes.Item{
		{Line: 3, Text: "Phase 1 parser", Heading: "Phase 1 parser"},
		{Line: 4, Text: "parser docs", Done: true, Heading: "Phase 1 parser"},
		{Line: 5, Text: "Nested task", Heading: "Phase 1 parser", Indent: "  "},
		{Line: 6, Text: "Shipped thing", Done: true, Heading: "Phase 1 parser"},
		{Line: 13, Text: "tabbed item", Heading: "Phase 2", Indent: "\t"},
		{Line: 14, Text: "Write README", Heading: "Phase 2"},
		{Line: 15, Text: "Write README tests", Heading: "Phase 2"},
	}
	tests := []struct {
		name string
		in   string
		want []notes.Item
	}{
		{"doc", progressDoc, want},
		{"crlf", strings.ReplaceAll(progressDoc, "\n", "\r\n"), want},
		{"empty", "", nil},
		{"unclosed fence", "~~~\n- [ ] hidden\n", nil},
		{"non-utf8", "- [ ] caf\xe9\n", []notes.Item{{Line: 0, Text: "caf\xe9"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := notes.ParseProgress(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseProgress =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	items := notes.ParseProgress(progressDoc)
	tests := []struct {
		query    string
		wantText string
		wantErr  string // substring of the error
		amb      []string
	}{
		{query: "Phase 1 parser", wantText: "Phase 1 parser"},
		{query: "  phase 1   PARSER ", wantText: "Phase 1 parser"},
		{query: "Write README", wantText: "Write README"},
		{query: "write readme", wantText: "Write README"},
		{query: "write", amb: []string{"Write README", "Write README tests"},
			wantErr: `progress.md has 2 items matching "write": "Write README", "Write README tests"; name one exactly`},
		{query: "parser", amb: []string{"Phase 1 parser", "parser docs"},
			wantErr: `progress.md has 2 items matching "parser": "Phase 1 parser", "parser docs"; name one exactly`},
		{query: "nested", wantText: "Nested task"},
		{query: "shipped", wantText: "Shipped thing"},
		{query: "tests", wantText: "Write README tests"},
		{query: "zzz", wantErr: `progress.md has no item matching "zzz"; open items: "Phase 1 parser", "Nested task", "tabbed item", "Write README", "Write README tests"; name one of them`},
		{query: "", wantErr: "name is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			got, err := notes.Match(items, tt.query)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				var amb *notes.AmbiguousError
				if tt.amb != nil && (!errors.As(err, &amb) || !reflect.DeepEqual(amb.Candidates, tt.amb)) {
					t.Errorf("err = %#v, want candidates %q", err, tt.amb)
				}
				var nf *notes.NotFoundError
				if tt.amb == nil && !errors.As(err, &nf) {
					t.Errorf("err = %#v, want *NotFoundError", err)
				}
				return
			}
			if err != nil || got.Text != tt.wantText {
				t.Errorf("Match = %q, %v; want %q", got.Text, err, tt.wantText)
			}
		})
	}
}

func TestMatchDuplicates(t *testing.T) {
	t.Parallel()
	items := notes.ParseProgress("- [ ] same\n- [ ] same\n")
	_, err := notes.Match(items, "same")
	if err == nil || !strings.Contains(err.Error(), "identical items") || !strings.Contains(err.Error(), "lines 1, 2") {
		t.Errorf("err = %v", err)
	}
	_, err = notes.Match(nil, "x")
	if err == nil || !strings.Contains(err.Error(), "no open items") {
		t.Errorf("err = %v", err)
	}
}

func TestTick(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 21, 25, 32, 0, kst)
	stamp := " (done 2026-11-30T21:25:32+09:00)"
	tests := []struct {
		name        string
		in          string
		query       string
		wantLine    string // expected new text of the item's line; "" for no change
		wantChanged bool
	}{
		{"plain", "# P\n- [ ] Phase 1 parser\n- [ ] other\n", "Phase 1 parser", "- [x] Phase 1 parser" + stamp, true},
		{"crlf", "# P\r\n- [ ] Phase 1 parser\r\n- [ ] other\r\n", "Phase 1 parser", "- [x] Phase 1 parser" + stamp + "\r", true},
		{"no final newline", "- [ ] a\n* [ ]  last  ", "last", "* [x]  last" + stamp, true},
		{"stale annotation", "- [ ] redo (done 2025-01-01)\n", "redo", "- [x] redo" + stamp, true},
		{"already done", "- [x] done thing (done 2026-01-01)\n", "done thing", "", false},
		{"indented", "- [ ] a\n    - [ ] b\n", "b", "    - [x] b" + stamp, true},
		{"non-utf8 elsewhere", "\xff\xfe\n- [ ] item\n\xc3\n", "item", "- [x] item" + stamp, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			it, err := notes.Match(notes.ParseProgress(tt.in), tt.query)
			if err != nil {
				t.Fatal(err)
			}
			out, changed := notes.Tick(tt.in, it, at)
			if changed != tt.wantChanged {
				t.Fatalf("changed = %v, want %v", changed, tt.wantChanged)
			}
			if !changed {
				if out != tt.in {
					t.Errorf("text changed on a no-op")
				}
				return
			}
			inLines, outLines := strings.Split(tt.in, "\n"), strings.Split(out, "\n")
			if len(inLines) != len(outLines) {
				t.Fatalf("line count changed")
			}
			for i := range inLines {
				if i == it.Line {
					if outLines[i] != tt.wantLine {
						t.Errorf("ticked line = %q, want %q", outLines[i], tt.wantLine)
					}
				} else if inLines[i] != outLines[i] {
					t.Errorf("line %d changed: %q -> %q", i, inLines[i], outLines[i])
				}
			}
			// Ticking again is a no-op.
			again, _ := notes.Match(notes.ParseProgress(out), tt.query)
			if out2, changed := notes.Tick(out, again, at.Add(time.Hour)); changed || out2 != out {
				t.Errorf("second tick changed the text")
			}
		})
	}
}

func TestTickStale(t *testing.T) {
	t.Parallel()
	at := time.Now()
	text := "- [ ] a\n```\n- [ ] b\n```\n"
	tests := []struct {
		name string
		it   notes.Item
	}{
		{"wrong text", notes.Item{Line: 0, Text: "b"}},
		{"out of range", notes.Item{Line: 99, Text: "a"}},
		{"negative", notes.Item{Line: -1, Text: "a"}},
		{"inside fence", notes.Item{Line: 2, Text: "b"}},
		{"not a checkbox", notes.Item{Line: 1, Text: "```"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if out, changed := notes.Tick(text, tt.it, at); changed || out != text {
				t.Errorf("Tick changed text for a stale item")
			}
		})
	}
}
