package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/vault"
)

// SyncOptions are sync's flags.
type SyncOptions struct {
	IO           *IOStreams
	Remote       string
	NoRemoteLock bool
	JSON         bool
}

func newSyncCmd(f *Factory) *cobra.Command {
	o := &SyncOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "sync",
		Short: "Share scribe's record (refs/scribe/*) through your remote; never pushes a branch",
		Long: `Sync shares scribe's record, refs/scribe/vault, through the git remote you
already have, with the git CLI (your credential helpers, ssh config and
proxies apply), so teammates and your other machines see the same journal
and bridge notes. It first makes any scribe write waiting in the queue, then:

  fetches    the remote's refs/scribe/* into refs/scribe/remotes/<remote>/
             (never over a local ref; nothing else is fetched)
  merges     a record both sides wrote into one commit with both parents:
             journal entries unioned by entry id (none lost, none doubled),
             each branch's bridge note the newer one, ACTIVE-STATUS rebuilt
  pushes     refs/scribe/vault only, with --force-with-lease on the value it
             fetched (the remote's compare-and-swap; a lost race is fetched,
             merged and pushed again)

It never pushes, moves or rewrites a branch: your unpushed commits stay
yours. The remote is sync.remote, else the branch's upstream remote, else
origin (--remote overrides). The first sync (or git scribe init) adds the
fetch refspec, so a plain git fetch brings the team's record from then on.

Exit status: 0 synced, 2 the remote cannot be reached or its lock is held.`,
		Example: `  git scribe sync
  git scribe sync --remote backup --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runSync(c.Context(), f, o) },
	}
	c.Flags().StringVar(&o.Remote, "remote", "", "sync with `NAME` instead of the default remote")
	c.Flags().BoolVar(&o.NoRemoteLock, "no-remote-lock", false, "do not take refs/scribe/locks/sync on the remote")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the report as JSON")
	return c
}

// SyncReport is `git scribe sync --json`.
type SyncReport struct {
	vault.SyncReport
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
	if remote == "" {
		if remote, err = v.Repo.DefaultRemote(ctx); err != nil {
			return &ExitError{Code: ExitFindings, Err: err}
		}
	}
	if err := v.Repo.CheckConfiguredRemote(ctx, remote); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("sync: %w", err)}
	}
	if ok, err := v.Repo.HasRemote(ctx, remote); err != nil || !ok {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("no remote named %q; add it with git remote add %s URL, or pass --remote", remote, remote)}
	}
	done := o.IO.Progress("syncing the vault with " + remote)
	var sr vault.SyncReport
	run := func() error {
		var err error
		sr, err = v.Sync(ctx, remote)
		return err
	}
	if o.NoRemoteLock {
		err = run()
	} else {
		err = withRemoteSyncLock(ctx, v, remote, run)
	}
	done()
	rep.SyncReport = sr
	if err != nil {
		return syncError(err)
	}
	rep.RemoteTracking = gitops.RemoteScribePrefix + remote + "/"
	if o.JSON {
		return printJSON(o.IO, rep)
	}
	renderSync(o.IO, rep)
	return nil
}

// withRemoteSyncLock holds refs/scribe/locks/sync on the remote around fn.
func withRemoteSyncLock(ctx context.Context, v *vault.Vault, remote string, fn func() error) error {
	rl, err := v.Repo.AcquireRemote(ctx, remote, []string{gitops.SyncLock}, gitops.LockOptions{Timeout: v.Config.LockTimeout, Purpose: "sync"})
	if err != nil {
		return err
	}
	err = fn()
	if rerr := rl.Release(ctx); rerr != nil && err == nil {
		fmt.Fprintf(os.Stderr, "warning: %v\n", rerr)
	}
	return err
}

// syncError maps sync's failures to exit statuses: an unreachable or
// locked remote is 2.
func syncError(err error) error {
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
	up := rep.Remote + " " + gitops.VaultRef
	switch rep.Action {
	case "empty":
		fmt.Fprintf(out, "%s neither this repository nor %s has a vault yet; git scribe wrap starts one\n", ios.Bold("nothing to sync:"), rep.Remote)
	case "up-to-date":
		fmt.Fprintf(out, "%s %s and %s are at %s\n", ios.Bold("up to date:"), gitops.VaultRef, up, shortRef(rep.After))
	case "fetched":
		fmt.Fprintf(out, "%s %s is now %s (was %s), from %s\n", ios.Bold("fetched:"), gitops.VaultRef, shortRef(rep.After), orNone(rep.LocalBefore), up)
	case "pushed":
		fmt.Fprintf(out, "%s %s %s → %s\n", ios.Bold("pushed:"), up, orNone(rep.RemoteBefore), shortRef(rep.After))
	case "merged":
		fmt.Fprintf(out, "%s %s with %s: %d journal entr%s from the remote; pushed %s\n", ios.Bold("merged:"), gitops.VaultRef, up,
			rep.Merged, map[bool]string{true: "y", false: "ies"}[rep.Merged == 1], shortRef(rep.After))
	}
	fmt.Fprintln(out, "  no branch was pushed or moved")
	if rep.AddedRefspec {
		fmt.Fprintf(out, "  configured remote.%s.fetch %s (plain git fetch now brings scribe refs)\n", rep.Remote, gitops.ScribeFetchRefspec(rep.Remote))
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return shortRef(s)
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
func applyRemoteLockFlags(ctx context.Context, v *vault.Vault, on, off bool) error {
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
