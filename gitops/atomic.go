package gitops

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleTempAge is how old a temp file of an atomic write must be before
// a later write to its directory removes it: a write takes milliseconds, so
// one this old belongs to a process that was killed between create and
// rename.
const StaleTempAge = time.Minute

const staleTempAge = StaleTempAge

// removeStaleTemps deletes the temp files our atomic writer leaves when it
// is killed mid-write: "." + the name of the file being written + a random
// decimal number (renameio's pattern; os.CreateTemp's on Windows), older
// than staleTempAge, in dir. target is the base name about to be written;
// another file's temp counts only when that file exists, so nothing of the
// user's that merely ends in digits is touched. Errors are ignored: this is
// tidying, never a reason to fail a write.
func removeStaleTemps(dir, target string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		names[e.Name()] = true
	}
	for _, e := range ents {
		base, ok := tempOf(e.Name())
		if !ok || (base != target && !names[base]) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTempAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// tempOf returns the file a temp file name belongs to: ".journal.md123…"
// → "journal.md". The random suffix has at least 9 digits (renameio's is a
// non-negative int64, os.CreateTemp's a uint32).
func tempOf(name string) (string, bool) {
	if !strings.HasPrefix(name, ".") {
		return "", false
	}
	digits := len(name) - len(strings.TrimRight(name, "0123456789"))
	if digits < 9 || digits > 20 || digits >= len(name)-1 {
		return "", false
	}
	return name[1 : len(name)-digits], true
}
