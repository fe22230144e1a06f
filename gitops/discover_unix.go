//go:build unix

package gitops

import (
	"os"
	"syscall"
)

// devOwner is a file's device and owner.
func devOwner(fi os.FileInfo) (uint64, int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), int(st.Uid), true
}

// inodeOf is a file's inode number.
func inodeOf(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// lstatStamp is a path's modification time (ns) and inode, and whether it
// is a directory or a regular file, by one lstat and no allocation (the
// untracked memo checks every directory of the work tree).
func lstatStamp(path string) (mtime int64, ino uint64, dir, regular bool, err error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, 0, false, false, err
	}
	mode := st.Mode & syscall.S_IFMT
	return st.Mtim.Nano(), uint64(st.Ino), mode == syscall.S_IFDIR, mode == syscall.S_IFREG, nil
}
