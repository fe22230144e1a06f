package cmd

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/check"
)

// Check output formats.
const (
	FormatText   = "text"
	FormatJSON   = "json"
	FormatGitHub = "github"
	FormatSARIF  = "sarif"
)

func checkFormats() []string { return []string{FormatText, FormatJSON, FormatGitHub, FormatSARIF} }

// CheckOptions are the parsed flags of `git scribe check`.
type CheckOptions struct {
	IO      *IOStreams
	Factory *Factory
	Format  string
	JSON    bool // --json, the same as --format json
	Since   string
	Rules   []string
}

func newCheckCmd(f *Factory) *cobra.Command {
	opts := &CheckOptions{IO: f.IO, Factory: f}
	c := &cobra.Command{
		Use:   "check [--format text|json|github|sarif] [--since REV] [--rule ID]",
		Short: "Check what scribe keeps for problems, as a CI job: edited journal entries, leaked secrets, …",
		Long: `Check looks for problems in what scribe keeps — its record on
refs/scribe/vault (journal, bridge notes) and the files on your branch it
writes to (progress.md, CLAUDE.md's rules, memories and trap records:
lessons from past mistakes, dispatch drafts and reviews), with their history — and reports each with a stable rule id
(SCR001 … below, with what each checks), a severity, file:line, a message
and how to fix it. It changes nothing.

Rules:
` + ruleList() + `
History rules read every commit reachable from HEAD (--since REV: only the
commits after REV). In CI, fetch the whole history (actions/checkout with
fetch-depth: 0) or pass --since with the pull request's base.

Formats: text (file:line: severity RULE message (fix: …)); json
({"findings": [{"rule_id", "severity", "file", "line", "message", "fix",
"commit"}], "summary": {"errors", "warnings", "notes"}}; file, line and commit
are left out when they do not apply); github (workflow annotations,
::error file=…,line=…,title=RULE::message); sarif (SARIF 2.1.0 for code
scanning).

Exit status: 0 clean (warnings allowed), 1 when any finding is an error,
2 usage or environment error.`,
		Example: `  git scribe check
  git scribe check --format github --since origin/main
  git scribe check --rule SCR001 --format json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runCheck(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", FormatText, "output `format`: text, json, github or sarif")
	c.Flags().BoolVar(&opts.JSON, "json", false, "shorthand for --format json")
	c.Flags().StringVar(&opts.Since, "since", "", "only verify history after `REV` (default: all history)")
	c.Flags().StringSliceVar(&opts.Rules, "rule", nil, "run only these rules (`ID`, repeatable or comma-separated)")
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return checkFormats(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = c.RegisterFlagCompletionFunc("rule", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, r := range check.Rules() {
			ids = append(ids, r.ID()+"\t"+r.Name())
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// ruleList renders the rules for --help.
func ruleList() string {
	var b strings.Builder
	for _, r := range check.Rules() {
		fmt.Fprintf(&b, "  %s  %-24s %s\n", r.ID(), r.Name(), r.Describe())
	}
	return b.String()
}

func runCheck(ctx context.Context, opts *CheckOptions) error {
	format := strings.ToLower(opts.Format)
	if opts.JSON {
		if format != FormatText && format != FormatJSON {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--json and --format %s disagree; pass one of them", opts.Format)}
		}
		format = FormatJSON
	}
	if !slices.Contains(checkFormats(), format) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown format %q: use %s", opts.Format, strings.Join(checkFormats(), ", "))}
	}
	rules, err := check.Select(check.Rules(), opts.Rules)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	repo, err := opts.Factory.Repo(ctx)
	if err != nil {
		return err
	}
	cfg, err := opts.Factory.Config(ctx)
	if err != nil {
		return err
	}
	leaveWalkACore()
	in, err := check.NewInput(ctx, repo, cfg.Config, opts.Since, rules)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	done := opts.IO.Progress(fmt.Sprintf("checking %d rules over the vault and its history", len(rules)))
	rep, err := check.Run(ctx, in, rules)
	done()
	if serr := in.SinceErr(); serr != nil {
		return &ExitError{Code: ExitUsage, Err: serr}
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("check: %w", err)}
	}
	if err := writeReport(opts.IO, format, rep, rules); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("write the report: %w", err)}
	}
	if rep.Failed() {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

// leaveWalkACore keeps check's own work to all cores but one. What a
// check waits for is git's walk of the history, a process of its own; the
// rules' reads and scans beside it are shorter, and on a two-core runner
// they took the walk's core (moby, check --since of a commit id: 45.2 ->
// 41.7 ms, 1.65x -> 1.52x git log -p, 60 paired rounds). A GOMAXPROCS the
// person set is theirs.
func leaveWalkACore() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		runtime.GOMAXPROCS(n - 1)
	}
}
