package cmd

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func newDocsCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:    "docs",
		Short:  "Generate documentation (man pages)",
		Hidden: false,
	}
	c.AddCommand(&cobra.Command{
		Use:   "man DIR",
		Short: "Write git-scribe.1 and one man page per subcommand into DIR",
		Long: `Writes man pages generated from the command tree. Install them where man looks
(e.g. ~/.local/share/man/man1) and "git help scribe" and "git scribe --help"
open them, as for any git command.`,
		Example: "  git scribe docs man ~/.local/share/man/man1",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("create %s: %w", args[0], err)}
			}
			root := c.Root()
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: "GIT-SCRIBE", Section: "1", Source: "git-scribe " + version(), Manual: "Git Manual"}
			if err := doc.GenManTree(root, hdr, args[0]); err != nil {
				return fmt.Errorf("write man pages: %w", err)
			}
			fmt.Fprintf(f.IO.Out, "wrote man pages to %s\n", args[0])
			return nil
		},
	})
	return c
}

// gitBashBridge lets git's own bash completion complete "git scribe <TAB>":
// git-completion.bash calls _git_<subcommand> for commands it does not know,
// with words/cword/cur set; this asks cobra's __complete for candidates.
const gitBashBridge = `
# "git scribe <TAB>" through git's own bash completion.
_git_scribe() {
	local out line
	local -a comps=()
	out=$(git-scribe __complete "${words[@]:2:cword-2}" "$cur" 2>/dev/null) || return
	while IFS= read -r line; do
		case $line in :*|"") continue ;; esac
		comps+=("${line%%$'\t'*}")
	done <<<"$out"
	__gitcomp_nl "$(printf '%s\n' "${comps[@]}")" "" "$cur"
}
`

func newCompletionCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `Prints a completion script for git-scribe. The bash script also defines
_git_scribe, so "git scribe <TAB>" completes through git's own bash completion.

  bash:  git scribe completion bash > ~/.local/share/bash-completion/completions/git-scribe
  zsh:   git scribe completion zsh > "${fpath[1]}/_git-scribe"
  fish:  git scribe completion fish > ~/.config/fish/completions/git-scribe.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			var b bytes.Buffer
			var err error
			switch args[0] {
			case "bash":
				err = root.GenBashCompletionV2(&b, true)
				b.WriteString(gitBashBridge)
			case "zsh":
				err = root.GenZshCompletion(&b)
			case "fish":
				err = root.GenFishCompletion(&b, true)
			}
			if err != nil {
				return err
			}
			_, err = f.IO.Out.Write([]byte(strings.ReplaceAll(b.String(), "\r\n", "\n")))
			return err
		},
	}
	return c
}
