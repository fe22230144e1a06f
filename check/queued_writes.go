package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// kindWords names the queue's kinds of deferred write for people.
var kindWords = map[string]string{
	"plan":     "deferred wrap(s)",
	"commit":   "commit(s) recorded by the post-commit hook",
	"route":    "follow-up routing(s)",
	"memory":   "confirmed memory write(s) (a person's yes to a rule, trap or gate decision)",
	"dispatch": "dispatch pass(es) (land with git scribe dispatch run)",
}

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
	if len(items) == 0 {
		return out, nil
	}
	// One queue holds every kind of deferred write: say which wait.
	count := map[string]int{}
	var kinds []string
	for _, it := range items {
		if count[it.Kind] == 0 {
			kinds = append(kinds, it.Kind)
		}
		count[it.Kind]++
	}
	slices.Sort(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], kindWords[k]))
	}
	oldest := items[0]
	msg := fmt.Sprintf("%d scribe write(s) wait in the queue: %s (oldest: %s, queued %s ago", len(items), strings.Join(parts, ", "), oldest.Kind,
		time.Since(oldest.Created).Round(time.Second))
	if oldest.Reason != "" {
		msg += ": " + oldest.Reason
	}
	msg += ")"
	out = append(out, Finding{Message: msg,
		Fix: "run git scribe wrap (or any synchronous scribe command) on a branch with no merge, rebase or index.lock in progress; git scribe status shows what waits"})
	return out, nil
}
