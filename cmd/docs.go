package cmd

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func newDocsCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:    "docs",
		Short:  "Generate documentation (man pages)",
		Hidden: false,
	}
	var release string
	var install bool
	man := &cobra.Command{
		Use:   "man [DIR | --install]",
		Short: "Write git-scribe.1 and one man page per subcommand into DIR, or beside the binary",
		Long: `Writes the man pages, one per command, made from the same text as --help.

--install writes them beside the binary: run from <prefix>/bin/git-scribe, to
<prefix>/share/man/man1, where man finds them for every directory on PATH,
so "git scribe --help" and "git help scribe" open them as for any git
command (the README's install line runs it). git-scribe never writes outside
the repository on its own: the pages are written only when you ask.`,
		Example: "  git scribe docs man --install\n  git scribe docs man ~/.local/share/man/man1",
		Args: func(c *cobra.Command, args []string) error {
			if install == (len(args) == 1) || len(args) > 1 {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("name a DIR or pass --install (one of the two)")}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			dir := ""
			if install {
				if dir, _ = manDirBesideBinary(); dir == "" {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("git-scribe is not in a bin directory, so there is no <prefix>/share/man beside it; pass a DIR instead")}
				}
			} else {
				dir = args[0]
			}
			files, err := writeManPagesAs(c.Root(), dir, release)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			fmt.Fprintf(f.IO.Out, "wrote %d man pages to %s\n", len(files), dir)
			return nil
		},
	}
	man.Flags().BoolVar(&install, "install", false, "write them beside the binary (<prefix>/share/man/man1), where man finds them")
	man.Flags().StringVar(&release, "release", "", "the `VERSION` the pages name (default: this binary's; packaging passes the release's)")
	c.AddCommand(man)
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

// zshGitBridge makes the zsh script work for "git scribe <TAB>" too: zsh's
// own _git completes an unknown subcommand by calling _git-scribe with
// words starting at "scribe", and cobra's script asks "${words[1]} __complete",
// that is "scribe __complete", which does not exist. Ask git-scribe by name.
func zshGitBridge(b *bytes.Buffer) {
	s := strings.Replace(b.String(), `requestComp="${words[1]} __complete `, `requestComp="git-scribe __complete `, 1)
	// The second line of a _git-<cmd> file is the description zsh's _git lists.
	s = strings.Replace(s, "#compdef git-scribe\n", "#compdef git-scribe\n#description persist what an AI coding session produced\n", 1)
	b.Reset()
	b.WriteString(s)
}

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
				zshGitBridge(&b)
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
