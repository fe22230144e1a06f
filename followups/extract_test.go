package followups

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/transcript"
)

func TestExtractFollowups(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string // "project|text"
	}{
		{"next session colon", "Next session: migrate the cache", []string{"|migrate the cache"}},
		{"korean next session with particle", "다음 세션에 로그 정리", []string{"|로그 정리"}},
		{"later at the end", "I'll fix the flaky test later.", []string{"|fix the flaky test"}},
		{"todo label", "TODO: add tests for the parser", []string{"|add tests for the parser"}},
		{"verb keyword kept mid-sentence", "We should come back to the parser errors. Tests pass now.", []string{"|come back to the parser errors"}},
		{"defer with a trailing keyword", "Let's defer the index rewrite to the next session.", []string{"|defer the index rewrite"}},
		{"question is not a commitment", "Should we defer this?", nil},
		{"inflection", "The rewrite is deferred until the API settles.", []string{"|rewrite is deferred until the API settles"}},
		{"no keyword inside words", "The lateral move was translated.", nil},
		{"keyword heading a list", "Next session:\n- migrate the cache\n- [x] already done\n- (web) fix login\n\nThat is all.", []string{"|migrate the cache", "web|fix login"}},
		{"markdown heading a list", "## Follow-up\n\n1. rotate the API keys\n2. prune old logs", []string{"|rotate the API keys", "|prune old logs"}},
		{"bold label", "**Follow-up:** rotate the API keys", []string{"|rotate the API keys"}},
		{"korean label", "후속 작업: 배포 스크립트 정리", []string{"|배포 스크립트 정리"}},
		{"korean marker mid-sentence dropped", "테스트를 나중에 추가하자", []string{"|테스트를 추가하자"}},
		{"korean 다음에", "테스트 추가는 다음에 해요.", []string{"|테스트 추가는 해요"}},
		{"code fences and quotes ignored", "```\n// TODO: in code\n```\n> next session: quoted\nplain text", nil},
		{"tagged item keeps its project", "next session: (api) add paging", []string{"api|add paging"}},
		{"duplicates kept once", "Next session: migrate the cache. TODO: Migrate the cache!", []string{"|migrate the cache"}},
		{"keyword alone yields nothing", "Later.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ExtractFollowups([]transcript.Turn{{Role: transcript.RoleUser, Text: tt.text}}, DefaultKeywords(), 0.85)
			var gs []string
			for i, c := range got {
				gs = append(gs, c.Project+"|"+c.Text)
				if c.N != i+1 || c.Keyword == "" || c.Quote == "" {
					t.Errorf("candidate %+v: want N=%d, a keyword and a quote", c, i+1)
				}
			}
			if !slices.Equal(gs, tt.want) {
				t.Errorf("ExtractFollowups(%q) = %q, want %q", tt.text, gs, tt.want)
			}
		})
	}
}

func TestExtractFromRealFormatTranscripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		want    []string
		corrupt int
	}{
		{"followups-en.jsonl", []string{
			"migrate the cache to the new store",
			"come back to the flaky eviction test",
			"write the release notes for 2.0",
			"add paging to the users endpoint",
		}, 1},
		{"followups-ko.jsonl", []string{
			"로그 정리 부탁해요",
			"배포 스크립트 정리",
			"캐시 마이그레이션은 진행하겠습니다",
			"테스트 추가는 해요",
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			tr, err := transcript.ReadFile(filepath.Join("testdata", "transcripts", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Format != transcript.FormatClaude || tr.Stats.Corrupt != tt.corrupt {
				t.Errorf("format %s, %d corrupt lines; want claude, %d", tr.Format, tr.Stats.Corrupt, tt.corrupt)
			}
			var got []string
			for _, c := range ExtractFollowups(tr.Conversation(), DefaultKeywords(), 0.85) {
				got = append(got, c.Text)
				if strings.Contains(c.Quote, "noise") || strings.Contains(c.Quote, "not a follow-up") {
					t.Errorf("follow-up from text that must be ignored: %+v", c)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("follow-ups:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestMarkDurable(t *testing.T) {
	t.Parallel()
	mentions := []Followup{
		{Text: "add paging to the users endpoint", Project: "api", Kind: SourceJournal, Path: "j.md", Line: 3},
		{Text: "rotate the keys", Project: "ops", Kind: SourceTodos, Path: "projects/ops/todos.md", Line: 2, Resolved: true},
		{Text: "update dependencies", Project: "web", Kind: SourceTodos, Path: "projects/web/todos.md", Line: 4},
		{Text: "Migrate the cache layer to Redis", Project: "api", Kind: SourceActive, Path: "a.md", Line: 1},
	}
	cands := []Candidate{
		{N: 1, Text: "Add paging to the users endpoint."}, // same item, untagged
		{N: 2, Text: "rotate the keys"},                   // resolved counts: it is persisted
		{N: 3, Text: "update dependencies", Project: "api"},
		{N: 4, Text: "migrate the cache layer"}, // a longer durable item is another follow-up
		{N: 5, Text: "write the release notes"},
	}
	orphans := MarkDurable(cands, mentions, 0.85)
	var got []int
	for _, o := range orphans {
		got = append(got, o.N)
	}
	if !slices.Equal(got, []int{3, 4, 5}) {
		t.Errorf("orphans = %v, want [3 4 5] (a web item does not hold an api follow-up)", got)
	}
	if cands[0].Durable == nil || cands[0].Durable.Path != "j.md" || cands[0].Project != "api" {
		t.Errorf("candidate 1 should point at the journal and take its project: %+v", cands[0])
	}
}

func TestParseRouteFile(t *testing.T) {
	t.Parallel()
	good := "routes:\n  - item: \"1\"\n    to: journal\n  - item: migrate the cache\n    to: todos\n    project: api\n  - item: 로그 정리\n    to: active\n    project: ops\n    task: logging\ndefault: skip\n"
	rf, err := ParseRouteFile([]byte(good))
	if err != nil || len(rf.Routes) != 3 || rf.Default != RouteSkip || rf.Routes[2].Task != "logging" {
		t.Fatalf("ParseRouteFile = %+v, %v", rf, err)
	}
	if _, err := ParseRouteFile([]byte("")); err != nil {
		t.Errorf("an empty file is no routes, not an error: %v", err)
	}
	for _, bad := range []string{"routes:\n  - item: x\n    to: trash\n", "routes:\n  - to: journal\n", "default: maybe\n", "route:\n  - item: x\n", "routes: [\n"} {
		if _, err := ParseRouteFile([]byte(bad)); err == nil {
			t.Errorf("ParseRouteFile(%q) accepted a bad file", bad)
		}
	}
	orphans := []Candidate{{N: 1, Text: "a thing"}, {N: 2, Text: "migrate the cache"}, {N: 3, Text: "로그 정리"}, {N: 4, Text: "unnamed"}}
	routes, unknown := rf.Apply(orphans, 0.85)
	if len(routes) != 4 || routes[1].To != RouteTodos || routes[2].Task != "logging" || routes[3].To != RouteSkip || len(unknown) != 0 {
		t.Errorf("Apply = %+v, unknown %v", routes, unknown)
	}
	rf.Default = ""
	rf.Routes = append(rf.Routes, Route{Item: "9", To: RouteJournal})
	routes, unknown = rf.Apply(orphans, 0.85)
	if _, ok := routes[3]; ok || !slices.Equal(unknown, []string{"9"}) {
		t.Errorf("without a default an unnamed orphan stays unrouted; got %+v, unknown %v", routes, unknown)
	}
}

func TestInsertUnderSection(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"new file", "", "# api todos\n\n## Next Session\n\n- [ ] new\n"},
		{"no section", "# api\n\nsome text", "# api\n\nsome text\n\n## Next Session\n\n- [ ] new\n"},
		{"append to the section's list", "# api\n## Next Session\n- old\n\n## Backlog\n- x\n", "# api\n## Next Session\n- old\n- [ ] new\n\n## Backlog\n- x\n"},
		{"empty section", "## Next Session\n## Backlog\n", "## Next Session\n\n- [ ] new\n## Backlog\n"},
		{"section at the end without newline", "## Next Session\n- old", "## Next Session\n- old\n- [ ] new\n"},
		{"crlf", "## Next Session\r\n- old\r\n", "## Next Session\r\n- old\r\n- [ ] new\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := InsertUnderSection(tt.in, DefaultSection, []string{"- [ ] new"}, "api"); got != tt.want {
				t.Errorf("InsertUnderSection(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
			}
			// What was there keeps its bytes.
			for _, line := range notes.SplitLines(tt.in) {
				if !strings.Contains(InsertUnderSection(tt.in, DefaultSection, []string{"- [ ] new"}, "api"), line) {
					t.Errorf("lost line %q", line)
				}
			}
		})
	}
}
