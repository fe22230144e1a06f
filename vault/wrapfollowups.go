package vault

import (
	"context"
	"fmt"
	"os"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/notes"
)

// FollowupsReport is what became of a transcript's follow-ups: `followups
// extract --json` and the "followups" part of `wrap --json`.
type FollowupsReport struct {
	followups.Extraction
	Routing       *RouteReport          `json:"routing,omitempty"`
	Unrouted      []followups.Candidate `json:"unrouted"`
	UnroutedWhy   string                `json:"unrouted_reason,omitempty"`
	UnknownRoutes []string              `json:"unknown_routes,omitempty"`
	Prompted      bool                  `json:"prompted"`
}

// Asker asks a person, once, where each orphan of fr goes and returns the
// decisions by orphan index. vault never talks to a terminal: cmd plugs in
// its prompt.
type Asker func(fr *FollowupsReport) (map[int]followups.Route, error)

// ExtractOptions say how a transcript's orphans are decided.
type ExtractOptions struct {
	Transcript string
	// RouteFile names a decision file ("" for none); it wins over Ask.
	RouteFile string
	// DryRun asks and writes nothing.
	DryRun bool
	// Ask is nil when no person can answer.
	Ask Asker
}

// ExtractAndRoute finds the transcript's orphans and routes them: by the
// decision file when one is given, else by ONE question when a person can
// answer, else not at all.
func (v *Vault) ExtractAndRoute(ctx context.Context, o ExtractOptions) (*FollowupsReport, error) {
	var rf *followups.RouteFile
	if o.RouteFile != "" {
		data, err := os.ReadFile(o.RouteFile)
		if err != nil {
			return nil, fmt.Errorf("read --route file: %w", err)
		}
		parsed, err := followups.ParseRouteFile(data)
		if err != nil {
			return nil, err
		}
		rf = &parsed
	}
	ex, err := v.ExtractConversation(ctx, o.Transcript)
	if err != nil {
		return nil, err
	}
	fr := &FollowupsReport{Extraction: ex, Unrouted: []followups.Candidate{}}
	if len(ex.Orphans) == 0 {
		return fr, nil
	}
	theta := v.Similarity()
	var routes map[int]followups.Route
	switch {
	case o.DryRun:
		fr.UnroutedWhy = "dry run: nothing asked, nothing written"
	case rf != nil:
		routes, fr.UnknownRoutes = rf.Apply(ex.Orphans, theta)
		fr.UnroutedWhy = "the --route file names no route for it"
	case o.Ask != nil:
		fr.Prompted = true
		routes, err = o.Ask(fr)
		if err != nil {
			return nil, err
		}
		fr.UnroutedWhy = "no answer was given"
	default:
		fr.UnroutedWhy = "no terminal to ask and no --route FILE; nothing is routed without a person's decision"
	}
	var assigns []followups.Assignment
	if len(routes) > 0 {
		assigns, err = v.Assign(ex.Orphans, routes, ex.Sources)
		if err != nil {
			return nil, err
		}
	}
	for i := range ex.Orphans {
		if _, ok := routes[i]; !ok {
			fr.Unrouted = append(fr.Unrouted, ex.Orphans[i])
		}
	}
	if len(assigns) == 0 {
		return fr, nil
	}
	rep, err := v.RouteFollowups(ctx, assigns)
	if err != nil {
		return nil, err
	}
	fr.Routing = &rep
	return fr, nil
}

// Audit is the persistence audit after a wrap or an extraction: the
// dashboard's counts from the sources as they are now, plus what became of
// the conversation's orphans (fr, nil when no transcript was read).
func (v *Vault) Audit(ctx context.Context, fr *FollowupsReport) (*followups.Audit, followups.Dashboard, error) {
	d, err := v.ActiveStatus(ctx)
	if err != nil {
		return nil, d, err
	}
	a := d.Audit
	if fr != nil {
		a.Conversation, a.PotentiallyLost = ConversationOutcome(fr.Extraction, fr.Routing, fr.Unrouted, fr.UnroutedWhy)
	}
	return &a, d, nil
}

// WrapFollowupsOptions say which transcript a wrap's follow-ups come from
// and how its orphans are decided.
type WrapFollowupsOptions struct {
	// Transcript is the one a person named; HookTranscript the agent hook's
	// (a hook's transcript that cannot be read is a warning, never an
	// error).
	Transcript, HookTranscript string
	// RouteFile names a decision file ("" for none).
	RouteFile string
	Ask       Asker
}

// WrapFollowups is the follow-up half of a wrap's report.
type WrapFollowups struct {
	Followups *FollowupsReport
	Audit     *followups.Audit
	// Warnings are the ones with no audit to carry them.
	Warnings []string
}

// FollowupsAfterWrap finishes a wrap: it extracts the conversation's
// follow-ups when a transcript is known, routes the orphans, and audits
// persistence, counting follow-ups handed to the wrap itself (in.Next) that
// no journal entry and no source now holds.
func (v *Vault) FollowupsAfterWrap(ctx context.Context, in notes.WrapInput, rep WrapReport, o WrapFollowupsOptions) (WrapFollowups, error) {
	var out WrapFollowups
	path := o.Transcript
	if path == "" {
		path = o.HookTranscript
	}
	var warns []string
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			if o.Transcript != "" {
				return out, fmt.Errorf("--transcript: %w", err)
			}
			warns = append(warns, fmt.Sprintf("the hook's transcript_path %s cannot be read (%v); no conversation follow-ups extracted", path, err))
		} else {
			fr, err := v.ExtractAndRoute(ctx, ExtractOptions{Transcript: path, RouteFile: o.RouteFile, DryRun: in.DryRun, Ask: o.Ask})
			if err != nil {
				if o.Transcript != "" || o.RouteFile != "" {
					return out, err
				}
				warns = append(warns, "conversation follow-ups: "+err.Error())
			}
			out.Followups = fr
		}
	}
	a, d, err := v.Audit(ctx, out.Followups)
	if err != nil {
		warns = append(warns, "persistence audit: "+err.Error())
	}
	out.Audit = a
	if a == nil {
		out.Warnings = warns
		return out, nil
	}
	a.Warnings = append(a.Warnings, warns...)
	// Follow-ups handed to wrap itself are lost when the dispatch table
	// wrote no journal entry (1–2 files changed, --trivial, …) and no
	// source holds them.
	if len(in.Next) > 0 && rep.Status != "queued" && rep.Status != "dry-run" {
		cands := make([]followups.Candidate, len(in.Next))
		for i, n := range in.Next {
			cands[i] = followups.Candidate{N: i + 1, Text: v.redact(n)} // as the journal has it
		}
		for _, c := range followups.MarkDurable(cands, d.Mentions, v.Similarity()) {
			a.PotentiallyLost = append(a.PotentiallyLost, followups.LostFollowup{Text: c.Text, Reason: "not journaled",
				Detail: "this wrap wrote no journal entry (" + rep.Reason + "); keep it with git scribe wrap --mode journal --next …"})
		}
	}
	return out, nil
}
