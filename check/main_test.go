package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// TestMain isolates git: no system or user configuration, a throw-away
// HOME, fixed identities, so every repository a test builds with the real
// git CLI is the same everywhere.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "check-test-home-")
	testHome = home
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_SCRIBE_ACTIVE",
		"XDG_CONFIG_HOME", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{
		"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "TZ": "UTC",
		"GIT_AUTHOR_NAME": "Ada Author", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Cy Committer", "GIT_COMMITTER_EMAIL": "cy@example.com",
	} {
		os.Setenv(k, v)
	}
	gitconfig := "[init]\n\tdefaultBranch = main\n[core]\n\tautocrlf = false\n[commit]\n\tgpgSign = false\n[merge]\n\tconflictStyle = merge\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// testHome is the isolated HOME of this test process; fixtures shared by
// benchmarks live under it and go with it.
var testHome string

const (
	journalPath = ".claude/sonmat/journal.md"
	archivePath = ".claude/sonmat/journal-archive.md"
)

// testRepo is a throw-away repository built with the real git CLI.
type testRepo struct {
	t   testing.TB
	dir string
}

func newRepo(t testing.TB) *testRepo {
	t.Helper()
	tr := &testRepo{t: t, dir: t.TempDir()}
	tr.git("init", "-q")
	return tr
}

func (tr *testRepo) git(args ...string) string {
	tr.t.Helper()
	out, err := tr.gitErr(args...)
	if err != nil {
		tr.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (tr *testRepo) gitErr(args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir = tr.dir
	out, err := c.CombinedOutput()
	return string(out), err
}

func (tr *testRepo) gitStdin(stdin string, args ...string) string {
	tr.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = tr.dir
	c.Stdin = strings.NewReader(stdin)
	out, err := c.Output()
	if err != nil {
		tr.t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

func (tr *testRepo) write(rel, content string) {
	tr.t.Helper()
	p := filepath.Join(tr.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *testRepo) read(rel string) string {
	tr.t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.dir, filepath.FromSlash(rel)))
	if err != nil {
		tr.t.Fatal(err)
	}
	return string(b)
}

// commit writes files (an empty content deletes the file) and commits all
// changes with msg, returning the new commit id.
func (tr *testRepo) commit(msg string, files map[string]string) string {
	tr.t.Helper()
	for rel, content := range files {
		if content == "" {
			os.Remove(filepath.Join(tr.dir, filepath.FromSlash(rel)))
			continue
		}
		tr.write(rel, content)
	}
	tr.git("add", "-A")
	tr.git("commit", "-q", "--allow-empty", "-m", msg)
	return tr.head()
}

func (tr *testRepo) head() string { return strings.TrimSpace(tr.git("rev-parse", "HEAD")) }

// input opens the repository for a check with the default configuration.
func (tr *testRepo) input(since string) *Input {
	tr.t.Helper()
	return tr.inputWith(config.Defaults(), since)
}

func (tr *testRepo) inputWith(cfg config.Config, since string) *Input {
	tr.t.Helper()
	ctx := context.Background()
	repo, err := gitops.Discover(ctx, tr.dir)
	if err != nil {
		tr.t.Fatal(err)
	}
	in, err := NewInput(ctx, repo, cfg, since)
	if err != nil {
		tr.t.Fatal(err)
	}
	return in
}

// run runs one rule and fails the test when it cannot run.
func run(t testing.TB, r Rule, in *Input) []Finding {
	t.Helper()
	found, err := r.Check(context.Background(), in)
	if err != nil {
		t.Fatalf("%s: %v", r.ID(), err)
	}
	return found
}

// entry makes the n-th test journal entry.
func entry(n int, next ...string) notes.Entry {
	return notes.Entry{
		Time:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(n) * time.Hour),
		Summary: fmt.Sprintf("session %d", n), Scope: "cmd/", Result: notes.ResultShipped,
		Notable: "did the thing", Commits: []string{fmt.Sprintf("%07x", 0xabc0000+n)}, Modes: "journal",
		Next: next,
	}
}

// journaler appends entries like wrap does.
type journaler struct {
	journal, archive string
	max              int
}

func (j *journaler) add(n int, next ...string) map[string]string {
	j.journal, j.archive = notes.Append(j.journal, j.archive, entry(n, next...), j.max)
	files := map[string]string{journalPath: j.journal}
	if j.archive != "" {
		files[archivePath] = j.archive
	}
	return files
}

// scribeMsg is a scribe commit message.
func scribeMsg(summary string, trailers ...string) string {
	return "progress: " + summary + "\n\n" + gitops.TrailerMode + ": journal\n" + strings.Join(trailers, "\n")
}

// findingAt reports the file:line of findings, for failure messages.
func describe(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s:%d %s %s %s (commit %s)", f.File, f.Line, f.Severity, f.RuleID, f.Message, short(f.Commit))
	}
	return b.String()
}
