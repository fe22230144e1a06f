package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/check"
	"github.com/git-scribe/git-scribe/internal/extool"
)

// Versions of the ecosystem's tools the check formats are verified with.
const (
	actionsCoreVersion    = "3.0.1"
	sarifMultitoolVersion = "5.7.0"
)

// ecoFindings is a report with the awkward cases: a file-less finding,
// characters @actions/core escapes in properties and in the message.
func ecoFindings() check.Report {
	return check.Report{Findings: []check.Finding{
		{RuleID: "SCR001", Severity: check.SeverityError, File: ".claude/sonmat/journal.md", Line: 3,
			Message: `entry "a, b: c" was edited: 50% of it`, Fix: "restore it\nbyte for byte"},
		{RuleID: "SCR011", Severity: check.SeverityWarning, File: "dir,with:odd%chars.md", Message: "no line\r\nhere"},
		{RuleID: "SCR006", Severity: check.SeverityWarning, Message: "lock refs/scribe/locks/wrap expired", Fix: "git update-ref -d refs/scribe/locks/wrap"},
		{RuleID: "SCR007", Severity: check.SeverityNote, Message: "a note"},
		{RuleID: "SCR001", Severity: check.SeverityError, File: "refs/scribe/vault:journal.md", Line: 7, Message: "a vault file"},
	}}
}

// TestGitHubFormatMatchesActionsCore runs the real @actions/core on the
// same findings and wants --format github byte for byte.
func TestGitHubFormatMatchesActionsCore(t *testing.T) {
	node := extool.Program(t, "node", "Debian: apt-get install nodejs")
	modules := extool.NPM(t, "@actions/core", actionsCoreVersion)
	rep := ecoFindings()
	var ours, js bytes.Buffer
	if err := writeGitHub(&ours, rep); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	if err := printJSON(&IOStreams{Out: &in}, rep); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join("testdata", "actions_core.mjs"), filepath.Join(modules, "@actions", "core", "lib", "core.js"))
	cmd.Stdin, cmd.Stdout = &in, &js
	cmd.Env = append(os.Environ(), "GITHUB_ACTIONS=") // core writes commands to stdout either way
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node @actions/core: %v\n%s", err, stderr.String())
	}
	if ours.String() != js.String() {
		t.Fatalf("--format github differs from @actions/core %s:\nours: %q\ncore: %q", actionsCoreVersion, ours.String(), js.String())
	}
}

// TestSARIFPassesMultitoolGitHubRules validates --format sarif with the
// SARIF Multitool's GitHub ingestion rules (GH*) and SARIF rules: no error
// and no warning may remain (notes are advice).
func TestSARIFPassesMultitoolGitHubRules(t *testing.T) {
	tool := sarifMultitool(t)
	dir := t.TempDir()
	var b bytes.Buffer
	if err := writeSARIF(&b, ecoFindings(), check.Rules()); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "check.sarif")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "validate", "--rule-kind", "Gh;Sarif", "--level", "Error;Warning", "-o", filepath.Join(dir, "out.sarif"), in)
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1")
	out, err := cmd.CombinedOutput()
	findings := regexp.MustCompile(`(?m)^.*: (error|warning) (GH|SARIF)\d+: .*$`).FindAllString(string(out), -1)
	if len(findings) > 0 || err != nil {
		t.Fatalf("sarif-multitool %s validate: %v\n%s", sarifMultitoolVersion, err, strings.Join(append(findings, string(out)), "\n"))
	}
	if !strings.Contains(string(out), "Analysis completed successfully") {
		t.Fatalf("sarif-multitool did not complete:\n%s", out)
	}
}

// sarifMultitool finds the Multitool's native executable: on PATH as
// Sarif.Multitool, or from the npm package (about 100 MB, so it is
// installed only when GIT_SCRIBE_ECOSYSTEM_INSTALL=1 or already cached).
func sarifMultitool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("Sarif.Multitool"); err == nil {
		return p
	}
	native := func(modules string) string {
		return filepath.Join(modules, "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
	}
	cached := filepath.Join(extool.Dir(), "npm", "microsoft+sarif-multitool-"+sarifMultitoolVersion, "node_modules")
	if _, err := os.Stat(native(cached)); err != nil && os.Getenv("GIT_SCRIBE_ECOSYSTEM_INSTALL") == "" {
		t.Skipf("the SARIF Multitool is not installed; set GIT_SCRIBE_ECOSYSTEM_INSTALL=1 to let the test install @microsoft/sarif-multitool@%s with npm (~100 MB) into %s", sarifMultitoolVersion, extool.Dir())
	}
	p := native(extool.NPM(t, "@microsoft/sarif-multitool", sarifMultitoolVersion))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("@microsoft/sarif-multitool has no native Multitool for this platform: %v", err)
	}
	return p
}

// TestSARIFShapeForCodeScanning pins, without the Multitool, what GitHub's
// ingestion needs: every rule a full description and help, every result a
// location with a region (file-less findings too) and a fingerprint.
func TestSARIFShapeForCodeScanning(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := writeSARIF(&b, ecoFindings(), check.Rules()); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	for _, r := range run.Tool.Driver.Rules {
		if r.FullDescription.Text == "" || r.Help.Text == "" {
			t.Errorf("rule %s lacks fullDescription or help", r.ID)
		}
	}
	if v := run.Tool.Driver.Version; v == "" || v[0] < '0' || v[0] > '9' {
		t.Errorf("driver version %q does not start with a number", v)
	}
	seen := map[string]bool{}
	for i, res := range run.Results {
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" || res.Locations[0].PhysicalLocation.Region == nil {
			t.Errorf("result %d (%s) has no full location: %+v", i, res.RuleID, res.Locations)
		}
		fp := res.PartialFingerprints["scribeFinding/v1"]
		if fp == "" || seen[fp] {
			t.Errorf("result %d: fingerprint %q missing or repeated", i, fp)
		}
		seen[fp] = true
	}
	if got := run.Results[2].Locations[0].PhysicalLocation.ArtifactLocation.URI; got != ".scribe.yaml" {
		t.Errorf("file-less finding located at %q, want .scribe.yaml", got)
	}
	for in, want := range map[string]string{"(devel)": "0.0.0-devel", "(devel) 1a2b3c-dirty": "0.0.0-devel+1a2b3c-dirty", "v1.2.3": "1.2.3"} {
		if got := sarifToolVersion(in); got != want {
			t.Errorf("sarifToolVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
