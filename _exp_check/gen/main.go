package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"time"
	"strings"

	"github.com/git-scribe/git-scribe/notes"
)

func main() {
	dir := os.Args[1]
	n := 1000
	exec.Command("git", "init", "-q", dir).Run()
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	in, _ := cmd.StdinPipe()
	cmd.Stderr = os.Stderr
	cmd.Start()
	w := bufio.NewWriter(in)
	var journal, archive string
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		e := notes.Entry{Time: t0.Add(time.Duration(i) * time.Hour), Summary: fmt.Sprintf("session %d did things", i),
			Scope: "cmd/, notes/", Result: "shipped", Notable: strings.Repeat("word ", 20), Commits: []string{fmt.Sprintf("%07x", i*7919)}, Modes: "journal", Next: []string{"(proj) follow up " + fmt.Sprint(i)}}
		journal, archive = notes.Append(journal, archive, e, 50)
		ts := t0.Add(time.Duration(i) * time.Hour).Unix()
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter A <a@x> %d +0000\n", i+1, ts)
		msg := fmt.Sprintf("progress: session %d\n\nScribe-Mode: journal\n", i)
		fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
		if i > 0 {
			fmt.Fprintf(w, "from :%d\n", i)
		}
		fmt.Fprintf(w, "M 100644 inline .claude/sonmat/journal.md\ndata %d\n%s\n", len(journal), journal)
		if archive != "" {
			fmt.Fprintf(w, "M 100644 inline .claude/sonmat/journal-archive.md\ndata %d\n%s\n", len(archive), archive)
		}
		code := fmt.Sprintf("package x\n// %d\n", i)
		fmt.Fprintf(w, "M 100644 inline src/x%d.go\ndata %d\n%s\n", i%20, len(code), code)
	}
	w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil { panic(err) }
	c := exec.Command("git", "checkout", "-q", "main"); c.Dir = dir; c.Run()
}
