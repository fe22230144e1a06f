//go:build windows

package gitops

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFileAtomic: renameio does not support Windows, where os.Rename
// (MoveFileEx with MOVEFILE_REPLACE_EXISTING) replaces the target in one step;
// the temp file is fsynced first so the rename never exposes partial data.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	removeStaleTemps(filepath.Dir(path), filepath.Base(path))
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
