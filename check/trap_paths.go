package check

import (
	"context"
	"fmt"
	"path"

	"github.com/git-scribe/git-scribe/memory"
)

// trapPaths is SCR015: a trap record never sits at a scribe-managed path
// (the bridge note, the journal, ACTIVE-STATUS, progress.md, CLAUDE.md,
// MEMORY.md, …) or takes a well-known vault file name; one titled "Bridge
// note" would otherwise be written over the bridge note, and the next wrap
// over the trap.
type trapPaths struct{ meta }

func newTrapPaths() Rule {
	return trapPaths{meta{
		id: "SCR015", name: "trap-path-collision", severity: SeverityError,
		describe: "no trap record sits at a scribe-managed path or takes the name of one of scribe's files (bridge note, journal, progress.md, CLAUDE.md, MEMORY.md, …)",
	}}
}

func (trapPaths) Check(_ context.Context, in *Input) ([]Finding, error) {
	p := in.Config.Paths
	seen := map[string]bool{}
	var candidates []string
	for _, f := range p.Files() {
		candidates = append(candidates, f.Path)
	}
	traps, err := in.markdownUnder(p.TrapDir, false)
	if err != nil {
		return nil, err
	}
	for _, t := range traps {
		if _, reserved := p.Reserved(t); reserved && path.Dir(t) == path.Clean(p.TrapDir) {
			candidates = append(candidates, t)
		}
	}
	var out []Finding
	for _, rel := range candidates {
		if rel == "" || seen[rel] {
			continue
		}
		seen[rel] = true
		data, ok, err := in.ReadFile(rel)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		t, isTrap := memory.ParseTrap(string(data))
		if !isTrap {
			continue
		}
		what, _ := p.Reserved(rel)
		out = append(out, Finding{File: rel, Line: 1,
			Message: fmt.Sprintf("%s holds the trap record %q, but the path is scribe's %s: a wrap writes over one or the other", rel, t.Title, what),
			Fix: fmt.Sprintf("move the trap to %s (git mv), and restore %s from history if it was overwritten",
				path.Join(path.Dir(rel), "trap-"+path.Base(rel)), rel)})
	}
	return out, nil
}
