package check

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/internal/gittest"
	"github.com/git-scribe/git-scribe/notes"
)

// benchCommits is how many wraps the benchmark history holds
// (SCRIBE_BENCH_COMMITS overrides it, e.g. 5000 for docs/BENCHMARKS.md).
func benchCommits() int {
	if n, err := strconv.Atoi(os.Getenv("SCRIBE_BENCH_COMMITS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

// benchRepo builds, once per process, a repository with n journal commits
// made the way wrap makes them (the journal capped at 50 entries, the oldest
// moved to the archive) interleaved with n ordinary code commits. It is
// written with one git fast-import, so building it takes a second.
func benchRepo(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir = filepath.Join(gittest.Home(), fmt.Sprintf("bench-%d", benchCommits()))
		benchErr = writeBenchRepo(benchDir, benchCommits())
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func writeBenchRepo(dir string, n int) error {
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	imp := exec.Command("git", "fast-import", "--quiet")
	imp.Dir = dir
	stdin, err := imp.StdinPipe()
	if err != nil {
		return err
	}
	imp.Stderr = os.Stderr
	if err := imp.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var journal, archive string
	mark := 0
	commit := func(msg string, files map[string]string) {
		mark++
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Cy <cy@example.com> %d +0000\ndata %d\n%s\n",
			mark, t0.Add(time.Duration(mark)*time.Minute).Unix(), len(msg), msg)
		if mark > 1 {
			fmt.Fprintf(w, "from :%d\n", mark-1)
		}
		for path, content := range files {
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
		}
	}
	for i := 0; i < n; i++ {
		code := fmt.Sprintf("package x\n\n// Version %d\nconst V = %d\n", i, i)
		commit(fmt.Sprintf("feat: change %d", i), map[string]string{fmt.Sprintf("src/f%02d.go", i%50): code})
		e := notes.Entry{
			Time: t0.Add(time.Duration(i) * time.Hour), Summary: fmt.Sprintf("session %d shipped the next slice", i),
			Scope: "cmd/, notes/", Result: notes.ResultShipped, Notable: fmt.Sprintf("+%d −%d across 3 files", i%97, i%13),
			Tests: "go test ./... ok", Witness: []notes.WitnessEvent{{Verdict: notes.VerdictPass, Iteration: "iter1"}},
			Commits: []string{fmt.Sprintf("%07x", i*7919+1)}, Modes: "bridge+journal",
			Next: []string{fmt.Sprintf("(proj) follow-up %d", i)},
		}
		journal, archive = notes.Append(journal, archive, e, notes.DefaultMaxEntries)
		files := map[string]string{journalPath: journal}
		if archive != "" {
			files[archivePath] = archive
		}
		commit(fmt.Sprintf("progress: session %d\n\nScribe-Mode: bridge+journal\n", i), files)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	stdin.Close()
	if err := imp.Wait(); err != nil {
		return fmt.Errorf("git fast-import: %w", err)
	}
	if out, err := exec.Command("git", "-C", dir, "reset", "-q", "--hard", "main").CombinedOutput(); err != nil {
		return fmt.Errorf("git reset: %v: %s", err, out)
	}
	return nil
}

// BenchmarkCheckJournalHistory measures SCR001 over the whole history of the
// journal and its archive, next to `git log -p` over the same paths (the
// target: check within 2× of it).
func BenchmarkCheckJournalHistory(b *testing.B) {
	dir := benchRepo(b)
	tr := repoAt(b, dir)
	b.Run("check", func(b *testing.B) {
		rule := newJournalAppendOnly()
		for b.Loop() {
			if got := run(b, rule, tr.input("")); len(got) != 0 {
				b.Fatalf("findings in a clean history: %s", describe(got))
			}
		}
	})
	gitLog := func(paths ...string) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				c := exec.Command("git", append([]string{"log", "-p", "--"}, paths...)...)
				c.Dir = dir
				if err := c.Run(); err != nil { // output discarded, like check's
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("git-log-p-journal", gitLog(journalPath))
	b.Run("git-log-p-journal-archive", gitLog(journalPath, archivePath))
}
