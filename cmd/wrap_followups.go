package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/vault"
)

// WrapJSON is `wrap --json`: the wrap report, the conversation follow-ups
// (when a transcript was read) and the persistence audit.
type WrapJSON struct {
	vault.WrapReport
	Followups *FollowupsReport `json:"followups,omitempty"`
	Audit     *followups.Audit `json:"persistence_audit,omitempty"`
}

// reportWrap finishes a wrap: it extracts the conversation's follow-ups
// when a transcript is known (--transcript, else the hook's
// transcript_path), routes the orphans (one prompt on a terminal, or the
// --route file), and reports the wrap with its persistence audit. A hook's
// transcript that cannot be read is a warning, never a failed wrap.
func reportWrap(ctx context.Context, v *vault.Vault, o *WrapOptions, in notes.WrapInput, hook *hookInput, rep vault.WrapReport) error {
	human := !o.JSON && !o.Hook
	if human {
		renderWrap(o.IO, rep)
	}
	if o.QueueOnly {
		if o.JSON {
			return printJSON(o.IO, WrapJSON{WrapReport: rep})
		}
		return nil // detached: never asks, never routes, never moves a branch
	}
	path := o.Transcript
	if path == "" && hook != nil {
		path = hook.TranscriptPath
	}
	out := WrapJSON{WrapReport: rep}
	var warns []string
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			if o.Transcript != "" {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--transcript: %w", err)}
			}
			warns = append(warns, fmt.Sprintf("the hook's transcript_path %s cannot be read (%v); no conversation follow-ups extracted", path, err))
		} else {
			fr, err := extractAndRoute(ctx, v, o.IO, path, o.Route, in.DryRun, human)
			if err != nil {
				if o.Transcript != "" || o.Route != "" {
					return err
				}
				warns = append(warns, "conversation follow-ups: "+err.Error())
			}
			out.Followups = fr
		}
	}
	a, d, err := audit(ctx, v, out.Followups)
	if err != nil {
		warns = append(warns, "persistence audit: "+err.Error())
	}
	out.Audit = a
	if a != nil {
		a.Warnings = append(a.Warnings, warns...)
		// Follow-ups handed to wrap itself are lost when the dispatch table
		// wrote no journal entry (1–2 files changed, --trivial, …) and no
		// source holds them.
		if len(in.Next) > 0 && rep.Status != "queued" && rep.Status != "dry-run" {
			cands := make([]followups.Candidate, len(in.Next))
			for i, n := range in.Next {
				cands[i] = followups.Candidate{N: i + 1, Text: redact(n)} // as the journal has it
			}
			for _, c := range followups.MarkDurable(cands, d.Mentions, v.Config.Followups.Similarity) {
				a.PotentiallyLost = append(a.PotentiallyLost, followups.LostFollowup{Text: c.Text, Reason: "not journaled",
					Detail: "this wrap wrote no journal entry (" + rep.Reason + "); keep it with git scribe wrap --mode journal --next …"})
			}
		}
	}
	if o.JSON {
		return printJSON(o.IO, out)
	}
	if o.Hook {
		return nil // a Stop hook's stdout goes nowhere useful; status shows it
	}
	if out.Followups != nil {
		renderFollowups(o.IO, out.Followups, false)
	}
	renderAudit(o.IO, a)
	if a == nil {
		for _, w := range warns {
			fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", w)
		}
	}
	return nil
}
