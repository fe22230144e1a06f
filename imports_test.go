package main

import (
	"bytes"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportArrows keeps the architecture honest (STYLE.md, "The shape of
// the repository"):
//
//   - the engine never depends on dispatch, cmd, cobra or an HTTP client:
//     it stays LLM-free and CLI-free;
//   - the pure packages (formats, follow-up logic, the similarity join, the
//     markdown and transcript parsers) never depend on gitops or config:
//     text in, text out;
//   - gitops is the only package that imports go-git;
//   - the binary (and the redactor) link no part of gitleaks but its
//     decoder (detect/codec): its rules are generated Go data, and its
//     loader, detector and reports bring viper, archive readers and TLS
//     into every start of the binary (secrets/rules.go), its keyword
//     tries ~3 ms to every first redaction (secrets/words.go).
//
// Dependencies are transitive (go list -deps). A package a rule names must
// exist, so a rename or a removal cannot quietly turn a rule off; only the
// packages in optional may be missing.
func TestImportArrows(t *testing.T) {
	const mod = "github.com/git-scribe/git-scribe"
	optional := map[string]bool{} // none today: every package a rule names exists
	rules := []struct {
		why       string
		pkgs      []string
		forbidden []string // with their subpackages
		allowed   []string // subpackages of forbidden ones that may stay
	}{
		{
			why:       "the engine must stay LLM-free and CLI-free",
			pkgs:      []string{"gitops", "notes", "followups", "vault", "memory", "config", "transcript", "markdown", "ratify", "skills", "setup", "internal/similarity"},
			forbidden: []string{mod + "/dispatch", mod + "/cmd", "github.com/spf13/cobra", "net/http"},
		},
		{
			why:       "pure formats and follow-up logic are text in, text out: no git, no configuration",
			pkgs:      []string{"notes", "followups", "internal/similarity", "markdown", "transcript"},
			forbidden: []string{mod + "/gitops", mod + "/config"},
		},
		{
			why:  "the redactor runs generated rules through its own detector and word index: gitleaks' loader, detector and tries are for the generator and tests",
			pkgs: []string{".", "secrets"},
			forbidden: []string{
				"github.com/zricethezav/gitleaks/v8/config", "github.com/zricethezav/gitleaks/v8/detect",
				"github.com/zricethezav/gitleaks/v8/report", "github.com/zricethezav/gitleaks/v8/sources",
				"github.com/spf13/viper", "github.com/pelletier/go-toml", "github.com/BobuSumisu/aho-corasick",
				mod + "/secrets/internal/rulebook",
			},
			// The decoder of base64, hex and percent-encoded segments: small
			// (zerolog and gitleaks' logger), and decoding as gitleaks does
			// is what keeps the findings equal.
			allowed: []string{"github.com/zricethezav/gitleaks/v8/detect/codec"},
		},
	}
	for _, r := range rules {
		for _, pkg := range r.pkgs {
			var stderr bytes.Buffer
			cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+pkg)
			cmd.Stderr = &stderr
			deps, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				if optional[pkg] && errors.As(err, &ee) {
					continue
				}
				t.Errorf("go list %s: %v\n%s(a package an import rule names must exist; rename it in the rule, or mark it optional)", pkg, err, stderr.String())
				continue
			}
			for _, d := range strings.Fields(string(deps)) {
				if slices.Contains(r.allowed, d) {
					continue
				}
				for _, f := range r.forbidden {
					if d == f || strings.HasPrefix(d, f+"/") {
						t.Errorf("%s depends on %s; %s (STYLE.md)", pkg, d, r.why)
					}
				}
			}
		}
	}
	direct, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(direct)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == mod+"/gitops" {
			continue
		}
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/go-git/") {
				t.Errorf("%s imports %s; only gitops may use go-git", f[0], imp)
			}
		}
	}
}
