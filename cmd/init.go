package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/setup"
)

// InitOptions are init's flags.
type InitOptions struct {
	setup.Options
	DryRun bool
	JSON   bool
}

func newInitCmd(f *Factory) *cobra.Command {
	o := &InitOptions{}
	c := &cobra.Command{
		Use:   "init",
		Short: "Set git-scribe up in this repository and for its agent (config, hooks, CI job)",
		Long: `Init sets a repository up for git-scribe, once. It writes:

  .scribe.yaml                          configuration, every default written out and explained
                                        (never rewritten once it exists)
  .gitignore                            a marked block: scribe's readable copies (.claude/sonmat/
                                        bridge-note.md, journal.md, ACTIVE-STATUS.md) and
                                        half-written temp files stay out of git
  .claude/sonmat/                       where scribe keeps those copies for you and your agent
  remote.origin.fetch                   +refs/scribe/*:refs/scribe/remotes/origin/* (when origin
                                        exists): plain git fetch brings your team's scribe record;
                                        no push refspec (it would change what plain git push
                                        pushes): git scribe sync publishes it
  --hooks        post-commit hook       records each commit for the session's journal entry;
                                        installed where git looks (core.hooksPath, Husky), your
                                        own hook kept and run first
  --agent claude .claude/settings.json  Claude Code hooks: when a session starts (also after
                                        /compact) → git scribe bridge --hook puts the bridge note
                                        in its context; after each turn → git scribe wrap --hook
                                        updates the note; when it ends → git scribe wrap --hook
                                        --session-end writes the journal entry (with a 30 s
                                        timeout: Claude Code's default for it is 1.5 s)
                 CLAUDE.md              a "## Memory index (git-scribe)" section importing the memory index
                                        (@.claude/memory/MEMORY.md), so memories reach the agent
  --agent claude .claude/settings.local.json
    --local                             the same hooks in Claude Code's personal, git-ignored
                                        settings file (and its line in the .gitignore block)
  --agent codex  .codex/hooks.json      the same for Codex: session start → git scribe bridge
                                        --hook, each turn → git scribe wrap --hook (Codex has no
                                        session-end event); Codex runs them in a
                                        trusted project with hooks enabled (older Codex:
                                        [features] codex_hooks = true in ~/.codex/config.toml)
                 AGENTS.md              a marked section: the memory index, and bridge/wrap by hand
                                        for Codex versions without hooks
  --ci github    .github/workflows/scribe-check.yml
                                        a CI job running git scribe check on what each pull
                                        request changed
  --mcp          .mcp.json              (with --agent claude) the git-scribe MCP server:
                                        git scribe mcp

Every hook command is guarded: on a machine without git-scribe it does
nothing and exits 0 (` + "`! command -v git-scribe >/dev/null 2>&1 || git scribe …`" + `).
Hooks written by earlier versions are upgraded in place.

It merges into what is there (keys, hooks and key order in settings.json and
hooks.json are kept), never overwrites a person's content, and is idempotent:
a second run changes nothing and says so. Nothing is committed: review the
changes and commit them yourself.`,
		Example: `  git scribe init --agent claude --hooks --ci github
  git scribe init --agent claude --local
  git scribe init --agent codex --hooks
  git scribe init --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runInit(c.Context(), f, o) },
	}
	c.Flags().StringVar(&o.Agent, "agent", "none", "agent to wire: claude, codex or none")
	c.Flags().BoolVar(&o.Hooks, "hooks", false, "install the post-commit hook")
	c.Flags().StringVar(&o.CI, "ci", "", "write a CI workflow: github")
	c.Flags().BoolVar(&o.Local, "local", false, "with --agent claude: write the hooks to the personal, git-ignored .claude/settings.local.json")
	c.Flags().BoolVar(&o.MCP, "mcp", false, "register git scribe mcp in the agent's project MCP config (.mcp.json for claude)")
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "show the plan; change nothing")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the plan as JSON")
	return c
}

func runInit(ctx context.Context, f *Factory, o *InitOptions) error {
	r, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	cfg, err := f.Config(ctx)
	if err != nil {
		return err
	}
	if o.Options.Version == "" {
		o.Options.Version = installVersion() // the CI job installs the git-scribe that wrote it
	}
	plan, err := setup.Build(ctx, r, cfg.Config, o.Options)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !o.DryRun {
		if err := plan.Apply(); err != nil {
			return err
		}
		// A fetched team vault (or an imported one) shows in the view at once.
		if v, err := f.Vault(ctx); err == nil {
			v.Migrate(ctx)
			for _, w := range v.RenderView(ctx) {
				plan.Warnings = append(plan.Warnings, w)
			}
		}
	}
	if o.JSON {
		return printJSON(f.IO, map[string]any{"dry_run": o.DryRun, "changes": nonNilChanges(plan.Changes),
			"unchanged": plan.Unchanged, "warnings": plan.Warnings, "notes": plan.Notes})
	}
	out := f.IO.Out
	for _, w := range plan.Warnings {
		fmt.Fprintln(f.IO.ErrOut, "warning: "+w)
	}
	if len(plan.Changes) == 0 {
		fmt.Fprintln(out, "already set up: nothing to change")
		return nil
	}
	verb := map[bool]string{true: "would ", false: ""}[o.DryRun]
	for _, c := range plan.Changes {
		fmt.Fprintf(out, "%s%-7s %-44s %s\n", verb, c.Action, c.Path, f.IO.Dim(c.What))
	}
	var files []string
	for _, c := range plan.Changes {
		if (c.Action == "create" || c.Action == "update") && !c.Personal {
			if !strings.HasSuffix(c.Path, "/") {
				files = append(files, c.Path)
			}
		}
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(out, "note: "+n)
	}
	if !o.DryRun && len(files) > 0 {
		fmt.Fprintf(out, "\nnothing was committed; review, then: git add %s && git commit -m \"Set up git-scribe\" -- %s\n", strings.Join(files, " "), strings.Join(files, " "))
	}
	return nil
}

func nonNilChanges(c []setup.Change) []setup.Change {
	if c == nil {
		return []setup.Change{}
	}
	return c
}
