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
	"strconv"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/internal/extool"
)

const markdownlintVersion = "0.22.1"

// lintAllowance is a markdownlint finding the SPEC's formats make
// unavoidable, with the reason. Everything else is a failure.
type lintAllowance struct {
	rule   string                             // e.g. "MD013"
	file   *regexp.Regexp                     // the generated file it applies to
	line   func(text string, lineNo int) bool // the line it applies to
	reason string
}

// lineIs matches a finding's line against a pattern.
func lineIs(re string) func(string, int) bool {
	r := regexp.MustCompile(re)
	return func(text string, _ int) bool { return r.MatchString(text) }
}

// inBody matches a line after the file's frontmatter: the text an agent
// wrote, landed verbatim.
func inBody(file string) func(string, int) bool {
	return func(_ string, n int) bool {
		lines := strings.Split(file, "\n")
		if len(lines) == 0 || lines[0] != "---" {
			return true
		}
		for i := 1; i < len(lines); i++ {
			if lines[i] == "---" {
				return n > i+1
			}
		}
		return false
	}
}

var (
	journalFiles = regexp.MustCompile(`^\.claude/sonmat/journal(-archive)?\.md$`)
	bridgeFile   = regexp.MustCompile(`^\.claude/sonmat/bridge-note\.md$`)
)

// allowances are the SPEC's reasons to accept a finding. Each is as narrow
// as the format that demands it: a rule, a file, a kind of line.
var allowances = []lintAllowance{
	{"MD013", journalFiles, lineIs(`^(## \S+ — |- [A-Z][a-z]+: |- )`),
		"SPEC §2 journal entry: the heading `## <timestamp> — <summary>` and every field are one line (the parser and check's SCR001 read an entry line by line)"},
	{"MD024", journalFiles, lineIs(`^### (Done|Next)$`),
		"SPEC §2 journal entry: every entry has its own `### Done` and `### Next` (the follow-up sources of §5); markdownlint's own advice for changelogs is siblings_only"},
	{"MD013", bridgeFile, lineIs(`^(- |⚠️ URGENT: |<!-- scribe: )`),
		"SPEC §2 bridge note: one line per bullet and for the URGENT item (the budget counts lines), and the provenance comment is one line"},
	{"MD041", bridgeFile, func(text string, n int) bool { return n == 1 && strings.HasPrefix(text, "⚠️ URGENT: ") },
		"SPEC §2 bridge note: an urgent item goes on the first line, before the title"},
	{"MD013", regexp.MustCompile(`^\.claude/memory/MEMORY\.md$`), lineIs(`^- \[[^\]]+\]\([^)]+\) — `),
		"SPEC §6 memory index: one line per memory matching `^- \\[name\\](path) — description$`, description up to 150 characters"},
	{"MD013", regexp.MustCompile(`^(body/drafts|reviews)/`), nil,
		"SPEC §7 landing: the agent supplies the body and it lands verbatim; prose is one line per paragraph, as a writer's vault keeps it"},
}

// TestGeneratedMarkdownLints runs markdownlint-cli2 with its default rules
// on every markdown file scribe writes or changes in a session of every
// kind: init's CLAUDE.md and AGENTS.md, journal.md with several entries and
// journal-archive.md, the bridge note (urgent, with every section),
// ACTIVE-STATUS.md, CLAUDE.md's project rules, project and universal trap
// records, promoted and rejected memories and their index, dispatch's
// context pack, draft and reviews, and the ratify inbox. A finding fails
// the test unless an allowance above names the SPEC's reason for it.
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
	run("trap", "propose", "--title", "Mocked clock hid a timezone bug", "--pattern", "Tests froze time in UTC, production ran in KST",
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
	out, _ := cmd.CombinedOutput()
	finding := regexp.MustCompile(`^(.+?):(\d+)(?::\d+)? error (MD\d+)/`)
	var bad []string
	allowed := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		m := finding.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rel, n, rule := m[1], m[2], m[3]
		lineNo, _ := strconv.Atoi(n)
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, rel)
		}
		text, _ := os.ReadFile(path)
		lines := strings.Split(string(text), "\n")
		var at string
		if lineNo >= 1 && lineNo <= len(lines) {
			at = lines[lineNo-1]
		}
		ok := false
		for _, a := range allowances {
			if a.rule == rule && a.file.MatchString(filepath.ToSlash(rel)) {
				check := a.line
				if check == nil {
					check = inBody(string(text))
				}
				if check(at, lineNo) {
					ok = true
					allowed[rule+" "+a.reason]++
					break
				}
			}
		}
		if !ok {
			bad = append(bad, line)
		}
	}
	t.Logf("markdownlint-cli2 %s (default rules) on %d files:\n%s", markdownlintVersion, len(files), out)
	for why, n := range allowed {
		t.Logf("allowed %d × %s", n, why)
	}
	if len(bad) > 0 {
		t.Fatalf("markdownlint-cli2 %s on %q: %d finding(s) no SPEC format explains:\n%s", markdownlintVersion, files, len(bad), strings.Join(bad, "\n"))
	}
}
