package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// SyncOptions are sync's flags.
type SyncOptions struct {
	IO           *IOStreams
	Remote       string
	NoRemoteLock bool
	JSON         bool
}

// vaultLocks are the local locks of every vault writer: sync holds them while
// it moves the branch, so no scribe commit lands in between.
func vaultLocks() []string { return []string{"journal", "bridge", "progress", "active-status"} }

func newSyncCmd(f *Factory) *cobra.Command {
	o := &SyncOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "sync",
		Short: "Bring the vault branch and refs/scribe/* in line with the remote",
		Long: `Sync publishes the vault through the git remote you already have, with the git
CLI (your credential helpers, ssh config and proxies apply). It first lands
anything queued, then, holding refs/scribe/locks/sync on the remote:

  fetches    the branch's upstream and the remote's refs/scribe/* (tracked
             under refs/scribe/remotes/<remote>/)
  replays    your unpushed commits on top of the remote branch, like
             git pull --rebase but without touching your work tree or index:
             the journal merges entry by entry, the bridge note keeps the
             newer note; any other conflict stops with nothing changed
  pushes     the branch (a fast-forward: sync never force-pushes) and the
             scribe refs the remote lacks (never a local lock)
  updates    your branch and exactly the files the remote changed; if you
             have uncommitted edits in one of them it stops first

The vault branch is the current branch (or sync.branch in .scribe.yaml); it
must have an upstream. The remote is the upstream's (or sync.remote, or
--remote). Plain git fetch brings refs/scribe/* too once the fetch refspec
is configured (git scribe init, or the first sync, adds it).

Exit status: 0 synced, 1 refused (conflict, uncommitted edits in the way,
no upstream, detached HEAD), 2 the remote cannot be reached or its lock is held.`,
		Example: `  git scribe sync
  git scribe sync --remote backup --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runSync(c.Context(), f, o) },
	}
	c.Flags().StringVar(&o.Remote, "remote", "", "sync with `NAME` instead of the branch's upstream remote")
	c.Flags().BoolVar(&o.NoRemoteLock, "no-remote-lock", false, "do not take refs/scribe/locks/sync on the remote")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the report as JSON")
	return c
}

// SyncReport is `git scribe sync --json`.
type SyncReport struct {
	gitops.SyncReport
	Landed         int    `json:"landed_from_queue"`
	Waiting        string `json:"queue_waiting,omitempty"`
	RemoteTracking string `json:"remote_tracking"`
}

func runSync(ctx context.Context, f *Factory, o *SyncOptions) error {
	if f.SkipActive() {
		return nil
	}
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	cfg := v.Config
	rep := SyncReport{}
	if rep.Landed, rep.Waiting, err = v.Drain(ctx); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: landing queued writes failed: %v\n", err)
	}
	remote := o.Remote
	if remote == "" {
		remote = cfg.Sync.Remote
	}
	done := o.IO.Progress("syncing with the remote")
	sr, err := v.Repo.Sync(ctx, gitops.SyncOptions{
		Remote:      remote,
		Branch:      cfg.Sync.Branch,
		RemoteLock:  !o.NoRemoteLock,
		Locks:       vaultLocks(),
		LockOptions: gitops.LockOptions{Timeout: cfg.LockTimeout},
		Resolve:     syncResolvers(cfg),
	})
	done()
	if err != nil {
		return syncError(err)
	}
	rep.SyncReport = sr
	rep.RemoteTracking = gitops.RemoteScribePrefix + sr.Remote + "/"
	if o.JSON {
		return printJSON(o.IO, rep)
	}
	renderSync(o.IO, rep)
	return nil
}

// syncResolvers merges scribe's own files when a replay conflicts on them:
// the journal and its archive entry by entry (the same merge as the
// merge=union driver init registers), the bridge note and ACTIVE-STATUS —
// overwritten whole by every wrap — by keeping one version (the newer
// bridge note; the replayed dashboard, which the next wrap regenerates).
func syncResolvers(cfg config.Config) map[string]gitops.Resolver {
	journal := func(base, ours, theirs []byte) ([]byte, error) {
		return []byte(notes.MergeJournal(string(base), string(ours), string(theirs))), nil
	}
	res := map[string]gitops.Resolver{
		cfg.Paths.Journal:        journal,
		cfg.Paths.JournalArchive: journal,
		cfg.Paths.BridgeNote: func(base, ours, theirs []byte) ([]byte, error) {
			return []byte(notes.MergeBridge(string(base), string(ours), string(theirs))), nil
		},
	}
	if cfg.Paths.ActiveStatus != "" {
		res[cfg.Paths.ActiveStatus] = func(_, _, theirs []byte) ([]byte, error) { return theirs, nil }
	}
	return res
}

// syncError maps sync's failures to exit statuses: a refusal that needs a
// person is 1, an unreachable or locked remote 2.
func syncError(err error) error {
	var re *gitops.SyncRefusedError
	var nu *gitops.NoUpstreamError
	if errors.As(err, &re) || errors.As(err, &nu) {
		return &ExitError{Code: ExitFindings, Err: err}
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

func renderSync(ios *IOStreams, rep SyncReport) {
	out := ios.Out
	if rep.Landed > 0 {
		fmt.Fprintf(out, "landed %d queued record(s) first\n", rep.Landed)
	}
	if rep.Waiting != "" {
		fmt.Fprintf(ios.ErrOut, "warning: queued writes still wait: %s\n", rep.Waiting)
	}
	branch := strings.TrimPrefix(rep.Branch, "refs/heads/")
	up := rep.Remote + "/" + strings.TrimPrefix(rep.RemoteBranch, "refs/heads/")
	moved := rep.Fetched > 0 || rep.Pushed > 0 || len(rep.RefsPushed) > 0 || len(rep.RefsFetched) > 0
	if !moved {
		fmt.Fprintf(out, "%s %s and %s are in sync at %s\n", ios.Bold("up to date:"), branch, up, shortRef(rep.After))
	} else {
		fmt.Fprintf(out, "%s %s with %s\n", ios.Bold("synced:"), branch, up)
	}
	if rep.Fetched > 0 {
		fmt.Fprintf(out, "  fetched  %d commit(s) from %s; %s is now %s (was %s)\n", rep.Fetched, up, branch, shortRef(rep.After), shortRef(rep.LocalBefore))
	}
	var replayed, dropped, merged int
	for _, c := range rep.Replayed {
		if c.New == "" {
			dropped++
		} else {
			replayed++
		}
		merged += len(c.Resolved)
	}
	if replayed > 0 {
		line := fmt.Sprintf("  replayed %d local commit(s) onto %s", replayed, up)
		if merged > 0 {
			line += fmt.Sprintf(" (%d scribe file merge(s): journal entry by entry, bridge note newest)", merged)
		}
		fmt.Fprintln(out, line)
	}
	if dropped > 0 {
		fmt.Fprintf(out, "  dropped  %d local commit(s) already on %s\n", dropped, up)
	}
	if rep.Pushed > 0 {
		from := shortRef(rep.RemoteBefore)
		if from == "" {
			from = "(new branch)"
		}
		fmt.Fprintf(out, "  pushed   %d commit(s): %s %s → %s\n", rep.Pushed, up, from, shortRef(rep.After))
	}
	for _, ref := range rep.RefsPushed {
		fmt.Fprintf(out, "  published %s\n", ref)
	}
	for _, ch := range rep.RefsFetched {
		state := "updated"
		switch {
		case ch.Old == "":
			state = "new"
		case ch.New == "":
			state = "gone"
		}
		fmt.Fprintf(out, "  tracked  %s (%s)\n", ch.Ref, state)
	}
	if rep.AddedRefspec != "" {
		fmt.Fprintf(out, "  configured remote.%s.fetch %s (plain git fetch now brings scribe refs)\n", rep.Remote, rep.AddedRefspec)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
}

// resolveRemoteLock is the remote `--remote-lock` and sync.remote_lock lock
// on: sync.remote, else the branch's upstream remote, else origin.
func resolveRemoteLock(ctx context.Context, r *gitops.Repo, cfg config.Config) (string, error) {
	if cfg.Sync.Remote != "" {
		return cfg.Sync.Remote, nil
	}
	name, err := r.DefaultRemote(ctx)
	if err != nil {
		return "", fmt.Errorf("remote lock: %w", err)
	}
	return name, nil
}

// applyRemoteLockFlags lets --remote-lock and --no-remote-lock override
// sync.remote_lock for one command.
func applyRemoteLockFlags(ctx context.Context, v *notes.Vault, on, off bool) error {
	switch {
	case on && off:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--remote-lock and --no-remote-lock contradict each other; pass one")}
	case off:
		v.Repo.RemoteLock, v.NoRemoteLock = "", true
	case on:
		name, err := resolveRemoteLock(ctx, v.Repo, v.Config)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		v.Repo.RemoteLock = name
	}
	return nil
}
