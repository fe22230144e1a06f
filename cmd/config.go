package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/config"
)

func newConfigCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration and where each value came from",
		Long: `Config prints every setting with its value and origin. Precedence, highest
first: flags > SCRIBE_* environment (e.g. SCRIBE_JOURNAL_MAX, SCRIBE_PATHS_JOURNAL)
> user config ($XDG_CONFIG_HOME/git-scribe/config.yaml) > the repository's
.scribe.yaml > built-in defaults.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			l, err := f.Config(c.Context())
			if err != nil {
				return err
			}
			type row struct {
				Key    string `json:"key"`
				Value  string `json:"value"`
				Origin string `json:"origin"`
			}
			var rows []row
			for _, k := range config.Keys() {
				rows = append(rows, row{Key: k, Value: l.Get(k), Origin: l.Origins[k]})
			}
			ds, err := dispatchSettings(f)
			if err != nil {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			for _, s := range ds {
				rows = append(rows, row(s))
			}
			if asJSON {
				return printJSON(f.IO, rows)
			}
			for _, r := range rows {
				fmt.Fprintf(f.IO.Out, "%-24s %-36s %s\n", r.Key, r.Value, f.IO.Dim("("+r.Origin+")"))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}
