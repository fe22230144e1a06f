package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// newMergeUnionCmd is the merge driver init registers for merge=union: the
// journal files are merged entry by entry; any other file gets exactly git's
// own union merge.
func newMergeUnionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "merge-union BASE OURS THEIRS PATH",
		Short:  "Merge driver for merge=union files (journal entries stay whole)",
		Hidden: true,
		Args:   cobra.ExactArgs(4),
		RunE: func(c *cobra.Command, args []string) error {
			base, ours, theirs, path := args[0], args[1], args[2], filepath.ToSlash(args[3])
			cfg, err := f.Config(c.Context())
			if err != nil {
				return err
			}
			if path != cfg.Paths.Journal && path != cfg.Paths.JournalArchive {
				// Not a journal: git's own union merge, byte for byte.
				cmd := exec.CommandContext(c.Context(), "git", "merge-file", "--union", ours, base, theirs)
				cmd.Env = append(os.Environ(), gitops.ActiveEnv+"=1")
				cmd.Stderr = f.IO.ErrOut
				if err := cmd.Run(); err != nil {
					return &ExitError{Code: ExitFindings, Err: fmt.Errorf("union merge of %s: %w", path, err)}
				}
				return nil
			}
			read := func(p string) string {
				b, _ := os.ReadFile(p)
				return string(b)
			}
			merged := notes.MergeJournal(read(base), read(ours), read(theirs))
			if err := os.WriteFile(ours, []byte(merged), 0o644); err != nil {
				return &ExitError{Code: ExitFindings, Err: fmt.Errorf("write merged %s: %w", path, err)}
			}
			return nil
		},
	}
}
