package cmd

import (
	"context"
	"fmt"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/vault"
)

// WrapJSON is `wrap --json`: the wrap report, the conversation follow-ups
// (when a transcript was read) and the persistence audit.
type WrapJSON struct {
	vault.WrapReport
	Followups *vault.FollowupsReport `json:"followups,omitempty"`
	Audit     *followups.Audit       `json:"persistence_audit,omitempty"`
}

// reportWrap finishes a wrap: it renders the wrap, has the engine extract
// the conversation's follow-ups when a transcript is known (--transcript,
// else the hook's transcript_path) and route the orphans (one prompt on a
// terminal, or the --route file), and reports the persistence audit.
func reportWrap(ctx context.Context, v *vault.Vault, o *WrapOptions, in notes.WrapInput, hook *notes.Hook, rep vault.WrapReport) error {
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
	eo := extractOptions(v, o.IO, "", o.Route, in.DryRun, human)
	wo := vault.WrapFollowupsOptions{Transcript: o.Transcript, RouteFile: eo.RouteFile, Ask: eo.Ask}
	if hook != nil {
		wo.HookTranscript = hook.TranscriptPath
	}
	wf, err := v.FollowupsAfterWrap(ctx, in, rep, wo)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.IO, WrapJSON{WrapReport: rep, Followups: wf.Followups, Audit: wf.Audit})
	}
	if o.Hook {
		return nil // a Stop hook's stdout goes nowhere useful; status shows it
	}
	if wf.Followups != nil {
		renderFollowups(o.IO, wf.Followups, false)
	}
	if a := wf.Audit; rep.Status != "nothing" || wf.Followups != nil || (a != nil && (len(a.PotentiallyLost) > 0 || len(a.Untagged) > 0 || len(a.Warnings) > 0)) {
		// A wrap that wrote nothing and found nothing at risk says so in one
		// line; the audit is there when something happened (--json has it).
		renderAudit(o.IO, wf.Audit)
	}
	for _, w := range wf.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", w)
	}
	return nil
}
