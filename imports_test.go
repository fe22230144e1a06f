package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportArrows keeps the architecture honest: the engine (gitops, notes,
// memory) never depends on dispatch, cmd, cobra or an HTTP client, and
// gitops is the only package that imports go-git.
func TestImportArrows(t *testing.T) {
	const mod = "github.com/git-scribe/git-scribe"
	forbidden := []string{mod + "/dispatch", mod + "/cmd", "github.com/spf13/cobra", "net/http"}
	for _, pkg := range []string{"gitops", "notes", "memory", "config", "transcript", "markdown", "ratify", "skills"} {
		deps, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+pkg).Output()
		if err != nil {
			continue // package not created yet
		}
		for _, d := range strings.Fields(string(deps)) {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("%s depends on %s; the engine must stay LLM-free and CLI-free (STYLE.md)", pkg, d)
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
