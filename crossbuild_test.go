package main

import (
	"os"
	"os/exec"
	"testing"
)

// TestWindowsBuild builds the binary for Windows, one of the release's
// targets (.goreleaser.yaml): a Unix-only call in the binary's code (it
// happened: renameio.WriteFile in the man page writer) breaks every
// release build, and nothing else here compiles for Windows.
func TestWindowsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the cross build takes ~30 s")
	}
	t.Parallel()
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=windows go build: %v\n%s", err, out)
	}
}
