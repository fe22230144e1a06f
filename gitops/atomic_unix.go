//go:build !windows

package gitops

import (
	"io/fs"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// writeFileAtomic: temp file in the same directory, fsync, rename, fsync of
// the directory (renameio).
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	removeStaleTemps(filepath.Dir(path), filepath.Base(path))
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}
