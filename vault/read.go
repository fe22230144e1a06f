package vault

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// ReadWorktree reads a file of the person's checkout: the work-tree file,
// or the index's copy of a tracked file a sparse checkout leaves out of
// the work tree; ok is false when neither holds it.
func (v *Vault) ReadWorktree(ctx context.Context, rel string) ([]byte, bool, error) {
	return v.Repo.ReadCheckedOut(ctx, rel)
}

// BridgeView is the bridge note as the next session sees it.
type BridgeView struct {
	Path   string           `json:"path"`
	Exists bool             `json:"exists"`
	Text   string           `json:"text,omitempty"`
	Note   notes.BridgeNote `json:"-"`
	Commit string           `json:"written_at,omitempty"`
	// Branch is the checked-out branch; FromBranch, when set, is the other
	// branch whose note is shown because this one has none yet.
	Branch     string `json:"branch,omitempty"`
	FromBranch string `json:"from_branch,omitempty"`
	// Stale lists cited files changed since the note was written.
	Stale []string `json:"stale,omitempty"`
}

// Bridge reads the checked-out branch's bridge note from the vault
// (falling back to the newest note of any branch, saying which) and checks
// which cited files changed since the commit it was written at.
func (v *Vault) Bridge(ctx context.Context) (BridgeView, error) {
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return BridgeView{}, err
	}
	v.Migrate(ctx)
	bp := notes.BridgeVaultPath(head.Ref)
	bv := BridgeView{Path: gitops.VaultRef + ":" + bp, Branch: strings.TrimPrefix(head.Ref, "refs/heads/")}
	tip, files, err := v.ReadVault(ctx, bp)
	if err != nil {
		return bv, err
	}
	b, ok := files[bp]
	if !ok {
		other, text, found := v.newestBridge(ctx, tip)
		if !found {
			return bv, nil
		}
		bv.FromBranch, bv.Path, b = other, gitops.VaultRef+":"+notes.BridgeVaultPath(other), text
	}
	bv.Exists, bv.Text = true, string(b)
	note, err := notes.ParseBridgeNote(bv.Text)
	if err != nil {
		return bv, nil // hand-edited beyond recognition: show it as it is
	}
	bv.Note, bv.Commit = note, note.Commit
	if note.Commit != "" && len(note.Cites) > 0 {
		// The diff fails on a commit git no longer has (gc after an amend):
		// every cited file may have changed since.
		if ch, err := v.Repo.ChangedSince(ctx, note.Commit, note.Cites); err != nil {
			bv.Stale = append([]string(nil), note.Cites...)
		} else {
			bv.Stale = ch
		}
	}
	return bv, nil
}

// newestBridge is the most recently updated bridge note of any branch.
func (v *Vault) newestBridge(ctx context.Context, tip string) (string, []byte, bool) {
	paths, err := v.Repo.ListFiles(ctx, tip, notes.VaultBridgeDir)
	if err != nil || len(paths) == 0 {
		return "", nil, false
	}
	files, err := v.Repo.ReadFiles(ctx, tip, paths)
	if err != nil {
		return "", nil, false
	}
	var best string
	var bestAt time.Time
	for _, p := range paths {
		n, err := notes.ParseBridgeNote(string(files[p]))
		if _, ok := notes.BranchOfBridgePath(p); !ok {
			continue
		}
		if best == "" || (err == nil && n.Updated.After(bestAt)) {
			best, bestAt = p, n.Updated
		}
	}
	if best == "" {
		return "", nil, false
	}
	branch, _ := notes.BranchOfBridgePath(best)
	return branch, files[best], true
}

// Progress reads progress.md from the checkout (see ReadWorktree); ok is
// false without one.
func (v *Vault) Progress(ctx context.Context) ([]notes.Item, bool, error) {
	b, ok, err := v.ReadWorktree(ctx, v.Config.Paths.Progress)
	if err != nil || !ok {
		return nil, ok, err
	}
	return notes.ParseProgress(string(b)), true, nil
}

// ProgressDone ticks items in progress.md and commits `progress: ITEM done`,
// landing anything queued with it. Every item must match exactly one entry
// (see Match); nothing is written otherwise.
func (v *Vault) ProgressDone(ctx context.Context, queries []string) (WrapReport, error) {
	rep := WrapReport{Modes: notes.Modes{notes.ModeProgress}}
	// A tick killed between writing progress.md and moving the branch is
	// finished (or undone) first: the items are read from the work tree.
	v.Repo.FinishInterrupted(ctx, []string{v.Config.Paths.Progress}, []string{"progress"}, v.lockOptions("progress"))
	v.Repo.ReapDeadLocks(ctx) // a killed write's locks, which this one may not need
	items, ok, err := v.Progress(ctx)
	if err != nil {
		return rep, err
	}
	if !ok {
		rep.Status, rep.Reason = "nothing", v.Config.Paths.Progress+" does not exist; scribe never creates it (a person writes the plan)"
		return rep, nil
	}
	var resolved []string
	for _, q := range queries {
		it, err := notes.Match(items, q)
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
		head, err := v.Repo.Head(ctx)
		if err != nil {
			return rep, err
		}
		plans = append(plans, Plan{Modes: notes.Modes{notes.ModeProgress}, Row: "progress done", Done: resolved, DoneAt: v.now(),
			Summary: strings.Join(resolved, ", ") + " done", Branch: head.Ref})
	}
	others, _, owarns := v.landOthers(ctx, queued) // the queue's other kinds, as every landing does
	res, landed, warns, err := v.land(ctx, plans, queued)
	landed += others
	warns = append(owarns, warns...)
	rep.Warnings = append(rep.Warnings, warns...)
	var de *gitops.DeferredError
	if errors.As(err, &de) && res.Branch.SHA == "" && res.TicksQueued == "" {
		if len(plans) > 0 {
			plans[0].RemoteLock = v.Repo.RemoteLock
			it, qerr := v.Repo.Enqueue(KindPlan, de.Reason, plans[0])
			if qerr != nil {
				return rep, notRecorded("the tick of "+strings.Join(resolved, ", "), de, qerr)
			}
			rep.QueueID = it.ID
		}
		rep.Status, rep.Reason = "queued", de.Reason
		return rep, nil
	}
	if err != nil && !errors.As(err, &de) {
		return rep, err
	}
	rep.Landed, rep.Ticks = landed, res.Ticked
	if res.TicksQueued != "" {
		rep.Ticks = resolved
		rep.Status, rep.Reason = "queued", res.TicksQueued
		return rep, nil
	}
	if res.Branch.SHA == "" {
		rep.Status, rep.Reason = "nothing", v.Config.Paths.Progress+" already says this"
		return rep, nil
	}
	rep.Status, rep.Reason, rep.Commit = "committed", "progress done", &res.Branch
	return rep, nil
}
