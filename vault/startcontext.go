package vault

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/notes"
)

// StartContext is what a SessionStart hands the agent (SPEC §3 bridge):
// sections in priority order, for notes.FitContext's token budget.
type StartContext struct {
	Sections []notes.ContextSection
	// SameSession: a compact or resume of the session whose record is open.
	SameSession bool
	Bridge      BridgeView
	Pending     int
}

// StartContextOptions say what the hook knows.
type StartContextOptions struct {
	SessionID string
	Source    string // startup | resume | clear | compact
	// MemoryCandidates counts compound candidates waiting for the gate.
	MemoryCandidates int
}

// StartContext assembles the SessionStart context: the branch's bridge
// note with its stale flags (saying whether it is this same session's),
// what waits for a person, the open follow-ups, the project's traps and
// the memory index.
func (v *Vault) StartContext(ctx context.Context, o StartContextOptions) (StartContext, error) {
	var sc StartContext
	bv, err := v.Bridge(ctx)
	if err != nil {
		return sc, err
	}
	sc.Bridge = bv
	if o.Source == "compact" || o.Source == "resume" {
		_, sc.SameSession = v.OpenSession(ctx, o.SessionID)
	}
	if bv.Exists {
		var head string
		switch {
		case sc.SameSession && o.Source == "compact":
			head = "This is the same session, resumed after compaction: the bridge note below is what this session has done so far (" + bv.Path + "); verify before relying on it."
		case sc.SameSession:
			head = "This is the same session, resumed: the bridge note below is what this session has done so far (" + bv.Path + "); verify before relying on it."
		default:
			head = "Bridge note from the previous session (" + bv.Path + "); a hypothesis to verify, not a fact:"
		}
		if bv.FromBranch != "" {
			head += fmt.Sprintf("\n(%s has no bridge note yet; this is the newest note of the repository, from branch %s.)", bv.Branch, bv.FromBranch)
		}
		text := head + "\n\n" + strings.TrimRight(bv.Text, "\n")
		if len(bv.Stale) > 0 {
			text += fmt.Sprintf("\n\nStale: cited files changed since this note was written (%s): %s — verify before relying on it.",
				shortSHA(bv.Commit), strings.Join(bv.Stale, ", "))
		}
		sc.Sections = append(sc.Sections, notes.ContextSection{Name: "bridge note", Text: text})
	}
	pending, _ := v.PendingFollowups(ctx)
	sc.Pending = len(pending)
	var waiting []string
	if n := len(pending); n > 0 {
		waiting = append(waiting, fmt.Sprintf("%d follow-up%s need%s routing: `git scribe followups route`.", n, notes.Plural(n), map[bool]string{true: "s"}[n == 1]))
	}
	if n := o.MemoryCandidates; n > 0 {
		waiting = append(waiting, fmt.Sprintf("%d memory candidate%s await%s review: `git scribe compound gate`.", n, notes.Plural(n), map[bool]string{true: "s"}[n == 1]))
	}
	if len(waiting) > 0 {
		sc.Sections = append(sc.Sections, notes.ContextSection{Name: "awaiting a person",
			Text: "Awaiting a person (tell them): " + strings.Join(waiting, " ")})
	}
	if len(pending) > 0 {
		var b strings.Builder
		b.WriteString("Open follow-ups no one has routed yet:")
		for _, p := range pending {
			fmt.Fprintf(&b, "\n- %s", followupLine(notes.SessionFollowup{Text: p.Text, Project: p.Project}))
		}
		sc.Sections = append(sc.Sections, notes.ContextSection{Name: "open follow-ups", Text: b.String()})
	}
	if traps := v.ProjectTraps(ctx); len(traps) > 0 {
		sc.Sections = append(sc.Sections, notes.ContextSection{Name: "project traps",
			Text: "Project traps (" + v.Config.Paths.TrapDir + "):\n- " + strings.Join(traps, "\n- ")})
	}
	if idx := v.MemoryIndex(ctx); idx != "" {
		sc.Sections = append(sc.Sections, notes.ContextSection{Name: "memory index",
			Text: "Memory index (" + path.Join(v.Config.Paths.MemoryDir, memory.IndexFile) + "):\n" + idx})
	}
	return sc, nil
}

// ProjectTraps are the titles of the project's trap records (those a
// sparse checkout leaves out of the work tree read from the index).
func (v *Vault) ProjectTraps(ctx context.Context) []string {
	dir := strings.TrimSuffix(v.Config.Paths.TrapDir, "/")
	abs, err := v.Repo.Abs(dir)
	if err != nil {
		return nil
	}
	texts := map[string][]byte{}
	if ents, err := os.ReadDir(abs); err == nil {
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			if fi, err := e.Info(); err != nil || fi.Size() > 64<<10 {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(abs, e.Name())); err == nil {
				texts[path.Join(dir, e.Name())] = b
			}
		}
	}
	if skipped, err := v.Repo.SkippedFiles(ctx, []string{path.Join(dir, "*.md")}); err == nil && len(skipped) > 0 {
		if idx, err := v.Repo.ReadIndexFiles(ctx, skipped); err == nil {
			for p, b := range idx {
				if len(b) <= 64<<10 {
					texts[p] = b
				}
			}
		}
	}
	own := v.managedPaths()
	var out []string
	for p, b := range texts {
		if own[p] {
			continue
		}
		if t, ok := memory.ParseTrap(string(b)); ok && t.Title != "" {
			out = append(out, notes.CapRunes(notes.SingleLine(t.Title), 200))
		}
	}
	sort.Strings(out)
	return out
}

// MemoryIndex is the memory index's text (MEMORY.md), "" without one.
func (v *Vault) MemoryIndex(ctx context.Context) string {
	b, ok, err := v.ReadWorktree(ctx, path.Join(v.Config.Paths.MemoryDir, memory.IndexFile))
	if err != nil || !ok {
		return ""
	}
	return strings.TrimSpace(string(b))
}
