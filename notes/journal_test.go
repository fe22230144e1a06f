package notes_test

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/notes"
)

func TestParseWitness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []notes.WitnessEvent
	}{
		{"", nil},
		{"N/A", nil},
		{
			"PASS iter1; WARN iter2 not-covered-by-tests; BLOCK iter3 reason, with a comma",
			[]notes.WitnessEvent{
				{Verdict: "PASS", Iteration: "iter1"},
				{Verdict: "WARN", Iteration: "iter2", Findings: "not-covered-by-tests"},
				{Verdict: "BLOCK", Iteration: "iter3", Findings: "reason, with a comma"},
			},
		},
		{
			"PASS (iter 1), WARN (iter 2, not-covered-by-tests), PASS (iter 3)",
			[]notes.WitnessEvent{
				{Verdict: "PASS", Iteration: "iter 1"},
				{Verdict: "WARN", Iteration: "iter 2", Findings: "not-covered-by-tests"},
				{Verdict: "PASS", Iteration: "iter 3"},
			},
		},
		{
			"WARN (iter2) — tests do not cover the CRLF path; see a.go",
			[]notes.WitnessEvent{{Verdict: "WARN", Iteration: "iter2", Findings: "tests do not cover the CRLF path; see a.go"}},
		},
		{"blocked: user asked for X, got Y", []notes.WitnessEvent{{Verdict: "BLOCK", Findings: "user asked for X, got Y"}}},
		{"WARN -race flaky", []notes.WitnessEvent{{Verdict: "WARN", Findings: "-race flaky"}}},
		{"WARN (no tests)", []notes.WitnessEvent{{Verdict: "WARN", Findings: "no tests"}}},
		{"looks fine", []notes.WitnessEvent{{Findings: "looks fine"}}},
		{"PASS\nBLOCK iter2 x", []notes.WitnessEvent{{Verdict: "PASS"}, {Verdict: "BLOCK", Iteration: "iter2", Findings: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := notes.ParseWitness(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseWitness(%q) =\n%#v\nwant\n%#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFinalVerdict(t *testing.T) {
	t.Parallel()
	ev := notes.ParseWitness("PASS iter1; WARN iter2 x; looks ok")
	if got := notes.FinalVerdict(ev); got != "WARN" {
		t.Errorf("FinalVerdict = %q, want WARN", got)
	}
	if got := notes.FinalVerdict(nil); got != "" {
		t.Errorf("FinalVerdict(nil) = %q", got)
	}
}

func sampleEntry(i int) notes.Entry {
	return notes.Entry{
		Time:    time.Date(2026, 1, 1, 9, 0, 0, 0, kst).Add(time.Duration(i) * time.Hour),
		Summary: fmt.Sprintf("entry %d", i),
		Scope:   "notes/",
		Result:  notes.ResultShipped,
		Notable: "nothing",
		Commits: []string{fmt.Sprintf("%07x", 0xabc0000+i)},
	}
}

func TestEntryRender(t *testing.T) {
	t.Parallel()
	e := notes.Entry{
		Time:    time.Date(2026, 11, 30, 21, 25, 32, 0, kst),
		Summary: "Journal parser\nrewritten",
		Scope:   "notes/journal.go",
		Result:  "partial",
		Notable: "archive path\nunfinished",
		Tests:   "go test ./notes ok",
		Witness: notes.ParseWitness("PASS (iter 1), WARN (iter 2, not-covered-by-tests), PASS (iter 3, nits ignored)"),
		Commits: []string{"abc1234", " def5678 ", ""},
		Modes:   "bridge+journal+progress",
		Done:    []string{"Phase 1 parser"},
		Next:    []string{"(scribe) fuzz archive", "  "},
	}
	want := "## 2026-11-30T21:25:32+09:00 — Journal parser rewritten\n\n" +
		"- Scope: notes/journal.go\n" +
		"- Result: partial\n" +
		"- Notable: archive path unfinished\n" +
		"- Tests: go test ./notes ok\n" +
		"- Witness: PASS (iter 1)\n" +
		"- Witness: WARN (iter 2) — not-covered-by-tests\n" +
		"- Witness: PASS (iter 3)\n" +
		"- Commits: abc1234, def5678\n" +
		"- Mode: bridge+journal+progress\n" +
		"\n### Done\n\n- Phase 1 parser\n" +
		"\n### Next\n\n- (scribe) fuzz archive\n"
	if got := e.Render(); got != want {
		t.Fatalf("Render =\n%s\nwant\n%s", got, want)
	}
	j := notes.ParseJournal(want)
	if len(j.Entries) != 1 {
		t.Fatalf("parsed %d entries", len(j.Entries))
	}
	p := j.Entries[0]
	if p.Summary != "Journal parser rewritten" || p.Result != "partial" || p.Tests != "go test ./notes ok" ||
		!reflect.DeepEqual(p.Commits, []string{"abc1234", "def5678"}) || len(p.Witness) != 3 ||
		p.Witness[1].Findings != "not-covered-by-tests" || !reflect.DeepEqual(p.Next, []string{"(scribe) fuzz archive"}) ||
		!p.Time.Equal(e.Time) || p.Raw != want || p.Modes != e.Modes {
		t.Errorf("parsed entry = %#v", p)
	}
	p.Raw = ""
	if got := p.Render(); got != want {
		t.Errorf("Render(Parse(Render)) =\n%s\nwant\n%s", got, want)
	}
	if got := (notes.Entry{}).Render(); !strings.HasPrefix(got, "## 0001-01-01T00:00:00+00:00 — (no summary)\n") {
		t.Errorf("empty entry renders %q", got)
	}
	// An entry written before headings and lists had blank lines around
	// them reads the same: old journals stay valid, and are never rewritten.
	compact := strings.ReplaceAll(strings.ReplaceAll(want, "\n\n", "\n"), "\n\n", "\n")
	old := notes.ParseJournal(compact).Entries[0]
	if old.Raw != compact {
		t.Errorf("compact entry's Raw = %q, want %q", old.Raw, compact)
	}
	old.Raw = ""
	if !reflect.DeepEqual(old, p) {
		t.Errorf("compact entry parses as\n%#v\nwant\n%#v", old, p)
	}
}

// TestEntryEscapesMarkdown: what a person or an agent wrote reaches the
// journal as markdown that lints clean (a bare URL an autolink, a "<" that
// would open HTML escaped) and is read back exactly as it was written.
func TestEntryEscapesMarkdown(t *testing.T) {
	t.Parallel()
	e := notes.Entry{
		Time:    time.Date(2026, 11, 30, 21, 25, 32, 0, kst),
		Summary: "Fixed <div> nesting, see https://example.com/x",
		Scope:   "web/index.html",
		Result:  "shipped",
		Notable: `ask ada@example.com; a \<b> stays and code ` + "`<br>`" + ` too`,
		Tests:   "see http://ci.example.com/run/1.",
		Witness: []notes.WitnessEvent{{Verdict: "WARN", Iteration: "iter2", Findings: "the <template> tag at https://example.com/t is unclosed"}},
		Done:    []string{"Render <main> (https://example.com/main)", "# not a heading", "1. not a list"},
		Next:    []string{"(web) check www.example.com and <!-- comments -->"},
	}
	r := e.Render()
	if bad := regexp.MustCompile(`(?:^|[^\\])<(?:div|template|main|!--)|[ (]https?://|[ (]ada@`).FindString(r); bad != "" {
		t.Errorf("the entry holds %q outside an autolink or an escape:\n%s", bad, r)
	}
	for _, want := range []string{`\<div>`, "<https://example.com/x>", "<ada@example.com>", `\\\<b>`, "`<br>`", `www\.example.com`, "<http://ci.example.com/run/1>.", "\n- \\# not a heading\n", "\n- 1\\. not a list\n"} {
		if !strings.Contains(r, want) {
			t.Errorf("the entry lacks %q:\n%s", want, r)
		}
	}
	p := notes.ParseJournal(notes.DefaultJournalPreamble + r).Entries[0]
	if p.Summary != e.Summary || p.Notable != e.Notable || p.Tests != e.Tests || len(p.Witness) != 1 || p.Witness[0].Findings != e.Witness[0].Findings ||
		!reflect.DeepEqual(p.Done, e.Done) || !reflect.DeepEqual(p.Next, e.Next) {
		t.Errorf("parsed entry =\n%#v\nwant\n%#v", p, e)
	}
	p.Raw = ""
	if got := p.Render(); got != r {
		t.Errorf("Render(Parse(Render)) =\n%s\nwant\n%s", got, r)
	}
}

func TestParseJournal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		preamble  string
		summaries []string
	}{
		{"empty", "", "", nil},
		{"preamble only", "# Journal\n", "# Journal\n", nil},
		{"two entries", "# Journal\n\n## 2026-01-01T09:00:00+09:00 — a\n- Scope: x\n\n## 2026-01-02 10:00 KST - b\n", "# Journal\n\n", []string{"a", "b"}},
		{"crlf no final newline", "# J\r\n## t — a\r\n- Result: shipped", "# J\r\n", []string{"a"}},
		{"non-entry headings", "## Notes\n### 2026 — x\n## — nothing\n##  — x\n## a — b\n## Not - but yes\n", "## Notes\n### 2026 — x\n## — nothing\n##  — x\n", []string{"b", "but yes"}},
		{"non-utf8", "## \xff — \xfe\n- Scope: \xff\n", "", []string{"\uFFFD"}},
		{"lint directive", notes.DefaultJournalPreamble + "## t — a\n", notes.JournalLintDirective + "\n# Journal\n\n", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j := notes.ParseJournal(tt.in)
			if j.Preamble != tt.preamble {
				t.Errorf("Preamble = %q, want %q", j.Preamble, tt.preamble)
			}
			var got []string
			for _, e := range j.Entries {
				got = append(got, e.Summary)
			}
			if !reflect.DeepEqual(got, tt.summaries) {
				t.Errorf("summaries = %q, want %q", got, tt.summaries)
			}
			if r := j.Render(); r != tt.in {
				t.Errorf("Render = %q, want %q", r, tt.in)
			}
		})
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	e := sampleEntry(1)
	rendered := e.Render()
	// A journal from before the lint directive gets it as its first line;
	// every other byte stays.
	d := notes.JournalLintDirective
	tests := []struct {
		name        string
		journal     string
		wantJournal string
	}{
		{"empty", "", d + "\n# Journal\n\n" + rendered},
		{"whitespace only", "\n\n", d + "\n# Journal\n\n" + rendered},
		{"preamble without blank", "# Journal\n", d + "\n# Journal\n\n" + rendered},
		{"entry without final newline", "# Journal\n\n## t — a\n- Scope: x", d + "\n# Journal\n\n## t — a\n- Scope: x\n\n" + rendered},
		{"entry with blank", "# Journal\n\n## t — a\n\n", d + "\n# Journal\n\n## t — a\n\n" + rendered},
		{"crlf", "# Journal\r\n\r\n## t — a\r\n", d + "\r\n# Journal\r\n\r\n## t — a\r\n\r\n" + strings.ReplaceAll(rendered, "\n", "\r\n")},
		{"crlf half line", "# Journal\r\n\r\n## t — a\r", d + "\r\n# Journal\r\n\r\n## t — a\r\n\r\n" + strings.ReplaceAll(rendered, "\n", "\r\n")},
		{"byte order mark", "\uFEFF# Journal\n\n## t — a\n", "\uFEFF" + d + "\n# Journal\n\n## t — a\n\n" + rendered},
		{"with the directive", d + "\n# Journal\n\n## t — a\n", d + "\n# Journal\n\n## t — a\n\n" + rendered},
		{"directive below the title", "# Journal\n\n" + d + "\n\n## t — a\n", "# Journal\n\n" + d + "\n\n## t — a\n\n" + rendered},
		{"directive only in an entry", "# Journal\n\n## t — a\n" + d + "\n", d + "\n# Journal\n\n## t — a\n" + d + "\n\n" + rendered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, a := notes.Append(tt.journal, "", e, 50)
			if j != tt.wantJournal {
				t.Errorf("journal = %q, want %q", j, tt.wantJournal)
			}
			if a != "" {
				t.Errorf("archive = %q, want untouched", a)
			}
			if strings.TrimSpace(tt.journal) != "" && !strings.HasPrefix(withoutAddedDirective(tt.journal, j), tt.journal) {
				t.Errorf("existing bytes changed")
			}
			if !notes.HasCommit(notes.ParseJournal(j), e.Commits[0]) {
				t.Errorf("HasCommit false after Append")
			}
		})
	}
}

func TestAppendArchives(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		max     int
		n       int // entries appended
		archive string
		wantArc int // entries expected to move to the archive
	}{
		{"under limit", 50, 50, "", 0},
		{"one over", 50, 51, "", 1},
		{"many over existing archive", 50, 75, "# Journal Archive\n\n## old — x\n", 25},
		{"default max", 0, 52, "", 2},
		{"max one", 1, 5, "", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			journal, archive := "", tt.archive
			for i := 0; i < tt.n; i++ {
				prev, prevArchive := journal, archive
				journal, archive = notes.Append(journal, archive, sampleEntry(i), tt.max)
				// Existing bytes, less the archived entries, are a prefix of the
				// new journal; the old archive is a prefix of the new archive.
				pj := notes.ParseJournal(prev)
				moved := len(pj.Entries) + 1 - len(notes.ParseJournal(journal).Entries)
				if prev != "" {
					rest := pj.Preamble
					for _, e := range pj.Entries[moved:] {
						rest += e.Raw
					}
					if !strings.HasPrefix(journal, rest) {
						t.Fatalf("append %d changed existing bytes:\n%q\nnot a prefix of\n%q", i, rest, journal)
					}
				}
				if !strings.HasPrefix(withoutAddedDirective(prevArchive, archive), prevArchive) {
					t.Fatalf("append %d changed existing archive bytes", i)
				}
			}
			limit := tt.max
			if limit <= 0 {
				limit = notes.DefaultMaxEntries
			}
			j := notes.ParseJournal(journal)
			if want := min(tt.n, limit); len(j.Entries) != want {
				t.Fatalf("journal has %d entries, want %d", len(j.Entries), want)
			}
			if j.Preamble != notes.DefaultJournalPreamble {
				t.Errorf("journal preamble = %q", j.Preamble)
			}
			a := notes.ParseJournal(archive)
			old := len(notes.ParseJournal(tt.archive).Entries)
			if got := len(a.Entries) - old; got != tt.wantArc {
				t.Fatalf("archive gained %d entries, want %d", got, tt.wantArc)
			}
			if tt.wantArc == 0 {
				if archive != tt.archive {
					t.Errorf("archive touched: %q", archive)
				}
				return
			}
			if tt.archive == "" && a.Preamble != notes.DefaultArchivePreamble {
				t.Errorf("archive preamble = %q", a.Preamble)
			}
			if want := notes.JournalLintDirective + "\n" + tt.archive; tt.archive != "" && !strings.HasPrefix(archive, want) {
				t.Errorf("an archive from before the lint directive, written to: want it on top\n%q", archive)
			}
			// Archived entries are in order and byte-identical to their journal
			// text: the rendered entry plus the blank line Append put after it,
			// except the archive's last, which ends the file with one newline.
			for k, e := range a.Entries[old:] {
				want := sampleEntry(k).Render() + "\n"
				if old+k == len(a.Entries)-1 {
					want = sampleEntry(k).Render()
				}
				if e.Raw != want {
					t.Errorf("archived entry %d = %q, want %q", k, e.Raw, want)
				}
			}
			for _, e := range j.Entries {
				if !notes.HasCommit(j, e.Commits[0]) {
					t.Errorf("HasCommit(%s) false", e.Commits[0])
				}
			}
		})
	}
}

// withoutAddedDirective is text after Append less the lint directive line
// Append put on top of old, a journal or archive from before it.
func withoutAddedDirective(old, text string) string {
	if strings.Contains(notes.ParseJournal(old).Preamble, notes.JournalLintDirective) {
		return text
	}
	bom := ""
	if strings.HasPrefix(text, "\uFEFF") {
		bom, text = "\uFEFF", text[len("\uFEFF"):]
	}
	rest, ok := strings.CutPrefix(text, notes.JournalLintDirective)
	if !ok {
		return bom + text
	}
	if r, ok := strings.CutPrefix(rest, "\r\n"); ok {
		return bom + r
	}
	return bom + strings.TrimPrefix(rest, "\n")
}

func TestHasCommit(t *testing.T) {
	t.Parallel()
	j := notes.ParseJournal("# Journal\n\n## t — a\n- Commits: `ABC1234def`, 0123456789abcdef0123456789abcdef01234567\n## t — b\n- Commit: 1234567\n### Next\n- Commits: fedcba9\n")
	tests := []struct {
		sha  string
		want bool
	}{
		{"abc1234", true},
		{"abc1234def0000", true},
		{"abc1234dee", false},
		{"ABC1234DEF", true},
		{"abc123", false},
		{"0123456", true},
		{"0123456789abcdef0123456789abcdef01234567", true},
		{"1234567890abcdef", true},
		{"fedcba9", false},
		{"", false},
		{"   ", false},
	}
	for _, tt := range tests {
		t.Run(tt.sha, func(t *testing.T) {
			t.Parallel()
			if got := notes.HasCommit(j, tt.sha); got != tt.want {
				t.Errorf("HasCommit(%q) = %v, want %v", tt.sha, got, tt.want)
			}
		})
	}
}

// A hook's last assistant message gives the hint's first two sentences,
// split by the one sentence splitter: a version number does not end one.
func TestHookHintSentences(t *testing.T) {
	for in, want := range map[string]string{
		"Bumped Go to 1.26 and fixed main.go. Tests pass. Anything else?": "Bumped Go to 1.26 and fixed main.go. Tests pass.",
		"Used a helper, e.g. gofmt.\n\nThen vet.":                         "Used a helper, e.g. gofmt. Then vet.",
		strings.Repeat("x", 400):                                          strings.Repeat("x", 299) + "…",
	} {
		if got := (notes.Hook{LastAssistantMessage: in}).Apply(notes.WrapInput{}).Hint; got != want {
			t.Errorf("hint from %q = %q, want %q", in, got, want)
		}
	}
}
