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
