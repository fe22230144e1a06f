//go:build !unix

package gitops

import "os"

// devOwner is not known here: discovery goes through git.
func devOwner(os.FileInfo) (uint64, int, bool) { return 0, 0, false }

// inodeOf is not known here: a file's size and time stand for it.
func inodeOf(os.FileInfo) uint64 { return 0 }

// lstatStamp is a path's modification time (ns), and whether it is a
// directory or a regular file; no inode here.
func lstatStamp(path string) (mtime int64, ino uint64, dir, regular bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, false, false, err
	}
	return fi.ModTime().UnixNano(), 0, fi.IsDir(), fi.Mode().IsRegular(), nil
}
