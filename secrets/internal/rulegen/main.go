// Command rulegen writes secrets/rules_gen.go: the rules of gitleaks'
// default configuration and scribe's extra rules, as plain Go data, so the
// redactor needs neither gitleaks' configuration loader nor its detector at
// run time. Run it through `go generate ./secrets`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/git-scribe/git-scribe/secrets/internal/rulebook"
)

func main() {
	out := flag.String("o", "rules_gen.go", "the file to write")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "rulegen:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	cfg, err := rulebook.Default()
	if err != nil {
		return err
	}
	src, err := rulebook.Render(cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
