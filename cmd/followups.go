package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/vault"
)

// FollowupsExtractOptions are `followups extract`'s parsed flags.
type FollowupsExtractOptions struct {
	IO         *IOStreams
	Transcript string
	Route      string
	JSON       bool
	DryRun     bool
}

func newFollowupsCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "followups",
		Short: "Find follow-ups said only in a conversation (\"next session: …\") and file them where they last",
		Long: `A follow-up said only in a conversation ("next session: migrate the cache",
"다음 세션에 로그 정리") is lost when the session ends. followups extract finds
them and keeps the ones no file holds yet (the journal's "### Next", a
todos.md, a PROGRESS.md, an active task's checkboxes).

Without a subcommand it lists the follow-ups that agent sessions found with
no terminal to ask you (a hook runs without one), kept on refs/scribe/vault
until you decide; followups route decides them, in one prompt for all of
them or by a --route FILE.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runFollowupsList(c.Context(), f, asJSON) },
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	c.AddCommand(newFollowupsExtractCmd(f), newFollowupsListCmd(f), newFollowupsRouteCmd(f))
	return c
}

func newFollowupsListCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the follow-ups agent sessions kept until you decide where they go",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runFollowupsList(c.Context(), f, asJSON) },
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func runFollowupsList(ctx context.Context, f *Factory, asJSON bool) error {
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	pending, err := v.PendingFollowups(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		if pending == nil {
			pending = []vault.PendingFollowup{}
		}
		return printJSON(f.IO, map[string]any{"pending": pending})
	}
	if len(pending) == 0 {
		fmt.Fprintln(f.IO.Out, "no follow-ups wait for routing")
		return nil
	}
	fmt.Fprintf(f.IO.Out, "%d follow-up%s for routing (git scribe followups route):\n", len(pending), plural(len(pending), " waits", "s wait"))
	for _, p := range pending {
		text := p.Text
		if p.Project != "" {
			text = "(" + p.Project + ") " + text
		}
		fmt.Fprintf(f.IO.Out, "  %d. %s  [session %s]\n", p.N, text, p.Session)
	}
	return nil
}

func newFollowupsRouteCmd(f *Factory) *cobra.Command {
	var routeFile string
	var asJSON bool
	c := &cobra.Command{
		Use:   "route",
		Short: "Decide where the kept follow-ups go (or skip them): one prompt for all, or --route FILE",
		Long: `Route files the follow-ups agent sessions kept on refs/scribe/vault
where they last: the journal's "### Next", a project's todos.md, an active
task, or skip. On a terminal it asks once for all of them; --route FILE
takes the decisions from a file (see git scribe followups extract --help for
its format). A decided follow-up leaves the list.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if f.SkipActive() {
				return nil
			}
			v, err := f.Vault(ctx)
			if err != nil {
				return err
			}
			pending, err := v.PendingFollowups(ctx)
			if err != nil {
				return err
			}
			if len(pending) == 0 {
				fmt.Fprintln(f.IO.Out, "no follow-ups wait for routing")
				return nil
			}
			cands := vault.Candidates(pending)
			var routes map[int]followups.Route
			switch {
			case routeFile != "":
				n, err := routePendingFile(ctx, v, routeFile)
				if err != nil {
					return err
				}
				fmt.Fprintf(f.IO.Out, "decided %d of %d follow-up%s\n", n, len(pending), plural(len(pending), "", "s"))
				return nil
			case f.IO.CanPrompt():
				srcs, _, err := v.FollowupSources(ctx, nil)
				if err != nil {
					return err
				}
				if routes, err = promptRoutes(f.IO, v, cands, srcs); err != nil {
					return err
				}
			default:
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("no terminal to ask; pass --route FILE")}
			}
			rep, err := v.RoutePending(ctx, pending, routes)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(f.IO, map[string]any{"decided": len(routes), "routing": rep})
			}
			fmt.Fprintf(f.IO.Out, "decided %d of %d follow-up%s\n", len(routes), len(pending), plural(len(pending), "", "s"))
			return nil
		},
	}
	c.Flags().StringVar(&routeFile, "route", "", "route by the decision `FILE`")
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func newFollowupsExtractCmd(f *Factory) *cobra.Command {
	o := &FollowupsExtractOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "extract --transcript FILE",
		Short: "Find the follow-ups in a transcript that no file holds yet, and file them",
		Long: `extract reads a session transcript (Claude Code JSONL, Codex JSONL, or text
with "User:" / "Assistant:" markers; corrupt lines are skipped and counted) and
finds follow-ups in the user's and the assistant's turns by keyword (English:
next session, follow-up, TODO:, come back to, defer, later; Korean: 다음 세션,
후속, 나중에, 미루, 다음에 — configurable as followups.keywords_en/_kr).

A follow-up already in a file that outlives the session (the journal's
"### Next", a project's todos.md or PROGRESS.md "## Next Session", an active
task's checkboxes), or already done anywhere, is kept there. The others —
orphans — are offered in ONE prompt on a terminal, sending each to:

  j             the journal's "### Next" (a new entry; entries are never edited)
  t[:PROJECT]   the project's todos.md, under "## Next Session"
  a[:[PROJECT/]TASK]  an active task's todos.md, as an open checkbox
  s             skip (reported as potentially lost)

Without a terminal nothing is routed unless --route names a decision file:

  routes:
    - item: "1"              # an orphan's number, or its text
      to: journal            # journal | todos | active | skip
    - item: migrate the cache
      to: todos
      project: api
    - item: 로그 정리
      to: active
      project: ops
      task: logging
  default: skip              # optional: for orphans no route names

Routed items are committed as one "progress: route N follow-ups …" commit, with
ACTIVE-STATUS.md regenerated. Exit status 1 when orphans are left unrouted
(potentially lost), 0 otherwise.`,
		Example: `  git scribe followups extract --transcript ~/.claude/projects/-repo/SESSION.jsonl
  git scribe followups extract --transcript session.jsonl --json
  git scribe followups extract --transcript session.jsonl --route decisions.yaml`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runFollowupsExtract(c.Context(), f, o) },
	}
	fl := c.Flags()
	fl.StringVar(&o.Transcript, "transcript", "", "the session transcript `FILE`")
	fl.StringVar(&o.Route, "route", "", "route orphans by the decision `FILE` (YAML) instead of asking")
	fl.BoolVar(&o.JSON, "json", false, "print the result as JSON")
	fl.BoolVar(&o.DryRun, "dry-run", false, "show what was found; ask nothing, write nothing")
	c.MarkFlagRequired("transcript")
	return c
}

func runFollowupsExtract(ctx context.Context, f *Factory, o *FollowupsExtractOptions) error {
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	if _, err := os.Stat(o.Transcript); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--transcript %s: %w", o.Transcript, errors.Unwrap(err))}
	}
	if !o.DryRun {
		landQueue(ctx, f) // the one landing, before this command writes
	}
	fr, err := v.ExtractAndRoute(ctx, extractOptions(v, o.IO, o.Transcript, o.Route, o.DryRun, !o.JSON))
	if err != nil {
		return err
	}
	if o.JSON {
		if err := printJSON(o.IO, fr); err != nil {
			return err
		}
	} else {
		renderFollowups(o.IO, fr, true)
	}
	if len(fr.Unrouted) > 0 && !o.DryRun {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// extractOptions turns the flags into the engine's options, with the one
// prompt when a person can answer (announce: the orphans are listed first,
// for human output).
func extractOptions(v *vault.Vault, ios *IOStreams, path, routeFile string, dryRun, announce bool) vault.ExtractOptions {
	eo := vault.ExtractOptions{Transcript: path, RouteFile: routeFile, DryRun: dryRun}
	if ios.CanPrompt() {
		eo.Ask = func(fr *vault.FollowupsReport) (map[int]followups.Route, error) {
			if announce {
				renderFollowupsFound(ios, fr, false)
			}
			return promptRoutes(ios, v, fr.Orphans, fr.Sources)
		}
	}
	return eo
}
