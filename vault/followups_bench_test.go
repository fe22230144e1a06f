package vault

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// benchVault builds the sources of a vault holding n follow-ups across
// projects projects: a third in the journal's "### Next" (ten per entry,
// one entry per hour), the rest spread over each project's actives, todos.md
// and PROGRESS.md. One in ten is a near-duplicate of another (a typo, a
// changed case, another source) and one in ten is resolved (ticked, or
// named under a later "### Done").
//
// With names, most items also name one thing of their project (a file, a
// function, an endpoint: one of 100 identifiers per project), as follow-ups
// in real vaults do; without, the words are English only, the worst case
// for gram-based blocking (every gram is common).
func benchVault(n, projects int, names bool, suffix ...string) []followups.SourceFile {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	letters := "abcdefghijklmnopqrstuvwxyz"
	ident := func() string {
		var b strings.Builder
		for range 5 + r.IntN(8) {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		for _, s := range suffix { // "files": the name is a file's ("parser.go")
			b.WriteString(s)
		}
		return b.String()
	}
	pool := make([][]string, projects)
	for i := range pool {
		for range 100 {
			pool[i] = append(pool[i], ident())
		}
	}
	// Words drawn from running English text (SPEC, seeds, README: see
	// testdata/bench-words.txt), so common words are common, as in a vault.
	data, err := os.ReadFile(filepath.Join("testdata", "bench-words.txt"))
	if err != nil {
		panic(err)
	}
	stream := strings.Fields(string(data))
	verbs := []string{"migrate", "fix", "add", "document", "benchmark", "remove", "rename", "test", "profile", "review"}
	item := func(project int) string {
		words := []string{verbs[r.IntN(len(verbs))]}
		for range 3 + r.IntN(6) {
			words = append(words, stream[r.IntN(len(stream))])
		}
		if names && r.IntN(10) < 7 {
			words = slices.Insert(words, 1+r.IntN(len(words)), pool[project][r.IntN(100)])
		}
		return strings.Join(words, " ")
	}
	typo := func(s string) string {
		b := []byte(s)
		i := r.IntN(len(b))
		b[i] = 'x'
		return strings.ToUpper(s[:1]) + string(b[1:])
	}
	base := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	type bucket struct{ open, done []string }
	files := map[string]*bucket{}
	var journal strings.Builder
	journal.WriteString("# Journal\n\n")
	var all, owner []string
	entry := 0
	var next []string
	flush := func() {
		e := notes.Entry{Time: base.Add(time.Duration(entry) * time.Hour), Summary: fmt.Sprintf("session %d", entry), Result: notes.ResultShipped, Next: next}
		if entry > 0 && len(all) > 20 && r.IntN(2) == 0 {
			e.Done = []string{all[r.IntN(len(all)-10)]}
		}
		journal.WriteString(e.Render() + "\n")
		entry++
		next = nil
	}
	for i := range n {
		p := fmt.Sprintf("p%03d", i%projects)
		var text string
		switch {
		case i > 50 && i%10 == 3:
			// A near-duplicate of a recent item, in its project (never of
			// another duplicate: an item is written in a few places).
			j := i - 1 - r.IntN(50)
			if j%10 == 3 {
				j--
			}
			text, p = typo(all[j]), owner[j]
		default:
			text = item(i % projects)
		}
		all, owner = append(all, text), append(owner, p)
		resolved := i%10 == 7
		switch i % 3 {
		case 0:
			if resolved {
				text = "[x] " + text
			}
			next = append(next, "("+p+") "+text)
			if len(next) == 10 {
				flush()
			}
		default:
			kind := []string{"actives/t%d/todos.md", "todos.md", "PROGRESS.md"}[r.IntN(3)]
			if strings.HasPrefix(kind, "actives") {
				kind = fmt.Sprintf(kind, r.IntN(2))
			}
			path := "projects/" + p + "/" + kind
			b := files[path]
			if b == nil {
				b = &bucket{}
				files[path] = b
			}
			if resolved {
				b.done = append(b.done, text)
			} else {
				b.open = append(b.open, text)
			}
		}
	}
	if len(next) > 0 {
		flush()
	}
	srcs := []followups.SourceFile{{Kind: followups.SourceJournal, Path: ".claude/sonmat/journal.md", Time: base, Text: journal.String()}}
	// Sorted, so that the random times go to the same files every run:
	// the corpus is the same bytes each time (TestRegenerateGolden).
	for _, path := range slices.Sorted(maps.Keys(files)) {
		b := files[path]
		parts := strings.Split(path, "/")
		src := followups.SourceFile{Path: path, Project: parts[1], Time: base.Add(time.Duration(r.IntN(2000)) * time.Hour)}
		var t strings.Builder
		switch {
		case strings.Contains(path, "/actives/"):
			src.Kind, src.Task = followups.SourceActive, parts[3]
			t.WriteString("# task\n\n")
			for _, o := range b.open {
				t.WriteString("- [ ] " + o + "\n")
			}
		default:
			src.Kind = followups.SourceTodos
			if strings.HasSuffix(path, "PROGRESS.md") {
				src.Kind = followups.SourceProgress
			}
			t.WriteString("# " + parts[1] + "\n\n## Next Session\n\n")
			for _, o := range b.open {
				t.WriteString("- " + o + "\n")
			}
		}
		for _, d := range b.done {
			t.WriteString("- [x] " + d + "\n")
		}
		src.Text = t.String()
		srcs = append(srcs, src)
	}
	return srcs
}

// BenchmarkRegenerate is ACTIVE-STATUS regeneration proper — parsing every
// source, resolving, deduplicating, ordering, rendering — over n follow-ups
// in 200 projects (SPEC §10: under 0.3 s at 10,000), on the corpora of
// benchVault: "vault" (names that are plain words), "files" (the same names
// as file names, "parser.go": identifiers, which keep follow-ups naming
// different files apart and split the similarity join into blocks) and
// "english" (no names).
func BenchmarkRegenerate(b *testing.B) {
	for _, corpus := range []struct {
		name   string
		names  bool
		suffix []string
	}{{"vault", true, nil}, {"files", true, []string{".go"}}, {"english", false, nil}} {
		for _, n := range []int{1000, 10000, 50000} {
			srcs := benchVault(n, 200, corpus.names, corpus.suffix...)
			b.Run(fmt.Sprintf("%s/followups=%d", corpus.name, n), func(b *testing.B) {
				b.ReportAllocs()
				var d followups.Dashboard
				start := cpuTime()
				for b.Loop() {
					d = followups.Regenerate(srcs, followups.MergeOptions{Cap: 15})
					_ = d.Render()
				}
				b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(len(d.Mentions)), "mentions")
				b.ReportMetric(float64(len(d.Items)), "open")
			})
		}
	}
}

// BenchmarkRegenerateCached is BenchmarkRegenerate with the cache a
// regeneration leaves (followups.Cache), as a new process has it: decoded
// from its bytes each op. "unchanged" regenerates the same sources,
// "edited" the sources after one edit of each kind (editCorpus: a journal
// entry, a tick, a line, a file gone, a file new, a time moved), with the
// cache of the sources before.
func BenchmarkRegenerateCached(b *testing.B) {
	for _, c := range goldenCorpora {
		if c.n != 10000 {
			continue
		}
		for _, edit := range []bool{false, true} {
			name := map[bool]string{false: "unchanged", true: "edited"}[edit]
			b.Run(fmt.Sprintf("%s/%s/followups=%d", name, c.name, c.n), func(b *testing.B) {
				srcs := c.sources()
				cache := followups.NewCache("bench")
				d := followups.Regenerate(srcs, followups.MergeOptions{Cap: 15, Cache: cache})
				enc := cache.Encode()
				if edit {
					srcs = editCorpus(b, srcs, d, 0)
				}
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					opts := followups.MergeOptions{Cap: 15, Cache: followups.DecodeCache(enc, "bench")}
					_ = followups.Regenerate(srcs, opts).Render()
				}
				b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(len(enc)), "cache-bytes")
			})
		}
	}
}

// BenchmarkActiveStatusRepo is the whole read path of `git scribe status
// regenerate` on a real repository: globbing and reading every source file
// from the work tree, their commit times (git log) and state (git status),
// then Regenerate. 10,000 follow-ups in 200 projects (600 files).
func BenchmarkActiveStatusRepo(b *testing.B) {
	if testing.Short() {
		b.Skip("builds a repository")
	}
	dir := b.TempDir()
	writeBenchRepo(b, dir, benchVault(10000, 200, true))
	repo, err := gitops.Discover(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	v := &Vault{Repo: repo, Config: config.Defaults()}
	var d followups.Dashboard
	start := cpuTime()
	for b.Loop() {
		if d, err = v.ActiveStatus(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(len(d.Mentions)), "mentions")
}

// writeBenchRepo writes srcs into dir and commits them in a new repository,
// as a vault's follow-up sources are.
func writeBenchRepo(tb testing.TB, dir string, srcs []followups.SourceFile) {
	tb.Helper()
	for _, s := range srcs {
		p := filepath.Join(dir, filepath.FromSlash(s.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s.Text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=B", "-c", "user.email=b@example.com", "commit", "-q", "-m", "vault"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := c.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestWriteBenchRepo writes the benchmark corpus as a repository for timing
// the binary end to end (scripts/bench-activestatus.sh):
// SCRIBE_BENCH_REPO=DIR [SCRIBE_BENCH_FOLLOWUPS=10000]
// [SCRIBE_BENCH_CORPUS=files|vault|english]. Skipped without
// SCRIBE_BENCH_REPO.
func TestWriteBenchRepo(t *testing.T) {
	dir := os.Getenv("SCRIBE_BENCH_REPO")
	if dir == "" {
		t.Skip("SCRIBE_BENCH_REPO not set")
	}
	n := 10000
	if s := os.Getenv("SCRIBE_BENCH_FOLLOWUPS"); s != "" {
		if _, err := fmt.Sscanf(s, "%d", &n); err != nil {
			t.Fatalf("SCRIBE_BENCH_FOLLOWUPS=%q: %v", s, err)
		}
	}
	names, suffix := true, []string{".go"}
	switch c := os.Getenv("SCRIBE_BENCH_CORPUS"); c {
	case "", "files":
	case "vault":
		suffix = nil
	case "english":
		names, suffix = false, nil
	default:
		t.Fatalf("SCRIBE_BENCH_CORPUS=%q: want files, vault or english", c)
	}
	writeBenchRepo(t, dir, benchVault(n, 200, names, suffix...))
}
