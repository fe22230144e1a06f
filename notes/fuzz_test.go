package notes_test

import (
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/notes"
)

func FuzzParseJournal(f *testing.F) {
	f.Add("# Journal\n\n## 2026-11-30T21:25:32+09:00 — a\n- Scope: x\n- Commits: abc1234\n")
	f.Add("## t - a\r\n- Witness: WARN (iter2) — x\r\n### Next\r\n- (p) y")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		j := notes.ParseJournal(s)
		if got := j.Render(); got != s {
			t.Fatalf("Render(ParseJournal(s)) = %q, want %q", got, s)
		}
		for _, e := range j.Entries {
			if e.Raw == "" {
				t.Fatalf("entry with empty Raw")
			}
		}
		// Append keeps every existing byte (less archived entries, and but
		// for the lint directive it puts on top of a journal without one)
		// and adds exactly one parseable entry.
		e := notes.Entry{Time: time.Unix(1e9, 0).UTC(), Summary: s, Notable: s, Commits: []string{"abc1234def"}, Next: []string{s}}
		nj, na := notes.Append(s, "", e, 3)
		pj := notes.ParseJournal(nj)
		if strings.TrimSpace(s) != "" {
			moved := len(j.Entries) + 1 - len(pj.Entries)
			if moved < 0 || moved > len(j.Entries) {
				t.Fatalf("Append: %d entries became %d", len(j.Entries), len(pj.Entries))
			}
			rest := j.Preamble
			for _, old := range j.Entries[moved:] {
				rest += old.Raw
			}
			if !strings.HasPrefix(withoutAddedDirective(s, nj), rest) {
				t.Fatalf("Append changed existing bytes:\n%q\nnot a prefix of\n%q", rest, nj)
			}
			var movedRaw string
			for _, old := range j.Entries[:moved] {
				movedRaw += old.Raw
			}
			if moved > 0 && !strings.Contains(na, strings.TrimRight(movedRaw, "\r\n")) {
				t.Fatalf("archive lacks moved entries verbatim:\n%q\n%q", na, movedRaw)
			}
		}
		if len(pj.Entries) == 0 || len(pj.Entries) > 3 {
			t.Fatalf("journal has %d entries after Append", len(pj.Entries))
		}
		last := pj.Entries[len(pj.Entries)-1]
		if !notes.HasCommit(pj, "abc1234") || last.Notable != strings.Join(strings.Fields(strings.ToValidUTF8(last.Notable, "\uFFFD")), " ") {
			t.Fatalf("appended entry not read back: %#v", last)
		}
	})
}

func FuzzBridgeNoteRoundTrip(f *testing.F) {
	f.Add("", "PASS", "ctx one|ctx two", "", "why?", "", "abc1234", "a.go,dir/b.go", int64(1764505532), int16(540), "# Bridge Note\nUpdated: 2026-11-30T21:25:32+09:00\n## Context\n- x\n")
	f.Add("fire", "WARN: finding", "a\nb", "c|d|e", "", "t", "", "x --> y,%", int64(-62135596800), int16(0), "⚠️ URGENT: x\n## Carry Forward\nNo carryover.\n<!-- scribe: commit=a cites=%zz -->")
	f.Add("<form> at https://a.b/c", "", `see <div> \\<b>|www.a.b ada@b.co`, "`<br>` https://x", "<!-- q -->", "", "", "", int64(0), int16(0), "# Bridge Note\n## Context\n- \\<div> <https://a.b> \\\\<x\n  wrapped <i@j.kl>\n")
	f.Fuzz(func(t *testing.T, urgent, witness, ctx, carry, questions, traps, commit, cites string, unix int64, offsetMin int16, doc string) {
		split := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, "|")
		}
		b := notes.BridgeNote{
			Urgent:        urgent,
			Updated:       time.Unix(unix, 0).In(time.FixedZone("", int(offsetMin)*60)),
			Witness:       witness,
			Context:       split(ctx),
			CarryForward:  split(carry),
			OpenQuestions: split(questions),
			Traps:         split(traps),
			Commit:        commit,
			Cites:         strings.Split(cites, ","),
		}
		assertBridgeRoundTrip(t, b)
		r := b.Render()
		for _, line := range strings.Split(r, "\n") {
			if strings.HasPrefix(line, "Witness:") && line != "Witness: PASS" && line != "Witness: WARN" && line != "Witness: BLOCK" {
				t.Fatalf("witness line %q", line)
			}
		}
		if b.Normalize().Urgent != "" && !strings.HasPrefix(r, "⚠️ URGENT: ") {
			t.Fatalf("URGENT not first:\n%s", r)
		}

		// Arbitrary text: parse never panics, and its rendering is a fixed point.
		p, _ := notes.ParseBridgeNote(doc)
		r1 := p.Render()
		p2, err := notes.ParseBridgeNote(r1)
		if err != nil {
			t.Fatalf("ParseBridgeNote(Render) error %v:\n%s", err, r1)
		}
		if r2 := p2.Render(); r2 != r1 {
			t.Fatalf("render of parsed text not stable:\n%s\nthen\n%s", r1, r2)
		}
	})
}

func FuzzParseProgress(f *testing.F) {
	f.Add("# M\n## Phase 1\n- [ ] a\n- [x] b (done 2026-01-01)\n", "a")
	f.Add("```\n- [ ] hidden\n```\r\n  * [ ] crlf\r\n", "crlf")
	f.Fuzz(func(t *testing.T, text, query string) {
		items := notes.ParseProgress(text)
		lines := strings.Split(text, "\n")
		at := time.Date(2026, 11, 30, 21, 25, 32, 0, kst)
		for _, it := range items {
			if it.Line < 0 || it.Line >= len(lines) {
				t.Fatalf("item line %d out of range", it.Line)
			}
			out, changed := notes.Tick(text, it, at)
			if changed == it.Done {
				t.Fatalf("Tick(%#v) changed=%v", it, changed)
			}
			outLines := strings.Split(out, "\n")
			if len(outLines) != len(lines) {
				t.Fatalf("Tick changed the line count")
			}
			for i := range lines {
				if i != it.Line && lines[i] != outLines[i] {
					t.Fatalf("Tick of line %d changed line %d: %q -> %q", it.Line, i, lines[i], outLines[i])
				}
			}
			if !changed {
				continue
			}
			after := notes.ParseProgress(out)
			if len(after) != len(items) {
				t.Fatalf("Tick changed the item count: %d -> %d\n%q", len(items), len(after), out)
			}
			for k := range after {
				want := items[k]
				if want.Line == it.Line {
					want.Done = true
				}
				if after[k] != want {
					t.Fatalf("after Tick item %d = %#v, want %#v", k, after[k], want)
				}
			}
		}
		if it, err := notes.Match(items, query); err == nil {
			found := false
			for _, x := range items {
				found = found || x == it
			}
			if !found {
				t.Fatalf("Match returned an item not in the list")
			}
		} else if err.Error() == "" {
			t.Fatalf("empty error")
		}
	})
}
