package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestJSONDocCoversEveryCommand keeps docs/JSON.md complete: every command
// with a --json flag has its section.
func TestJSONDocCoversEveryCommand(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/JSON.md")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil && !strings.Contains(string(doc), "\n## "+c.CommandPath()) &&
			!strings.Contains(string(doc), "`"+strings.TrimPrefix(c.CommandPath(), "git scribe ")+" --json`") {
			t.Errorf("docs/JSON.md has no section for %s --json", c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(manRoot())
}
