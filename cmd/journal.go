package cmd

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

func newJournalCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "journal [show | tail N | archive]",
		Short: "Read the journal: what each session did (agents are never given it unasked)",
		Long: `The journal is scribe's append-only record of what each session did: one
entry per session (or wrap), with the files, the result, the tests, the
commits, the follow-ups, and the reviewer's verdicts with their findings in
full (wrap --witness). Entries are never edited. "show" prints it whole (the
default); "tail N" prints the last N entries (default 5); "archive" prints
the archive, where entries beyond journal_max (default 50) were moved
verbatim. Agents are never given the journal unasked; read it when you want
the history.`,
		Args:      cobra.MaximumNArgs(2),
		ValidArgs: []string{"show", "tail", "archive"},
		RunE: func(c *cobra.Command, args []string) error {
			sub := "show"
			if len(args) > 0 {
				sub = args[0]
			}
			n := 5
			path := ""
			switch sub {
			case "archive":
				if len(args) > 1 {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("journal archive takes no argument")}
				}
				n, path = -1, "archive"
			case "show":
				if len(args) > 1 {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("journal show takes no argument")}
				}
				n = -1
			case "tail":
				if len(args) > 1 {
					v, err := strconv.Atoi(args[1])
					if err != nil || v < 1 {
						return &ExitError{Code: ExitUsage, Err: fmt.Errorf("tail wants a positive number of entries, got %q", args[1])}
					}
					n = v
				}
			default:
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown journal command %q: use show, tail N or archive", sub)}
			}
			return runJournal(c.Context(), f, n, path == "archive", asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print entries as JSON")
	return c
}

func runJournal(ctx context.Context, f *Factory, n int, archive, asJSON bool) error {
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	v.Migrate(ctx)
	vp := notes.VaultJournal
	if archive {
		vp = notes.VaultArchive
	}
	path := gitops.VaultRef + ":" + vp
	_, files, err := v.ReadVault(ctx, vp)
	if err != nil {
		return err
	}
	b, ok := files[vp]
	j := notes.ParseJournal(string(b))
	entries := j.Entries
	if n >= 0 && len(entries) > n {
		entries = entries[len(entries)-n:]
	}
	if asJSON {
		return printJSON(f.IO, map[string]any{"path": path, "entries": journalRows(entries)})
	}
	if !ok && archive {
		fmt.Fprintf(f.IO.Out, "no archive yet (%s): entries move there once the journal holds more than %d\n", path, v.Config.JournalMax)
		return nil
	}
	if !ok {
		fmt.Fprintf(f.IO.Out, "no journal yet (%s); `git scribe wrap` starts one\n", path)
		return nil
	}
	if n < 0 {
		fmt.Fprint(f.IO.Out, string(b))
		return nil
	}
	for _, e := range entries {
		text := e.Raw
		if text == "" {
			text = e.Render()
		}
		fmt.Fprint(f.IO.Out, text)
	}
	return nil
}

// JournalRow is one journal entry as `journal --json` and the MCP
// journal_tail tool give it.
type JournalRow struct {
	Time    string   `json:"time"`
	Summary string   `json:"summary"`
	Result  string   `json:"result,omitempty"`
	Commits []string `json:"commits,omitempty"`
	Text    string   `json:"text"`
}

func journalRows(entries []notes.Entry) []JournalRow {
	rows := []JournalRow{}
	for _, e := range entries {
		rows = append(rows, JournalRow{Time: notes.FormatTime(e.Time), Summary: e.Summary, Result: e.Result, Commits: e.Commits, Text: e.Raw})
	}
	return rows
}
