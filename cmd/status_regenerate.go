package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// StatusRegenerateOptions are `status regenerate`'s parsed flags.
type StatusRegenerateOptions struct {
	IO     *IOStreams
	JSON   bool
	DryRun bool
	// RemoteLock and NoRemoteLock override sync.remote_lock.
	RemoteLock, NoRemoteLock bool
}

func newStatusRegenerateCmd(f *Factory) *cobra.Command {
	o := &StatusRegenerateOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "regenerate",
		Short: "Rebuild ACTIVE-STATUS.md, the follow-up dashboard, from the files that hold follow-ups",
		Long: `regenerate rebuilds ACTIVE-STATUS.md, the dashboard of open follow-ups, from
the files that hold them only — never from the previous dashboard, so
nothing it lists survives unless one of them still holds it:

  journal and archive   "### Next" items of every entry
  actives               open checkboxes of projects/<p>/actives/*/todos.md
  todos.md              "## Next Session" of projects/<p>/todos.md (and ./todos.md)
  PROGRESS.md           "## Next Session" of projects/<p>/PROGRESS.md (and ./progress.md)

Items ticked anywhere ([x]) or listed under a journal "### Done" are dropped;
near-duplicates (edit-distance similarity ≥ 0.85) are merged unless they name
different things (paths, file names, numbers, versions, issues, CamelCase or
snake_case names, backticked code: /users vs /posts, v1.2 vs v1.3), and the
audit names every text merged into another; the newest come
first, then by source priority (journal, actives, todos, progress); 15 are
shown. Each line carries its (project) tag — its own, else the enclosing
"## Session: <project>" header's, else the path's — and its sources; untagged
items are warned about, never dropped. Patterns, section, cap and threshold
are the followups: settings of .scribe.yaml.

The file is written under the refs/scribe/locks/active-status lock and
committed as "progress: active-status regenerated" only when its content
changed; it carries no timestamp, so concurrent runs agree.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runStatusRegenerate(c.Context(), f, o) },
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the result (every open follow-up and the audit) as JSON")
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "print what the file would say; write nothing")
	c.Flags().BoolVar(&o.RemoteLock, "remote-lock", false, "also take the active-status lock on the remote (sync.remote or upstream); unreachable → not written")
	c.Flags().BoolVar(&o.NoRemoteLock, "no-remote-lock", false, "write without the remote lock even if sync.remote_lock is on")
	return c
}

func runStatusRegenerate(ctx context.Context, f *Factory, o *StatusRegenerateOptions) error {
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	if err := applyRemoteLockFlags(ctx, v, o.RemoteLock, o.NoRemoteLock); err != nil {
		return err
	}
	if !o.DryRun {
		landQueue(ctx, f) // the one landing, before this command writes
	}
	rep, err := v.RegenerateActiveStatus(ctx, o.DryRun)
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.IO, rep)
	}
	out := o.IO.Out
	switch rep.Status {
	case "committed":
		fmt.Fprintf(out, "%s %s in %s on %s\n", o.IO.Bold("regenerated:"), rep.Path, rep.Commit.SHA[:12], strings.TrimPrefix(rep.Commit.Branch, "refs/heads/"))
	case "unchanged":
		fmt.Fprintf(out, "%s %s already lists exactly these follow-ups; no commit\n", o.IO.Bold("up to date:"), rep.Path)
	case "deferred":
		fmt.Fprintf(out, "%s %s\n", o.IO.Bold("not committed:"), rep.Reason)
	case "dry-run":
		fmt.Fprintf(out, "%s %s would say:\n", o.IO.Bold("dry run:"), rep.Path)
	}
	d := rep.Dashboard
	if d.Shown == 0 {
		fmt.Fprintln(out, "  no open follow-ups")
	}
	for _, p := range d.Items[:d.Shown] {
		fmt.Fprintf(out, "  - %s\n", p.Line())
	}
	renderAudit(o.IO, &d.Audit)
	return nil
}
