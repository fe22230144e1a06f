package cmd

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/internal/extool"
)

const markdownlintVersion = "0.22.1"

// TestGeneratedMarkdownLints runs markdownlint-cli2 (default rules) on the
// markdown scribe writes from scratch outside notes/: CLAUDE.md's rules, a
// trap record, promoted and rejected memories and their index, dispatch's
// drafts and reviews. Only MD013 (80-column lines) is allowed: memory index
// lines and drafted prose are one line per entry or paragraph by design.
func TestGeneratedMarkdownLints(t *testing.T) {
	extool.Program(t, "node", "Debian: apt-get install nodejs")
	lint := extool.Bin(t, "markdownlint-cli2", markdownlintVersion, "markdownlint-cli2")

	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "vaults", "fertile-flames"))); err != nil {
		t.Fatal(err)
	}
	chkGit(t, dir, "", "init", "-q", "-b", "main")
	chkGit(t, dir, "", "add", "-A")
	chkGit(t, dir, "", "commit", "-q", "-m", "a writer's vault")
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"No, don't mock the clock. Always use the real timezone database in tests."}}
{"type":"assistant","message":{"role":"assistant","content":"ok"}}
{"type":"user","message":{"role":"user","content":"I prefer table-driven tests with t.Parallel()."}}
`), 0o644)
	run := func(args ...string) string {
		t.Helper()
		code, out, errOut := chkRun(t, append([]string{"-C", dir}, args...)...)
		if code != 0 {
			t.Fatalf("git scribe %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	t.Setenv("GIT_AUTHOR_NAME", "Ada")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ada")
	t.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
	run("rule", "propose", "Always run go vet before saying done.", "--confirmed")
	run("trap", "propose", "--title", "Mocked clock hid a timezone bug", "--pattern", "Tests froze time in UTC, production ran in KST",
		"--context", "Date arithmetic near midnight", "--catch-signal", "Run the date tests under TZ=Asia/Seoul too", "--confirmed")
	run("compound", "collect", "--transcript", transcript)
	ids := regexp.MustCompile(`"candidate_id": "([0-9a-f]+)"`).FindAllStringSubmatch(run("compound", "list", "--json"), -1)
	if len(ids) < 2 {
		t.Fatalf("want two memory candidates, got %d", len(ids))
	}
	run("compound", "gate", "--approve", ids[0][1])
	run("compound", "gate", "--reject", ids[1][1])
	run("dispatch", "run")

	var files []string
	for _, root := range []string{"CLAUDE.md", ".claude/memory", ".claude/sonmat", "body/drafts", "reviews"} {
		filepath.WalkDir(filepath.Join(dir, root), func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(dir, p)
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, "journal.md") && !strings.HasSuffix(p, "bridge-note.md") {
				files = append(files, rel)
			}
			return nil
		})
	}
	if len(files) < 7 {
		t.Fatalf("only %d generated files: %q", len(files), files)
	}
	cmd := exec.Command(lint, files...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	var bad []string
	long := 0
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case !regexp.MustCompile(` error MD\d+/`).MatchString(line):
		case strings.Contains(line, " MD013/"):
			long++
		default:
			bad = append(bad, line)
		}
	}
	t.Logf("markdownlint-cli2 %s on %d files: %d MD013 line-length findings allowed", markdownlintVersion, len(files), long)
	if len(bad) > 0 {
		t.Fatalf("markdownlint-cli2 %s on %q:\n%s", markdownlintVersion, files, strings.Join(bad, "\n"))
	}
}
