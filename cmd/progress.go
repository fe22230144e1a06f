package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/notes"
)

func newProgressCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "progress [list | done ITEM...]",
		Short: "List progress.md checkboxes or tick them off",
		Long: `progress.md (repo root) is written by a person: milestones, phases and tasks
as headings and checkboxes. Scribe only ticks boxes:

  - [ ] Phase 1 parser   →   - [x] Phase 1 parser (done 2026-11-30T14:02:11+09:00)

and commits "progress: Phase 1 parser done". An ITEM matches by exact text,
else by a unique case-insensitive prefix or substring; an ambiguous or unknown
ITEM exits 1 listing the candidates. Scribe never creates progress.md and
never adds, removes or reorders items.`,
		Example: `  git scribe progress
  git scribe progress done "Phase 1 parser"
  git scribe progress done parser docs --json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "list" {
				if len(args) > 1 {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("progress list takes no arguments")}
				}
				return runProgressList(c.Context(), f, asJSON)
			}
			if args[0] != "done" {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown progress command %q: use list or done ITEM", args[0])}
			}
			if len(args) < 2 {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("progress done needs at least one ITEM")}
			}
			return runProgressDone(c.Context(), f, args[1:], asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func runProgressList(ctx context.Context, f *Factory, asJSON bool) error {
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	items, ok, err := v.Progress(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(f.IO, map[string]any{"path": v.Config.Paths.Progress, "exists": ok, "items": progressRows(items)})
	}
	if !ok {
		fmt.Fprintf(f.IO.Out, "no %s: nothing to track (scribe never creates it; write one with - [ ] items)\n", v.Config.Paths.Progress)
		return nil
	}
	heading := "\x00"
	open := 0
	for _, it := range items {
		if it.Heading != heading {
			heading = it.Heading
			if heading != "" {
				fmt.Fprintln(f.IO.Out, f.IO.Bold(heading))
			}
		}
		box := "[ ]"
		if it.Done {
			box = "[x]"
		} else {
			open++
		}
		fmt.Fprintf(f.IO.Out, "  %s %s\n", box, it.Text)
	}
	fmt.Fprintf(f.IO.Out, "%d open, %d done\n", open, len(items)-open)
	return nil
}

func runProgressDone(ctx context.Context, f *Factory, items []string, asJSON bool) error {
	if f.SkipActive() {
		return nil
	}
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	rep, err := v.ProgressDone(ctx, items)
	var amb *notes.AmbiguousError
	var nf *notes.NotFoundError
	if errors.As(err, &amb) || errors.As(err, &nf) {
		return &ExitError{Code: ExitFindings, Err: err}
	}
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(f.IO, rep)
	}
	switch rep.Status {
	case "committed":
		for _, t := range rep.Ticks {
			fmt.Fprintf(f.IO.Out, "ticked %s\n", t)
		}
		fmt.Fprintf(f.IO.Out, "committed %s\n", rep.Commit.SHA[:12])
	case "nothing":
		fmt.Fprintln(f.IO.Out, "nothing to tick: "+rep.Reason)
	default:
		renderWrap(f.IO, rep)
		return nil
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
	}
	return nil
}

// ProgressRow is one progress.md checkbox as `progress list --json` and the
// MCP progress_list tool give it.
type ProgressRow struct {
	Text    string `json:"text"`
	Done    bool   `json:"done"`
	Heading string `json:"heading,omitempty"`
	Line    int    `json:"line"`
}

func progressRows(items []notes.Item) []ProgressRow {
	rows := []ProgressRow{}
	for _, it := range items {
		rows = append(rows, ProgressRow{Text: it.Text, Done: it.Done, Heading: it.Heading, Line: it.Line + 1})
	}
	return rows
}
