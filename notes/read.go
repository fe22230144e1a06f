package notes

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
)

// ReadWorktree reads a vault file from the work tree; ok is false when it
// does not exist.
func (v *Vault) ReadWorktree(rel string) ([]byte, bool, error) {
	abs, err := v.Repo.Abs(rel)
	if err != nil {
		return nil, false, err
	}
	b, err := os.ReadFile(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// BridgeView is the bridge note as the next session sees it.
type BridgeView struct {
	Path   string     `json:"path"`
	Exists bool       `json:"exists"`
	Text   string     `json:"text,omitempty"`
	Note   BridgeNote `json:"-"`
	Commit string     `json:"written_at,omitempty"`
	// Stale lists cited files changed since the note was written.
	Stale []string `json:"stale,omitempty"`
}

// Bridge reads the bridge note and checks which cited files changed since
// the commit it was written at.
func (v *Vault) Bridge(ctx context.Context) (BridgeView, error) {
	bv := BridgeView{Path: v.Config.Paths.BridgeNote}
	b, ok, err := v.ReadWorktree(bv.Path)
	if err != nil || !ok {
		return bv, err
	}
	bv.Exists, bv.Text = true, string(b)
	note, err := ParseBridgeNote(bv.Text)
	if err != nil {
		return bv, nil // hand-edited beyond recognition: show it as it is
	}
	bv.Note, bv.Commit = note, note.Commit
	if note.Commit != "" && len(note.Cites) > 0 {
		if _, err := v.Repo.ResolveCommit(ctx, note.Commit); err != nil {
			bv.Stale = append([]string(nil), note.Cites...)
		} else if ch, err := v.Repo.ChangedSince(ctx, note.Commit, note.Cites); err == nil {
			bv.Stale = ch
		}
	}
	return bv, nil
}

// Progress reads progress.md from the work tree; ok is false without one.
func (v *Vault) Progress() ([]Item, bool, error) {
	b, ok, err := v.ReadWorktree(v.Config.Paths.Progress)
	if err != nil || !ok {
		return nil, ok, err
	}
	return ParseProgress(string(b)), true, nil
}

// ProgressDone ticks items in progress.md and commits `progress: ITEM done`,
// landing anything queued with it. Every item must match exactly one entry
// (see Match); nothing is written otherwise.
func (v *Vault) ProgressDone(ctx context.Context, queries []string) (WrapReport, error) {
	rep := WrapReport{Modes: Modes{ModeProgress}}
	items, ok, err := v.Progress()
	if err != nil {
		return rep, err
	}
	if !ok {
		rep.Status, rep.Reason = "nothing", v.Config.Paths.Progress+" does not exist; scribe never creates it (a person writes the plan)"
		return rep, nil
	}
	var resolved []string
	for _, q := range queries {
		it, err := Match(items, q)
		if err != nil {
			return rep, err
		}
		if it.Done {
			rep.Warnings = append(rep.Warnings, it.Text+" is already done")
			continue
		}
		resolved = append(resolved, it.Text)
	}
	queued, qerr := v.Repo.Queued()
	if qerr != nil {
		rep.Warnings = append(rep.Warnings, qerr.Error())
	}
	if len(resolved) == 0 && len(queued) == 0 {
		rep.Status, rep.Reason = "nothing", "every item is already ticked"
		return rep, nil
	}
	var plans []Plan
	if len(resolved) > 0 {
		plans = append(plans, Plan{Modes: Modes{ModeProgress}, Row: "progress done", Done: resolved, DoneAt: v.now(),
			Summary: strings.Join(resolved, ", ") + " done"})
	}
	res, landed, warns, err := v.land(ctx, plans, queued)
	rep.Warnings = append(rep.Warnings, warns...)
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		if len(plans) > 0 {
			plans[0].RemoteLock = v.Repo.RemoteLock
			it, qerr := v.Repo.Enqueue(KindPlan, de.Reason, plans[0])
			if qerr != nil {
				return rep, qerr
			}
			rep.QueueID = it.ID
		}
		rep.Status, rep.Reason = "queued", de.Reason
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	rep.Landed, rep.Ticks = landed, resolved
	if res.SHA == "" {
		rep.Status, rep.Reason = "nothing", "progress.md already says this"
		return rep, nil
	}
	rep.Status, rep.Reason, rep.Commit = "committed", "progress done", &res
	return rep, nil
}
