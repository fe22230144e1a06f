package vault

import (
	"context"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// A Stop's write is made once more while the status scan runs, for the
// uncommitted work the last turn's note named (gitops.SpeculateVault says
// why and what it costs when the guess is wrong): the speculated landing
// is the landing itself, in a mode that writes objects and publishes
// nothing, so both build the same commit by the same code.

type speculateKey struct{}

// speculating reports whether ctx is a speculated landing's.
func speculating(ctx context.Context) bool { return ctx.Value(speculateKey{}) != nil }

// speculateTurn writes the objects of the landing of a turn's plan, in
// this goroutine (the status scan runs in its own process meanwhile).
func (v *Vault) speculateTurn(ctx context.Context, p Plan) {
	if v.Repo.RemoteLock != "" || p.RemoteLock != "" {
		return // a remote lock is taken before the reads of a write
	}
	v.land(context.WithValue(ctx, speculateKey{}, true), []Plan{p}, nil)
}

// lastUncommitted is the uncommitted-work line of the bridge note the
// vault holds for head's branch ("" when it has none).
func (v *Vault) lastUncommitted(ctx context.Context, head gitops.Head) string {
	path := notes.BridgeVaultPath(head.Ref)
	_, files, err := v.ReadVault(ctx, path)
	if err != nil {
		return ""
	}
	b, err := notes.ParseBridgeNote(string(files[path]))
	if err != nil {
		return ""
	}
	for _, it := range b.CarryForward {
		if strings.HasPrefix(it, uncommittedPrefix) {
			return it
		}
	}
	return ""
}
