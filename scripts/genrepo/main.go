// Command genrepo writes a git fast-import stream for a synthetic repository
// of -files files and -commits commits (each commit touches a few files), for
// the benchmarks in docs/BENCHMARKS.md.
//
//	mkdir big && cd big && git init -q && go run ./scripts/genrepo -files 20000 -commits 5000 | git fast-import --quiet && git reset -q --hard main
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

func main() {
	files := flag.Int("files", 20000, "number of files in the tree")
	commits := flag.Int("commits", 5000, "number of commits")
	journal := flag.Bool("journal", false, "every commit also appends an entry to .claude/sonmat/journal.md, keeping 50 and moving older ones verbatim to journal-archive.md (vault history)")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	rng := rand.New(rand.NewPCG(1, 2))
	path := func(i int) string { return fmt.Sprintf("src/d%03d/f%05d.txt", i%500, i) }
	blob := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	ts := int64(1700000000)
	var entries []string
	archiveText := "# Journal Archive\n\n"
	for c := 0; c < *commits; c++ {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\n", c+1, ts+int64(c)*60)
		blob(fmt.Sprintf("commit %d", c))
		if c > 0 {
			fmt.Fprintf(w, "from :%d\n", c)
		}
		if c == 0 {
			for i := 0; i < *files; i++ {
				fmt.Fprintf(w, "M 100644 inline %s\n", path(i))
				blob(fmt.Sprintf("file %d\nline two\n", i))
			}
		} else {
			for k := 0; k < 3; k++ {
				i := rng.IntN(*files)
				fmt.Fprintf(w, "M 100644 inline %s\n", path(i))
				blob(fmt.Sprintf("file %d\nchanged in %d\n", i, c))
			}
		}
		if *journal {
			entries = append(entries, fmt.Sprintf("## 2026-01-01T00:%02d:%02d+00:00 — commit %d\n- Scope: src/ (3 files)\n- Result: shipped\n- Notable: +3 −3\n- Commits: %012x\n- Mode: journal\n<!-- scribe:entry e%d -->\n\n", (c/60)%60, c%60, c, c, c))
			archived := false
			for len(entries) > 50 {
				archiveText += entries[0]
				entries = entries[1:]
				archived = true
			}
			var j strings.Builder
			j.WriteString("# Journal\n\n")
			for _, e := range entries {
				j.WriteString(e)
			}
			fmt.Fprintf(w, "M 100644 inline .claude/sonmat/journal.md\n")
			blob(j.String())
			if archived {
				fmt.Fprintf(w, "M 100644 inline .claude/sonmat/journal-archive.md\n")
				blob(archiveText)
			}
		}
	}
}
