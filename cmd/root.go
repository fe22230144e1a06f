package cmd

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// NewRootCmd builds the whole command tree.
func NewRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "git-scribe",
		Short: "Persist what an AI coding session produced, in git itself",
		Long: `git scribe keeps what should outlive a coding session with an AI agent — a
bridge note (where things stand, for the next session to read first), an
append-only journal of what each session did, a dashboard of open follow-ups —
in your repository itself. They are scribe's record (its "vault"), kept as
"progress: …" commits on a ref of its own, refs/scribe/vault: never on your
branch, never in your index, never mixed with your staged or unstaged work.
A git-ignored copy of them, for you and your agent to read, is kept in
.claude/sonmat/ and ACTIVE-STATUS.md. Your branch gets a scribe commit only
for files you own and decided on (a progress tick, a rule you confirmed).
Run it as "git scribe <command>".

Typical use:
  git scribe init --agent claude  set it up once: config, agent hooks, CI job
  git scribe wrap                 end of a session: journal entry, bridge note, ticks
  git scribe bridge               what the next session should know
  git scribe status               scribe's files, writes waiting, locks, last wrap
  git scribe sync                 share scribe's record through your remote (never a branch)`,
		Version: version(),
		// Usage lines and help say "git scribe wrap", as users type it.
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "git scribe"},
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetVersionTemplate("git-scribe {{.Version}}\n")
	root.PersistentFlags().VarP(&dirFlag{&f.Dir}, "directory", "C", "run as if started in `path` (like git -C; repeated, each is relative to the one before)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nsee 'git scribe %s --help'", err, c.Name())}
	})
	root.SetHelpCommand(newHelpCmd())
	root.AddCommand(
		newDemoCmd(f),
		newWrapCmd(f),
		newBridgeCmd(f),
		newJournalCmd(f),
		newProgressCmd(f),
		newStatusCmd(f),
		newConfigCmd(f),
		newVersionCmd(f),
		newHookCmd(f),
		newCheckCmd(f),
		newInitCmd(f),
		newDocsCmd(f),
		newCompletionCmd(f),
		newMergeUnionCmd(f),
		newWrapProseCmd(f),
		newDispatchCmd(f), newPackCmd(f), newRatifyCmd(f),
		newFollowupsCmd(f),
		newSyncCmd(f), newMCPCmd(f),
		newRuleCmd(f), newTrapCmd(f), newCompoundCmd(f),
	)
	return root
}

// dirFlag is -C as git has it: "-C a -C b" is a/b, an absolute path starts
// over, and an empty path changes nothing.
type dirFlag struct{ dir *string }

func (d *dirFlag) String() string { return *d.dir }
func (d *dirFlag) Type() string   { return "path" }
func (d *dirFlag) Set(p string) error {
	switch {
	case p == "":
	case *d.dir == "" || filepath.IsAbs(p):
		*d.dir = p
	default:
		*d.dir = filepath.Join(*d.dir, p)
	}
	return nil
}

// newHelpCmd is "git scribe help [command]"; unlike cobra's, an unknown
// topic is a usage error (exit 2), as with git help.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  `Help prints a command's help: "git scribe help wrap" is "git scribe wrap --help".`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() && strings.HasPrefix(s.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(s.Name(), s.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("no help topic %q; run 'git scribe help' for the list of commands", strings.Join(args, " "))}
			}
			return cmd.Help()
		},
	}
}

// buildInfo is the module version and the VCS revision the binary was
// built from, and whether the tree had uncommitted changes; ok is false
// without build info.
func buildInfo() (module, rev string, dirty, ok bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", "", false, false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return bi.Main.Version, rev, dirty, true
}

// installVersion is what `go install github.com/git-scribe/git-scribe@…`
// needs to get this very binary: its module version, else the commit it
// was built from (a clean tree); "" when neither names it.
func installVersion() string {
	module, rev, dirty, ok := buildInfo()
	switch {
	case !ok:
		return ""
	case module != "" && module != "(devel)":
		return module
	case dirty:
		return ""
	}
	return rev
}

// version reads the module version and VCS revision from build info.
func version() string {
	module, rev, dirty, ok := buildInfo()
	if !ok {
		return "unknown"
	}
	v := module
	if v == "" {
		v = "(devel)"
	}
	if rev != "" && v == "(devel)" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev
		if dirty {
			v += "-dirty"
		}
	}
	return v
}

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintf(f.IO.Out, "git-scribe %s\n", version())
			return nil
		},
	}
}
