//go:build !linux

package gitops

import (
	"io/fs"
	"os"
)

// scanDir reads the directory at abs: its modification time (ns) and
// inode, the FNV-1a hash of its entries' names and types in the order it
// gives them, and each entry to fn (when not nil) with its type (the
// DT_-like values of dirTypes).
func scanDir(abs string, fn func(name []byte, typ byte)) (mtime int64, ino uint64, sum uint64, err error) {
	f, err := os.Open(abs)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, 0, err
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return 0, 0, 0, err
	}
	sum = fnvOffset
	for _, e := range entries {
		typ := byte(1)
		switch t := e.Type(); {
		case t.IsDir():
			typ = dtDir
		case t.IsRegular():
			typ = dtReg
		case t&fs.ModeSymlink != 0:
			typ = dtLnk
		}
		sum = fnvAdd(fnvAdd(sum, []byte(e.Name())), []byte{0, typ})
		if fn != nil {
			fn([]byte(e.Name()), typ)
		}
	}
	return fi.ModTime().UnixNano(), inodeOf(fi), sum, nil
}

// lstatStamp is a path's modification time (ns) and inode, and whether it
// is a directory or a regular file.
func lstatStamp(path string) (mtime int64, ino uint64, dir, regular bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, false, false, err
	}
	return fi.ModTime().UnixNano(), inodeOf(fi), fi.IsDir(), fi.Mode().IsRegular(), nil
}
