package gitops

import (
	"errors"
	"fmt"
	"io/fs"
	mrand "math/rand/v2"
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

// removeStaleTemps deletes the temp files our atomic writer leaves when it
// is killed mid-write: "." + the name of the file being written + a random
// decimal number (renameio's pattern; os.CreateTemp's on Windows), older
// than StaleTempAge, in dir. target is the base name about to be written;
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
		if rest, of := strings.CutPrefix(e.Name(), "."+target); of && len(rest) >= 9 && strings.Trim(rest, "0123456789") == "" {
			base, ok = target, true // target's own, even when its name ends in digits
		}
		if !ok || (base != target && !names[base]) || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > StaleTempAge {
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

// WriteFileReplace is WriteFileAtomic without its fsyncs: a reader sees
// the old content or the new, whole, but a crash can lose the write. It is
// for what scribe rebuilds from the vault whenever it is missing or
// damaged — the view, the view's state, the follow-up cache — where two
// fsyncs were ~3 ms of every Stop's last steps. The temporary file is named
// as the atomic writer names its own, so a write killed mid-way leaves
// what the next write to that file removes.
func WriteFileReplace(path string, data []byte) error {
	return writeFileWith(path, data, replaceFile)
}

// TidyTemps removes what writes of path killed mid-way left (stale
// temporary files), for a caller that does not write path this time.
func TidyTemps(path string) {
	removeStaleTemps(filepath.Dir(path), filepath.Base(path))
}

func replaceFile(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	removeStaleTemps(filepath.Clean(dir), base)
	var f *os.File
	var err error
	for range 10 {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s%d", base, 1_000_000_000+mrand.Int64N(1<<62)))
		if f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
