package vault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// SyncReport says what a vault sync did (SPEC section 4, Remote).
type SyncReport struct {
	Remote string `json:"remote"`
	// Action is what happened to the vault: up-to-date, pushed, fetched
	// (fast-forward), merged (a merge commit, then pushed), or empty (no
	// vault on either side).
	Action       string `json:"action"`
	LocalBefore  string `json:"local_before,omitempty"`
	RemoteBefore string `json:"remote_before,omitempty"`
	After        string `json:"after,omitempty"`
	// Merged counts the journal entries the merge took from the remote.
	Merged       int      `json:"entries_from_remote,omitempty"`
	Pushed       bool     `json:"pushed"`
	Attempts     int      `json:"attempts"`
	AddedRefspec bool     `json:"added_fetch_refspec,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
}

// Sync shares the vault through remote: it fetches the remote's
// refs/scribe/*, merges a diverged vault into a commit with both parents
// (journal entries unioned by entry id, per-branch bridge notes the newer
// winning, ACTIVE-STATUS regenerated), and pushes refs/scribe/vault with
// the remote's compare-and-swap, retrying a lost race. It never pushes or
// moves a branch.
func (v *Vault) Sync(ctx context.Context, remote string) (SyncReport, error) {
	rep := SyncReport{Remote: remote}
	v.Migrate(ctx)
	if added, err := v.Repo.EnsureScribeFetchRefspec(ctx, remote); err == nil {
		rep.AddedRefspec = added
	}
	for attempt := 1; attempt <= 5; attempt++ {
		rep.Attempts = attempt
		theirs, err := v.Repo.FetchScribe(ctx, remote)
		if err != nil {
			return rep, err
		}
		v.forgetTip()
		ours, err := v.Repo.VaultTip(ctx)
		if err != nil {
			return rep, err
		}
		if attempt == 1 {
			rep.LocalBefore, rep.RemoteBefore = ours, theirs
		}
		switch {
		case ours == "" && theirs == "":
			rep.Action = "empty"
			return rep, nil
		case ours == theirs:
			rep.Action, rep.After = "up-to-date", ours
			return rep, nil
		case ours == "":
			if err := v.Repo.SetVault(ctx, theirs, ""); err != nil {
				continue // written meanwhile: go again
			}
			rep.Action, rep.After = "fetched", theirs
			v.forgetTip()
			rep.Warnings = append(rep.Warnings, v.RenderView(ctx)...)
			return rep, nil
		}
		next := ours
		if theirs != "" {
			base, err := v.Repo.MergeBase(ctx, ours, theirs)
			if err != nil {
				return rep, err
			}
			switch base {
			case ours: // behind: fast-forward
				if err := v.Repo.SetVault(ctx, theirs, ours); err != nil {
					continue
				}
				rep.Action, rep.After = "fetched", theirs
				v.forgetTip()
				rep.Warnings = append(rep.Warnings, v.RenderView(ctx)...)
				return rep, nil
			case theirs: // ahead: push as is
			default:
				merged, n, err := v.mergeVault(ctx, base, theirs)
				if err != nil {
					return rep, err
				}
				if merged == "" {
					continue // our tip moved while merging: go again
				}
				next, rep.Merged, rep.Action = merged, n, "merged"
			}
		}
		if err := v.Repo.PushVault(ctx, remote, next, theirs); err != nil {
			if gitops.IsRejected(err) {
				continue // the remote moved: fetch, merge, push again
			}
			return rep, err
		}
		if rep.Action == "" {
			rep.Action = "pushed"
		}
		rep.Pushed, rep.After = true, next
		return rep, nil
	}
	return rep, fmt.Errorf("the remote's vault kept moving during %d attempts; run git scribe sync again", rep.Attempts)
}

// mergeVault makes the merge commit of our vault tip and theirs (base is
// their merge base) under every vault lock, and returns it ("" when our tip
// moved first) with the count of journal entries taken from theirs.
func (v *Vault) mergeVault(ctx context.Context, base, theirs string) (string, int, error) {
	ours, err := v.Repo.VaultTip(ctx)
	if err != nil {
		return "", 0, err
	}
	var all []string
	seen := map[string]bool{}
	for _, c := range []string{ours, theirs} {
		files, err := v.Repo.ListFiles(ctx, c, "")
		if err != nil {
			return "", 0, err
		}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				all = append(all, f)
			}
		}
	}
	sort.Strings(all)
	baseFiles, err := v.Repo.ReadFiles(ctx, base, all)
	if err != nil {
		return "", 0, err
	}
	theirFiles, err := v.Repo.ReadFiles(ctx, theirs, all)
	if err != nil {
		return "", 0, err
	}
	var taken int
	status := &activeStatusUpdate{v: v, ctx: ctx, overlay: []string{notes.VaultJournal, notes.VaultArchive}}
	req := gitops.CommitRequest{
		Paths:       append(all, notes.VaultActiveStatus),
		Locks:       []string{"journal", "bridge", LockActiveStatus},
		LockOptions: v.lockOptions("sync"),
		MergeParent: theirs,
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			out := map[string][]byte{}
			taken = 0
			for _, p := range all {
				b, o, t := baseFiles[p], cur[p], theirFiles[p]
				_, hasO := cur[p]
				_, hasT := theirFiles[p]
				switch {
				case p == notes.VaultActiveStatus:
					continue // regenerated below
				case p == notes.VaultJournal || p == notes.VaultArchive:
					m := notes.MergeJournalInTime(string(b), string(o), string(t))
					taken += len(notes.ParseJournal(m).Entries) - len(notes.ParseJournal(string(o)).Entries)
					if m != string(o) {
						out[p] = []byte(m)
					}
				case !hasT || bytes.Equal(o, t):
				case !hasO:
					out[p] = t
				default:
					if _, isBridge := notes.BranchOfBridgePath(p); isBridge {
						if m := notes.MergeBridge(string(b), string(o), string(t)); m != string(o) {
							out[p] = []byte(m)
						}
					} else if bytes.Equal(o, b) {
						out[p] = t // only theirs changed it
					}
				}
			}
			if nb, ok := status.build(cur, out); ok {
				out[notes.VaultActiveStatus] = nb
			}
			return out, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: vault merged with %s\n\n%s: sync\n", shortSHA(theirs), gitops.TrailerMode)
		},
	}
	res, err := v.commitVault(ctx, req)
	if err != nil {
		var de *gitops.DeferredError
		if errors.As(err, &de) {
			return "", 0, fmt.Errorf("merge the remote's vault: %s", de.Reason)
		}
		return "", 0, err
	}
	if taken < 0 {
		taken = 0
	}
	return res.SHA, taken, nil
}
