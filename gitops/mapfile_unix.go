//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only: what is never read of it is never
// copied (the index of git/git is 460 KB, and a read of a few paths stops
// at its first entries). git replaces such files by renaming a new one
// over them, so the mapped one never changes under the reader.
func mapFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		b, err := os.ReadFile(path)
		return b, func() {}, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
