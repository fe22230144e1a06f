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
