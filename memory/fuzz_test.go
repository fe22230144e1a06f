package memory

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseRecord: the frontmatter parser never panics, and a record it
// reads renders to text it reads back the same (render → parse → render is
// stable).
func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(RenderRecord(Record{Name: "n", Description: "d", Type: TypeTacit, CandidateID: "0123456789ab", PromotedAt: "2026-01-02T03:04:05+09:00", SourceTurn: 3}, "# n\n\nbody\n")))
	f.Add([]byte("---\nname: [\n---\n"))
	f.Add([]byte("---\nname: x\n"))
	f.Add([]byte("\n\n---\nname: \"---\"\ndescription: |\n  a\n  ---\n  b\n---\nbody"))
	f.Add([]byte("---\nevaluator_score: .nan\nsource_turn: 99999999999999999999\n---\n"))
	f.Add([]byte("---\r\nname: crlf\r\n---\r\n# t\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		SchemaErrors(data, "tacit", true)
		r, body, err := ParseRecord(data)
		if err != nil {
			return
		}
		text := RenderRecord(r, body)
		r2, body2, err := ParseRecord([]byte(text))
		if err != nil {
			t.Fatalf("rendered record does not parse: %v\n%q", err, text)
		}
		want, got := r.oneLine(), r2
		if math.IsNaN(want.EvaluatorScore) && math.IsNaN(got.EvaluatorScore) {
			want.EvaluatorScore, got.EvaluatorScore = 0, 0
		}
		if got != want || body2 != body {
			t.Fatalf("round trip changed the record:\n%+v\n%+v\nbody %q → %q", want, r2, body, body2)
		}
		if again := RenderRecord(r2, body2); again != text {
			t.Fatalf("render is not stable:\n%q\n%q", text, again)
		}
	})
}

// FuzzParseIndex: the MEMORY.md parser never panics; every line
// FormatIndexLine writes is a valid index line that parses back to itself;
// AddToIndex never changes an existing byte.
func FuzzParseIndex(f *testing.F) {
	f.Add("# Memory\n\n- [Tabs](corrections/tabs.md) — Use tabs\n", "n", "tacit/n.md", "d")
	f.Add("- [a]](b) — c\n* [x](y) - z\r\n- [](x) — y\n", "a [b] c", "p (1).md", "")
	f.Add("", "", "", "\n")
	f.Add("no newline at end", "키", "tacit/키.md", strings.Repeat("설명", 100))
	f.Fuzz(func(t *testing.T, text, name, path, desc string) {
		ix := ParseIndex(text)
		for _, e := range ix.Entries {
			if !IndexLineRE().MatchString("- [" + e.Name + "](" + e.Path + ") — " + e.Description) {
				t.Fatalf("parsed entry %+v does not re-form a valid line", e)
			}
		}
		line := FormatIndexLine(IndexEntry{Name: name, Path: path, Description: desc})
		if !IndexLineRE().MatchString(line) {
			t.Fatalf("FormatIndexLine wrote %q, which is not an index line", line)
		}
		back := ParseIndex(line)
		if len(back.Entries) != 1 || FormatIndexLine(back.Entries[0]) != line {
			t.Fatalf("%q does not parse back to itself: %+v", line, back)
		}
		out := AddToIndex(text, IndexEntry{Name: name, Path: path, Description: desc})
		if strings.TrimSpace(text) != "" && !strings.HasPrefix(out, text) {
			t.Fatalf("AddToIndex changed existing bytes:\n%q\n%q", text, out)
		}
		if out2 := AddToIndex(out, IndexEntry{Name: name, Path: path, Description: desc}); out2 != out && ParseIndex(out).Has(back.Entries[0].Path) {
			t.Fatalf("AddToIndex is not idempotent")
		}
	})
}
