package followups

import (
	"fmt"
	"github.com/git-scribe/git-scribe/notes"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	day1 = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	day2 = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	day3 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
)

func TestScanSource(t *testing.T) {
	t.Parallel()
	type got struct {
		text, project, from string
		resolved            bool
		line                int
		time                time.Time
	}
	tests := []struct {
		name string
		src  SourceFile
		want []got
	}{
		{
			name: "journal next and done with entry times",
			src: SourceFile{Kind: SourceJournal, Path: "j.md", Time: day1, Text: "# Journal\n\n" +
				"## 2026-11-29T09:00:00+00:00 — parser\n- Result: shipped\n### Done\n- (api) add paging\n### Next\n- (api) migrate the cache\n- untagged thing\n" +
				"## 2026-11-30T09:00:00+00:00 — more\n### Next\n- [ ] (web) fix login\n- [x] (web) old thing\n"},
			want: []got{
				{"add paging", "api", TagExplicit, true, 6, day2},
				{"migrate the cache", "api", TagExplicit, false, 8, day2},
				{"untagged thing", "", "", false, 9, day2},
				{"fix login", "web", TagExplicit, false, 12, day3},
				{"old thing", "web", TagExplicit, true, 13, day3},
			},
		},
		{
			name: "session headers tag and date the items under them",
			src:  SourceFile{Kind: SourceJournal, Path: "j.md", Time: day1, Text: "## Session: ops — 2026-11-30\n### Next\n- rotate keys\n- (api) tagged wins\n## Session: web\n### Next\n- restyle\n"},
			want: []got{
				{"rotate keys", "ops", TagSession, false, 3, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
				{"tagged wins", "api", TagExplicit, false, 4, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
				{"restyle", "web", TagSession, false, 7, day1},
			},
		},
		{
			name: "actives: open checkboxes only, path project",
			src: SourceFile{Kind: SourceActive, Path: "projects/api/actives/cache/todos.md", Project: "api", Time: day2,
				Text: "# cache\n- [ ] write migration\n  - [ ] nested step\n- [x] design (done 2026-11-01T00:00:00+00:00)\n- plain note\n```\n- [ ] in a fence\n```\n"},
			want: []got{
				{"write migration", "api", TagPath, false, 2, day2},
				{"nested step", "api", TagPath, false, 3, day2},
				{"design", "api", TagPath, true, 4, day2},
			},
		},
		{
			name: "todos: the Next Session section only, nested plain bullets are details",
			src: SourceFile{Kind: SourceTodos, Path: "projects/web/todos.md", Project: "web", Time: day1,
				Text: "# web\n## Backlog\n- not a follow-up\n- [x] ticked anywhere\n## Next Session\n- fix login\n  - detail, not an item\n- [ ] check redirects\n1. numbered item\n### Sub\n- deeper still counts\n## Later\n- outside\n"},
			want: []got{
				{"ticked anywhere", "web", TagPath, true, 4, day1},
				{"fix login", "web", TagPath, false, 6, day1},
				{"check redirects", "web", TagPath, false, 8, day1},
				{"numbered item", "web", TagPath, false, 9, day1},
				{"deeper still counts", "web", TagPath, false, 11, day1},
			},
		},
		{
			name: "progress.md of a single-project repo, CRLF",
			src:  SourceFile{Kind: SourceProgress, Path: "progress.md", Time: day1, Text: "# Progress\r\n- [ ] plan item\r\n## next session\r\n- ship docs\r\n"},
			want: []got{{"ship docs", "", "", false, 4, day1}},
		},
		{
			name: "a wrapped item is read whole at its first line, its escapes undone",
			src: SourceFile{Kind: SourceTodos, Path: "t.md", Project: "api", Time: day2, Text: "## Next Session\n\n- [ ] " + strings.Join(FollowupItem(
				"check https://example.com/a?b=c and the <nav> tag, then - 1. keep going until the line is far longer than eighty columns"), "\n")[len("- [ ] "):] + "\n- next one\n"},
			want: []got{{"check https://example.com/a?b=c and the <nav> tag, then - 1. keep going until the line is far longer than eighty columns", "api", TagPath, false, 3, day2},
				{"next one", "api", TagPath, false, 5, day2}},
		},
		{
			name: "hostile input yields nothing and does not panic",
			src:  SourceFile{Kind: SourceTodos, Path: "t.md", Text: "## Next Session\n- \n- [ ]\n-\n* []\n\x00\xff\n"},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var gots []got
			for _, f := range ScanSource(tt.src, "") {
				gots = append(gots, got{f.Text, f.Project, f.TagFrom, f.Resolved, f.Line, f.Time})
			}
			if !slices.EqualFunc(gots, tt.want, func(a, b got) bool {
				return a.text == b.text && a.project == b.project && a.from == b.from && a.resolved == b.resolved && a.line == b.line && a.time.Equal(b.time)
			}) {
				t.Errorf("got  %+v\nwant %+v", gots, tt.want)
			}
		})
	}
}

// The behaviours of seed 001's generator (collectPriorities,
// collectProjectFollowups, withProject), as table tests.
func TestRegenerateSeedBehaviours(t *testing.T) {
	t.Parallel()
	journal := func(entries ...string) SourceFile {
		return SourceFile{Kind: SourceJournal, Path: ".claude/sonmat/journal.md", Time: day1, Text: "# Journal\n\n" + strings.Join(entries, "\n")}
	}
	entry := func(when time.Time, next []string, done []string) string {
		e := notes.Entry{Time: when, Summary: "s", Result: notes.ResultShipped, Next: next, Done: done}
		return e.Render()
	}
	todos := func(project, body string) SourceFile {
		return SourceFile{Kind: SourceTodos, Path: "projects/" + project + "/todos.md", Project: project, Time: day1, Text: "## Next Session\n" + body}
	}
	active := func(project, task, body string) SourceFile {
		return SourceFile{Kind: SourceActive, Path: "projects/" + project + "/actives/" + task + "/todos.md", Project: project, Task: task, Time: day1, Text: body}
	}
	progress := func(project, body string) SourceFile {
		return SourceFile{Kind: SourceProgress, Path: "projects/" + project + "/PROGRESS.md", Project: project, Time: day1, Text: "## Next Session\n" + body}
	}
	tests := []struct {
		name     string
		sources  []SourceFile
		opts     MergeOptions
		want     []string // Priority.Line() of the shown items, in order
		untagged int
		check    func(t *testing.T, d Dashboard)
	}{
		{
			name: "multi-source scan is additive: every source that exists",
			sources: []SourceFile{
				journal(entry(day2, []string{"(api) migrate the cache"}, nil)),
				active("api", "login", "- [ ] write the login test\n"),
				todos("web", "- fix the footer\n"),
				progress("ops", "- rotate the keys\n"),
			},
			want: []string{
				"(api) migrate the cache — journal 2026-11-29",
				"(api) write the login test — projects/api/actives/login/todos.md",
				"(web) fix the footer — projects/web/todos.md",
				"(ops) rotate the keys — projects/ops/PROGRESS.md",
			},
			check: func(t *testing.T, d Dashboard) {
				if len(d.Audit.Sources) != 4 {
					t.Errorf("source counts = %+v, want 4 kinds", d.Audit.Sources)
				}
			},
		},
		{
			name: "resolution drop: ticked in a project file, or named under a journal Done",
			sources: []SourceFile{
				journal(entry(day1, []string{"(api) migrate the cache", "(api) add paging", "(api) keep me"}, nil),
					entry(day2, nil, []string{"(api) add paging"})),
				todos("api", "- [x] Migrate the cache.\n"),
			},
			want: []string{"(api) keep me — journal 2026-11-28"},
			check: func(t *testing.T, d Dashboard) {
				if d.Audit.Resolved != 2 {
					t.Errorf("resolved dropped = %d, want 2", d.Audit.Resolved)
				}
			},
		},
		{
			name: "dedup: near-duplicates in different sources become one line naming both",
			sources: []SourceFile{
				journal(entry(day2, []string{"(api) migrate the cache layer to redis"}, nil)),
				todos("api", "- Migrate the cache-layer to Redis.\n- migrate the cache\n"),
			},
			want: []string{
				"(api) migrate the cache layer to redis — journal 2026-11-29 · projects/api/todos.md",
				"(api) migrate the cache — projects/api/todos.md",
			},
			check: func(t *testing.T, d Dashboard) {
				if d.Audit.Merged != 1 {
					t.Errorf("merged = %d, want 1", d.Audit.Merged)
				}
			},
		},
		{
			name: "the same text in two projects is two follow-ups",
			sources: []SourceFile{
				todos("api", "- update dependencies\n"),
				todos("web", "- update dependencies\n"),
			},
			want: []string{"(api) update dependencies — projects/api/todos.md", "(web) update dependencies — projects/web/todos.md"},
		},
		{
			name: "tag derivation: own tag, Session header, path; ambiguous warned, never dropped",
			sources: []SourceFile{
				journal(entry(day3, []string{"(api) own tag", "nothing names me"}, nil),
					"## Session: ops\n### Next\n- from the session header\n"),
				todos("web", "- from the path\n"),
			},
			want: []string{
				"(api) own tag — journal 2026-11-30",
				"(untagged) nothing names me — journal 2026-11-30",
				"(ops) from the session header — journal 2026-11-30",
				"(web) from the path — projects/web/todos.md",
			},
			untagged: 1,
		},
		{
			name:    "single-project repository: untagged items take the repository's project",
			sources: []SourceFile{{Kind: SourceTodos, Path: "todos.md", Time: day1, Text: "## Next Session\n- write the docs\n"}},
			opts:    MergeOptions{DefaultProject: "scribe"},
			want:    []string{"(scribe) write the docs — todos.md"},
		},
		{
			name: "cap: 15 shown, the rest counted and named on the dashboard",
			sources: func() []SourceFile {
				words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
				var next []string
				for i := range 20 {
					next = append(next, fmt.Sprintf("(api) %s %s %s", words[i], words[(i*7+3)%20], words[(i*11+5)%20]))
				}
				return []SourceFile{journal(entry(day2, next, nil))}
			}(),
			check: func(t *testing.T, d Dashboard) {
				if d.Shown != 15 || len(d.Items) != 20 || d.Audit.BeyondCap != 5 {
					t.Errorf("shown %d of %d, beyond cap %d; want 15 of 20, 5", d.Shown, len(d.Items), d.Audit.BeyondCap)
				}
				if !strings.Contains(d.Render(), "5 more open follow-ups are only in their sources") {
					t.Errorf("render does not say what the cap hides:\n%s", d.Render())
				}
			},
		},
		{
			name: "order: recency first, then source priority",
			sources: []SourceFile{
				journal(entry(day1, []string{"(api) old journal item"}, nil)),
				progress("api", "- progress item\n"),
				active("api", "t", "- [ ] active item\n"),
				todos("api", "- todos item\n"),
				{Kind: SourceTodos, Path: "projects/web/todos.md", Project: "web", Time: day3, Text: "## Next Session\n- newest file item\n"},
			},
			want: []string{
				"(web) newest file item — projects/web/todos.md",
				"(api) old journal item — journal 2026-11-28",
				"(api) active item — projects/api/actives/t/todos.md",
				"(api) todos item — projects/api/todos.md",
				"(api) progress item — projects/api/PROGRESS.md",
			},
		},
		{
			name: "no carry-forward: only what a source still holds",
			sources: []SourceFile{
				journal(entry(day1, []string{"(api) done since"}, nil), entry(day2, nil, []string{"(api) done since"})),
			},
			want: nil,
			check: func(t *testing.T, d Dashboard) {
				if !strings.Contains(d.Render(), "No open follow-ups.") {
					t.Errorf("render:\n%s", d.Render())
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Regenerate(tt.sources, tt.opts)
			if tt.want != nil || tt.check == nil {
				var lines []string
				for _, p := range d.Items[:d.Shown] {
					lines = append(lines, p.Line())
				}
				if !slices.Equal(lines, tt.want) {
					t.Errorf("dashboard lines:\n  %s\nwant:\n  %s", strings.Join(lines, "\n  "), strings.Join(tt.want, "\n  "))
				}
			}
			if len(d.Audit.Untagged) != tt.untagged {
				t.Errorf("untagged warnings = %+v, want %d", d.Audit.Untagged, tt.untagged)
			}
			if tt.check != nil {
				tt.check(t, d)
			}
			if again := Regenerate(tt.sources, tt.opts).Render(); again != d.Render() {
				t.Errorf("regenerating twice differs:\n%s\n---\n%s", d.Render(), again)
			}
		})
	}
}

func TestRenderStartsWithH1(t *testing.T) {
	t.Parallel()
	r := Regenerate(nil, MergeOptions{}).Render()
	if !strings.HasPrefix(r, ActiveStatusHeading+"\n") {
		t.Errorf("ACTIVE-STATUS.md must open with its H1 (markdownlint MD041):\n%s", r)
	}
}

// TestRenderEscapesFollowups: a follow-up's URL or "<" reaches the
// dashboard as markdown that lints clean, once: the journal escaped it,
// ScanSource reads it back, Render escapes it again; a person's own
// autolink in todos.md is the same follow-up. Items stay one line each,
// under the file's MD013 directive.
func TestRenderEscapesFollowups(t *testing.T) {
	t.Parallel()
	next := "(web) fix the <div> nesting reported at https://example.com/issues/7 before the release, with a long enough text to pass eighty columns"
	e := notes.Entry{Time: day2, Summary: "s", Result: notes.ResultShipped, Next: []string{next}}
	journal := SourceFile{Kind: SourceJournal, Path: ".claude/sonmat/journal.md", Time: day2, Text: notes.DefaultJournalPreamble + e.Render()}
	todos := SourceFile{Kind: SourceTodos, Path: "projects/web/todos.md", Project: "web", Time: day1,
		Text: "## Next Session\n\n- fix the \\<div> nesting reported at <https://example.com/issues/7> before the release, with a long enough text to pass eighty columns\n"}
	if got := ScanSource(journal, ""); len(got) != 1 || "(web) "+got[0].Text != next {
		t.Fatalf("ScanSource of the journal = %+v", got)
	}
	d := Regenerate([]SourceFile{journal, todos}, MergeOptions{})
	if len(d.Items) != 1 || "("+d.Items[0].Project+") "+d.Items[0].Text != next {
		t.Fatalf("want one follow-up, as written: %+v", d.Items)
	}
	r := d.Render()
	want := "- (web) fix the \\<div> nesting reported at <https://example.com/issues/7> before the release"
	if !strings.Contains(r, want) || strings.Count(r, "\\<div>") != 1 {
		t.Errorf("the dashboard lacks %q:\n%s", want, r)
	}
	if lines := strings.Split(r, "\n"); lines[0] != ActiveStatusHeading || !slices.Contains(lines, ActiveStatusLint) {
		t.Errorf("want the H1 first and the MD013 directive:\n%s", r)
	}
}

func TestSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		min  float64
		max  float64
	}{
		{"migrate the cache", "migrate the cache", 1, 1},
		{"(api) Migrate the cache.", "- [ ] migrate the CACHE", 1, 1},
		{"migrate the cache", "Migrate the cache layer", 0.73, 0.75},
		{"migrate the cache layer to redis", "migrate teh cache layer to redis", 0.93, 0.94},
		{"로그 정리", "로그 정리하기", 0.71, 0.72},
		{"", "", 1, 1},
		{"abc", "", 0, 0},
	}
	for _, tt := range tests {
		got := Similarity(tt.a, tt.b)
		if got < tt.min || got > tt.max {
			t.Errorf("Similarity(%q, %q) = %.3f, want %.2f..%.2f", tt.a, tt.b, got, tt.min, tt.max)
		}
		if back := Similarity(tt.b, tt.a); back != got {
			t.Errorf("Similarity is not symmetric on %q, %q: %v vs %v", tt.a, tt.b, got, back)
		}
	}
}

// recency's comparison is byRecency's, for times in any zone, the zero
// time among them, and every kind.
func TestRecencyIsByRecency(t *testing.T) {
	t.Parallel()
	zones := []*time.Location{time.UTC, time.FixedZone("KST", 9*3600), time.FixedZone("", -11*3600)}
	var times []time.Time
	for i := range 40 {
		times = append(times, time.Date(2026, 11, 1+i%3, (i*7)%24, i%60, 0, 0, zones[i%len(zones)]))
	}
	times = append(times, time.Time{}, time.Date(1, 1, 1, 5, 0, 0, 0, time.UTC))
	for _, a := range times {
		for _, b := range times {
			for _, ka := range sourceKinds {
				for _, kb := range sourceKinds {
					if got, want := recencyOf(a, ka).compare(recencyOf(b, kb)), byRecency(a, b, ka, kb); (got < 0) != (want < 0) || (got > 0) != (want > 0) {
						t.Fatalf("%v %s vs %v %s: %d, byRecency %d", a, ka, b, kb, got, want)
					}
				}
			}
		}
	}
}
