package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/transcript"
)

// RuleOptions are the parsed flags of `rule propose` and `rule detect`.
type RuleOptions struct {
	IO         *IOStreams
	Rule       string
	Transcript string
	Confirmed  bool
	JSON       bool
}

func newRuleCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "rule",
		Short: "Propose project rules for CLAUDE.md (written only after a person's yes)",
		Long: `Project rules are the conventions a user assumes the agent knows. Scribe
proposes each one and writes it under CLAUDE.md's "## Project Rules" (the
section is created when missing; the rest of the file stays byte-identical)
only after a person says yes, in a commit "progress: project rule added"
with a "Scribe-Confirmed: yes" trailer.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newRuleProposeCmd(f), newRuleDetectCmd(f))
	return c
}

func newRuleProposeCmd(f *Factory) *cobra.Command {
	o := &RuleOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "propose TEXT",
		Short: "Propose one project rule: Yes / No / Rephrase",
		Long: `Propose shows the rule exactly as it would be written:

  Project rule detected: <rule>
  Add to CLAUDE.md? [Yes / No / Rephrase]

Yes writes it; No (or Enter) writes nothing and remembers the refusal so
"rule detect" does not propose it again; Rephrase asks for new wording and
asks again. Without a terminal nothing is written (exit 1) unless
--confirmed says a person already agreed. Secrets are redacted first.`,
		Example: `  git scribe rule propose "Always run go vet before saying done."
  git scribe rule propose "이 프로젝트에서는 항상 gofmt를 실행한다" --confirmed`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Rule = args[0]
			return runRulePropose(c.Context(), f, o)
		},
	}
	c.Flags().BoolVar(&o.Confirmed, "confirmed", false, "a person already said yes: write without asking")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON (never prompts)")
	return c
}

func newRuleDetectCmd(f *Factory) *cobra.Command {
	o := &RuleOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "detect --transcript FILE",
		Short: "Find project rules you stated or corrections you repeated in a transcript, and propose each once",
		Long: `Detect reads a transcript (Claude Code or Codex JSONL, or plain text) and finds
project-rule signals in what the user said:

  direct statements     "in this project always …", "이 프로젝트에서는 항상 …"
  repeated corrections  the same correction requested in 2 or more turns
                        (keywords: memory.corrections_en / corrections_kr)

On a terminal each new rule is proposed once, like "rule propose". Rules
already in CLAUDE.md or declined before are listed, not proposed. Without a
terminal (or with --json) the rules are listed and nothing is written.`,
		Example: `  git scribe rule detect --transcript ~/.claude/projects/-src-app/5b1c….jsonl
  git scribe rule detect --transcript session.jsonl --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runRuleDetect(c.Context(), f, o) },
	}
	c.Flags().StringVar(&o.Transcript, "transcript", "", "the session transcript `FILE`")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the signals as JSON (never prompts)")
	c.MarkFlagRequired("transcript")
	return c
}

func runRulePropose(ctx context.Context, f *Factory, o *RuleOptions) error {
	if f.SkipActive() {
		return nil
	}
	st, err := openMemoryForWrite(ctx, f)
	if err != nil {
		return err
	}
	rule := memory.CleanRule(redact(o.Rule))
	if rule == "" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("the rule is empty")}
	}
	interactive := o.IO.CanPrompt() && !o.JSON && !o.Confirmed
	res, status, err := proposeRule(ctx, f, st, rule, o.Confirmed, interactive, o.JSON, nil)
	if err != nil {
		return err
	}
	if o.JSON {
		if perr := printJSON(o.IO, res); perr != nil {
			return perr
		}
	} else {
		reportRule(o.IO, res)
	}
	switch status {
	case "refused":
		return notConfirmed("adding a project rule", fmt.Sprintf("pass --confirmed once the person agreed: git scribe rule propose %q --confirmed", rule))
	case "declined":
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("nothing written: the rule was declined")}
	}
	return nil
}

// ruleReport is `rule propose --json`.
type ruleReport struct {
	memory.RuleResult
}

// proposeRule runs the Yes / No / Rephrase dialogue (interactive) or
// applies --confirmed, and writes on yes. status is the RuleResult status
// or "declined" / "refused".
func proposeRule(ctx context.Context, f *Factory, st *memory.Store, rule string, confirmed, interactive, jsonOut bool, p *prompter) (ruleReport, string, error) {
	res := ruleReport{memory.RuleResult{Rule: rule, Path: st.Config.Paths.ClaudeMD}}
	if cur, err := readWorktree(st, st.Config.Paths.ClaudeMD); err == nil && memory.HasRule(cur, rule) {
		res.Status, res.Reason = "exists", st.Config.Paths.ClaudeMD+" already has this rule"
		return res, res.Status, nil
	}
	ios := f.IO
	if !confirmed {
		if !interactive {
			if !jsonOut { // --json prints only JSON
				fmt.Fprintf(ios.Out, "Project rule detected: %s\n", rule)
			}
			res.Status, res.Reason = "refused", "no terminal to ask and no --confirmed"
			return res, res.Status, nil
		}
		if p == nil {
			p = newPrompter(f, st.EditDir())
		}
		for {
			fmt.Fprintf(ios.Out, "%sProject rule detected: %s\n", emoji(ios, "💡 "), ios.Bold(rule))
			ans, err := p.choice("   Add to CLAUDE.md? [Yes / No / Rephrase] ", []string{"Yes", "No", "Rephrase"}, "n")
			if err == errNoAnswer {
				res.Status, res.Reason = "refused", "input ended before an answer"
				return res, res.Status, nil
			}
			if err != nil {
				return res, "", err
			}
			if ans == "n" {
				if err := st.DeclineRule(rule); err != nil {
					fmt.Fprintln(ios.ErrOut, "warning: "+err.Error())
				}
				res.Status, res.Reason = "declined", "not added"
				return res, res.Status, nil
			}
			if ans == "r" {
				again, err := p.line("   New wording: ")
				if err == errNoAnswer {
					res.Status, res.Reason = "refused", "input ended before an answer"
					return res, res.Status, nil
				}
				if err != nil {
					return res, "", err
				}
				if again = memory.CleanRule(redact(again)); again != "" {
					rule = again
					res.Rule = rule
				}
				if cur, err := readWorktree(st, st.Config.Paths.ClaudeMD); err == nil && memory.HasRule(cur, rule) {
					res.Status, res.Reason = "exists", st.Config.Paths.ClaudeMD+" already has this rule"
					return res, res.Status, nil
				}
				continue
			}
			break
		}
	}
	out, err := st.AddRule(ctx, rule)
	if err != nil {
		return res, "", err
	}
	res.RuleResult = out
	return res, out.Status, nil
}

func reportRule(ios *IOStreams, r ruleReport) {
	switch r.Status {
	case "added":
		fmt.Fprintf(ios.Out, "added to %s under ## Project Rules: %s\ncommitted %s: progress: project rule added\n", r.Path, r.Rule, r.Commit.SHA[:12])
	case "exists":
		fmt.Fprintf(ios.Out, "%s already has this rule; nothing to do\n", r.Path)
	case "queued":
		fmt.Fprintf(ios.Out, "confirmed, not committed yet: %s\n", r.Reason)
	case "declined":
		fmt.Fprintln(ios.Out, "not added")
	}
}

func readWorktree(st *memory.Store, rel string) (string, error) {
	abs, err := st.Repo.Abs(rel)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func emoji(ios *IOStreams, e string) string {
	if ios.Color() {
		return e
	}
	return ""
}

// detectedRule is one signal in `rule detect` output.
type detectedRule struct {
	memory.RuleSignal
	// Status: new | in_claude_md | declined_before | added | declined | refused | queued
	Status string `json:"status"`
}

func runRuleDetect(ctx context.Context, f *Factory, o *RuleOptions) error {
	if f.SkipActive() {
		return nil
	}
	st, err := f.Memory(ctx)
	if err != nil {
		return err
	}
	path := o.Transcript
	if !filepath.IsAbs(path) && f.Dir != "" {
		path = filepath.Join(f.Dir, path)
	}
	tr, err := transcript.ReadFile(path)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if tr.Stats.Corrupt > 0 {
		fmt.Fprintf(o.IO.ErrOut, "skipped %d unreadable transcript line(s)\n", tr.Stats.Corrupt)
	}
	claude, _ := readWorktree(st, st.Config.Paths.ClaudeMD)
	var rules []detectedRule
	for _, s := range memory.DetectRules(memory.TurnsOf(tr), st.Keywords()) {
		s.Rule = memory.CleanRule(redact(s.Rule))
		s.Quote = redact(s.Quote)
		d := detectedRule{RuleSignal: s, Status: "new"}
		switch {
		case memory.HasRule(claude, s.Rule):
			d.Status = "in_claude_md"
		case st.RuleDeclined(s.Rule):
			d.Status = "declined_before"
		}
		rules = append(rules, d)
	}
	if rules == nil {
		rules = []detectedRule{}
	}
	interactive := o.IO.CanPrompt() && !o.JSON
	if o.JSON {
		return printJSON(o.IO, map[string]any{"transcript": o.Transcript, "rules": rules})
	}
	if len(rules) == 0 {
		fmt.Fprintln(o.IO.Out, "no project-rule signals in the transcript")
		return nil
	}
	landPendingMemory(ctx, f, st)
	var p *prompter
	if interactive {
		p = newPrompter(f, st.EditDir())
	}
	unconfirmed := 0
	for i := range rules {
		r := &rules[i]
		why := fmt.Sprintf("%s, %s %s", strings.ReplaceAll(r.Kind, "_", " "), plural(len(r.Turns), "turn", "turns"), joinTurns(r.Turns))
		if r.Status != "new" {
			fmt.Fprintf(o.IO.Out, "%s (%s): %s\n", r.Rule, why, strings.ReplaceAll(r.Status, "_", " "))
			continue
		}
		if !interactive {
			fmt.Fprintf(o.IO.Out, "Project rule detected: %s (%s)\n", r.Rule, why)
			unconfirmed++
			continue
		}
		fmt.Fprintf(o.IO.Out, "%s\n", o.IO.Dim("("+why+")"))
		res, status, err := proposeRule(ctx, f, st, r.Rule, false, true, false, p)
		if err != nil {
			return err
		}
		r.Status = status
		if status == "refused" {
			unconfirmed++
			break
		}
		reportRule(o.IO, res)
	}
	if unconfirmed > 0 {
		return notConfirmed("adding a project rule", `add one a person agreed to with git scribe rule propose "RULE" --confirmed`)
	}
	return nil
}

func joinTurns(ts []int) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = fmt.Sprint(t)
	}
	return strings.Join(s, ", ")
}
