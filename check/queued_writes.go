package check

import (
	"context"
	"fmt"
	"time"

	"github.com/git-scribe/git-scribe/memory"
)

// queuedWrites is SCR007: writes that could not be committed when they were
// made (a detached HEAD, a rebase, a held index.lock, the post-commit hook)
// wait under the git dir until a synchronous scribe command lands them.
type queuedWrites struct{ meta }

func newQueuedWrites() Rule {
	return queuedWrites{meta{
		id: "SCR007", name: "queued-writes", severity: SeverityWarning,
		describe: "no scribe write is left waiting in the queue under the git dir",
	}}
}

func (queuedWrites) Check(_ context.Context, in *Input) ([]Finding, error) {
	items, err := in.Repo.Queued()
	var out []Finding
	if err != nil {
		// Unreadable records are left in place; say so rather than fail.
		out = append(out, Finding{Message: err.Error(),
			Fix: "inspect the named records; remove them once you know what they held"})
	}
	if n := (&memory.Store{Repo: in.Repo, Config: in.Config}).PendingCount(); n > 0 {
		out = append(out, Finding{Message: fmt.Sprintf("%d confirmed memory write(s) (a person's yes to a rule, trap or gate decision) wait to be committed", n),
			Fix: "run git scribe compound list (or any compound command, or wrap) on a branch with no merge, rebase or index.lock in progress; they land by themselves"})
	}
	if len(items) == 0 {
		return out, nil
	}
	oldest := items[0]
	msg := fmt.Sprintf("%d scribe write(s) wait in the queue (oldest: %s, queued %s ago", len(items), oldest.Kind,
		time.Since(oldest.Created).Round(time.Second))
	if oldest.Reason != "" {
		msg += ": " + oldest.Reason
	}
	msg += ")"
	out = append(out, Finding{Message: msg,
		Fix: "run git scribe wrap (or any synchronous scribe command) on a branch with no merge, rebase or index.lock in progress; git scribe status shows what waits"})
	return out, nil
}
