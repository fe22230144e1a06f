package check

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/gittest"
	"github.com/git-scribe/git-scribe/notes"
)

// TestMain isolates git: no system or user configuration, a throw-away
// HOME, fixed identities, so every repository a test builds with the real
// git CLI is the same everywhere.
func TestMain(m *testing.M) {
	os.Exit(gittest.Run(m, "check-test-home-"))
}

const (
	journalPath = ".claude/sonmat/journal.md"
	archivePath = ".claude/sonmat/journal-archive.md"
)

// testRepo is a throw-away repository built with the real git CLI.
type testRepo struct {
	*gittest.Repo
}

// repoAt is the repository whose work tree is dir.
func repoAt(t testing.TB, dir string) *testRepo {
	return &testRepo{&gittest.Repo{T: t, Dir: dir}}
}

func newRepo(t testing.TB) *testRepo {
	t.Helper()
	return &testRepo{gittest.Init(t)}
}

// gitStdin runs git with stdin and returns its stdout, trimmed.
func (tr *testRepo) gitStdin(stdin string, args ...string) string {
	tr.T.Helper()
	return strings.TrimSpace(tr.GitStdin([]byte(stdin), args...))
}

// commit writes files (an empty content deletes the file) and commits all
// changes with msg, returning the new commit id.
func (tr *testRepo) commit(msg string, files map[string]string) string {
	tr.T.Helper()
	for rel, content := range files {
		if content == "" {
			os.Remove(tr.Path(rel))
			continue
		}
		tr.Write(rel, content)
	}
	tr.Git("add", "-A")
	tr.Git("commit", "-q", "--allow-empty", "-m", msg)
	return tr.Head()
}

// input opens the repository for a check with the default configuration.
func (tr *testRepo) input(since string) *Input {
	tr.T.Helper()
	return tr.inputWith(config.Defaults(), since)
}

func (tr *testRepo) inputWith(cfg config.Config, since string) *Input {
	tr.T.Helper()
	ctx := context.Background()
	repo, err := gitops.Discover(ctx, tr.Dir)
	if err != nil {
		tr.T.Fatal(err)
	}
	in, err := NewInput(ctx, repo, cfg, since, nil)
	if err != nil {
		tr.T.Fatal(err)
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
