package check

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/notes"
)

func TestRulesRegistry(t *testing.T) {
	t.Parallel()
	id := regexp.MustCompile(`^SCR\d{3}$`)
	seen := map[string]bool{}
	for i, r := range Rules() {
		if !id.MatchString(r.ID()) || seen[r.ID()] || seen[r.Name()] {
			t.Errorf("rule %d: bad or duplicate id/name %q/%q", i, r.ID(), r.Name())
		}
		if want := fmt.Sprintf("SCR%03d", i+1); r.ID() != want {
			t.Errorf("rule %d is %s, want %s (ids are stable and in order)", i, r.ID(), want)
		}
		seen[r.ID()], seen[r.Name()] = true, true
		if r.Describe() == "" || r.Severity() == "" {
			t.Errorf("%s: missing description or severity", r.ID())
		}
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	got, err := Select(Rules(), []string{"scr002,SCR001", "followup-tags"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID())
	}
	if strings.Join(ids, " ") != "SCR001 SCR002 SCR011" {
		t.Fatalf("Select = %v", ids)
	}
	if _, err := Select(Rules(), []string{"SCR999"}); err == nil || !strings.Contains(err.Error(), "SCR999") || !strings.Contains(err.Error(), "SCR001") {
		t.Fatalf("unknown rule: err = %v", err)
	}
}

func TestJournalSize(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := &journaler{max: 100}
	for i := 1; i <= 4; i++ {
		j.add(i)
	}
	tr.Write(journalPath, j.journal)
	cfg := config.Defaults()
	cfg.JournalMax = 4
	if got := run(t, newJournalSize(), tr.inputWith(cfg, "")); len(got) != 0 {
		t.Fatalf("4 entries, max 4: got %s", describe(got))
	}
	cfg.JournalMax = 3
	got := run(t, newJournalSize(), tr.inputWith(cfg, ""))
	if len(got) != 1 || got[0].Line != 4 || got[0].File != journalPath || !strings.Contains(got[0].Fix, "oldest 1 ") {
		t.Fatalf("4 entries, max 3: got %s", describe(got))
	}
}

func TestBridgeNote(t *testing.T) {
	t.Parallel()
	const path = ".claude/sonmat/bridge-note.md"
	good := notes.BridgeNote{Updated: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Witness: "WARN",
		Context: []string{"parser half done"}, CarryForward: []string{"finish the parser"}}.Render()
	tests := []struct {
		name    string
		text    string
		want    []string // "severity:line"
		message string
	}{
		{"rendered note with a bare marker", good, nil, ""},
		{"witness findings on the marker line", strings.Replace(good, "Witness: WARN", "Witness: WARN (iter2) — not covered by tests", 1),
			[]string{fmt.Sprintf("error:%d", lineOf(good, "Witness: WARN"))}, "witness findings"},
		{"findings as a bullet", good + "- WARN iter2 not-covered-by-tests\n", []string{fmt.Sprintf("error:%d", strings.Count(good, "\n")+1)}, "witness findings"},
		// 9 lines of text and 12 more: the 20th line of text is the finding's.
		{"too long", good + strings.Repeat("- more\n", 12), []string{fmt.Sprintf("warning:%d", strings.Count(good, "\n")+20-notes.TextLines(good))}, "lines"},
		// Blank lines are not counted: markdown wants them around headings and lists.
		{"blank lines aside", good + strings.Repeat("\n- more\n", 10), nil, ""},
		// Nor is the markdownlint directive line of a note without provenance.
		{"lint directive aside", good + strings.Repeat("- more\n", 10), nil, ""},
		{"over budget", strings.Replace(good, "parser half done", strings.Repeat("x", 7000), 1), []string{"warning:1"}, "budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			tr.Write(path, tt.text)
			got := run(t, newBridgeNote(), tr.input(""))
			var have []string
			for _, f := range got {
				sev := f.Severity
				if sev == "" {
					sev = SeverityError
				}
				have = append(have, fmt.Sprintf("%s:%d", sev, f.Line))
			}
			if strings.Join(have, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("got %v, want %v%s", have, tt.want, describe(got))
			}
			if tt.message != "" && !strings.Contains(got[0].Message, tt.message) {
				t.Fatalf("message %q lacks %q", got[0].Message, tt.message)
			}
		})
	}
}

const progressText = "# Plan\n\n## Phase 1\n- [ ] parser\n- [ ] lexer\n- [x] setup (done 2026-01-01T00:00:00+00:00)\n"

func TestProgressTicks(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tick := func(text, item string) string {
		it, err := notes.Match(notes.ParseProgress(text), item)
		if err != nil {
			t.Fatal(err)
		}
		out, ok := notes.Tick(text, it, at)
		if !ok {
			t.Fatalf("tick %s", item)
		}
		return out
	}
	t.Run("ticks only", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("plan", map[string]string{"progress.md": progressText})
		once := tick(progressText, "parser")
		tr.commit(scribeMsg("parser done"), map[string]string{"progress.md": once})
		tr.commit(scribeMsg("lexer done"), map[string]string{"progress.md": tick(once, "lexer")})
		// A person may rewrite the plan in their own commit, even one named progress:.
		tr.commit("progress: replan", map[string]string{"progress.md": "# New plan\n- [ ] everything\n"})
		if got := run(t, newProgressTicks(), tr.input("")); len(got) != 0 {
			t.Fatalf("want no finding, got %s", describe(got))
		}
	})
	t.Run("scribe commit adds an item", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("plan", map[string]string{"progress.md": progressText})
		changed := strings.Replace(tick(progressText, "parser"), "- [ ] lexer\n", "- [ ] lexer\n- [ ] invented item\n", 1)
		bad := tr.commit(scribeMsg("parser done"), map[string]string{"progress.md": changed})
		got := run(t, newProgressTicks(), tr.input(""))
		if len(got) != 1 || got[0].Commit != bad || got[0].Line != 6 || !strings.Contains(got[0].Message, "invented item") {
			t.Fatalf("want the added item at line 6, got %s", describe(got))
		}
	})
	t.Run("scribe commit unticks and rewords", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("plan", map[string]string{"progress.md": progressText})
		bad := tr.commit(scribeMsg("oops"), map[string]string{"progress.md": strings.Replace(progressText, "- [ ] parser", "- [x] parsing", 1)})
		got := run(t, newProgressTicks(), tr.input(""))
		if len(got) != 1 || got[0].Commit != bad || got[0].Line != 4 {
			t.Fatalf("want one finding at line 4, got %s", describe(got))
		}
	})
	t.Run("scribe commit creates progress.md", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("initial", map[string]string{"README.md": "x\n"})
		bad := tr.commit(scribeMsg("create"), map[string]string{"progress.md": progressText})
		got := run(t, newProgressTicks(), tr.input(""))
		if len(got) != 1 || got[0].Commit != bad || !strings.Contains(got[0].Message, "created") {
			t.Fatalf("want creation flagged, got %s", describe(got))
		}
	})
}

func TestProjectRules(t *testing.T) {
	t.Parallel()
	const claude = "# Project\n\nIntro.\n\n## Project Rules\n- keep tests green\n\n## Notes\n- n\n"
	addRule := strings.Replace(claude, "- keep tests green\n", "- keep tests green\n- never push on Fridays\n", 1)
	t.Run("confirmed, human and unrelated changes", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("docs: claude", map[string]string{"CLAUDE.md": claude})
		tr.commit(scribeMsg("rule", "Scribe-Confirmed: yes"), map[string]string{"CLAUDE.md": addRule})
		tr.commit("docs: my own rule", map[string]string{"CLAUDE.md": strings.Replace(addRule, "## Notes", "- mine\n\n## Notes", 1)})
		tr.commit(scribeMsg("notes"), map[string]string{"CLAUDE.md": tr.Read("CLAUDE.md") + "- another note\n"})
		if got := run(t, newProjectRules(), tr.input("")); len(got) != 0 {
			t.Fatalf("want no finding, got %s", describe(got))
		}
	})
	t.Run("unconfirmed scribe commit", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("docs: claude", map[string]string{"CLAUDE.md": claude})
		bad := tr.commit(scribeMsg("rule"), map[string]string{"CLAUDE.md": addRule})
		got := run(t, newProjectRules(), tr.input(""))
		if len(got) != 1 || got[0].Commit != bad || got[0].Line != 5 || !strings.Contains(got[0].Message, "Scribe-Confirmed") {
			t.Fatalf("want the unconfirmed commit at line 5, got %s", describe(got))
		}
	})
	t.Run("unconfirmed scribe commit creates the section", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		bad := tr.commit(scribeMsg("rule"), map[string]string{"CLAUDE.md": "## Project Rules\n- a rule"})
		got := run(t, newProjectRules(), tr.input(""))
		if len(got) != 1 || got[0].Commit != bad {
			t.Fatalf("want one finding, got %s", describe(got))
		}
	})
	t.Run("a fenced example of the heading above the real section", func(t *testing.T) {
		t.Parallel()
		// check and memory find the section with one function: the example
		// in the fence is code, the real section below it changed.
		fenced := "# Project\n\n```markdown\n## Project Rules\n- an example\n```\n\n## Project Rules\n- keep tests green\n"
		tr := newRepo(t)
		tr.commit("docs: claude", map[string]string{"CLAUDE.md": fenced})
		bad := tr.commit(scribeMsg("rule"), map[string]string{"CLAUDE.md": fenced + "- sneaked in\n"})
		got := run(t, newProjectRules(), tr.input(""))
		if len(got) != 1 || got[0].Commit != bad || got[0].Line != 8 {
			t.Fatalf("want the unconfirmed commit at line 8, got %s", describe(got))
		}
		if rules := memory.Rules(fenced + "- sneaked in\n"); len(rules) != 2 || rules[1] != "sneaked in" {
			t.Errorf("memory.Rules = %q, want the real section's two rules", rules)
		}
	})
}

func TestStaleLocks(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.commit("initial", nil)
	if got := run(t, newStaleLocks(), tr.input("")); len(got) != 0 {
		t.Fatalf("no locks: got %s", describe(got))
	}
	lock := func(name string, expires time.Time) {
		h, _ := json.Marshal(gitops.Holder{Host: "ci", PID: 42, Started: expires.Add(-time.Minute), Expires: expires})
		oid := tr.gitStdin(string(h), "hash-object", "-w", "--stdin")
		tr.Git("update-ref", gitops.LockRefPrefix+name, oid)
	}
	lock("live", time.Now().Add(time.Hour))
	if got := run(t, newStaleLocks(), tr.input("")); len(got) != 0 {
		t.Fatalf("live lock: got %s", describe(got))
	}
	lock("wrap", time.Now().Add(-time.Hour))
	got := run(t, newStaleLocks(), tr.input(""))
	if len(got) != 1 || !strings.Contains(got[0].Message, "refs/scribe/locks/wrap") || !strings.Contains(got[0].Fix, "update-ref -d") {
		t.Fatalf("expired lock: got %s", describe(got))
	}
	// A live lock whose holder died on this host: flagged, taken over at once.
	l, err := tr.input("").Repo.Acquire(context.Background(), "bridge", gitops.LockOptions{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if l.Owner.Boot == "" {
		return // no /proc here: no holder is ever provably dead
	}
	dead := l.Owner
	dead.PID = 1 << 30
	h, _ := json.Marshal(dead)
	tr.Git("update-ref", gitops.LockRefPrefix+"bridge", tr.gitStdin(string(h), "hash-object", "-w", "--stdin"))
	got = run(t, newStaleLocks(), tr.input(""))
	if len(got) != 2 || !strings.Contains(got[0].Message+got[1].Message, "refs/scribe/locks/bridge is held by pid 1073741824") {
		t.Fatalf("dead holder: got %s", describe(got))
	}
}

func TestQueuedWrites(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.commit("initial", nil)
	in := tr.input("")
	if got := run(t, newQueuedWrites(), in); len(got) != 0 {
		t.Fatalf("empty queue: got %s", describe(got))
	}
	if _, err := in.Repo.Enqueue("plan", "HEAD is detached", map[string]string{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	got := run(t, newQueuedWrites(), in)
	if len(got) != 1 || !strings.Contains(got[0].Message, "1 scribe write") || !strings.Contains(got[0].Message, "HEAD is detached") {
		t.Fatalf("queued: got %s", describe(got))
	}
}

func TestNoSecrets(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.Write(journalPath, "# Journal\n\n"+entry(1).Render())
	tr.Write(".claude/memory/tacit/x.md", "# X\n\nnothing to see\n")
	if got := run(t, newNoSecrets(), tr.input("")); len(got) != 0 {
		t.Fatalf("clean vault: got %s", describe(got))
	}
	pat := "ghp_" + "k3Xq9ZrT7mWv2LpN8sYb4HdJc6FgA1eR5uQo"
	tr.Write(".claude/memory/tacit/x.md", "# X\n\nuse token "+pat+" for the API\n")
	tr.Write("src/code.md", "not a vault file: "+pat+"\n")
	got := run(t, newNoSecrets(), tr.input(""))
	if len(got) != 1 || got[0].File != ".claude/memory/tacit/x.md" || got[0].Line != 3 || strings.Contains(got[0].Message, pat) {
		t.Fatalf("want the memory file's line 3 (without the secret), got %s", describe(got))
	}
}

func TestMemoryIndex(t *testing.T) {
	t.Parallel()
	const dir = ".claude/memory"
	t.Run("absent", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.Write(dir+"/tacit/a.md", "# A\n")
		if got := run(t, newMemoryIndex(), tr.input("")); len(got) != 0 {
			t.Fatalf("no MEMORY.md: got %s", describe(got))
		}
	})
	t.Run("well formed", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.Write(dir+"/tacit/a.md", "# A\n")
		tr.Write(dir+"/corrections/_rejected/c1.md", "# rejected\n")
		tr.Write(dir+"/MEMORY.md", "# Memory\n\n- [A](tacit/a.md) — how a works\n- [Docs](https://example.com/x) — external\n")
		if got := run(t, newMemoryIndex(), tr.input("")); len(got) != 0 {
			t.Fatalf("got %s", describe(got))
		}
	})
	t.Run("lint directive", func(t *testing.T) {
		t.Parallel()
		// The directive line compound writes on top is not an index line
		// and not one of the 200: this index is at the limit, not over it.
		tr := newRepo(t)
		tr.Write(dir+"/tacit/a.md", "# A\n")
		lines := append([]string{"<!-- markdownlint-disable-file MD013 -->", "# Memory", "", "- [A](tacit/a.md) — how a works"}, make([]string, 197)...)
		tr.Write(dir+"/MEMORY.md", strings.Join(lines, "\n")+"\n")
		if got := run(t, newMemoryIndex(), tr.input("")); len(got) != 0 {
			t.Fatalf("got %s", describe(got))
		}
	})
	t.Run("problems", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.Write(dir+"/tacit/a.md", "# A\n")
		tr.Write(dir+"/preferences/b.md", "# B\n")
		tr.Write(dir+"/MEMORY.md", "# Memory\n\n- [A](tacit/a.md) — how a works\n- [Gone](tacit/gone.md) — missing\n- A without link\n- [C](tacit/a.md) — "+
			strings.Repeat("d", 151)+"\n"+strings.Repeat("\n", 200))
		got := run(t, newMemoryIndex(), tr.input(""))
		want := []string{"MEMORY.md:4 does not resolve", "MEMORY.md:5 malformed", "MEMORY.md:6 malformed", "MEMORY.md:201 lines", "preferences/b.md:1 not listed"}
		if len(got) != len(want) {
			t.Fatalf("want %d findings, got %s", len(want), describe(got))
		}
		for _, w := range want {
			loc, text, _ := strings.Cut(w, " ")
			found := false
			for _, f := range got {
				if strings.HasSuffix(fmt.Sprintf("%s:%d", f.File, f.Line), loc) && strings.Contains(f.Message, text) {
					found = true
				}
			}
			if !found {
				t.Errorf("missing %q in %s", w, describe(got))
			}
		}
	})
}

func TestMemoryHeading(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		line int // 0: fine
	}{
		{"---\nname: a\n---\n# A\n\nbody\n", 0},
		{"---\nname: a\n---\n\n# A\n", 0},
		{"# A\nno frontmatter\n", 0},
		{"---\nname: a\n---\nintro first\n# A\n", 4},
		{"---\nname: a\n# A\n", 1},
		{"---\nname: a\n---\n## A\n", 4},
	}
	for i, tt := range tests {
		if line, why := h1AfterFrontmatter(tt.text); line != tt.line || (tt.line == 0) != (why == "") {
			t.Errorf("%d: h1AfterFrontmatter = %d %q, want line %d", i, line, why, tt.line)
		}
	}
	tr := newRepo(t)
	tr.Write(".claude/memory/tacit/good.md", tests[0].text)
	if got := run(t, newMemoryHeading(), tr.input("")); len(got) != 0 {
		t.Fatalf("good memory: got %s", describe(got))
	}
	tr.Write(".claude/memory/corrections/bad.md", tests[3].text)
	got := run(t, newMemoryHeading(), tr.input(""))
	if len(got) != 1 || got[0].File != ".claude/memory/corrections/bad.md" || got[0].Line != 4 {
		t.Fatalf("bad memory: got %s", describe(got))
	}
}

func TestFollowupTags(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := &journaler{max: 50}
	j.add(1, "(api) add pagination", "(web) fix the footer")
	tr.Write(journalPath, j.journal)
	if got := run(t, newFollowupTags(), tr.input("")); len(got) != 0 {
		t.Fatalf("tagged: got %s", describe(got))
	}
	j.add(2, "(api) ok", "write the docs")
	tr.Write(journalPath, j.journal)
	got := run(t, newFollowupTags(), tr.input(""))
	if len(got) != 1 || got[0].Line != lineOf(j.journal, "- write the docs") || !strings.Contains(got[0].Message, "write the docs") {
		t.Fatalf("untagged: got %s", describe(got))
	}
}

func TestRunSortsAndCounts(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := &journaler{max: 50}
	j.add(1, "untagged one")
	tr.commit(scribeMsg("one"), map[string]string{journalPath: j.journal})
	tr.Write(journalPath, strings.Replace(j.journal, "session 1", "session uno", 1))
	rep, err := Run(context.Background(), tr.input(""), Rules())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Errors != 1 || rep.Summary.Warnings != 1 || !rep.Failed() {
		t.Fatalf("summary %+v, findings %s", rep.Summary, describe(rep.Findings))
	}
	if rep.Findings[0].RuleID != "SCR001" || rep.Findings[1].RuleID != "SCR011" || rep.Findings[0].Severity != SeverityError {
		t.Fatalf("order: %s", describe(rep.Findings))
	}
}

func TestParsePatchLogSides(t *testing.T) {
	t.Parallel()
	out := patchMarker + "abc def\x00msg\n\x00\ndiff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n" +
		"@@ -1,3 +1,3 @@\n keep\n-old\n+new\n-tail\n\\ No newline at end of file\n+tail\n"
	cs, err := parsePatchLog(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].SHA != "abc" || cs[0].Parents[0] != "def" || cs[0].Message != "msg\n" {
		t.Fatalf("parsed %+v", cs)
	}
	f, ok := cs[0].File("f")
	if !ok {
		t.Fatalf("no diff of f in %+v", cs[0])
	}
	o, n := f.sides()
	if o != "keep\nold\ntail" || n != "keep\nnew\ntail\n" {
		t.Fatalf("sides = %q, %q", o, n)
	}
}

func TestDiffPath(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"diff --git a/CLAUDE.md b/CLAUDE.md":                                 "CLAUDE.md",
		"diff --git a/a b/c.md b/a b/c.md":                                   "a b/c.md",
		"diff --git a/ b/x b/ b/x":                                           " b/x",
		`diff --git "a/.claude/memory/t\tab.md" "b/.claude/memory/t\tab.md"`: ".claude/memory/t\tab.md",
		`diff --git "a/q\"uote" "b/q\"uote"`:                                 `q"uote`,
		`diff --git "a/\303\251t\303\251.md" "b/\303\251t\303\251.md"`:       "été.md",
	} {
		got, err := diffPath(header)
		if err != nil || got != want {
			t.Errorf("diffPath(%q) = %q, %v; want %q", header, got, err, want)
		}
	}
	if _, err := diffPath("diff --git a/x"); err == nil {
		t.Error("a truncated header parsed")
	}
}

func TestWholeFileHunkChanges(t *testing.T) {
	t.Parallel()
	h := hunk{OldStart: 1, NewStart: 1, Lines: []string{" a", "-b", "+B", " c", " d", "+e", " f", "-g"}}
	got := h.changes()
	want := []hunk{
		{OldStart: 2, NewStart: 2, Lines: []string{"-b", "+B"}},
		{OldStart: 5, NewStart: 5, Lines: []string{"+e"}},
		{OldStart: 6, NewStart: 7, Lines: []string{"-g"}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
}

func TestParseRawLog(t *testing.T) {
	t.Parallel()
	z := "0000000000000000000000000000000000000000"
	out := "\x1ec1 p1 p2\x00\n:100644 100644 aaa bbb M\x00j.md\x00:000000 100644 " + z + " ccc A\x00a.md\x00" +
		"\x1ec0 \x00\n:000000 100644 " + z + " aaa A\x00j.md\x00"
	cs, err := gitops.ParseRawLog(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].SHA != "c1" || len(cs[0].Parents) != 2 || cs[0].Changes["j.md"] != (change{Old: "aaa", New: "bbb"}) ||
		!isZeroID(cs[0].Changes["a.md"].Old) || len(cs[1].Parents) != 0 {
		t.Fatalf("parsed %+v", cs)
	}
}

func FuzzDiffPath(f *testing.F) {
	f.Add("diff --git a/CLAUDE.md b/CLAUDE.md")
	f.Add(`diff --git "a/t\tab" "b/t\tab"`)
	f.Add("diff --git a/x")
	f.Fuzz(func(t *testing.T, header string) {
		p, err := diffPath(header)
		if err != nil {
			return
		}
		// An unquoted header names the path twice.
		if !strings.HasPrefix(header, `diff --git "`) && header != "diff --git a/"+p+" b/"+p {
			t.Errorf("diffPath(%q) = %q, which the header does not name twice", header, p)
		}
	})
}
