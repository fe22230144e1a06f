package cmd

import (
	"os"
	"path/filepath"
	"strings"
)

// git turns "git scribe --help" into "git help scribe", which runs
// "man git-scribe" and never starts this binary. man-db searches
// <dir>/../share/man for every <dir> on PATH, and git-scribe's own directory
// is on PATH (git found it there), so pages kept beside the binary are
// always found: <prefix>/bin/git-scribe → <prefix>/share/man/man1.
// `go install` cannot install them: `git scribe docs man --install` does,
// when the person asks (git-scribe never writes outside the repository on
// its own).

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
