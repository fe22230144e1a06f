package check

import (
	"context"
	"fmt"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
)

// staleLocks is SCR006: a lock ref under refs/scribe/locks/ past its expiry
// belongs to a process that died or hung, and one whose holder provably
// died on this host (gitops.Holder.Dead) to a killed process; the next
// writer takes it over.
type staleLocks struct{ meta }

func newStaleLocks() Rule {
	return staleLocks{meta{
		id: "SCR006", name: "stale-locks", severity: SeverityWarning,
		describe: "no lock under refs/scribe/locks/ is past its expiry, held by a process that is gone, or unreadable",
	}}
}

func (staleLocks) Check(ctx context.Context, in *Input) ([]Finding, error) {
	locks, err := in.Repo.Locks(ctx)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, l := range locks {
		ref := gitops.LockRefPrefix + l.Name
		fix := fmt.Sprintf("make sure its holder is gone, then delete it: git update-ref -d %s %s", ref, l.OID)
		switch {
		case l.Holder == nil:
			out = append(out, Finding{Message: fmt.Sprintf("lock %s has an unreadable holder, so it never expires", ref), Fix: fix})
		case l.Expired:
			out = append(out, Finding{
				Message: fmt.Sprintf("lock %s expired %s ago (held by %s)", ref, time.Since(l.Holder.Expires).Round(time.Second), l.Holder),
				Fix:     fix,
			})
		case l.Dead:
			out = append(out, Finding{
				Message: fmt.Sprintf("lock %s is held by %s, which is no longer running; the next write takes it over at once", ref, l.Holder),
				Fix:     fmt.Sprintf("nothing to do; or delete it now: git update-ref -d %s %s", ref, l.OID),
			})
		}
	}
	return out, nil
}
