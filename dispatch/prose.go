package dispatch

import (
	"context"
	"fmt"

	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/skills"
	"github.com/git-scribe/git-scribe/vault"
)

// Prose is the dispatch-backed vault.ProseWriter: the bridge and journal
// skills on their configured routes. A skill without a skills.<name> entry
// in the user config answers vault.ErrNoProse, so wrap keeps its
// deterministic text; vault checks whatever comes back (witness isolation
// included) before using it.
type Prose struct {
	D *Dispatcher
}

// NewProse returns the prose writer, or nil when neither the bridge nor
// the journal skill is routed (then wrap stays fully deterministic).
func NewProse(d *Dispatcher) vault.ProseWriter {
	if !d.o.Routing.Routed(skills.Bridge) && !d.o.Routing.Routed(skills.Journal) {
		return nil
	}
	return &Prose{D: d}
}

// BridgeNote renders the bridge skill with the deterministic note and runs it.
func (p *Prose) BridgeNote(ctx context.Context, draft notes.BridgeNote) (string, error) {
	return p.run(ctx, skills.Bridge, map[string]string{"note": draft.Render()})
}

// JournalSummary renders the journal skill with the deterministic entry and runs it.
func (p *Prose) JournalSummary(ctx context.Context, e notes.Entry) (string, error) {
	return p.run(ctx, skills.Journal, map[string]string{"entry": e.Render(), "summary": e.Summary})
}

func (p *Prose) run(ctx context.Context, skill string, vars map[string]string) (string, error) {
	if !p.D.o.Routing.Routed(skill) {
		return "", vault.ErrNoProse
	}
	sk, err := p.D.lib.Get(skill)
	if err != nil {
		return "", err
	}
	prompt, err := sk.Render(vars)
	if err != nil {
		return "", err
	}
	out, _, rt, err := p.D.Generate(ctx, skill, prompt)
	if err != nil {
		return "", fmt.Errorf("%s (%s): %w", skill, rt.Runner, err)
	}
	return out, nil
}
