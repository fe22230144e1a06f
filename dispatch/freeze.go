package dispatch

import (
	"context"
	"errors"
	"fmt"

	"github.com/git-scribe/git-scribe/gitops"
)

// FreezeReport is what `pack freeze` did.
type FreezeReport struct {
	// Status is committed or unchanged.
	Status string               `json:"status"`
	Reason string               `json:"reason,omitempty"`
	Pack   Pack                 `json:"pack"`
	Commit *gitops.CommitResult `json:"commit,omitempty"`
}

// Freeze writes a card's context pack (the card, its contract and the
// context notes they name, verbatim) and its sha256 sidecar, and commits
// both. Freezing unchanged sources changes nothing. Skills only ever read
// frozen packs; a run freezes a missing pack itself, the same way.
func (d *Dispatcher) Freeze(ctx context.Context, ref string) (FreezeReport, error) {
	var rep FreezeReport
	snap, err := Scan(ctx, d.o.Repo, d.lay, nil)
	if err != nil {
		return rep, err
	}
	cardPath, err := snap.card(ref)
	if err != nil {
		return rep, err
	}
	var card Card
	for _, c := range snap.Cards {
		if c.Path == cardPath {
			card = c
		}
	}
	byCard, _ := d.contractsByCard(snap)
	pk, err := d.freeze(snap, card, byCard[card.Path])
	if err != nil {
		return rep, err
	}
	rep.Pack = pk
	res, err := d.o.Repo.CommitPaths(ctx, gitops.CommitRequest{
		Paths:       []string{pk.Path, pk.ShaPath},
		Locks:       []string{"dispatch"},
		LockOptions: gitops.LockOptions{Timeout: d.o.Config.LockTimeout, Purpose: "pack freeze"},
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			return map[string][]byte{pk.Path: pk.Data, pk.ShaPath: []byte(ShaLine(pk.SHA, pk.Path))}, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: freeze context pack for %s\n\n- %s sha256 %s\n\n%s: dispatch\n", card.Path, pk.Path, pk.SHA, gitops.TrailerMode)
		},
	})
	var de *gitops.DeferredError
	switch {
	case errors.As(err, &de):
		return rep, fmt.Errorf("cannot freeze the pack now: %s", de.Reason)
	case err != nil:
		return rep, err
	case res.SHA == "":
		rep.Status, rep.Reason = "unchanged", "the pack is already frozen with these sources"
	default:
		rep.Status, rep.Commit = "committed", &res
	}
	return rep, nil
}
