package vault

import (
	"context"
	"errors"
	"fmt"
	"github.com/git-scribe/git-scribe/notes"
	"strings"
)

// ProseWriter lets an agent write a wrap's prose. vault never calls an LLM
// itself: cmd plugs in a dispatch-backed writer when the user routes the
// bridge or journal skill, and without one (or when it fails, or writes
// something unacceptable) the deterministic text stands. It changes words
// only, never what is written where: the modes, paths, commits, cites and
// the witness verdict stay scribe's.
type ProseWriter interface {
	// BridgeNote rewrites draft, the deterministic note (which carries no
	// witness findings), and returns a note in the bridge note format.
	BridgeNote(ctx context.Context, draft notes.BridgeNote) (string, error)
	// JournalSummary returns a better one-line summary for entry.
	JournalSummary(ctx context.Context, entry notes.Entry) (string, error)
}

// ErrNoProse is what a ProseWriter returns for a part it has no route for;
// the deterministic text is kept without a warning.
var ErrNoProse = errors.New("no prose route")

// writeProse asks v.Prose for the plan's prose and keeps what passes the
// checks; it returns warnings for what was rejected. Dry runs never call
// an agent.
func (v *Vault) writeProse(ctx context.Context, p *Plan, dryRun bool) []string {
	if v.Prose == nil || dryRun {
		return nil
	}
	var warns []string
	var findings []string
	if p.Entry != nil {
		for _, w := range p.Entry.Witness {
			if f := strings.TrimSpace(w.Findings); len(f) >= 8 {
				findings = append(findings, f)
			}
		}
	}
	if p.Bridge != nil {
		text, err := v.Prose.BridgeNote(ctx, *p.Bridge)
		switch {
		case errors.Is(err, ErrNoProse):
		case err != nil:
			warns = append(warns, fmt.Sprintf("bridge prose: the agent failed (%v); the deterministic note is kept", err))
		default:
			note, why := notes.AcceptBridgeProse(v.redact(text), *p.Bridge, findings)
			if why != "" {
				warns = append(warns, "bridge prose rejected: "+why+"; the deterministic note is kept")
			} else {
				p.Bridge = &note
			}
		}
	}
	if p.Entry != nil {
		s, err := v.Prose.JournalSummary(ctx, *p.Entry)
		switch {
		case errors.Is(err, ErrNoProse):
		case err != nil:
			warns = append(warns, fmt.Sprintf("journal prose: the agent failed (%v); the deterministic summary is kept", err))
		default:
			s = strings.Trim(notes.OneLine(v.redact(s)), "\"'`")
			s = strings.TrimSuffix(strings.TrimPrefix(s, "# "), ".")
			if s == "" {
				warns = append(warns, "journal prose rejected: the agent wrote an empty summary; the deterministic summary is kept")
				break
			}
			p.Entry.Summary = notes.Truncate(s, 72)
			p.Summary = p.Entry.Summary
		}
	}
	return warns
}

// QueueBridgeProse is the detached half of a Stop hook's wrap: the hook
// commits the deterministic note at once, and this asks the routed agent to
// rewrite the note that commit wrote, checks it like any prose (no witness
// findings, scribe's commit, cites and verdict), and queues it. The next
// synchronous command lands it — only if that note is still the current one.
// It never commits (principle 11). It reports whether anything was queued.
func (v *Vault) QueueBridgeProse(ctx context.Context, commit string) (bool, error) {
	if v.Prose == nil {
		return false, nil
	}
	ci, err := v.Repo.CommitInfos(ctx, []string{commit})
	if err != nil {
		return false, err
	}
	bp := ""
	for _, f := range ci[commit].Files {
		if _, ok := notes.BranchOfBridgePath(f); ok {
			bp = f
		}
	}
	if bp == "" {
		return false, nil
	}
	files, err := v.Repo.ReadFiles(ctx, commit, []string{bp, notes.VaultJournal})
	if err != nil {
		return false, err
	}
	original, ok := files[bp]
	if !ok {
		return false, nil
	}
	draft, err := notes.ParseBridgeNote(string(original))
	if err != nil {
		return false, fmt.Errorf("read the bridge note at %s: %w", shortSHA(commit), err)
	}
	var findings []string
	if j := notes.ParseJournal(string(files[notes.VaultJournal])); len(j.Entries) > 0 {
		for _, w := range j.Entries[len(j.Entries)-1].Witness {
			if f := strings.TrimSpace(w.Findings); len(f) >= 8 {
				findings = append(findings, f)
			}
		}
	}
	text, err := v.Prose.BridgeNote(ctx, draft)
	if errors.Is(err, ErrNoProse) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("bridge prose: the agent failed (%w); the deterministic note stands", err)
	}
	note, why := notes.AcceptBridgeProse(v.redact(text), draft, findings)
	if why != "" {
		return false, fmt.Errorf("bridge prose rejected: %s; the deterministic note stands", why)
	}
	branch, _ := notes.BranchOfBridgePath(bp)
	if branch != "HEAD" {
		branch = "refs/heads/" + branch
	} else {
		branch = ""
	}
	p := Plan{Modes: notes.Modes{notes.ModeBridge}, Row: "bridge prose from the agent", Summary: "bridge note prose",
		Bridge: &note, DoneAt: draft.Updated, ReplacesBridge: string(original), Branch: branch}
	if _, err := v.Repo.Enqueue(KindPlan, "agent prose for the bridge note of "+shortSHA(commit), p); err != nil {
		return false, err
	}
	return true, nil
}
