package followups

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/transcript"
)

func TestIdentifiers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string
	}{
		{"Add pagination to /users endpoint", []string{"/users"}},
		{"Fix the race in foo.go.", []string{"foo.go"}},
		{"Release notes for v1.2, then v1.3", []string{"v1.2", "v1.3"}},
		{"Fix the flaky test of #123 (see @ana)", []string{"#123", "@ana"}},
		{"Rename getUserName and HTTPServer", []string{"getusername", "httpserver"}},
		{"Drop user_id", []string{"user_id"}},
		{"Document `wrap --dry-run` and pkg.Func", []string{"--dry-run", "pkg.func", "wrap"}},
		{"Phase 2 parser", []string{"2"}},
		{"- [x] (api) Add paging (done 2026-11-28T09:00:00+00:00)", nil},
		{"Migrate the cache-layer to Redis ASAP.", nil},
		{"Ship the README", nil},
		{"로그 정리", nil},
		{"Document the APIs", []string{"apis"}},
	}
	for _, tt := range tests {
		if got := Identifiers(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Identifiers(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// identifierPairs are pairs at or above the similarity threshold: those
// naming different things are two follow-ups, the rest one.
var identifierPairs = []struct {
	a, b string
	same bool
}{
	// Different paths, files, versions, issues, names, flags, numbers.
	{"Add pagination to /users endpoint", "Add pagination to /posts endpoint", false},
	{"Fix the race in foo.go", "Fix the race in bar.go", false},
	{"Release notes for v1.2", "Release notes for v1.3", false},
	{"Fix the flaky test of #123", "Fix the flaky test of #124", false},
	{"Rename getUserName to fetch", "Rename getUserNames to fetch", false},
	{"Drop the user_id column from the sessions table", "Drop the user_ip column from the sessions table", false},
	{"Document the `--dry-run` flag of wrap", "Document the `--dry-runs` flag of wrap", false},
	{"Wire ParseConfig into the loader", "Wire ParseConfigs into the loader", false},
	{"Wire `parse` into the config loader", "Wire `parser` into the config loader", false},
	{"Phase 1 parser", "Phase 2 parser", false},
	{"Benchmark the parser on 10000 items", "Benchmark the parser on 50000 items", false},
	{"Fix the flaky parser tests of the command line tool", "Fix the flaky parser tests of the command line tool in a.go", false},
	// Real duplicates: a typo, case, a tag, a checkbox, a word more,
	// punctuation, backticks.
	{"migrate the cache layer to redis", "migrate teh cache layer to redis", true},
	{"Fix the race in foo.go", "Fix teh race in foo.go", true},
	{"Add pagination to /users endpoint", "add pagination to /USERS endpoint", true},
	{"Rename getUserById everywhere", "rename getuserbyid everywhere", true},
	{"Add pagination to /users endpoint", "(api) Add pagination to /users endpoint.", true},
	{"Add pagination to /users endpoint", "[ ] Add pagination to the /users endpoint", true},
	{"Write the release notes for v1.2 of the parser", "Write the release notes for v1.2 of the new parser", true},
	{"Fix the race in `foo.go`", "Fix the race in foo.go", true},
}

func TestSameIdentifiers(t *testing.T) {
	t.Parallel()
	for _, tt := range identifierPairs {
		if s := Similarity(tt.a, tt.b); s < DefaultSimilarity {
			t.Errorf("Similarity(%q, %q) = %.3f: below the threshold, the case proves nothing", tt.a, tt.b, s)
		}
		if got := SameIdentifiers(tt.a, tt.b); got != tt.same {
			t.Errorf("SameIdentifiers(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
		if SameIdentifiers(tt.b, tt.a) != SameIdentifiers(tt.a, tt.b) {
			t.Errorf("SameIdentifiers is not symmetric on %q, %q", tt.a, tt.b)
		}
		if got := Duplicates(tt.a, tt.b, DefaultSimilarity); got != tt.same {
			t.Errorf("Duplicates(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// TestRegenerateKeepsDistinctIdentifiersApart: the dashboard lists both
// items of a pair naming different things, merges a real duplicate into
// one line, and names every merge in the audit.
func TestRegenerateKeepsDistinctIdentifiersApart(t *testing.T) {
	t.Parallel()
	for _, tt := range identifierPairs {
		t.Run(tt.a+" | "+tt.b, func(t *testing.T) {
			t.Parallel()
			srcs := []SourceFile{
				{Kind: SourceTodos, Path: "projects/api/todos.md", Project: "api", Time: day2, Text: "## Next Session\n- " + tt.a + "\n"},
				{Kind: SourceProgress, Path: "projects/api/PROGRESS.md", Project: "api", Time: day1, Text: "## Next Session\n- " + tt.b + "\n"},
			}
			d := Regenerate(srcs, MergeOptions{})
			want := 2
			if tt.same {
				want = 1
			}
			if len(d.Items) != want {
				var lines []string
				for _, p := range d.Items {
					lines = append(lines, p.Line())
				}
				t.Fatalf("dashboard has %d items, want %d:\n  %s", len(d.Items), want, strings.Join(lines, "\n  "))
			}
			if !tt.same {
				if d.Audit.Merged != 0 || len(d.Audit.Merges) != 0 {
					t.Errorf("audit reports a merge of two follow-ups: %d, %+v", d.Audit.Merged, d.Audit.Merges)
				}
				return
			}
			if d.Audit.Merged != 1 {
				t.Errorf("duplicates merged = %d, want 1", d.Audit.Merged)
			}
			// The line shows the newer text (todos.md, day 2); the other
			// is named in the audit unless it reads the same.
			ta, _ := cleanFollowup(followupBodyOf(tt.a))
			tb, _ := cleanFollowup(followupBodyOf(tt.b))
			if ta == tb {
				return
			}
			m := Merge{Text: tb, Path: "projects/api/PROGRESS.md", Line: 2, Into: ta, IntoPath: "projects/api/todos.md", IntoLine: 2, Project: "api"}
			if len(d.Audit.Merges) != 1 || d.Audit.Merges[0] != m {
				t.Errorf("audit merges = %+v, want [%+v]", d.Audit.Merges, m)
			}
		})
	}
}

// followupBodyOf is the text ScanSource reads from a "- " list line.
func followupBodyOf(s string) string {
	if rest, ok := cutCheckbox(s); ok {
		return rest
	}
	return s
}

func TestResolutionNamesTheSameThing(t *testing.T) {
	t.Parallel()
	srcs := []SourceFile{{Kind: SourceTodos, Path: "todos.md", Time: day1, Text: "## Next Session\n" +
		"- [x] Phase 1 parser (done 2026-11-28T09:00:00+00:00)\n" +
		"- Phase 2 parser\n" +
		"- [x] Add pagination to /users endpoint\n" +
		"- Add pagination to /posts endpoint\n" +
		"- [x] migrate teh cache layer to redis\n" +
		"- migrate the cache layer to redis\n"}}
	d := Regenerate(srcs, MergeOptions{DefaultProject: "api"})
	var texts []string
	for _, p := range d.Items {
		texts = append(texts, p.Text)
	}
	if want := []string{"Phase 2 parser", "Add pagination to /posts endpoint"}; !slices.Equal(texts, want) {
		t.Errorf("open items = %q, want %q (a tick resolves only what names the same things)", texts, want)
	}
	want := []Merge{{Text: "migrate the cache layer to redis", Project: "api", Path: "todos.md", Line: 7,
		Into: "migrate teh cache layer to redis", IntoPath: "todos.md", IntoLine: 6, Resolved: true}}
	if d.Audit.Resolved != 1 || !slices.Equal(d.Audit.Merges, want) {
		t.Errorf("resolved %d, merges %+v; want 1, %+v", d.Audit.Resolved, d.Audit.Merges, want)
	}
}

func TestMarkDurableIdentifiers(t *testing.T) {
	t.Parallel()
	mentions := []Followup{
		{Text: "Add pagination to /users endpoint", Project: "api", Kind: SourceTodos, Path: "todos.md", Line: 3},
		{Text: "Fix the race in foo.go", Project: "api", Kind: SourceTodos, Path: "todos.md", Line: 4},
	}
	cands := []Candidate{
		{N: 1, Text: "add pagination to /posts endpoint"},
		{N: 2, Text: "fix the race in foo.go"},
	}
	orphans := MarkDurable(cands, mentions, DefaultSimilarity)
	if len(orphans) != 1 || orphans[0].N != 1 {
		t.Errorf("orphans = %+v, want only the /posts follow-up (the todos.md names /users)", orphans)
	}
}

func TestExtractFollowupsKeepsIdentifiersApart(t *testing.T) {
	t.Parallel()
	text := "Next session: add pagination to /users endpoint.\nNext session: add pagination to /posts endpoint.\nNext session: add pagination to /posts endpoint!"
	got := ExtractFollowups([]transcript.Turn{{Role: transcript.RoleUser, Text: text}}, DefaultKeywords(), DefaultSimilarity)
	var texts []string
	for _, c := range got {
		texts = append(texts, c.Text)
	}
	if len(texts) != 2 || !strings.Contains(texts[0], "/users") || !strings.Contains(texts[1], "/posts") {
		t.Errorf("extracted %q, want the /users and the /posts follow-up once each", texts)
	}
}

func TestContainsFollowupIdentifiers(t *testing.T) {
	t.Parallel()
	text := "## Next Session\n\n- [ ] fix foo.go\n"
	if ContainsFollowup(text, "fix foo_go") {
		t.Error("foo_go is not foo.go: routing it would be skipped as already listed")
	}
	if !ContainsFollowup(text, "Fix foo.go.") {
		t.Error("the same follow-up, another case and a full stop, is already listed")
	}
}

func TestContainsFollowupEscaped(t *testing.T) {
	t.Parallel()
	// The journal holds follow-ups escaped for markdown (an autolink, an
	// escaped "<"); the one written there is already listed.
	item := "(web) fix <div> nesting at https://example.com/issues/7"
	text := notes.Entry{Summary: "s", Next: []string{item}}.Render()
	if !strings.Contains(text, "<https://") || !ContainsFollowup(text, item) {
		t.Errorf("the escaped follow-up is not found in\n%s", text)
	}
}

// TestMergedItemsNameOneThing is a property test over generated vaults:
// items naming numbered things ("endpoint /r17", "issue #17") with typos
// and case changes in their other words; no dashboard item merges two
// mentions naming different things, and every pair of mentions naming the
// same thing with a typo's distance becomes one item.
func TestMergedItemsNameOneThing(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 13))
	verbs := []string{"add pagination to", "fix the race in", "document", "benchmark the handler of"}
	things := []string{"/r%d endpoint", "issue #%d", "handler_%d.go", "v1.%d release"}
	for round := range 50 {
		var lines []string
		thing := map[string]string{} // text → the thing it names
		for range 30 {
			v, th := verbs[r.IntN(len(verbs))], fmt.Sprintf(things[r.IntN(len(things))], r.IntN(6))
			text := v + " " + th
			switch r.IntN(3) {
			case 0: // a typo in a word that is no identifier
				b := []byte(text)
				i := r.IntN(len(v))
				if b[i] != ' ' {
					b[i] = 'x'
				}
				text = string(b)
			case 1:
				text = strings.ToUpper(text[:1]) + text[1:]
			}
			lines = append(lines, "- "+text)
			thing[text] = strings.ToLower(th)
		}
		src := SourceFile{Kind: SourceTodos, Path: "todos.md", Time: day1, Text: "## Next Session\n" + strings.Join(lines, "\n") + "\n"}
		d := Regenerate([]SourceFile{src}, MergeOptions{DefaultProject: "p"})
		byLine := map[int]string{}
		for i, l := range lines {
			byLine[i+2] = strings.TrimPrefix(l, "- ")
		}
		for _, p := range d.Items {
			names := map[string]bool{}
			for _, s := range p.Sources {
				names[thing[byLine[s.Line]]] = true
			}
			if len(names) > 1 {
				t.Fatalf("round %d: %q merges mentions naming %v", round, p.Text, names)
			}
		}
		for i, a := range lines {
			for j, b := range lines[i+1:] {
				a, b := strings.TrimPrefix(a, "- "), strings.TrimPrefix(b, "- ")
				if Similarity(a, b) >= DefaultSimilarity && thing[a] == thing[b] && itemOf(d, i+2) != itemOf(d, i+j+3) {
					t.Fatalf("round %d: %q and %q name %s alike but are two items", round, a, b, thing[a])
				}
			}
		}
	}
}

// itemOf is the index of the dashboard item listing a line of todos.md.
func itemOf(d Dashboard, line int) int {
	for i, p := range d.Items {
		for _, s := range p.Sources {
			if s.Line == line {
				return i
			}
		}
	}
	return -1
}
