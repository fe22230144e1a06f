package gitops

import (
	"encoding/binary"
	"sync"
	"syscall"
)

// direntBufs are scanDir's getdents64 buffers: one a directory would be
// 16 KB of fresh heap, four pages to fault in, each time.
var direntBufs = sync.Pool{New: func() any { return new([16 << 10]byte) }}

// scanDir reads the directory at abs in one pass of getdents64 into a
// reused buffer: its modification time (ns) and inode, the FNV-1a hash of
// its entries' names and types in the order it gives them, and each entry
// to fn (when not nil) with its type (a DT_ value; DT_UNKNOWN is looked
// up). No allocation per entry: the untracked memo reads every directory
// whose time moved, each check.
func scanDir(abs string, fn func(name []byte, typ byte)) (mtime int64, ino uint64, sum uint64, err error) {
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, 0, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, 0, 0, err
	}
	sum = fnvOffset
	buf := direntBufs.Get().(*[16 << 10]byte)
	defer direntBufs.Put(buf)
	for {
		n, err := syscall.ReadDirent(fd, buf[:])
		if err != nil {
			return 0, 0, 0, err
		}
		if n <= 0 {
			break
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return 0, 0, 0, syscall.EINVAL
			}
			typ, name := b[18], b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." {
				continue
			}
			if typ == syscall.DT_UNKNOWN {
				typ = lstatType(abs + "/" + string(name))
			}
			sum = fnvAdd(fnvAdd(sum, name), []byte{0, typ})
			if fn != nil {
				fn(name, typ)
			}
		}
	}
	return st.Mtim.Nano(), uint64(st.Ino), sum, nil
}

// lstatType is a path's type as a DT_ value.
func lstatType(p string) byte {
	var st syscall.Stat_t
	if syscall.Lstat(p, &st) != nil {
		return syscall.DT_UNKNOWN
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return syscall.DT_DIR
	case syscall.S_IFREG:
		return syscall.DT_REG
	case syscall.S_IFLNK:
		return syscall.DT_LNK
	}
	return syscall.DT_UNKNOWN + 1 // another kind: a fifo, a socket, a device
}

// lstatStamp is a path's modification time (ns) and inode, and whether it
// is a directory or a regular file, by one lstat and no allocation.
func lstatStamp(path string) (mtime int64, ino uint64, dir, regular bool, err error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, 0, false, false, err
	}
	mode := st.Mode & syscall.S_IFMT
	return st.Mtim.Nano(), uint64(st.Ino), mode == syscall.S_IFDIR, mode == syscall.S_IFREG, nil
}
