package cmd

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// git turns "git scribe --help" into "git help scribe", which runs
// "man git-scribe" and never starts this binary. man-db searches
// <dir>/../share/man for every <dir> on PATH, and git-scribe's own directory
// is on PATH (git found it there), so pages kept beside the binary are
// always found: <prefix>/bin/git-scribe → <prefix>/share/man/man1.
// `go install` cannot install them, so the binary does, once per version.

// NoManInstallEnv turns off writing man pages beside the binary.
const NoManInstallEnv = "GIT_SCRIBE_NO_MAN_INSTALL"

// manDirBesideBinary is <prefix>/share/man/man1 for an executable
// <prefix>/bin/git-scribe, or "" when the executable is not in a bin
// directory; exe is the executable's resolved path.
func manDirBesideBinary() (dir, exe string) {
	exe, err := os.Executable()
	if err != nil {
		return "", ""
	}
	if e, err := filepath.EvalSymlinks(exe); err == nil {
		exe = e
	}
	bin := filepath.Dir(exe)
	if filepath.Base(bin) != "bin" || !strings.HasPrefix(filepath.Base(exe), "git-scribe") {
		return "", ""
	}
	return filepath.Join(filepath.Dir(bin), "share", "man", "man1"), exe
}

// manPagesCurrent reports whether dir holds this version's git-scribe.1,
// written after the binary was built (a "(devel)" version does not change
// between builds), or a packaged (compressed) page a package manager owns.
func manPagesCurrent(dir, exe string) bool {
	if _, err := os.Stat(filepath.Join(dir, "git-scribe.1.gz")); err == nil {
		return true
	}
	page := filepath.Join(dir, "git-scribe.1")
	pi, err := os.Stat(page)
	if err != nil {
		return false
	}
	if ei, err := os.Stat(exe); err == nil && pi.ModTime().Before(ei.ModTime()) {
		return false
	}
	fh, err := os.Open(page)
	if err != nil {
		return false
	}
	defer fh.Close()
	first, _ := bufio.NewReader(fh).ReadString('\n')
	return strings.Contains(first, roffQuote("git-scribe "+version()))
}

// ensureManPagesBesideBinary writes root's man pages beside the running
// binary when they are missing or from another version. Best effort: a
// read-only prefix or any other failure is silent, and the command runs on.
func ensureManPagesBesideBinary(root *cobra.Command, env func(string) string) {
	if env(NoManInstallEnv) != "" {
		return
	}
	dir, exe := manDirBesideBinary()
	if dir == "" || manPagesCurrent(dir, exe) {
		return
	}
	_, _ = WriteManPages(root, dir)
}
