package setup

import (
	"bytes"
	"path"
	"path/filepath"
	"strings"
)

// The marked section init keeps in AGENTS.md; everything between the
// markers is scribe's and is rewritten whole when it changes.
const (
	agentsBegin = "<!-- git-scribe:begin -->"
	agentsEnd   = "<!-- git-scribe:end -->"
)

// agentsSection is Codex's part of AGENTS.md: the memory index (Codex has
// no import syntax, so a plain sentence names it) and the by-hand bridge
// and wrap for Codex versions without hooks.
func agentsSection(memoryIndex string) string {
	return agentsBegin + `
## Session persistence (git-scribe)

- Project memories promoted by git-scribe are indexed in ` + "`" + memoryIndex + "`" + `
  (one line per memory): read it at the start of a task and open the memories
  that apply.
- With ` + "`.codex/hooks.json`" + ` active, the bridge note arrives in your context when
  the session starts and each turn is recorded; without hooks, do it by hand:
- At the start of a task, run ` + "`git scribe bridge`" + ` and read the bridge note: it is
  what the previous session left; treat it as a hypothesis to verify, not a fact.
- At the end of a session, run
  ` + "`git scribe wrap --hint \"<1–2 sentences on what was done>\"`" + `
  (add ` + "`--next \"(project) item\"`" + ` for follow-ups and ` + "`--done \"ITEM\"`" + ` for
  finished progress.md items). It commits a journal entry and bridge note as
  one ` + "`progress:`" + ` commit on scribe's own ref and never touches your staged or
  unstaged work.
- Never edit ` + "`.claude/sonmat/journal.md`" + ` entries: the journal is append-only.
` + agentsEnd + `
`
}

// agentsMD adds or refreshes scribe's section of AGENTS.md and leaves the
// rest of the file byte for byte; a new file starts with an H1 (MD041).
func agentsMD(memoryIndex string) func(cur []byte, ok bool) ([]byte, string) {
	return func(cur []byte, ok bool) ([]byte, string) {
		section := agentsSection(memoryIndex)
		i := bytes.Index(cur, []byte(agentsBegin))
		if i < 0 {
			if len(bytes.TrimSpace(cur)) == 0 {
				return []byte("# Agent instructions\n\n" + section), "Codex instructions: the memory index, bridge at start, wrap at end"
			}
			return appendBlock(cur, section), "Codex instructions: the memory index, bridge at start, wrap at end"
		}
		j := bytes.Index(cur[i:], []byte(agentsEnd))
		if j < 0 {
			return nil, "warning: the git-scribe section has no end marker (" + agentsEnd + "); left alone"
		}
		end := i + j + len(agentsEnd)
		if end < len(cur) && cur[end] == '\n' {
			end++
		}
		if string(cur[i:end]) == section {
			return nil, ""
		}
		next := append(append(append([]byte{}, cur[:i]...), section...), cur[end:]...)
		return next, "refresh scribe's Codex instructions (now pointing at the memory index)"
	}
}

// memoryHeading titles the section init adds to CLAUDE.md.
const memoryHeading = "## Memory index (git-scribe)"

// claudeMD points CLAUDE.md at the memory index with Claude Code's import
// syntax (a line "@path", resolved relative to CLAUDE.md), so promoted
// memories load with the project instructions. An import already there, in
// any form, is left alone; a new file starts with an H1 (MD041).
func claudeMD(claudePath, memoryIndex string) func(cur []byte, ok bool) ([]byte, string) {
	ref := importPath(claudePath, memoryIndex)
	return func(cur []byte, ok bool) ([]byte, string) {
		if hasImport(cur, ref) || hasImport(cur, "./"+ref) {
			return nil, ""
		}
		section := memoryHeading + "\n\nMemories promoted by `git scribe compound`, one line each; Claude Code\nloads the index with this file:\n\n@" + ref + "\n"
		what := "point Claude Code at the memory index (@" + ref + ")"
		if len(bytes.TrimSpace(cur)) == 0 {
			return []byte("# Project instructions\n\n" + section), what
		}
		return appendBlock(cur, section), what
	}
}

// importPath is the memory index relative to CLAUDE.md's directory (both
// are repository-relative slash paths).
func importPath(claudePath, memoryIndex string) string {
	rel, err := filepath.Rel(filepath.Dir(filepath.FromSlash(claudePath)), filepath.FromSlash(memoryIndex))
	if err != nil {
		return path.Clean(memoryIndex)
	}
	return filepath.ToSlash(rel)
}

// hasImport reports an "@ref" import outside code: Claude Code evaluates
// imports anywhere in the text but not inside code spans or blocks.
func hasImport(doc []byte, ref string) bool {
	inFence := false
	for _, l := range strings.Split(string(doc), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, f := range strings.Fields(stripCodeSpans(t)) {
			if strings.TrimRight(f, ".,;:)") == "@"+ref {
				return true
			}
		}
	}
	return false
}

func stripCodeSpans(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}
