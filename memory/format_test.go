package memory

import (
	"regexp"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/markdown"
)

func TestAbstract(t *testing.T) {
	t.Parallel()
	a := Abstractor{
		RepoNames: []string{"uploader", "acme-uploader"},
		Roots:     []string{"/home/ada/src/uploader", "/home/ada"},
		Users:     []string{"Ada Lovelace", "Ada", "Lovelace", "ada", "alovelace", "acme-corp"},
		Hosts:     []string{"git.acme.example"},
	}
	tests := []struct {
		name, in, want string
		gone           []string // must not survive
	}{
		{"repo path", "Editing /home/ada/src/uploader/internal/retry.go broke it", "Editing <path> broke it", []string{"/home", "retry.go"}},
		{"home path", "config in /home/ada/.config/app.yaml and ~/notes/x.md", "config in <path> and <path>", []string{"ada", ".config"}},
		{"other absolute path", "the log at /var/log/nginx/error.log said so", "the log at <path> said so", []string{"nginx"}},
		{"windows path", `C:\Users\ada\proj\main.go failed`, "<path> failed", []string{"Users"}},
		{"repo-relative path", "tests in internal/db/conn_test.go were skipped", "tests in <path> were skipped", []string{"conn_test"}},
		{"email", "ask ada.lovelace@acme.com or ops+pager@acme.io", "ask <email> or <email>", []string{"acme"}},
		{"url", "see https://git.acme.example/acme-corp/uploader/pull/12 for details", "see <url> for details", []string{"acme"}},
		{"scp remote", "pushed to git@github.com:acme-corp/uploader.git", "pushed to <url>", []string{"acme"}},
		{"host names", "db-01.prod.acme.internal and api.acme.com:8443 timed out; 10.0.3.7:5432 too", "<host> and <host> timed out; <host> too", []string{"acme", "10.0"}},
		{"repo name", "The Uploader's retry loop in acme-uploader", "The <project>'s retry loop in <project>", []string{"ploader"}},
		{"people", "Ada Lovelace said alovelace broke it; @acme-corp and @bob reviewed", "<user> said <user> broke it; @<user> and @<user> reviewed", []string{"Ada", "bob"}},
		{"file names stay", "conn.go and main.rs and go.mod are generic", "conn.go and main.rs and go.mod are generic", nil},
		{"version numbers stay", "go 1.26.8 and v2.39.0", "go 1.26.8 and v2.39.0", nil},
		{"korean text", "/home/ada/src/uploader 에서 ada@acme.com 에게 물어봄", "<path> 에서 <email> 에게 물어봄", []string{"acme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := a.Abstract(tt.in)
			if got != tt.want {
				t.Errorf("Abstract(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("%q survived in %q", g, got)
				}
			}
		})
	}
}

func TestAddRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, rule, want string
		changed              bool
	}{
		{"no file", "", "Run go vet.", "## Project Rules\n\n- Run go vet.\n", true},
		{"no section", "# Project\n\nIntro.\n", "Run go vet.", "# Project\n\nIntro.\n\n## Project Rules\n\n- Run go vet.\n", true},
		{"no section, no final newline", "# Project\nIntro.", "Run go vet.", "# Project\nIntro.\n\n## Project Rules\n\n- Run go vet.\n", true},
		{"append after last rule", "# P\n\n## Project Rules\n- a\n- b\n\n## Notes\n- n\n", "c", "# P\n\n## Project Rules\n- a\n- b\n- c\n\n## Notes\n- n\n", true},
		{"empty section", "## Project Rules\n\n## Notes\nx\n", "c", "## Project Rules\n\n- c\n\n## Notes\nx\n", true},
		{"section at end without newline", "## Project Rules\n- a", "b", "## Project Rules\n- a\n- b\n", true},
		{"heading only at end", "# P\n## Project Rules", "b", "# P\n## Project Rules\n\n- b\n", true},
		{"crlf", "# P\r\n\r\n## Project Rules\r\n- a\r\n\r\n## Notes\r\n", "b", "# P\r\n\r\n## Project Rules\r\n- a\r\n- b\r\n\r\n## Notes\r\n", true},
		{"h3 inside section", "## Project Rules\n- a\n### Sub\n- s\n\n## Next\n", "b", "## Project Rules\n- a\n### Sub\n- s\n- b\n\n## Next\n", true},
		{"fenced heading does not end it", "## Project Rules\n- a\n```\n## not a heading\n```\n\n# End\n", "b", "## Project Rules\n- a\n```\n## not a heading\n```\n- b\n\n# End\n", true},
		{"already there", "## Project Rules\n- Run go vet.\n", "- run  GO vet", "## Project Rules\n- Run go vet.\n", false},
		{"korean", "## Project Rules\n- a\n", "이 프로젝트에서는 항상 gofmt를 실행한다", "## Project Rules\n- a\n- 이 프로젝트에서는 항상 gofmt를 실행한다\n", true},
		{"case-insensitive heading", "## project rules\n- a\n", "b", "## project rules\n- a\n- b\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, changed := AddRule(tt.in, tt.rule)
			if got != tt.want || changed != tt.changed {
				t.Errorf("AddRule(%q, %q)\n got %q %v\nwant %q %v", tt.in, tt.rule, got, changed, tt.want, tt.changed)
			}
			if changed {
				// Everything before the inserted line is byte-identical.
				i := strings.Index(got, "- "+CleanRule(tt.rule))
				if i < 0 || !strings.HasPrefix(tt.in+"\n\n", got[:i]) && !strings.HasPrefix(got, strings.TrimRight(tt.in, "\r\n")) {
					t.Errorf("the text before the rule changed: %q", got[:max(i, 0)])
				}
			}
		})
	}
}

// TestRuleWrapped: a long rule is a list item wrapped at 80 columns (a
// person's CLAUDE.md gets no markdownlint configuration), escaped where
// markdown would read it as HTML or a bare URL, and read back exactly; the
// same rule, wrapped or not, by scribe or by hand, is never added twice.
func TestRuleWrapped(t *testing.T) {
	t.Parallel()
	rule := "Always run go vet, staticcheck and the race detector before saying done, link the CI run (https://ci.example.com/runs/12345) in the PR, and never put a raw <div> into the templates - 1. ever."
	for _, eol := range []string{"\n", "\r\n"} {
		in := strings.ReplaceAll("# P\n\n## Project Rules\n\n- Existing rule.\n\n## Notes\n\nx\n", "\n", eol)
		got, changed := AddRule(in, rule)
		if !changed {
			t.Fatalf("%q: not added", eol)
		}
		lines := strings.Split(strings.TrimSuffix(got, eol), eol)
		var item []string
		for _, l := range lines {
			if strings.Contains(l, "\r") {
				t.Errorf("a line has a stray CR: %q", l)
			}
			if len([]rune(l)) > 80 {
				t.Errorf("line of %d columns: %q", len([]rune(l)), l)
			}
			if strings.HasPrefix(l, "- Always") || len(item) > 0 && strings.HasPrefix(l, "  ") {
				item = append(item, l)
			}
		}
		if len(item) < 3 || !strings.Contains(got, "<https://ci.example.com/runs/12345>") || !strings.Contains(got, `\<div>`) {
			t.Errorf("want the rule wrapped, its URL an autolink and its <div> escaped:\n%s", got)
		}
		if rules := Rules(got); len(rules) != 2 || rules[0] != "Existing rule." || rules[1] != rule {
			t.Errorf("Rules = %q", rules)
		}
		if again, changed := AddRule(got, rule); changed || again != got {
			t.Errorf("the wrapped rule was added again:\n%s", again)
		}
		// A rule an older scribe wrote on one line, and one a person
		// wrapped by hand, are the same rule.
		old := strings.ReplaceAll("## Project Rules\n\n- "+rule+"\n", "\n", eol)
		if _, changed := AddRule(old, rule); changed {
			t.Errorf("the rule on one line was added again")
		}
		byHand := strings.ReplaceAll("## Project Rules\n\n- Always run go vet, staticcheck and the race detector\nbefore saying done, link the CI run\n    (https://ci.example.com/runs/12345) in the PR, and never put a raw <div> into the templates - 1. ever.\n", "\n", eol)
		if rules := Rules(byHand); len(rules) != 1 || rules[0] != rule {
			t.Errorf("Rules of a rule wrapped by hand = %q", rules)
		}
		if _, changed := AddRule(byHand, rule); changed {
			t.Errorf("the rule wrapped by hand was added again")
		}
	}
	if got, _ := AddRule("", "# Not a heading, a rule"); got != "## Project Rules\n\n- \\# Not a heading, a rule\n" || Rules(got)[0] != "# Not a heading, a rule" {
		t.Errorf("a rule starting with # is a heading in the list item:\n%s", got)
	}
	if rules := Rules("## Project Rules\n\n- a\n\n```md\n- an example, not a rule\n```\n"); len(rules) != 1 {
		t.Errorf("a bullet in fenced code read as a rule: %q", rules)
	}
}

func TestDirectRule(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"In this project always run go vet before you say done.", "Always run go vet before you say done."},
		{"Please remember: in this repo, never push to main directly", "Never push to main directly."},
		{"We always squash merges in this project.", "We always squash merges."},
		{"in this codebase we use tabs", "We use tabs."},
		{"이 프로젝트에서는 항상 커밋 전에 gofmt를 실행해요.", "항상 커밋 전에 gofmt를 실행해요."},
		{"이 저장소에서는 main에 직접 푸시하지 마.", "main에 직접 푸시하지 마."},
		{"In this project the parser is slow.", ""},
		{"이 프로젝트는 재미있네요", ""},
		{"Always use tabs.", ""},
	}
	for _, tt := range tests {
		if got := DirectRule(tt.in); got != tt.want {
			t.Errorf("DirectRule(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	t.Parallel()
	r := Record{Name: "Use tabs: really", Description: "line one\nline two", Type: TypeCorrection, CandidateID: "0123456789ab",
		PromotedAt: "2026-01-02T03:04:05+00:00", EvaluatorScore: 0, SourceTurn: 7, UserCorrection: "no!\n---\nwrong", Prevention: "p"}
	text := RenderRecord(r, "# Use tabs\n\nbody\n---\nmore\n")
	got, body, err := ParseRecord([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != r.Name || got.Description != "line one line two" || got.UserCorrection != "no! --- wrong" || got.SourceTurn != 7 || got.CandidateID != r.CandidateID {
		t.Errorf("round trip: %+v", got)
	}
	if body != "# Use tabs\n\nbody\n---\nmore\n" {
		t.Errorf("body %q", body)
	}
	if errs := SchemaErrors([]byte(text), "corrections", false); len(errs) != 0 {
		t.Errorf("schema: %v", errs)
	}
}

func TestSchemaErrors(t *testing.T) {
	t.Parallel()
	ok := "---\nname: n\ndescription: d\ntype: tacit\ncandidate_id: 0123456789ab\npromoted_at: \"2026-01-02T03:04:05+09:00\"\nevaluator_score: 0.5\nsource_turn: 3\n---\n# n\n"
	tests := []struct {
		name, text, dir string
		global          bool
		want            []string // substrings, one per error
	}{
		{"valid", ok, "tacit", false, nil},
		{"unquoted timestamp", strings.Replace(ok, `"2026-01-02T03:04:05+09:00"`, "2026-01-02T03:04:05+09:00", 1), "tacit", false, nil},
		{"no frontmatter", "# n\n", "tacit", false, []string{"no frontmatter"}},
		{"broken yaml", "---\nname: [\n---\n", "tacit", false, []string{"parse frontmatter"}},
		{"missing keys", "---\nname: n\ntype: tacit\n---\n", "tacit", false, []string{"missing description", "missing candidate_id", "missing promoted_at", "missing evaluator_score", "missing source_turn"}},
		{"bad values", strings.NewReplacer("0.5", "1.5", "source_turn: 3", "source_turn: -1", "0123456789ab", "XYZ", `"2026-01-02T03:04:05+09:00"`, "yesterday").Replace(ok), "tacit", false,
			[]string{"candidate_id", "evaluator_score", "source_turn", "promoted_at"}},
		{"unknown type", strings.Replace(ok, "type: tacit", "type: gossip", 1), "tacit", false, []string{"type \"gossip\""}},
		{"correction fields", strings.Replace(ok, "type: tacit", "type: correction", 1), "corrections", false, []string{"user_correction", "prevention"}},
		{"preference scope", strings.Replace(ok, "type: tacit", "type: preference\nscope: galaxy", 1), "preferences", false, []string{"scope \"galaxy\""}},
		{"pattern fields", strings.Replace(ok, "type: tacit", "type: pattern", 1), "tacit", false, []string{"topic", "occurrences"}},
		{"wrong directory", ok, "corrections", false, []string{"belongs in tacit/"}},
		{"global needs project_id", ok, "tacit", true, []string{"project_id"}},
		{"long description", strings.Replace(ok, "description: d", "description: "+strings.Repeat("x", 151), 1), "tacit", false, []string{"1–150"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := SchemaErrors([]byte(tt.text), tt.dir, tt.global)
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d errors like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("error %d = %q, want it to mention %q", i, got[i], w)
				}
			}
		})
	}
}

func TestIndex(t *testing.T) {
	t.Parallel()
	text := "# Memory\n\nprose\n- [Tabs](corrections/tabs.md) — Use tabs\n- broken line\n* [x](y) - wrong dash\n"
	ix := ParseIndex(text)
	if len(ix.Entries) != 1 || ix.Entries[0].Line != 4 || ix.Entries[0].Path != "corrections/tabs.md" {
		t.Errorf("entries %+v", ix.Entries)
	}
	if len(ix.Malformed) != 2 || ix.Malformed[0] != 5 || ix.Malformed[1] != 6 {
		t.Errorf("malformed %v", ix.Malformed)
	}
	out := AddToIndex(text, IndexEntry{Name: "Tabs", Path: "corrections/tabs.md", Description: "dup"},
		IndexEntry{Name: "a [b] c", Path: "tacit/x (1).md", Description: strings.Repeat("é", 200)},
		IndexEntry{Name: "키", Path: "tacit/k.md", Description: "한국어\n설명"})
	if !strings.HasPrefix(out, text) {
		t.Fatal("existing bytes changed")
	}
	added := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out, text), "\n"), "\n")
	if len(added) != 2 {
		t.Fatalf("added %q", added)
	}
	for _, l := range added {
		if !IndexLineRE().MatchString(l) {
			t.Errorf("%q does not match the index line form", l)
		}
	}
	if added[1] != "- [키](tacit/k.md) — 한국어 설명" {
		t.Errorf("korean line %q", added[1])
	}
	got := AddToIndex("", IndexEntry{Name: "n", Path: "tacit/n.md", Description: "d"})
	if !strings.HasPrefix(got, "<!-- markdownlint-disable-file MD013 -->\n# Memory\n") || !strings.HasSuffix(got, "- [n](tacit/n.md) — d\n") {
		t.Errorf("new index %q", got)
	}
	// The lint directive is not a line of the index: the count leaves it
	// out; line numbers stay the file's.
	if ix := ParseIndex(got); ix.Lines != strings.Count(got, "\n")-1 || len(ix.Entries) != 1 || ix.Entries[0].Line != 7 || len(ix.Malformed) != 0 {
		t.Errorf("new index parsed as %+v", ix)
	}
	// An index scribe started before the directive gets it on top, every
	// other byte kept; one a person started is theirs, as it is.
	for _, eol := range []string{"\n", "\r\n"} {
		old := strings.ReplaceAll(indexHeaderBefore+"- [n](tacit/n.md) — d\n", "\n", eol)
		got := AddToIndex(old, IndexEntry{Name: "m", Path: "tacit/m.md", Description: "e"})
		if want := indexLint + eol + old + "- [m](tacit/m.md) — e" + eol; got != want {
			t.Errorf("index from before the directive:\n%q\nwant\n%q", got, want)
		}
		if again := AddToIndex(got, IndexEntry{Name: "o", Path: "tacit/o.md", Description: "f"}); strings.Count(again, indexLint) != 1 || !strings.HasPrefix(again, got) {
			t.Errorf("a second line added a second directive or changed bytes:\n%q", again)
		}
	}
	if got := AddToIndex(text, IndexEntry{Name: "m", Path: "tacit/m.md", Description: "e"}); strings.Contains(got, indexLint) {
		t.Errorf("a person's index got the directive:\n%q", got)
	}
}

func TestTrapRecord(t *testing.T) {
	t.Parallel()
	a := Abstractor{RepoNames: []string{"uploader"}, Roots: []string{"/home/ada/src/uploader"}, Users: []string{"ada"}}
	in := TrapInput{Title: "uploader retry test passed on a frozen clock", Pattern: "The test in /home/ada/src/uploader/retry_test.go froze time; ada never saw the jitter.",
		Context: "Retry loops with time-based jitter", CatchSignal: "Run the retry tests with a real clock once", Flavor: FlavorSpecGap}
	tr := AbstractTrap(in, a)
	if tr.Title != "<project> retry test passed on a frozen clock" || strings.Contains(tr.Pattern, "ada") || strings.Contains(tr.Pattern, "/home") {
		t.Errorf("not abstracted: %+v", tr)
	}
	text := tr.Render()
	// The record is markdown: the abstractor's placeholders are escaped,
	// shown as written rather than read as HTML tags (markdownlint MD033).
	for _, want := range []string{"# Trap: \\<project> retry test", "froze time; \\<user> never", "\n## Pattern\n", "\n## Lesson\n\nRun the retry tests", "\n## Applies to\n\nRetry loops", "flavor=spec_gap scope=project"} {
		if !strings.Contains(text, want) {
			t.Errorf("record lacks %q:\n%s", want, text)
		}
	}
	back, ok := ParseTrap(text)
	if !ok || back != tr {
		t.Errorf("ParseTrap = %+v %v, want %+v", back, ok, tr)
	}
	if _, ok := ParseTrap("# Trap: x\n## Pattern\np\n"); ok {
		t.Error("a record without Lesson and Applies to parsed")
	}
	if got := tr.FileName(""); got != "project-retry-test-passed-on-a-frozen-clock.md" {
		t.Errorf("FileName = %q", got)
	}
	tr.Scope = ScopeUniversal
	if got := tr.FileName("ab12"); got != "trap_project-retry-test-passed-on-a-frozen-clock-ab12.md" {
		t.Errorf("universal FileName = %q", got)
	}
	is := IssueFor(tr)
	if is.Title != "Trap: <project> retry test passed on a frozen clock" || !strings.HasPrefix(is.Body, "Pattern: The test in <path>") || !strings.Contains(is.Body, "Discovered via: spec gap") {
		t.Errorf("issue %+v", is)
	}
	if strings.Contains(is.Body, "Lesson") || strings.Contains(is.Body, "Retry loops") {
		t.Errorf("the issue sends more than the abstracted pattern: %q", is.Body)
	}
	back2, ok := ParseIssue(is.Render())
	if !ok || back2 != is {
		t.Errorf("ParseIssue = %+v", back2)
	}
}

// TestTrapRecordWrapped: a trap record is a person's file, so its prose is
// wrapped at 80 columns (no markdownlint configuration in it) and escaped,
// and ParseTrap reads every section back exactly, a person's own wrapping
// and paragraphs too.
func TestTrapRecordWrapped(t *testing.T) {
	t.Parallel()
	long := func(what string) string {
		return what + " went wrong because the tests froze time in UTC while production ran in KST, so the date arithmetic near midnight broke; a <div> in the report and 1. a list marker mid-sentence changed nothing # at all."
	}
	in := TrapInput{Title: "Mocked clock hid a timezone bug", Pattern: long("The pattern"),
		Context: long("The context") + "\n\nA second paragraph,\nwrapped by hand.\n\n- a list item\n  continued", CatchSignal: long("The catch-signal")}
	tr := AbstractTrap(in, Abstractor{})
	if tr.AppliesTo != long("The context")+"\n\nA second paragraph, wrapped by hand.\n\n- a list item continued" {
		t.Errorf("AppliesTo not in canonical form: %q", tr.AppliesTo)
	}
	text := tr.Render()
	for i, l := range strings.Split(text, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, len([]rune(l)), l)
		}
	}
	if !strings.Contains(text, `\<div>`) || strings.Contains(text, "markdownlint") {
		t.Errorf("want <div> escaped and no lint configuration:\n%s", text)
	}
	back, ok := ParseTrap(text)
	if !ok || back != tr {
		t.Errorf("ParseTrap(Render) =\n%+v\nwant\n%+v\n%s", back, tr, text)
	}
	if again := back.Render(); again != text {
		t.Errorf("render, parse, render changed the record:\n%s\n---\n%s", text, again)
	}
	// A record an older scribe wrote (one line per section) is the same
	// record.
	old := "# Trap: " + tr.Title + "\n\n## Pattern\n\n" + tr.Pattern + "\n\n## Lesson\n\n" + tr.Lesson + "\n\n## Applies to\n\n" +
		strings.ReplaceAll(tr.AppliesTo, "<div>", `\<div>`) + "\n\n<!-- scribe: flavor=" + tr.Flavor + " scope=" + tr.Scope + " -->\n"
	if !sameTrap([]byte(old), []byte(text)) {
		t.Errorf("the unwrapped record is not the same trap")
	}
	if tr2 := tr; func() bool { tr2.Lesson += " More."; return sameTrap([]byte(tr2.Render()), []byte(text)) }() {
		t.Errorf("a different lesson is the same trap")
	}
}

func TestValidateTrapInput(t *testing.T) {
	t.Parallel()
	full := TrapInput{Title: "t", Pattern: "p", Context: "c", CatchSignal: "s"}
	if err := ValidateTrapInput(full); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]TrapInput{
		"--catch-signal": {Title: "t", Pattern: "p", Context: "c"},
		"--scope":        {Title: "t", Pattern: "p", Context: "c", CatchSignal: "s", Scope: "galaxy"},
		"--flavor":       {Title: "t", Pattern: "p", Context: "c", CatchSignal: "s", Flavor: "vibes"},
	} {
		if err := ValidateTrapInput(in); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestRecordBody: a memory record's body is a person's markdown, lint
// clean without configuration (the H1 fits 80 columns, the content wraps,
// a URL or "<" is escaped), and the validator reads its content back as
// it was promoted.
func TestRecordBody(t *testing.T) {
	t.Parallel()
	name := "Always use the real timezone database in the date tests of this repository, whatever the CI runner's zone is"
	content := "Don't mock the clock: the <div> report at https://example.com/tz shows\nthe date arithmetic near midnight broke while the tests froze time in UTC and production ran in KST."
	body := recordBody("Rejected: ", name, content)
	lines := strings.Split(body, "\n")
	for _, l := range lines {
		if len([]rune(l)) > 80 {
			t.Errorf("a line of %d columns: %q", len([]rune(l)), l)
		}
	}
	if !strings.HasPrefix(lines[0], "# Rejected: Always use the real timezone") || !strings.HasSuffix(lines[0], "…") ||
		!strings.Contains(body, `\<div>`) || !strings.Contains(body, "<https://example.com/tz>") {
		t.Errorf("body:\n%s", body)
	}
	got := Existing{Record: Record{Type: TypeCorrection}, Body: recordBody("", name, content)}.comparable().Content
	if want := strings.ReplaceAll(content, "\n", " "); got != want {
		t.Errorf("comparable content = %q, want %q", got, want)
	}
}

// TestTrapLongTitle: a heading cannot wrap, so a long title is cut in the
// heading and kept whole in the paragraph under it, where ParseTrap reads
// it; a short one, or one a person edited, reads as its heading.
func TestTrapLongTitle(t *testing.T) {
	t.Parallel()
	title := "Navigation moved without its styles, see https://example.com/issues/42?tab=notes and the <div class=\"nav\"> that " +
		"broke near midnight because the tests froze time in UTC"
	for _, title := range []string{title, strings.Repeat("x", 90), "- 1. " + title, "https://example.com/" + strings.Repeat("a", 100) + " end"} {
		tr := Trap{Title: title, Pattern: "p", Lesson: "l", AppliesTo: "a", Scope: ScopeProject, Flavor: FlavorVerificationFailure}
		text := tr.Render()
		head, _, _ := strings.Cut(text, "\n")
		if markdown.Columns(head) > markdown.Width || !strings.HasSuffix(head, "…") || !strings.HasPrefix(head, "# Trap: ") {
			t.Errorf("heading %q (%d columns): want at most %d, cut with …", head, markdown.Columns(head), markdown.Width)
		}
		for _, l := range strings.Split(text, "\n") {
			if markdown.Columns(l) > markdown.Width && strings.Contains(l, " ") {
				t.Errorf("line over %d columns: %q", markdown.Width, l)
			}
		}
		if back, ok := ParseTrap(text); !ok || back != tr {
			t.Errorf("ParseTrap = %+v %v, want %+v\n%s", back, ok, tr, text)
		}
	}
	short := Trap{Title: "Short title", Pattern: "p", Lesson: "l", AppliesTo: "a", Scope: ScopeProject, Flavor: FlavorVerificationFailure}
	if text := short.Render(); !strings.HasPrefix(text, "# Trap: Short title\n\n## Pattern\n") {
		t.Errorf("a short title is not the heading alone:\n%s", text)
	}
	if back, _ := ParseTrap("# Trap: Cut short…\n\nA person's note.\n\n## Pattern\n\np\n\n## Lesson\n\nl\n\n## Applies to\n\na\n"); back.Title != "Cut short…" {
		t.Errorf("a paragraph that is not the title was read as it: %q", back.Title)
	}
}

// TestIndexLineEscaped: an index line's description is escaped, so a "<"
// or a bare URL in it lints clean, and read back as it was; escaped, it
// still fits the line's 150 characters (SPEC §6).
func TestIndexLineEscaped(t *testing.T) {
	t.Parallel()
	for _, desc := range []string{"<nav> moved; see https://example.com/a?b=c and ada@example.com", strings.Repeat("<b> ", 60), strings.Repeat("x", 147) + "<b>"} {
		line := FormatIndexLine(IndexEntry{Name: "nav", Path: "corrections/nav.md", Description: desc})
		m := IndexLineRE().FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%q does not match the index line form", line)
		}
		if bare := regexp.MustCompile(`<[^ >]*(://|@)[^ >]*>`).ReplaceAllString(m[3], ""); regexp.MustCompile(`(^|[^\\])<[A-Za-z/!?]`).MatchString(bare) {
			t.Errorf("description not escaped: %q", m[3])
		}
		ix := ParseIndex(AddToIndex("", IndexEntry{Name: "nav", Path: "corrections/nav.md", Description: desc}))
		if len(ix.Entries) != 1 || !strings.HasPrefix(desc, strings.TrimSuffix(ix.Entries[0].Description, "…")) {
			t.Errorf("read back %+v, want %q", ix.Entries, desc)
		}
	}
	if got := ParseIndex(AddToIndex("", IndexEntry{Name: "the <nav> moved", Path: "p.md", Description: "<nav> see https://example.com/x"})).Entries[0]; got.Description != "<nav> see https://example.com/x" || got.Name != "the <nav> moved" {
		t.Errorf("read back as %+v", got)
	}
	if line := FormatIndexLine(IndexEntry{Name: "the <nav> moved", Path: "p.md", Description: "d"}); line != `- [the \<nav> moved](p.md) — d` {
		t.Errorf("the name is not escaped: %q", line)
	}
}
