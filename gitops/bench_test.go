package gitops

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Benchmarks decide which read path gitops keeps (docs/BENCHMARKS.md):
//
//	go test -bench . -run XXX ./gitops
//
// They run on a generated repository of benchFiles files and benchCommits
// commits, written with `git fast-import` from a stream built here.

const (
	benchFiles   = 2000
	benchCommits = 300
)

var benchVault = []string{".claude/sonmat/journal.md", ".claude/sonmat/bridge-note.md", "progress.md"}

var fixtures struct {
	sync.Mutex
	dirs map[string]string
}

// cleanupFixtures removes the generated repositories; TestMain calls it.
func cleanupFixtures() {
	fixtures.Lock()
	defer fixtures.Unlock()
	for _, d := range fixtures.dirs {
		os.RemoveAll(d)
	}
	fixtures.dirs = nil
}

// fixtureRepo returns the generated repository named name, building it the
// first time (benchmark functions run several times; the repository is shared).
func fixtureRepo(tb testing.TB, name string) *testRepo {
	tb.Helper()
	fixtures.Lock()
	defer fixtures.Unlock()
	if d, ok := fixtures.dirs[name]; ok {
		return repoAt(tb, d)
	}
	base, err := os.MkdirTemp("", "gitops-bench-"+name+"-")
	if err != nil {
		tb.Fatal(err)
	}
	base, _ = filepath.EvalSymlinks(base)
	dir := filepath.Join(base, "repo")
	os.MkdirAll(dir, 0o755)
	tr := repoAt(tb, dir)
	tr.Git("init", "-q")
	if name == "big" {
		// A text file over BigFileThreshold, changed in a commit, in the
		// index and in the work tree.
		line := "plain text line that is not binary at all\n"
		big := strings.Repeat(line, (9<<20)/len(line)+1)
		tr.Commit("big", map[string]string{"big.log": big, "README.md": "r\n"})
		tr.Commit("bigger", map[string]string{"big.log": big + "committed\n"})
		tr.Write("big.log", big+"committed\nstaged\n")
		tr.Git("add", "big.log")
		tr.Write("big.log", big+"committed\nstaged\nunstaged\n")
	} else {
		tr.GitStdin(fastImportStream(benchFiles, benchCommits), "fast-import", "--quiet")
		tr.Git("reset", "-q", "--hard")
		// Some work in the tree, as a real session leaves it.
		tr.Write("src/d00/f0000.go", "// edited\n")
		tr.Write("untracked.md", "new\n")
	}
	if fixtures.dirs == nil {
		fixtures.dirs = map[string]string{}
	}
	fixtures.dirs[name] = dir
	return tr
}

// fastImportStream builds a history: the first commit adds files files
// (spread over directories) and the vault files; every later commit edits a
// few files and appends to the journal.
func fastImportStream(files, commits int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	path := func(i int) string { return fmt.Sprintf("src/d%02d/f%04d.go", i%40, i) }
	content := func(i, rev int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package d%02d\n\n// file %d revision %d\n", i%40, i, rev)
		for l := 0; l < 30; l++ {
			fmt.Fprintf(&b, "var v%d_%d = %d\n", i, l, rng.IntN(1000000))
		}
		return b.String()
	}
	data := func(s string) { fmt.Fprintf(&buf, "data %d\n%s\n", len(s), s) }
	inline := func(p, s string) {
		fmt.Fprintf(&buf, "M 100644 inline %s\n", p)
		data(s)
	}
	journal := "# Journal\n"
	ts := int64(1767225600)
	for c := 1; c <= commits; c++ {
		fmt.Fprintf(&buf, "commit refs/heads/main\nmark :%d\n", c)
		fmt.Fprintf(&buf, "author Ada Author <ada@example.com> %d +0000\n", ts+int64(c)*60)
		fmt.Fprintf(&buf, "committer Cy Committer <cy@example.com> %d +0000\n", ts+int64(c)*60)
		data(fmt.Sprintf("commit %d", c))
		if c > 1 {
			fmt.Fprintf(&buf, "from :%d\n", c-1)
		}
		if c == 1 {
			for i := 0; i < files; i++ {
				inline(path(i), content(i, 0))
			}
			inline(".claude/sonmat/bridge-note.md", "# Bridge Note\n\nNo carryover.\n")
			inline("progress.md", "# Progress\n\n- [ ] task\n")
		} else {
			for k := 0; k < 5; k++ {
				i := rng.IntN(files)
				inline(path(i), content(i, c))
			}
		}
		journal += fmt.Sprintf("\n## 2026-01-01 — commit %d\n- Scope: benchmark\n- Result: shipped\n", c)
		inline(".claude/sonmat/journal.md", journal)
		buf.WriteString("\n")
	}
	return buf.Bytes()
}

func BenchmarkReadFilesGoGit(b *testing.B) {
	tr := fixtureRepo(b, "read")
	r := tr.open()
	head := tr.Head()
	repo := r.objects()
	if repo == nil {
		b.Fatal("go-git cannot open the fixture")
	}
	checkReadPathsAgree(b, r, head)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := readFilesGoGit(repo, head, benchVault); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFilesGoGitCold includes opening the object store with
// go-git, which a one-shot command pays once.
func BenchmarkReadFilesGoGitCold(b *testing.B) {
	tr := fixtureRepo(b, "read")
	r := tr.open()
	head := tr.Head()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fresh := &Repo{WorkTree: r.WorkTree, GitDir: r.GitDir, CommonDir: r.CommonDir}
		if _, err := readFilesGoGit(fresh.objects(), head, benchVault); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFiles is the public entry point as a command uses it.
func BenchmarkReadFiles(b *testing.B) {
	tr := fixtureRepo(b, "read")
	r := tr.open()
	head := tr.Head()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if m, err := r.ReadFiles(ctx, head, benchVault); err != nil || len(m) != len(benchVault) {
			b.Fatal(m, err)
		}
	}
}

func BenchmarkReadFilesPlumbing(b *testing.B) {
	tr := fixtureRepo(b, "read")
	r := tr.open()
	head := tr.Head()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.readFilesPlumbing(ctx, head, benchVault); err != nil {
			b.Fatal(err)
		}
	}
}

func checkReadPathsAgree(b *testing.B, r *Repo, head string) {
	b.Helper()
	viaGoGit, err := readFilesGoGit(r.objects(), head, benchVault)
	if err != nil {
		b.Fatal(err)
	}
	viaPlumbing, err := r.readFilesPlumbing(context.Background(), head, benchVault)
	if err != nil {
		b.Fatal(err)
	}
	if !reflect.DeepEqual(viaGoGit, viaPlumbing) || len(viaGoGit) != len(benchVault) {
		b.Fatalf("read paths disagree: go-git %d files, plumbing %d files", len(viaGoGit), len(viaPlumbing))
	}
}

func BenchmarkReadChanges(b *testing.B) {
	tr := fixtureRepo(b, "read")
	r := tr.open()
	head := tr.Head()
	base := tr.GitTrim("rev-parse", "HEAD~10")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := r.ReadChanges(ctx, base, head, []string{".claude/sonmat"})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Commits) != 10 || len(c.Unstaged) != 1 || len(c.Untracked) != 1 {
			b.Fatalf("unexpected changes: %d commits, %d unstaged, %d untracked", len(c.Commits), len(c.Unstaged), len(c.Untracked))
		}
	}
}

// BenchmarkReadChangesBigFile: a file over BigFileThreshold is summarised,
// never diffed, in all three places it changed.
func BenchmarkReadChangesBigFile(b *testing.B) {
	tr := fixtureRepo(b, "big")
	r := tr.open()
	head := tr.Head()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c, err := r.ReadChanges(ctx, "", head, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Committed) != 1 || !c.Committed[0].Binary || len(c.Staged) != 1 || !c.Staged[0].Binary || len(c.Unstaged) != 1 || !c.Unstaged[0].Binary {
			b.Fatalf("big file not summarised as binary: %+v", c)
		}
	}
}

func BenchmarkCommitPaths(b *testing.B) {
	tr := fixtureRepo(b, "commit")
	r := tr.open()
	ctx := context.Background()
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		n++
		res, err := r.CommitPaths(ctx, CommitRequest{
			Paths:   []string{benchVault[0]},
			Locks:   []string{"journal"},
			Build:   appendBuild(benchVault[0], fmt.Sprintf("- bench %d\n", n)),
			Message: message("bench"),
		})
		if err != nil || res.SHA == "" {
			b.Fatalf("CommitPaths = %+v, %v", res, err)
		}
	}
}

func BenchmarkAcquireRelease(b *testing.B) {
	tr := newRepo(b)
	r := tr.open()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		l, err := r.Acquire(ctx, "journal", LockOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
