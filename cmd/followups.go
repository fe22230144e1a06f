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
	c := &cobra.Command{
		Use:   "followups",
		Short: "Conversation follow-ups: find the ones nothing persisted and route them",
		Long: `A follow-up said only in a conversation ("next session: migrate the cache",
"다음 세션에 로그 정리") dies when the session ends. followups extract finds them
and keeps the ones no durable source holds.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newFollowupsExtractCmd(f))
	return c
}

func newFollowupsExtractCmd(f *Factory) *cobra.Command {
	o := &FollowupsExtractOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "extract --transcript FILE",
		Short: "Find a transcript's follow-ups that no durable source holds, and route them",
		Long: `extract reads a session transcript (Claude Code JSONL, Codex JSONL, or text
with "User:" / "Assistant:" markers; corrupt lines are skipped and counted) and
finds follow-ups in the user's and the assistant's turns by keyword (English:
next session, follow-up, TODO:, come back to, defer, later; Korean: 다음 세션,
후속, 나중에, 미루, 다음에 — configurable as followups.keywords_en/_kr).

A follow-up already in a durable source (journal "### Next", a project's
todos.md or PROGRESS.md "## Next Session", an active task's checkboxes, or
resolved anywhere) is not an orphan. Orphans are offered in ONE prompt on a
terminal, routing each to:

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
