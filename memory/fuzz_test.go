package memory

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
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

// FuzzParseTrap: ParseTrap never panics; a record it reads renders to a
// record it reads back the same (parse → render → parse is stable), and a
// long record's prose lines are wrapped.
func FuzzParseTrap(f *testing.F) {
	f.Add(Trap{Title: "Frozen clock", Pattern: "p https://a.b <div>", Lesson: "l\n\n- x\n  y", AppliesTo: "a  \nb", Scope: ScopeProject, Flavor: FlavorSpecGap}.Render())
	f.Add("# Trap: t\n\n## Pattern\n\nwrapped\nby hand\n\n## Lesson\n\n```\n<code>\n```\n\n## Applies to\n\n1. a\n2) b\n")
	f.Add("# Trap: \\<x> www\\.a.b\r\n## Pattern\r\n<https://a.b> \\\\<c>\r\n## Lesson\r\nl\r\n## Applies to\r\na\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		tr, ok := ParseTrap(text)
		if !ok {
			return
		}
		tr.Title = oneLine(tr.Title) // Render writes the title on one line
		if strings.HasSuffix(tr.Title, "#") {
			return // an ATX heading's closing #s: not the title's (a known limit)
		}
		tr.Scope, tr.Flavor = ScopeProject, FlavorSpecGap
		r := tr.Render()
		back, ok := ParseTrap(r)
		if !ok {
			t.Fatalf("a rendered record does not parse:\n%s", r)
		}
		if r2 := back.Render(); r2 != r {
			t.Fatalf("parse → render → parse → render changed the record:\n%s\n---\n%s", r, r2)
		}
	})
}

// FuzzAddRule: a rule AddRule writes is read back exactly by Rules, is
// never added twice, and its lines fit 80 columns unless one word does not.
func FuzzAddRule(f *testing.F) {
	f.Add("# P\n\n## Project Rules\n\n- a\n", "Always link https://ci.example.com/runs/1 and never a raw <div>; 1. then # and > and - stay inside the rule however long it is.")
	f.Add("", `a \<b> www.a.b ada@b.co`)
	f.Add("## Project Rules\r\n- a\r\n  wrapped\r\n", "- b")
	f.Fuzz(func(t *testing.T, claudeMD, rule string) {
		out, changed := AddRule(claudeMD, rule)
		clean := CleanRule(rule)
		if !changed {
			return
		}
		if _, _, ok := RulesSection(strings.Split(out, "\n")); !ok {
			return // appended inside a fence the file never closes (a known limit)
		}
		rules := Rules(out)
		if !slices.Contains(rules, clean) {
			t.Fatalf("Rules(AddRule(%q, %q)) = %q, want it to hold %q\n%s", claudeMD, rule, rules, clean, out)
		}
		if again, changed := AddRule(out, rule); changed {
			t.Fatalf("the rule was added twice:\n%s", again)
		}
		if strings.Trim(clean, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,;") != "" {
			return // words that may not start a line are kept on the one before
		}
		for _, l := range ruleItem(clean) {
			// markdownlint's MD013: the line up to its last word fits.
			if i := strings.LastIndexByte(l, ' '); i > 1 && len(utf16.Encode([]rune(l[:i]))) >= 80 {
				t.Fatalf("a line of %d columns: %q", len(utf16.Encode([]rune(l))), l)
			}
		}
	})
}
