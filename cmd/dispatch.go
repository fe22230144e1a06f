package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/dispatch"
	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/ratify"
	"github.com/git-scribe/git-scribe/vault"
)

// DispatchOptions are the dispatch commands' parsed flags.
type DispatchOptions struct {
	IO    *IOStreams
	Flags dispatch.Flags
	JSON  bool
	// Cards limits plan and run to these cards.
	Cards []string
	Watch dispatch.WatchOptions
}

func newDispatchCmd(f *Factory) *cobra.Command {
	o := &DispatchOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "dispatch [plan | run | watch]",
		Short: "Have agents draft and review the cards of a writer's vault that are ready (new files only)",
		Long: `Dispatch is for a writer's vault (an Obsidian vault, or any folder of
markdown notes in git; docs/WRITERS.md has a complete example): it has agents
draft the cards you marked ready, then review each draft, and commits what
they wrote as new files. It is the only part of git scribe that talks to
agents. What runs is worked out from your notes each time, never stored:

  ready_for_fill   a card (frontmatter type: card, readiness: ready) with a
                   contract (control/contracts/, type: contract) and no draft
                   at its output_target: an agent drafts it (variants: N
                   drafts N versions)
  has_draft        a draft exists: each review lane runs once on it
  reviewed         every lane has a review of the draft: nothing runs

A review lane is one kind of review: canon (facts against your canon notes),
voice (the prose against your voice notes), mechanics (game rules; the
gamedev template set adds it to fiction's canon and voice). A contract's
review_after narrows or reorders them. A ready card without a contract is
skipped with a warning: writing one is your decision, never scribe's.

Drafts and reviews are new files only, under body/drafts/ and
reviews/<lane>/; scribe writes their frontmatter (type, kind, links, agent,
model, generated: when, and pack_sha: the checksum of the notes the agent was
given) and the agent writes only the body. Agents see only a frozen context pack
(git scribe pack freeze; run freezes a missing one). One pass is one commit,
noted in scribe's journal. A second run after a complete pass runs nothing.
Nothing an agent writes becomes canon here: that is git scribe ratify, by you.

Which agent: --runner/--model/--base-url > SCRIBE_DISPATCH_* > the user
config's dispatch: section (top-level keys, a skills: map per prompt, variants:
overlays per variant); an explicit --runner uses one backend for the whole
pass. With no configuration the built-in "fake" runner writes deterministic
placeholder text, so the whole loop works offline. Runners: fake, openai (any
OpenAI-compatible server; bearer key from $SCRIBE_DISPATCH_API_KEY or the
variable dispatch.api_key_env names), claude (claude -p), codex (codex exec).`,
		Example: `  git scribe dispatch plan
  git scribe dispatch run
  git scribe dispatch run --runner openai --base-url http://127.0.0.1:8080 --model gemma-3-27b
  git scribe dispatch watch --interval 60s --settle 30s
  git scribe dispatch watch --ticks 1          # one debounced pass (cron, systemd timer)`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runDispatchPlan(c.Context(), f, o) },
	}
	pf := c.PersistentFlags()
	pf.StringVar(&o.Flags.Runner, "runner", "", "use this backend for the whole pass: "+strings.Join(config.Runners(), ", "))
	pf.StringVar(&o.Flags.Model, "model", "", "model `NAME` for the chosen or configured backend")
	pf.StringVar(&o.Flags.BaseURL, "base-url", "", "OpenAI-compatible server `URL`, e.g. http://127.0.0.1:8080")
	pf.DurationVar(&o.Flags.Timeout, "timeout", 0, "per-run timeout (default 5m)")
	pf.IntVar(&o.Flags.Concurrency, "concurrency", 0, "agents running at once (default 2)")

	plan := &cobra.Command{
		Use:   "plan [CARD...]",
		Short: "Show which agent runs would start, and why (runs nothing, writes nothing)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Cards = args
			return runDispatchPlan(c.Context(), f, o)
		},
	}
	plan.Flags().BoolVar(&o.JSON, "json", false, "print the plan as JSON")
	run := &cobra.Command{
		Use:   "run [CARD...]",
		Short: "Run one pass: drafts, then their reviews; commit what they wrote as one commit",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			o.Cards = args
			return runDispatchRun(c.Context(), f, o)
		},
	}
	run.Flags().BoolVar(&o.JSON, "json", false, "print the report as JSON")
	watch := &cobra.Command{
		Use:   "watch",
		Short: "Run a pass every --interval once no note has changed for --settle; collect candidates after reviews",
		Long: `Watch runs a pass every --interval, each only after no note has changed
for --settle (sync tools deliver notes as bursts of writes; a half-synced note
never starts an agent). After a pass commits reviews it runs
"git scribe ratify --mine", which collects the new names and facts the agents
introduced into your inbox, unticked (a second run adds nothing), unless
--no-mine. --ticks N stops after N passes (--ticks 1 is a single pass for cron
or a systemd timer). Errors end the watch: a failed agent run or commit stops
it with a non-zero exit status.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runDispatchWatch(c.Context(), f, o) },
	}
	wf := watch.Flags()
	wf.DurationVar(&o.Watch.Interval, "interval", 60*time.Second, "time between passes")
	wf.DurationVar(&o.Watch.Settle, "settle", 30*time.Second, "time no note may change before a pass")
	wf.IntVar(&o.Watch.Ticks, "ticks", 0, "stop after N passes (0: until interrupted)")
	wf.BoolVar(&o.Watch.NoMine, "no-mine", false, "do not run ratify --mine after committing reviews")
	c.AddCommand(plan, run, watch)
	return c
}

// openDispatcher builds a dispatcher for the repository with the routing
// of the user config, the environment and flags.
func openDispatcher(ctx context.Context, f *Factory, flags dispatch.Flags, progress io.Writer) (*dispatch.Dispatcher, []string, error) {
	if err := config.ValidateRoute(config.Route{Runner: flags.Runner, BaseURL: flags.BaseURL, Timeout: flags.Timeout}, "flags"); err != nil {
		return nil, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if flags.Concurrency < 0 {
		return nil, nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("--concurrency must be at least 1")}
	}
	r, err := f.Repo(ctx)
	if err != nil {
		return nil, nil, err
	}
	c, err := f.Config(ctx)
	if err != nil {
		return nil, nil, err
	}
	dl, err := config.LoadDispatch(f.Env)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitUsage, Err: err}
	}
	warns := append([]string(nil), dl.Warnings...)
	if config.RepoHasDispatch(r.WorkTree) {
		warns = append(warns, fmt.Sprintf("the dispatch: section of %s is ignored: routing is machine policy; put it in %s", config.RepoFile, config.UserFile(f.Env)))
	}
	d := dispatch.New(dispatch.Options{Repo: r, Config: c.Config, Routing: dispatch.NewRouting(dl, flags),
		Env: f.Env, Redact: redact, Progress: progress})
	return d, warns, nil
}

// proseWriter is the agent-backed prose for wrap, or nil when neither the
// bridge nor the journal skill is routed (or the routing is unreadable).
func proseWriter(ctx context.Context, f *Factory) vault.ProseWriter {
	dl, err := config.LoadDispatch(f.Env)
	if err != nil {
		return nil
	}
	r, err := f.Repo(ctx)
	if err != nil {
		return nil
	}
	c, err := f.Config(ctx)
	if err != nil {
		return nil
	}
	d := dispatch.New(dispatch.Options{Repo: r, Config: c.Config, Routing: dispatch.NewRouting(dl, dispatch.Flags{}), Env: f.Env, Redact: redact})
	return dispatch.NewProse(d)
}

// withAgents plugs agent-backed analyzers and the qa_judge into compound's
// pipeline for the skills the user config routes.
func withAgents(ctx context.Context, f *Factory, p memory.Pipeline) memory.Pipeline {
	d, _, err := openDispatcher(ctx, f, dispatch.Flags{}, nil)
	if err != nil {
		return p
	}
	return dispatch.WithAgents(d, p)
}

func runDispatchPlan(ctx context.Context, f *Factory, o *DispatchOptions) error {
	d, warns, err := openDispatcher(ctx, f, o.Flags, nil)
	if err != nil {
		return err
	}
	p, err := d.Plan(ctx, o.Cards...)
	if err != nil {
		return err
	}
	p.Warnings = append(append([]string{}, warns...), p.Warnings...) // [] not null in --json
	if o.JSON {
		return printJSON(o.IO, p)
	}
	out := o.IO.Out
	for _, cp := range p.Cards {
		state := "-"
		switch {
		case cp.State.ReadyForFill:
			state = "ready_for_fill"
		case cp.State.Reviewed:
			state = "reviewed"
		case cp.State.HasDraft:
			state = "has_draft"
		}
		fmt.Fprintf(out, "%s  %s  %s\n", o.IO.Bold(cp.Card.Path), cp.Card.Kind, state)
		if cp.Note != "" {
			fmt.Fprintf(out, "  %s\n", cp.Note)
		}
		if cp.Freeze {
			fmt.Fprintf(out, "  freeze  %s (no frozen pack yet)\n", cp.Pack)
		}
		if len(cp.PackStale) > 0 {
			fmt.Fprintf(out, "  note    the pack is older than %s; agents read the frozen pack (refresh: git scribe pack freeze %s)\n",
				strings.Join(cp.PackStale, ", "), cp.Card.Path)
		}
		for _, j := range cp.Jobs {
			after := ""
			if j.AfterFill {
				after = " (after the fill)"
			}
			cannot := ""
			if j.Unavailable != "" {
				cannot = " — cannot fire: no runner here"
			}
			fmt.Fprintf(out, "  %-6s  %s → %s%s  [%s; runner from %s]%s\n", j.Kind, j.Skill, j.Target, after, j.Route.Describe(), j.Route.Origins["runner"], cannot)
		}
	}
	for _, pf := range p.Pending {
		fmt.Fprintf(out, "pending %s (deferred; lands with the next run)\n", pf)
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", w)
	}
	switch {
	case p.Jobs > 0 && p.Unavailable == p.Jobs:
		fmt.Fprintf(out, "nothing can fire: the %d agent run(s) planned have no runner here (see the warnings)\n", p.Jobs)
	case p.Unavailable > 0:
		fmt.Fprintf(out, "%d agent run(s) would fire, %d cannot (no runner here; see the warnings); `git scribe dispatch run` fires the rest\n", p.Jobs-p.Unavailable, p.Unavailable)
	case p.Jobs > 0:
		fmt.Fprintf(out, "%d agent run(s) would fire; `git scribe dispatch run` fires them\n", p.Jobs)
	case len(p.Pending) > 0:
		fmt.Fprintln(out, "nothing new would fire; `git scribe dispatch run` lands the pending outputs")
	default:
		fmt.Fprintln(out, "nothing would fire")
	}
	return nil
}

func runDispatchRun(ctx context.Context, f *Factory, o *DispatchOptions) error {
	if f.SkipActive() {
		return nil
	}
	d, warns, err := openDispatcher(ctx, f, o.Flags, o.IO.ErrOut)
	if err != nil {
		return err
	}
	landQueue(ctx, f) // the one landing, before this command writes
	rep, err := d.Run(ctx, o.Cards...)
	if err != nil {
		return err
	}
	rep.Warnings = append(append([]string{}, warns...), rep.Warnings...) // [] not null in --json
	if o.JSON {
		if err := printJSON(o.IO, rep); err != nil {
			return err
		}
	} else {
		renderRun(o.IO, rep)
	}
	if rep.HasFailures() {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d agent run(s) failed; what succeeded landed, the rest fires again on the next run", len(rep.Failed))}
	}
	return nil
}

func renderRun(ios *IOStreams, rep dispatch.RunReport) {
	out := ios.Out
	switch rep.Status {
	case "committed":
		fmt.Fprintf(out, "%s %s on %s (%s)\n", ios.Bold("dispatched:"), rep.Commit.SHA[:12], strings.TrimPrefix(rep.Commit.Branch, "refs/heads/"), rep.Reason)
		for _, l := range rep.Landed {
			switch l.Kind {
			case "pack":
				fmt.Fprintf(out, "  pack    %s sha256 %s\n", l.Path, l.PackSHA[:12])
			case "draft":
				fmt.Fprintf(out, "  draft   %s (%s %s, %dms)\n", l.Path, l.Agent, l.Model, l.DurationMS)
			case "review":
				fmt.Fprintf(out, "  review  %s: %s (%s %s, %dms)\n", l.Path, l.Verdict, l.Agent, l.Model, l.DurationMS)
			}
		}
	case "queued":
		fmt.Fprintf(out, "%s %s\n", ios.Bold("queued:"), rep.Reason)
		fmt.Fprintln(out, "  the agents' outputs are kept under the git dir and land with the next `git scribe dispatch run`")
	case "failed":
		fmt.Fprintf(out, "nothing landed: %s\n", rep.Reason)
	default:
		fmt.Fprintln(out, rep.Reason)
	}
	for _, fl := range rep.Failed {
		fmt.Fprintf(ios.ErrOut, "failed: %s %s → %s: %s\n", fl.Job.Kind, fl.Job.Skill, fl.Job.Target, fl.Error)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
}

func runDispatchWatch(ctx context.Context, f *Factory, o *DispatchOptions) error {
	if f.SkipActive() {
		return nil
	}
	if o.Watch.Interval <= 0 || o.Watch.Settle < 0 || o.Watch.Ticks < 0 {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--interval must be positive, --settle and --ticks not negative")}
	}
	d, warns, err := openDispatcher(ctx, f, o.Flags, o.IO.ErrOut)
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", w)
	}
	w := o.Watch
	w.Out = o.IO.Out
	w.Mine = func(ctx context.Context) (string, error) {
		rep, err := mine(ctx, f)
		if err != nil {
			return "", err
		}
		return mineSummary(rep), nil
	}
	if err := d.Watch(ctx, w); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return nil
}

func newPackCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "pack freeze CARD",
		Short: "Freeze the notes agents may read for a card (its context pack), with a checksum",
		Long: `pack freeze writes the card's context pack under control/context-packs/:
everything an agent may read for the card — the card, its contract and every
note they list under context: in their frontmatter (a path ending in / takes
a whole directory), each quoted verbatim — with its sha256 checksum in a
sidecar file sha256sum -c can verify, and commits both. Agents read only
frozen packs, and every draft and review records the checksum (pack_sha) of
the pack it was written from, so you can tell which notes it saw. Freezing
unchanged notes changes nothing.`,
		Example: `  git scribe pack freeze cards/01-01-the-ferry.md
  git scribe pack freeze 01-01-the-ferry`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 || args[0] != "freeze" {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("usage: git scribe pack freeze CARD")}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if f.SkipActive() {
				return nil
			}
			d, _, err := openDispatcher(c.Context(), f, dispatch.Flags{}, nil)
			if err != nil {
				return err
			}
			rep, err := d.Freeze(c.Context(), args[1])
			if errors.Is(err, dispatch.ErrNoCard) {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			if err != nil {
				return &ExitError{Code: ExitFindings, Err: err}
			}
			if asJSON {
				return printJSON(f.IO, rep)
			}
			switch rep.Status {
			case "committed":
				fmt.Fprintf(f.IO.Out, "%s %s sha256 %s (%d source(s)) in %s\n", f.IO.Bold("frozen:"), rep.Pack.Path, rep.Pack.SHA, len(rep.Pack.Sources), rep.Commit.SHA[:12])
			default:
				fmt.Fprintf(f.IO.Out, "unchanged: %s sha256 %s (%s)\n", rep.Pack.Path, rep.Pack.SHA, rep.Reason)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func newRatifyCmd(f *Factory) *cobra.Command {
	var asJSON, mineOnly bool
	c := &cobra.Command{
		Use:   "ratify [--mine]",
		Short: "Move the inbox items you ticked into the ratified facts and commit them (--mine: collect candidates)",
		Long: `The inbox (control/inbox.md, paths.inbox) is where the names and facts
agents introduced in their drafts and reviews wait for your verdict; your
tick is the only verdict there is.

  ratify --mine   collect the "Introduced candidates" sections of the drafts
                  and reviews agents wrote into the inbox's "## Pending"
                  section as "- [ ]" lines, each with a link back to where it
                  came from ("(via [[reviews/canon/…]])": a source already
                  linked is never collected again, so a second run adds
                  nothing); candidates that contradict a ratified fact come
                  first.
  ratify          move every item you ticked ("- [x]") into "## Ratified facts"
                  and commit the inbox on your branch, your ticks included:
                  there is no need to commit them first. The commit holds the
                  inbox alone; your other staged and unstaged work is left as
                  it is. (An inbox staged in one version and edited further
                  waits until you stage all of it or none.)

dispatch watch runs ratify --mine after a pass commits reviews; nothing else
in scribe writes the inbox, and nothing but you ticks a box.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if f.SkipActive() {
				return nil
			}
			var rep ratify.Report
			var err error
			if mineOnly {
				rep, err = mine(c.Context(), f)
			} else {
				rep, err = ratifyInbox(c.Context(), f)
			}
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(f.IO, rep); err != nil {
					return err
				}
			} else if mineOnly {
				fmt.Fprintln(f.IO.Out, mineSummary(rep))
				for _, it := range rep.Added {
					mark := "  "
					if it.Conflict != "" {
						mark = "⚠ "
					}
					fmt.Fprintf(f.IO.Out, "  %s%s (via %s)\n", mark, it.Text, it.Via)
				}
			} else {
				switch rep.Status {
				case "committed":
					fmt.Fprintf(f.IO.Out, "%s %d fact(s) into %s in %s\n", f.IO.Bold("ratified:"), len(rep.Facts), rep.Inbox, rep.Commit.SHA[:12])
					for _, fact := range rep.Facts {
						fmt.Fprintf(f.IO.Out, "  %s\n", fact)
					}
					switch {
					case rep.OtherEdits:
						fmt.Fprintf(f.IO.Out, "committed %s as you left it: your ticks and your other edits to it; nothing else of yours\n", rep.Inbox)
					case rep.Landed:
						fmt.Fprintf(f.IO.Out, "committed your ticks in %s with it; nothing else of yours\n", rep.Inbox)
					}
				default:
					fmt.Fprintf(f.IO.Out, "%s: %s\n", rep.Status, rep.Reason)
				}
			}
			if rep.Status == "deferred" {
				return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%s cannot be written now: %s", rep.Inbox, rep.Reason)}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&mineOnly, "mine", false, "collect the candidates of the drafts and reviews agents wrote into the inbox")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func ratifyOptions(ctx context.Context, f *Factory) (ratify.Options, error) {
	r, err := f.Repo(ctx)
	if err != nil {
		return ratify.Options{}, err
	}
	c, err := f.Config(ctx)
	if err != nil {
		return ratify.Options{}, err
	}
	return ratify.Options{Repo: r, Config: c.Config, Redact: redact}, nil
}

// mine is `git scribe ratify --mine`, also what watch invokes.
func mine(ctx context.Context, f *Factory) (ratify.Report, error) {
	o, err := ratifyOptions(ctx, f)
	if err != nil {
		return ratify.Report{}, err
	}
	return ratify.Mine(ctx, o)
}

func ratifyInbox(ctx context.Context, f *Factory) (ratify.Report, error) {
	o, err := ratifyOptions(ctx, f)
	if err != nil {
		return ratify.Report{}, err
	}
	return ratify.Ratify(ctx, o)
}

func mineSummary(rep ratify.Report) string {
	switch rep.Status {
	case "committed":
		conflicts := 0
		for _, it := range rep.Added {
			if it.Conflict != "" {
				conflicts++
			}
		}
		return fmt.Sprintf("mined %d candidate(s) into %s (%d conflict(s) first), pending your tick; commit %s", len(rep.Added), rep.Inbox, conflicts, rep.Commit.SHA[:12])
	case "deferred":
		return fmt.Sprintf("mining deferred (%s); the next mine picks it up", rep.Reason)
	}
	return rep.Reason
}

// dispatchSettings are the dispatch rows of `git scribe config`.
func dispatchSettings(f *Factory) ([]config.Setting, error) {
	dl, err := config.LoadDispatch(f.Env)
	if err != nil {
		return nil, err
	}
	return dl.Settings(), nil
}
