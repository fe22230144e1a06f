package cmd

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/internal/extool"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/notes"
)

const markdownlintVersion = "0.22.1"

// TestGeneratedMarkdownLints runs markdownlint-cli2 with its default rules
// on every markdown file scribe writes or changes in a session of every
// kind: init's CLAUDE.md and AGENTS.md, journal.md with several entries and
// journal-archive.md, the bridge note (urgent, with every section, and the
// one before it, without an urgent item), ACTIVE-STATUS.md, CLAUDE.md's
// project rules, project and universal trap records, promoted and rejected
// memories and their index, dispatch's context pack, draft and reviews, the
// ratify inbox, and a journal and archive an older scribe wrote, after the
// next wrap. Any finding fails the test. Where a SPEC format forbids what a
// default rule wants (one line per journal field, bridge bullet or index
// line; a ### Done and ### Next per entry; the URGENT line before the
// title; an agent's prose verbatim), the file carries markdownlint's own
// inline configuration, once, written by the code that creates it.
func TestGeneratedMarkdownLints(t *testing.T) {
	extool.Program(t, "node", "Debian: apt-get install nodejs")
	lint := extool.Bin(t, "markdownlint-cli2", markdownlintVersion, "markdownlint-cli2")

	fixture := filepath.Join("..", "testdata", "vaults", "fertile-flames")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_AUTHOR_NAME", "Ada")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ada")
	t.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
	chkGit(t, dir, "", "init", "-q", "-b", "main")
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := chkRun(t, append([]string{"-C", dir}, args...)...)
		if code != 0 {
			t.Fatalf("git scribe %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	run("init", "--agent", "claude")
	run("init", "--agent", "codex")
	cfg, err := os.ReadFile(filepath.Join(dir, ".scribe.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	chkWrite(t, dir, ".scribe.yaml", string(cfg)+"\njournal_max: 2\n") // three entries archive one
	chkWrite(t, dir, "progress.md", "# Progress\n\n## Phase 1\n\n- [ ] Ledger chapter 2\n- [ ] Ledger chapter 3\n- [ ] Winter ferry\n")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "a writer's vault")

	for i := 1; i <= 3; i++ {
		for _, f := range []string{"a", "b", "c"} {
			chkWrite(t, dir, fmt.Sprintf("notes/%s%d.md", f, i), fmt.Sprintf("step %d\n", i))
		}
		chkGit(t, dir, "", "add", "-A")
		chkGit(t, dir, "", "commit", "-q", "-m", fmt.Sprintf("notes: step %d", i))
		args := []string{"wrap", "--loop", "keep", "--hint", fmt.Sprintf("Step %d moved the ferry notes into notes/; the tithe ledger follows.", i),
			"--tests", "42 passed", "--witness", "PASS iter1; WARN iter2 not-covered-by-tests",
			"--next", fmt.Sprintf("(fertile) ledger chapter %d", i+1), "--question", "Does the ferry run in winter?"}
		if i > 1 {
			args = append(args, "--done", fmt.Sprintf("Ledger chapter %d", i)) // a progress tick and a ### Done
		}
		run(args...)
	}
	// The note of a wrap without an urgent item, before the next wrap
	// overwrites it.
	calm := filepath.Join(t.TempDir(), "bridge-note-calm.md")
	if b, err := os.ReadFile(filepath.Join(dir, ".claude", "sonmat", "bridge-note.md")); err != nil || bytes.Contains(b, []byte("URGENT")) {
		t.Fatalf("want a bridge note without an urgent item: %v\n%s", err, b)
	} else {
		os.WriteFile(calm, b, 0o644)
	}
	chkWrite(t, dir, "notes/a1.md", "step 4\n")
	chkWrite(t, dir, "notes/b1.md", "step 4\n")
	chkWrite(t, dir, "notes/c1.md", "step 4\n")
	chkGit(t, dir, "", "commit", "-q", "-am", "notes: step 4")
	run("wrap", "--hint", "The ledger chapter is half written.", "--urgent", "the prologue contradicts the canon on Mira",
		"--next", "(fertile) reconcile the prologue")
	run("status", "regenerate")

	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"No, don't mock the clock. Always use the real timezone database in tests."}}
{"type":"assistant","message":{"role":"assistant","content":"ok"}}
{"type":"user","message":{"role":"user","content":"I prefer table-driven tests with t.Parallel()."}}
`), 0o644)
	run("rule", "propose", "Always run go vet before saying done.", "--confirmed")
	run("trap", "propose", "--title", "Mocked clock hid a timezone bug.", "--pattern", "Tests froze time in UTC, production ran in KST",
		"--context", "Date arithmetic near midnight", "--catch-signal", "Run the date tests under TZ=Asia/Seoul too", "--confirmed")
	run("trap", "propose", "--scope", "universal", "--title", "Renamed file kept its cache entry", "--pattern", "A build cache keyed by path served a renamed file's old output",
		"--context", "Incremental builds", "--catch-signal", "Rebuild from clean after a rename", "--confirmed")
	run("compound", "collect", "--transcript", transcript)
	ids := regexp.MustCompile(`"candidate_id": "([0-9a-f]+)"`).FindAllStringSubmatch(run("compound", "list", "--json"), -1)
	if len(ids) < 2 {
		t.Fatalf("want two memory candidates, got %d", len(ids))
	}
	run("compound", "gate", "--approve", ids[0][1])
	run("compound", "gate", "--reject", ids[1][1])
	run("dispatch", "run")
	run("ratify", "--mine")
	inbox := filepath.Join(dir, "control", "inbox.md")
	b, err := os.ReadFile(inbox)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(inbox, bytes.Replace(b, []byte("- [ ] "), []byte("- [x] "), 1), 0o644)
	run("ratify")

	// Every markdown file scribe wrote or changed: new, or not as in the
	// fixture. The universal trap lives outside the repository.
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if err != nil || rel == ".git" {
			return fs.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") || strings.HasPrefix(rel, "notes/") {
			return nil
		}
		now, _ := os.ReadFile(p)
		if was, err := os.ReadFile(filepath.Join(fixture, rel)); err != nil || !bytes.Equal(was, now) {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	universal, _ := filepath.Glob(filepath.Join(home, ".claude", "sonmat", "memory", "trap_*.md"))
	for _, u := range universal {
		files = append(files, u)
	}
	files = append(files, calm)
	files = append(files, upgradedJournal(t)...)
	for _, want := range []string{"CLAUDE.md", "AGENTS.md", ".claude/sonmat/journal.md", ".claude/sonmat/journal-archive.md",
		".claude/sonmat/bridge-note.md", "ACTIVE-STATUS.md", ".claude/sonmat/mocked-clock-hid-a-timezone-bug.md",
		".claude/memory/MEMORY.md", "control/context-packs/cards/01-01-the-ferry.md", "body/drafts/01-01-the-ferry.md",
		"reviews/canon/01-01-the-ferry.md", "reviews/voice/01-01-the-ferry.md", "control/inbox.md", "progress.md"} {
		if !slices.Contains(files, want) {
			t.Errorf("scribe did not write %s (files: %q)", want, files)
		}
	}
	if len(universal) != 1 {
		t.Errorf("want one universal trap record, got %q", universal)
	}
	journal, _ := os.ReadFile(filepath.Join(dir, ".claude", "sonmat", "journal.md"))
	archive, _ := os.ReadFile(filepath.Join(dir, ".claude", "sonmat", "journal-archive.md"))
	if n := bytes.Count(journal, []byte("\n## 2")); n < 2 || !bytes.Contains(archive, []byte("\n## 2")) ||
		!bytes.Contains(journal, []byte("### Next")) || !bytes.Contains(append(journal, archive...), []byte("### Done")) {
		t.Errorf("want a journal of several entries with ### Next and an archive:\n%s\n---\n%s", journal, archive)
	}

	cmd := exec.Command(lint, files...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("markdownlint-cli2 %s (default rules) on %d files:\n%s", markdownlintVersion, len(files), out)
	summary := regexp.MustCompile(`(?m)^Summary: (\d+) error\(s\)$`).FindSubmatch(out)
	if err != nil || summary == nil || string(summary[1]) != "0" || !bytes.Contains(out, []byte(fmt.Sprintf("Linting: %d file(s)", len(files)))) {
		t.Fatalf("markdownlint-cli2 %s on %q: want 0 errors on every file (exit %v):\n%s", markdownlintVersion, files, err, out)
	}
}

// upgradedJournal writes the journal and archive of a vault an older
// scribe left (before the lint directive), wraps once with journal_max 1 so
// that the wrap appends to both, and returns the two files' paths as the
// view has them. A vault's journal is append-only: the wrap can only add
// the directive on top, never rewrite what was there.
func upgradedJournal(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	chkGit(t, dir, "", "init", "-q", "-b", "main")
	chkWrite(t, dir, ".scribe.yaml", "journal_max: 1\n")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "initial")
	old := "# Journal\n\n## 2026-11-29T18:00:00+00:00 — an entry from before the lint directive, with a heading longer than eighty characters\n\n" +
		"- Scope: a.txt (1 file)\n- Result: shipped\n- Mode: journal\n\n### Next\n\n- (repo) a follow-up\n\n<!-- scribe:entry 20261129T180000Z-0a1b2c3d -->\n"
	oldArchive := "# Journal Archive\n\n## 2026-11-28T18:00:00+00:00 — archived long ago\n\n- Scope: c.txt (1 file)\n- Result: shipped\n\n### Next\n\n- (repo) older\n"
	tree := chkGit(t, dir, fmt.Sprintf("100644 blob %s\tjournal-archive.md\n100644 blob %s\tjournal.md\n",
		chkGit(t, dir, oldArchive, "hash-object", "-w", "--stdin"), chkGit(t, dir, old, "hash-object", "-w", "--stdin")), "mktree")
	chkGit(t, dir, "", "update-ref", "refs/scribe/vault", chkGit(t, dir, "", "commit-tree", "-m", "progress: an older scribe", tree))
	chkWrite(t, dir, "a.txt", "a\n")
	chkWrite(t, dir, "b.txt", "b\n")
	chkWrite(t, dir, "c.txt", "c\n")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "three files")
	if code, out, errOut := chkRun(t, "-C", dir, "wrap", "--hint", "After the upgrade.", "--next", "(repo) keep going"); code != 0 {
		t.Fatalf("wrap: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := chkRun(t, "-C", dir, "check"); code != 0 {
		t.Fatalf("check after the upgrade: exit %d\n%s%s", code, out, errOut)
	}
	journal := filepath.Join(dir, ".claude", "sonmat", "journal.md")
	archive := filepath.Join(dir, ".claude", "sonmat", "journal-archive.md")
	for _, p := range []string{journal, archive} {
		if b, err := os.ReadFile(p); err != nil || !bytes.HasPrefix(b, []byte("<!-- markdownlint-disable-file ")) {
			t.Fatalf("%s after the wrap: want the lint directive on top: %v\n%s", p, err, b)
		}
	}
	return []string{journal, archive}
}

// TestGeneratedMarkdownLintsLongText runs markdownlint-cli2 with its
// default rules on what scribe writes from long and rich text, which the
// session above does not exercise: 200-character project rules (CLAUDE.md,
// and AGENTS.md through paths.claude_md), trap patterns, contexts and
// catch-signals (project and universal records), hints, follow-ups and
// questions; and text holding bare URLs, e-mail addresses, "www." names,
// inline HTML and an HTML comment, from flags, a Stop hook's last
// assistant message and a transcript's follow-up routed into the journal.
// Any finding fails the test. The files people own carry no markdownlint
// configuration at all: scribe's prose in them is wrapped at 80 columns
// and escaped. Everything reads back as it was written: proposing the rule
// and the traps again changes nothing, git scribe check is clean, the
// journal's follow-up reaches ACTIVE-STATUS escaped once, and the rule, the
// trap and the note parse to the text given. A corpus of escaped and
// wrapped text (markdown.EscapeText, markdown.FormatText, memory.AddRule)
// is linted with them.
func TestGeneratedMarkdownLintsLongText(t *testing.T) {
	extool.Program(t, "node", "Debian: apt-get install nodejs")
	lint := extool.Bin(t, "markdownlint-cli2", markdownlintVersion, "markdownlint-cli2")

	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_AUTHOR_NAME", "Ada")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ada")
	t.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := chkRun(t, append([]string{"-C", dir}, args...)...)
		if code != 0 {
			t.Fatalf("git scribe %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		t.Logf("git scribe %s:\n%s", notes.Truncate(strings.Join(args, " "), 60), out) // read when a check below fails
		return out
	}
	commit := func(name string) { // three files: enough for a wrap to write every record
		t.Helper()
		for _, f := range []string{"x", "y", "z"} {
			chkWrite(t, dir, "notes/"+name+"-"+f+".md", name+"\n")
		}
		chkGit(t, dir, "", "add", "-A")
		chkGit(t, dir, "", "commit", "-q", "-m", "add "+name)
	}
	chkGit(t, dir, "", "init", "-q", "-b", "main")
	run("init", "--agent", "claude")
	run("init", "--agent", "codex")
	commit("a")

	const (
		url   = "https://example.com/issues/42?tab=notes"
		html  = `<div class="nav">`
		rich  = "see " + url + " and www.example.com, mail ada@example.com, and keep the " + html + " and <!-- nav --> out of the layout"
		words = " because the date arithmetic near midnight broke while the tests froze time in UTC and production ran in KST"
	)
	long := func(what string) string { return what + " " + rich + words + "." } // ~250 characters
	hint, next, question := long("Moved the navigation"), "(repo) "+long("Reconcile the navigation"), long("Should the layout")+"?"
	rule := long("Always link the issue in the commit body")
	trapArgs := func(scope, title string) []string {
		return []string{"trap", "propose", "--scope", scope, "--title", title, "--pattern", long("The pattern"),
			"--context", long("The context"), "--catch-signal", long("The catch-signal"), "--confirmed"}
	}

	// A session of two turns: the Stop hook's last assistant message is the
	// note's last turn and the entry's summary, the transcript's follow-up
	// its Next.
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"Move the navigation. Next session: check `+url+` and the <section> layout."}}`+"\n"+
		`{"type":"assistant","message":{"role":"assistant","content":"Done."}}`+"\n"), 0o644)
	hook := func(event, extra string) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "hook.json")
		os.WriteFile(p, []byte(fmt.Sprintf(`{"session_id":"5c1f0e2a-0000-4000-8000-00000000000a","transcript_path":%q,"cwd":%q,"hook_event_name":%q%s}`,
			transcript, dir, event, extra)), 0o644)
		run("wrap", "--hook", "--stdin-file", p)
	}
	hook("Stop", `,"stop_hook_active":false,"last_assistant_message":"Looking."`)
	commit("b")
	hook("Stop", fmt.Sprintf(`,"stop_hook_active":false,"last_assistant_message":%q`, long("I moved the navigation")))
	hook("SessionEnd", `,"reason":"prompt_input_exit"`)
	// The session's note, before the next wrap overwrites it.
	sessionNote := filepath.Join(t.TempDir(), "bridge-note-session.md")
	if b, err := os.ReadFile(filepath.Join(dir, ".claude", "sonmat", "bridge-note.md")); err != nil {
		t.Fatal(err)
	} else if note, _ := notes.ParseBridgeNote(string(b)); !slices.Contains(note.Context, "Last turn: "+long("I moved the navigation")) {
		t.Errorf("the session's note does not read back as written: %+v\n%s", note, b)
	} else {
		os.WriteFile(sessionNote, b, 0o644)
	}

	// An explicit wrap with every long and rich flag, and the transcript's
	// follow-up routed into the journal.
	commit("c")
	route := filepath.Join(t.TempDir(), "route.yaml")
	os.WriteFile(route, []byte("default: journal\n"), 0o644)
	run("wrap", "--hint", hint, "--next", next, "--question", question, "--urgent", long("The navigation"),
		"--tests", "42 passed, report at https://ci.example.com/runs/7", "--witness", "PASS iter1; WARN iter2 the <table> at "+url+" is unclosed",
		"--transcript", transcript, "--route", route)
	run("status", "regenerate")
	// Follow-ups routed into the person's todos.md and an active task:
	// written wrapped and escaped as list items.
	const (
		todo       = "file the release checklist from https://example.org/releases/7?step=3 with ops@example.org in copy, and render the <details> block as text: the changelog script drops every entry whose author has no mapping in the contributors table of the wiki"
		activeTask = "profile the exporter against https://grafana.example.net/d/abc?orgId=1 and compare the <svg> charts of both runs: the flame graph looked flatter after the allocator swap, yet the p99 latency of the batch endpoint rose by a third overnight"
	)
	fuTranscript := filepath.Join(t.TempDir(), "followups.jsonl")
	os.WriteFile(fuTranscript, []byte(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q}}`+"\n"+`{"type":"assistant","message":{"role":"assistant","content":"Noted."}}`+"\n"+
		`{"type":"user","message":{"role":"user","content":%q}}`+"\n"+`{"type":"assistant","message":{"role":"assistant","content":"Noted."}}`+"\n",
		"Next session: "+todo, "Next session: "+activeTask)), 0o644)
	fuRoute := filepath.Join(t.TempDir(), "followups-route.yaml")
	os.WriteFile(fuRoute, []byte("routes:\n  - item: \"1\"\n    to: todos\n  - item: \"2\"\n    to: active\n    project: repo\n    task: nav\n"), 0o644)
	run("followups", "extract", "--transcript", fuTranscript, "--route", fuRoute)

	run("rule", "propose", rule, "--confirmed")
	if out := run("rule", "propose", rule, "--confirmed"); !strings.Contains(out, "already has this rule") {
		t.Errorf("the wrapped rule was not found again:\n%s", out)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".scribe.yaml"))
	chkWrite(t, dir, ".scribe.yaml", string(cfg)+"\npaths:\n  claude_md: AGENTS.md\n")
	run("rule", "propose", long("Never merge a pull request"), "--confirmed")
	chkGit(t, dir, "", "checkout", "-q", "--", ".scribe.yaml")
	// A title too long for a heading: cut there, kept whole in the record.
	longTitle := long("Navigation moved without its styles")
	for _, scope := range []string{"project", "universal"} {
		for _, title := range []string{"Navigation moved without its styles", longTitle} {
			run(trapArgs(scope, title)...)
			if out := run(trapArgs(scope, title)...); !strings.Contains(out, "already recorded") {
				t.Errorf("the %s trap %.40q… was recorded twice:\n%s", scope, title, out)
			}
		}
	}
	// Memories promoted and rejected from a correction and a preference.
	memTranscript := filepath.Join(t.TempDir(), "memory.jsonl")
	os.WriteFile(memTranscript, []byte(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q}}`+"\n"+
		`{"type":"assistant","message":{"role":"assistant","content":"ok"}}`+"\n"+`{"type":"user","message":{"role":"user","content":%q}}`+"\n",
		"No, that's wrong: don't mock the clock. "+long("Always use the real timezone database"), "I prefer table-driven tests with t.Parallel() and the <table> layout from www.example.com.")), 0o644)
	run("compound", "collect", "--transcript", memTranscript)
	ids := regexp.MustCompile(`"candidate_id": "([0-9a-f]+)"`).FindAllStringSubmatch(run("compound", "list", "--json"), -1)
	if len(ids) < 2 {
		t.Fatalf("want two memory candidates, got %d", len(ids))
	}
	run("compound", "gate", "--approve", ids[0][1])
	run("compound", "gate", "--reject", ids[1][1])
	// A preference whose description has a tag and a URL early: its
	// MEMORY.md line is escaped.
	const kbd = "I prefer the <kbd> element for key names in the docs, as https://example.com/style/keys says"
	os.WriteFile(memTranscript, []byte(fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q}}`+"\n", kbd+".")), 0o644)
	run("compound", "collect", "--transcript", memTranscript)
	ids = regexp.MustCompile(`"candidate_id": "([0-9a-f]+)"`).FindAllStringSubmatch(run("compound", "list", "--json"), -1)
	if len(ids) != 1 {
		t.Fatalf("want one more memory candidate, got %d", len(ids))
	}
	run("compound", "gate", "--approve", ids[0][1])
	memories, _ := filepath.Glob(filepath.Join(dir, ".claude", "memory", "*", "*.md"))
	rejected, _ := filepath.Glob(filepath.Join(dir, ".claude", "memory", "*", "_rejected", "*.md"))
	if len(memories) != 2 || len(rejected) != 1 {
		t.Fatalf("want two promoted memories and a rejected one, got %q and %q", memories, rejected)
	}

	if code, out, errOut := chkRun(t, "-C", dir, "check"); code != 0 {
		t.Errorf("git scribe check: exit %d\n%s%s", code, out, errOut)
	}

	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Read back as written.
	if rules := memory.Rules(read("CLAUDE.md")); !slices.Contains(rules, memory.CleanRule(rule)) {
		t.Errorf("CLAUDE.md's rules %q lack %q", rules, rule)
	}
	journal := notes.ParseJournal(read(".claude/sonmat/journal.md"))
	var nexts, findings []string
	for _, e := range journal.Entries {
		nexts = append(nexts, e.Next...)
		for _, w := range e.Witness {
			findings = append(findings, w.Findings)
		}
	}
	if !slices.Contains(nexts, next) || !slices.ContainsFunc(nexts, func(s string) bool { return strings.HasSuffix(s, ") check "+url+" and the <section> layout") }) ||
		!slices.Contains(findings, "iter2 the <table> at "+url+" is unclosed") && !slices.Contains(findings, "the <table> at "+url+" is unclosed") {
		t.Errorf("the journal does not read back as written: next %q, witness findings %q", nexts, findings)
	}
	if note, err := notes.ParseBridgeNote(read(".claude/sonmat/bridge-note.md")); err != nil || !slices.Contains(note.OpenQuestions, question) ||
		note.Urgent != long("The navigation") || !slices.ContainsFunc(note.Context, func(s string) bool { return strings.HasSuffix(s, hint) }) {
		t.Errorf("the bridge note does not read back as written (%v): %+v", err, note)
	}
	if status := read("ACTIVE-STATUS.md"); !strings.Contains(status, "- (repo) Reconcile the navigation see <"+url+">") || strings.Contains(status, `\\<`) {
		t.Errorf("ACTIVE-STATUS does not hold the follow-up escaped once:\n%s", status)
	}
	for _, p := range []string{"todos.md", "projects/repo/actives/nav/todos.md"} {
		if own := read(p); !strings.Contains(own, "- [ ] ") || !strings.Contains(own, "<https://") {
			t.Errorf("%s does not hold its routed follow-up, escaped:\n%s", p, own)
		}
	}
	if status := read("ACTIVE-STATUS.md"); strings.Count(status, "file the release checklist from <https://example.org/releases/7?step=3>") != 1 ||
		strings.Count(status, "profile the exporter against <https://grafana.example.net/") != 1 {
		t.Errorf("ACTIVE-STATUS does not list each routed follow-up once, whole:\n%s", status)
	}
	trapFile := ".claude/sonmat/navigation-moved-without-its-styles.md"
	universal := filepath.Join(home, ".claude", "sonmat", "memory", "trap_navigation-moved-without-its-styles.md")
	// The long title is abstracted (its URL and address are placeholders).
	longTraps, _ := filepath.Glob(filepath.Join(dir, ".claude", "sonmat", "navigation-moved-without-its-styles-*.md"))
	longUniversals, _ := filepath.Glob(filepath.Join(home, ".claude", "sonmat", "memory", "trap_navigation-moved-without-its-styles-*.md"))
	if len(longTraps) != 1 || len(longUniversals) != 1 {
		t.Fatalf("want one long-titled trap of each scope, got %q and %q", longTraps, longUniversals)
	}
	longTrapFile, _ := filepath.Rel(dir, longTraps[0])
	longUniversal := longUniversals[0]
	for _, p := range []string{filepath.Join(dir, trapFile), universal, longTraps[0], longUniversal} {
		b, _ := os.ReadFile(p)
		tr, ok := memory.ParseTrap(string(b))
		if !ok || !strings.Contains(tr.Pattern, html) || tr.Render() != string(b) {
			t.Errorf("%s does not read back as written (%v):\n%s", p, ok, b)
		}
		// The whole title, less its full stop (a heading's trailing
		// punctuation is markdownlint's MD026).
		if tr.Title != "Navigation moved without its styles" && (!strings.HasSuffix(tr.Title, words) || strings.HasSuffix(tr.Title, "…")) {
			t.Errorf("%s: the title %q is not the whole title", p, tr.Title)
		}
	}
	if ix := memory.ParseIndex(read(".claude/memory/MEMORY.md")); len(ix.Malformed) > 0 ||
		!slices.ContainsFunc(ix.Entries, func(e memory.IndexEntry) bool { return strings.Contains(e.Description, kbd) }) {
		t.Errorf("MEMORY.md does not read back as written: %+v\n%s", ix, read(".claude/memory/MEMORY.md"))
	}
	memory1, _ := filepath.Rel(dir, memories[0])
	memory2, _ := filepath.Rel(dir, memories[1])
	rejected1, _ := filepath.Rel(dir, rejected[0])
	for _, own := range []string{"CLAUDE.md", "AGENTS.md", trapFile, longTrapFile, memory1, memory2, rejected1} {
		if strings.Contains(read(own), "markdownlint") {
			t.Errorf("%s is a person's file, yet carries markdownlint configuration:\n%s", own, read(own))
		}
	}

	// The corpus: tricky text through the renderers' helpers.
	var corpus strings.Builder
	corpus.WriteString("# Corpus\n\n")
	for _, s := range []string{rich, "HTTP://EXAMPLE.COM/A (https://example.com/b) [https://example.com/c] <https://example.com/d>",
		`a person's escape \<b> \\<i> and C:\dir\ then https://example.com/e\<f>`, "ada@ex_ample.com, x@localhost, Ada.L+tag@mail.example.co.uk., postgres://admin:[REDACTED]@db.example.com:5432/app, redis://:pass@cache.example.com",
		"code `<div> https://example.com/g` stays; an open ` tick <span>", "</p> <br/> <?php ?> <!DOCTYPE html> <![CDATA[x]]>",
		"안내: https://예시.한국/경로 참고, 이메일 ada@example.com 입니다 🎉"} {
		corpus.WriteString(strings.Join(markdown.Wrap(markdown.EscapeItem(s), markdown.Width, "- ", "  "), "\n") + "\n")
	}
	corpus.WriteString("\n" + markdown.FormatText(long("A paragraph")+"\nwrapped by hand.\n\n- "+long("An item")+"\n- 1. "+long("Another")+
		"\n\n```text\n"+html+" "+url+" stays in code\n```\n\n"+long("A last paragraph # -")+" - 2. > | === ```", markdown.Width) + "\n\n")
	var rules string
	for _, r := range []string{rule, "- " + long("# Not a heading"), "1. " + long("> not a quote") + " " + strings.Repeat("x", 90) + " end"} {
		rules, _ = memory.AddRule(rules, r)
	}
	corpus.WriteString(strings.TrimPrefix(rules, "## Project Rules\n\n"))
	corpusFile := filepath.Join(t.TempDir(), "corpus.md")
	os.WriteFile(corpusFile, []byte(corpus.String()), 0o644)

	files := []string{"CLAUDE.md", "AGENTS.md", ".claude/sonmat/journal.md", ".claude/sonmat/bridge-note.md", sessionNote, "ACTIVE-STATUS.md", trapFile, universal, longTrapFile, longUniversal, "todos.md", "projects/repo/actives/nav/todos.md",
		memory1, memory2, rejected1, ".claude/memory/MEMORY.md", corpusFile}
	cmd := exec.Command(lint, files...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("markdownlint-cli2 %s (default rules) on %d files:\n%s", markdownlintVersion, len(files), out)
	summary := regexp.MustCompile(`(?m)^Summary: (\d+) error\(s\)$`).FindSubmatch(out)
	if err != nil || summary == nil || string(summary[1]) != "0" || !bytes.Contains(out, []byte(fmt.Sprintf("Linting: %d file(s)", len(files)))) {
		for _, f := range files {
			if !filepath.IsAbs(f) {
				f = filepath.Join(dir, f)
			}
			b, _ := os.ReadFile(f)
			t.Logf("%s:\n%s", f, b)
		}
		t.Fatalf("markdownlint-cli2 %s: want 0 errors on every file (exit %v):\n%s", markdownlintVersion, err, out)
	}
}

// TestProjectDocsLint runs markdownlint-cli2 on the project's own documents
// (the README and docs/), with the repository's .markdownlint-cli2.jsonc:
// prose wrapped at 80 columns, tables, code blocks and headings free to run
// long. Any finding fails the test.
func TestProjectDocsLint(t *testing.T) {
	extool.Program(t, "node", "Debian: apt-get install nodejs")
	lint := extool.Bin(t, "markdownlint-cli2", markdownlintVersion, "markdownlint-cli2")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	cmd := exec.Command(lint, files...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	summary := regexp.MustCompile(`(?m)^Summary: (\d+) error\(s\)$`).FindSubmatch(out)
	if err != nil || summary == nil || string(summary[1]) != "0" || !bytes.Contains(out, []byte(fmt.Sprintf("Linting: %d file(s)", len(files)))) {
		t.Fatalf("markdownlint-cli2 %s on %q: want 0 errors (exit %v):\n%s", markdownlintVersion, files, err, out)
	}
}
