package cmd

import (
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/vault"
)

func renderWrap(ios *IOStreams, rep vault.WrapReport) {
	out := ios.Out
	switch rep.Status {
	case "committed":
		if rep.Commit != nil {
			fmt.Fprintf(out, "%s %s on %s (%s)\n", ios.Bold("wrapped:"), rep.Commit.SHA[:12], rep.Commit.Branch, rep.Reason)
			for _, p := range rep.Commit.Changed {
				fmt.Fprintf(out, "  wrote %s\n", p)
			}
		} else {
			fmt.Fprintf(out, "%s %s\n", ios.Bold("wrapped:"), rep.Reason)
		}
		for _, t := range rep.Ticks {
			fmt.Fprintf(out, "  ticked %s\n", t)
		}
		if bc := rep.BranchCommit; bc != nil {
			fmt.Fprintf(out, "  committed %s on %s: %s (your branch: progress ticks only)\n", bc.SHA[:12],
				strings.TrimPrefix(bc.Branch, "refs/heads/"), strings.Join(bc.Changed, ", "))
		}
		if rep.Landed > 0 {
			fmt.Fprintf(out, "  landed %d queued record(s)\n", rep.Landed)
		}
	case "queued":
		fmt.Fprintf(out, "%s %s\n", ios.Bold("queued:"), rep.Reason)
		fmt.Fprintln(out, "  nothing is lost: the next git scribe command (e.g. `git scribe wrap`) lands it; `git scribe status` shows the queue")
	case "dry-run":
		if len(rep.Modes) == 0 {
			fmt.Fprintf(out, "%s this wrap would write nothing itself (%s)\n", ios.Bold("dry run:"), orRow(rep.Row))
		} else {
			fmt.Fprintf(out, "%s would write %s (%s)\n", ios.Bold("dry run:"), rep.Modes, orRow(rep.Row))
		}
		if rep.Landed > 0 {
			fmt.Fprintf(out, "  and land %d queued record(s)\n", rep.Landed)
		}
		if rep.Entry != "" {
			fmt.Fprintf(out, "\n--- journal entry ---\n%s", rep.Entry)
		}
		if rep.Bridge != "" {
			fmt.Fprintf(out, "\n--- bridge note ---\n%s", rep.Bridge)
		}
		for _, t := range rep.Ticks {
			fmt.Fprintf(out, "\n--- progress ---\ntick %s\n", t)
		}
	default:
		fmt.Fprintf(out, "nothing to wrap: %s\n", rep.Reason)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
}

// orRow names the dispatch table's row, or says there was none.
func orRow(row string) string {
	if row == "" {
		return "no change to persist"
	}
	return row
}
