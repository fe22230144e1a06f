package followups

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/similarity"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/transcript"
)

// FuzzScanSource: every source parser reads any text without panicking,
// reports lines inside the file and items with text, and is deterministic.
func FuzzScanSource(f *testing.F) {
	f.Add("# Journal\n\n## 2026-11-30T09:00:00+09:00 — a\n### Next\n- (api) x\n### Done\n- y\n", byte(0))
	f.Add("## Session: ops — 2026-11-30\n### Next\n- [ ] rotate\n- [x] old\n", byte(0))
	f.Add("# t\n- [ ] a\n  - [ ] b\n```\n- [ ] fenced\n```\n- [-] cancelled\n", byte(2))
	f.Add("## Next Session\r\n- a\r\n  - detail\r\n1. b\r\n### Sub\r\n- c\r\n## Other\r\n- d", byte(3))
	f.Add("## next session\n- \n- [ ]\n* []\n- (p)\n- ((x)) y\n\xff\x00", byte(4))
	f.Fuzz(func(t *testing.T, text string, kind byte) {
		src := SourceFile{Kind: sourceKinds[int(kind)%len(sourceKinds)], Path: "p.md", Project: "p", Text: text, Time: time.Unix(1e9, 0)}
		got := ScanSource(src, "")
		lines := len(notes.SplitLines(text))
		for _, f := range got {
			if f.Line < 1 || f.Line > lines {
				t.Fatalf("item %+v: line outside the file's %d lines", f, lines)
			}
			if len(NormalizeFollowup(f.Text)) == 0 || strings.ContainsAny(f.Text, "\n\r") || !utf8.ValidString(f.Text) {
				t.Fatalf("item text %q is empty, multi-line or invalid UTF-8", f.Text)
			}
			if f.Project == "" {
				t.Fatalf("item %+v lost the path's project", f)
			}
		}
		if again := ScanSource(src, ""); !slices.Equal(got, again) {
			t.Fatalf("ScanSource is not deterministic")
		}
		d := Regenerate([]SourceFile{src}, MergeOptions{})
		r := d.Render()
		if !strings.HasPrefix(r, ActiveStatusHeading+"\n") || r != Regenerate([]SourceFile{src}, MergeOptions{}).Render() {
			t.Fatalf("Render is not a stable ACTIVE-STATUS.md:\n%s", r)
		}
	})
}

// FuzzExtractFollowups: any turn text yields candidates with text,
// numbered in order, never more than the cap.
func FuzzExtractFollowups(f *testing.F) {
	f.Add("Next session: migrate the cache")
	f.Add("다음 세션에 로그 정리. 테스트를 나중에 추가하자")
	f.Add("Next session:\n- a thing\n- [x] done\n\n```\nTODO: code\n```\n> later quoted")
	f.Add("TODO:\nlater later later? deferred. follow-up: (api) x")
	f.Add("\xffnext session\x00: \u200b")
	f.Fuzz(func(t *testing.T, text string) {
		got := ExtractFollowups([]transcript.Turn{{Role: transcript.RoleUser, Text: text}, {Index: 1, Role: transcript.RoleAssistant, Text: text}}, DefaultKeywords(), 0.85)
		if len(got) > maxCandidates {
			t.Fatalf("%d candidates, over the cap", len(got))
		}
		for i, c := range got {
			if c.N != i+1 || len(NormalizeFollowup(c.Text)) < 2 || c.Keyword == "" || !utf8.ValidString(c.Text) {
				t.Fatalf("candidate %d: %+v", i, c)
			}
		}
		if orphans := MarkDurable(got, nil, 0.85); len(orphans) != len(got) {
			t.Fatalf("with no durable source every candidate is an orphan")
		}
	})
}

// FuzzParseRouteFile: a decision file parses or is refused with a usage
// error; what parses is valid.
func FuzzParseRouteFile(f *testing.F) {
	f.Add("routes:\n  - item: \"1\"\n    to: journal\n  - item: x\n    to: active\n    project: p\n    task: t\ndefault: skip\n")
	f.Add("{\"routes\": [{\"item\": \"2\", \"to\": \"todos\"}]}")
	f.Add("routes: [\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		rf, err := ParseRouteFile([]byte(data))
		if err != nil {
			if _, ok := err.(*notes.UsageError); !ok {
				t.Fatalf("error %T is not a usage error: %v", err, err)
			}
			return
		}
		for _, r := range rf.Routes {
			if !validRoute(r.To) || strings.TrimSpace(r.Item) == "" {
				t.Fatalf("accepted an invalid route %+v", r)
			}
		}
		if rf.Default != "" && !validRoute(rf.Default) {
			t.Fatalf("accepted default %q", rf.Default)
		}
	})
}

// FuzzSimilarity: the measure is a symmetric ratio, the identifier veto is
// symmetric and reflexive, and the blocking index finds exactly the pairs
// brute force finds.
func FuzzSimilarity(f *testing.F) {
	f.Add("migrate the cache", "Migrate the cache layer", "(api) migrate teh cache")
	f.Add("로그 정리", "로그 정리하기", "")
	f.Add("a", "b", "ab")
	f.Add("Add pagination to /users endpoint", "add pagination to /posts endpoint", "fix `getUser` in v1.2")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		s := Similarity(a, b)
		if s < 0 || s > 1 || s != Similarity(b, a) || Similarity(a, a) != 1 {
			t.Fatalf("Similarity(%q, %q) = %v", a, b, s)
		}
		// The identifier check, applied after the index, is a symmetric
		// veto that never keeps a text apart from itself.
		if !SameIdentifiers(a, a) || SameIdentifiers(a, b) != SameIdentifiers(b, a) {
			t.Fatalf("SameIdentifiers(%q, %q) is not reflexive and symmetric", a, b)
		}
		texts := [][]rune{NormalizeFollowup(a), NormalizeFollowup(b), NormalizeFollowup(c), NormalizeFollowup(a + c), NormalizeFollowup(b + " x")}
		for _, theta := range []float64{0.85, 0.6} {
			want := map[[2]int]bool{}
			for i := range texts {
				for j := i + 1; j < len(texts); j++ {
					if similarity.Ratio(texts[i], texts[j]) >= theta-1e-9 {
						want[[2]int{i, j}] = true
					}
				}
			}
			got := map[[2]int]bool{}
			(&similarity.Index{Theta: theta, Texts: texts}).Pairs(nil, func(i, j int) { got[[2]int{i, j}] = true })
			if len(got) != len(want) {
				t.Fatalf("theta %v: index found %v, brute force %v", theta, got, want)
			}
			for p := range want {
				if !got[p] {
					t.Fatalf("theta %v: index missed %v", theta, p)
				}
			}
		}
	})
}

// FuzzInsertUnderSection: routing into a todos.md keeps every existing line
// and the routed item reads back as an open follow-up.
func FuzzInsertUnderSection(f *testing.F) {
	f.Add("# api\n## Next Session\n- old\n\n## Backlog\n- x\n", "new thing")
	f.Add("", "로그 정리")
	f.Add("## Next Session", "x y")
	f.Add("```\n## Next Session\n```\n", "fenced heading")
	f.Fuzz(func(t *testing.T, text, item string) {
		item = notes.SingleLine(item)
		if len(NormalizeFollowup(item)) == 0 || strings.Contains(text, "\r") {
			return
		}
		out := InsertUnderSection(text, DefaultSection, []string{"- [ ] " + item}, "p")
		for _, line := range notes.SplitLines(text) {
			if !strings.Contains(out, line) {
				t.Fatalf("lost line %q", line)
			}
		}
		if !ContainsFollowup(out, item) {
			t.Fatalf("routed item %q not in\n%s", item, out)
		}
	})
}
