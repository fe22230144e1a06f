package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/memory"
)

// TrapOptions are the parsed flags of `trap propose`.
type TrapOptions struct {
	IO        *IOStreams
	Input     memory.TrapInput
	Confirmed bool
	Submit    bool
	JSON      bool
}

func newTrapCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "trap",
		Short: "Record a lesson from a mistake your checks missed (a \"trap\"), only after your yes",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newTrapProposeCmd(f))
	return c
}

func newTrapProposeCmd(f *Factory) *cobra.Command {
	o := &TrapOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "propose --title T --pattern P --context C --catch-signal S",
		Short: "Write up a trap without project details and record it: Yes / No / Edit first",
		Long: `A trap is a mistake that got past every check you had — the tests passed,
the review passed, and it still went wrong — written down as a lesson (what
happened, what would have caught it, when it may happen again) so that later
sessions, yours or your agent's, do not fall into it again. Propose writes it
up without this project's details — the repository's name, absolute and
repository paths, host names, URLs, emails and people's names become
<project>, <path>, <host>, <url>, <email>, <user> — shows the record exactly
as it would be written, and asks:

  Novel trap detected: <title>
  Record as project memory? [Yes / No / Edit first]

Edit first opens $EDITOR on the record. A project trap is committed as
<trap_dir>/<slug>.md ("progress: trap recorded: …", Scribe-Confirmed: yes);
a universal one is written to <memory.universal_dir>/trap_<slug>.md, outside
the repository and not committed. An existing record is never overwritten.

--submit then offers it as a GitHub issue to memory.feedback_repo: it prints
EXACTLY the title and body that would be sent and runs
"gh issue create --repo <feedback_repo>" only after a second yes at a
terminal. Without a terminal nothing is written (exit 1) unless --confirmed,
and nothing is ever sent.`,
		Example: `  git scribe trap propose --title "Mocked clock hid a timezone bug" \
      --pattern "Tests froze time in UTC, production ran in KST" \
      --context "Date arithmetic near midnight" \
      --catch-signal "Run the date tests under TZ=Asia/Seoul too" --scope universal`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runTrapPropose(c.Context(), f, o) },
	}
	fl := c.Flags()
	fl.StringVar(&o.Input.Title, "title", "", "short title of the trap")
	fl.StringVar(&o.Input.Pattern, "pattern", "", "what went wrong and why it was not caught")
	fl.StringVar(&o.Input.Context, "context", "", "what was being done when it happened (when it is likely to happen again)")
	fl.StringVar(&o.Input.CatchSignal, "catch-signal", "", "the check or signal that would have caught it earlier")
	fl.StringVar(&o.Input.Scope, "scope", memory.ScopeProject, "project (this repository's lesson, committed) or universal (every project's, kept in your home directory)")
	fl.StringVar(&o.Input.Flavor, "flavor", memory.FlavorVerificationFailure, "verification_failure (a check should have caught it) or spec_gap (nothing said what was wanted)")
	fl.BoolVar(&o.Confirmed, "confirmed", false, "you already said yes to the record: write without asking")
	fl.BoolVar(&o.Submit, "submit", false, "then offer it as a GitHub issue to memory.feedback_repo (needs a second yes)")
	fl.BoolVar(&o.JSON, "json", false, "print the result as JSON (never prompts)")
	return c
}

// trapReport is `trap propose --json`.
type trapReport struct {
	Trap      memory.Trap        `json:"trap"`
	Record    string             `json:"record"`
	Result    *memory.TrapResult `json:"result,omitempty"`
	Status    string             `json:"status"` // recorded | exists | queued | declined | refused
	Issue     *memory.Issue      `json:"issue,omitempty"`
	Submitted bool               `json:"submitted"`
	IssueURL  string             `json:"issue_url,omitempty"`
	Repo      string             `json:"feedback_repo,omitempty"`
}

var ownerRepoRE = lazyre.New(`^[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+$`)

func runTrapPropose(ctx context.Context, f *Factory, o *TrapOptions) error {
	if f.SkipActive() {
		return nil
	}
	if err := memory.ValidateTrapInput(o.Input); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	st, err := f.Memory(ctx)
	if err != nil {
		return err
	}
	repo := st.Config.Memory.FeedbackRepo
	if o.Submit && !ownerRepoRE().MatchString(repo) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--submit needs memory.feedback_repo set to OWNER/REPO (got %q); scribe never files issues to a repository you did not configure", repo)}
	}
	landPendingMemory(ctx, f, st)
	ab := f.abstractor(ctx)
	trap := redactTrap(memory.AbstractTrap(o.Input, ab))
	rep := trapReport{Trap: trap, Record: trap.Render(), Repo: repo}
	ios := o.IO
	interactive := ios.CanPrompt() && !o.JSON
	var p *prompter
	if interactive {
		p = newPrompter(f, st.EditDir())
	}
	scopeWord := "project"
	if trap.Scope == memory.ScopeUniversal {
		scopeWord = "universal"
	}

	line := strings.Repeat("-", 60)
	confirmed := o.Confirmed
	if !confirmed && interactive {
		for {
			fmt.Fprintf(ios.Out, "%sNovel trap detected: %s\nThe record, exactly as it would be written:\n%s\n%s%s\n", emoji(ios, "💡 "), ios.Bold(trap.Title), line, trap.Render(), line)
			ans, err := p.choice(fmt.Sprintf("   Record as %s memory? [Yes / No / Edit first] ", scopeWord), []string{"Yes", "No", "Edit"}, "n")
			if err == errNoAnswer {
				break
			}
			if err != nil {
				return err
			}
			if ans == "n" {
				rep.Status = "declined"
				return finishTrap(o, rep, &ExitError{Code: ExitFindings, Err: fmt.Errorf("nothing written: the trap was declined")})
			}
			if ans == "e" {
				edited, err := p.edit(trap.Render(), "trap.md")
				if err != nil {
					fmt.Fprintln(ios.ErrOut, "warning: "+err.Error())
					continue
				}
				t, ok := memory.ParseTrap(edited)
				if !ok {
					fmt.Fprintln(ios.Out, `the edited record needs "# Trap: <title>", "## Pattern", "## Lesson" and "## Applies to"; showing the previous version`)
					continue
				}
				t.Scope, t.Flavor = trap.Scope, trap.Flavor
				trap = redactTrap(abstractAgain(t, ab))
				rep.Trap, rep.Record = trap, trap.Render()
				continue
			}
			confirmed = true
			break
		}
	}
	if !confirmed {
		if !interactive && !o.JSON {
			fmt.Fprintf(ios.Out, "Novel trap detected: %s\nThe record, exactly as it would be written:\n%s\n%s%s\n", trap.Title, line, trap.Render(), line)
		}
		rep.Status = "refused"
		return finishTrap(o, rep, notConfirmed("recording a trap", "pass --confirmed once the person agreed to the record above"))
	}
	res, err := st.RecordTrap(ctx, trap)
	if err != nil {
		return err
	}
	rep.Result, rep.Status = &res, res.Status
	if !o.JSON {
		switch res.Status {
		case "recorded":
			fmt.Fprintf(ios.Out, "recorded %s trap: %s\n", scopeWord, res.Path)
			if res.Commit != nil {
				fmt.Fprintf(ios.Out, "committed %s: progress: trap recorded\n", res.Commit.SHA[:12])
			}
		case "exists":
			fmt.Fprintf(ios.Out, "already recorded: %s\n", res.Path)
		case "queued":
			fmt.Fprintf(ios.Out, "confirmed, not committed yet: %s\n", res.Reason)
		}
	}
	if !o.Submit {
		return finishTrap(o, rep, nil)
	}
	issue := memory.IssueFor(trap)
	rep.Issue = &issue
	show := func() {
		fmt.Fprintf(ios.Out, "\n%sThis trap could help others. Submit it as a GitHub issue to %s?\n", emoji(ios, "💬 "), repo)
		fmt.Fprintf(ios.Out, "Only the abstracted pattern is sent: no conversation content, no personal data.\n\nBelow is EXACTLY what will be sent (between the lines):\n%s\n%s%s\n", line, issue.Render(), line)
	}
	if !interactive {
		if !o.JSON {
			show()
		}
		return finishTrap(o, rep, notConfirmed("submitting an issue", "nothing was sent; submitting needs a second yes at a terminal"))
	}
	for {
		show()
		ans, err := p.choice("   Submit? [Yes / No / Edit first] ", []string{"Yes", "No", "Edit"}, "n")
		if err == errNoAnswer || ans == "n" {
			fmt.Fprintln(ios.Out, "not submitted; the trap stays recorded locally")
			return finishTrap(o, rep, nil)
		}
		if err != nil {
			return err
		}
		if ans == "e" {
			edited, err := p.edit(issue.Render(), "issue.md")
			if err != nil {
				fmt.Fprintln(ios.ErrOut, "warning: "+err.Error())
				continue
			}
			is, ok := memory.ParseIssue(edited)
			if !ok {
				fmt.Fprintln(ios.Out, `the edited issue needs a first line "Title: …" and a body; showing the previous version`)
				continue
			}
			issue = memory.Issue{Title: redact(is.Title), Body: redact(is.Body)}
			rep.Issue = &issue
			continue
		}
		out, err := runGh(f, "issue", "create", "--repo", repo, "--title", issue.Title, "--body", issue.Body)
		if err != nil {
			return fmt.Errorf("gh issue create --repo %s: %w (the trap stays recorded locally)", repo, err)
		}
		rep.Submitted, rep.IssueURL = true, strings.TrimSpace(string(out))
		fmt.Fprintf(ios.Out, "submitted: %s\n", rep.IssueURL)
		return finishTrap(o, rep, nil)
	}
}

func finishTrap(o *TrapOptions, rep trapReport, err error) error {
	if o.JSON {
		if perr := printJSON(o.IO, rep); perr != nil {
			return perr
		}
	}
	return err
}

func redactTrap(t memory.Trap) memory.Trap {
	t.Title, t.Pattern, t.Lesson, t.AppliesTo = redact(t.Title), redact(t.Pattern), redact(t.Lesson), redact(t.AppliesTo)
	return t
}

func abstractAgain(t memory.Trap, a memory.Abstractor) memory.Trap {
	t.Title, t.Pattern, t.Lesson, t.AppliesTo = a.Abstract(t.Title), a.Abstract(t.Pattern), a.Abstract(t.Lesson), a.Abstract(t.AppliesTo)
	return t
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n")
}
