package setup_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-scribe/git-scribe/internal/extool"
	"github.com/git-scribe/git-scribe/setup"
)

// actionlintVersion is the linter the CI job is checked with.
const actionlintVersion = "v1.7.12"

// The CI job init writes is clean under actionlint (with shellcheck's rules
// when shellcheck is installed), for a release version and for @latest.
func TestWorkflowPassesActionlint(t *testing.T) {
	lint := extool.GoTool(t, "github.com/rhysd/actionlint/cmd/actionlint", actionlintVersion)
	for _, v := range []string{"v1.2.3", ""} {
		dir := t.TempDir()
		wf := filepath.Join(dir, ".github", "workflows", "scribe-check.yml")
		if err := os.MkdirAll(filepath.Dir(wf), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wf, []byte(setup.WorkflowFor(v)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(lint, "-color=false", wf)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("actionlint %s on the workflow for %q: %v\n%s", actionlintVersion, v, err, out)
		}
	}
}
