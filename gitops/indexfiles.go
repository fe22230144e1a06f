package gitops

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
)

// Which of a few paths the index holds is asked by every wrap and Stop
// (does the branch still track a view path?), and `git ls-files` reads the
// whole index in a process of its own for it. The index of a plain
// repository is read here instead: version 2 or 3, SHA-1, no split or
// sparse index, nothing of it conflicted, the paths literal. Anything else
// is git's (ok false).

// TrackedPaths is `git ls-files -z -- paths` for literal paths: the
// entries that are one of paths or lie under one, in index order.
func (r *Repo) TrackedPaths(ctx context.Context, paths []string) ([]byte, error) {
	if out, ok := r.trackedInIndex(paths); ok {
		return out, nil
	}
	return r.Git(ctx, append([]string{"ls-files", "-z", "--"}, paths...)...)
}

// indexInProcess reports whether this package reads the index itself
// (eachIndexEntry) for what git would say of it: SHA-1, the index in its
// place, a plain config, paths matched with case (core.ignoreCase makes
// git match without), no split index (which keeps entries elsewhere).
func (r *Repo) indexInProcess() bool {
	if cfg := r.config(); r.objectFormat != "sha1" || r.env != nil || os.Getenv("GIT_INDEX_FILE") != "" || !cfg.plain || cfg.ignoreCase {
		return false
	}
	shared, _ := filepath.Glob(filepath.Join(r.GitDir, "sharedindex.*"))
	return len(shared) == 0
}

// trackedInIndex is TrackedPaths from the index file.
func (r *Repo) trackedInIndex(paths []string) ([]byte, bool) {
	for _, p := range paths {
		if p == "" || strings.ContainsAny(p, "*?[\\:") || strings.HasPrefix(p, "/") {
			return nil, false // pathspec magic or a glob
		}
	}
	if !r.indexInProcess() {
		return nil, false
	}
	b, release, err := mapFile(filepath.Join(r.GitDir, "index"))
	if os.IsNotExist(err) {
		return nil, true // no index: nothing tracked
	}
	if err != nil {
		return nil, false
	}
	defer release()
	return indexMatches(b, paths)
}

// indexMatches scans index data (version 2 or 3) for the entries paths
// name; ok is false where the index is one this reader leaves to git.
func indexMatches(b []byte, paths []string) ([]byte, bool) {
	var out bytes.Buffer
	ok := eachIndexEntry(b, func(name []byte, _ uint32, flags uint16) indexStep {
		past := true // name sorts after every path and all that lies under it
		for _, p := range paths {
			if string(name) == p || (len(name) > len(p) && string(name[:len(p)]) == p && name[len(p)] == '/') {
				if flags&0x3000 != 0 {
					return indexGiveUp // conflicted: git lists each stage
				}
				out.Write(name)
				out.WriteByte(0)
				past = false
				break
			}
			if string(name) <= p+"/" {
				past = false
			}
		}
		if past {
			// Entries are sorted by name: none after this one is asked
			// for (and the page-cache pages of the rest are never read).
			return indexStop
		}
		return indexNext
	})
	return out.Bytes(), ok
}

// indexStep is what an eachIndexEntry callback asks for next.
type indexStep int

const (
	indexNext   indexStep = iota // the next entry
	indexStop                    // no more: what was read stands
	indexGiveUp                  // an entry this caller leaves to git (ok false)
)

// eachIndexEntry calls fn with each entry of index data (version 2 or 3,
// SHA-1) in index order — its path, mode and flags (the stage in bits
// 12-13) — until fn says otherwise. ok is false where the index is one
// this reader leaves to git: another version, a sparse index's directory
// entry, a split index, anything malformed, or fn giving up. An index
// read to its end is checked through its extensions; one fn stopped is
// not.
func eachIndexEntry(b []byte, fn func(name []byte, mode uint32, flags uint16) indexStep) (ok bool) {
	const hashLen, fixed = 20, 62 // stat data, object id, flags
	if len(b) < 12+hashLen || string(b[:4]) != "DIRC" {
		return false
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version != 2 && version != 3 {
		return false
	}
	n := binary.BigEndian.Uint32(b[8:12])
	end := len(b) - hashLen
	off := 12
	for i := uint32(0); i < n; i++ {
		if off+fixed > end {
			return false
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+60 : off+62])
		nameAt := off + fixed
		if flags&0x4000 != 0 { // extended flags
			if version < 3 {
				return false
			}
			nameAt += 2
		}
		if nameAt > end {
			return false
		}
		var name []byte
		if l := int(flags & 0xfff); l != 0xfff {
			// The length is in the flags, its NUL after it.
			if nameAt+l >= end || b[nameAt+l] != 0 || bytes.IndexByte(b[nameAt:nameAt+l], 0) >= 0 {
				return false
			}
			name = b[nameAt : nameAt+l]
		} else {
			nul := bytes.IndexByte(b[nameAt:end], 0)
			if nul < 0 || nul < 0xfff {
				return false
			}
			name = b[nameAt : nameAt+nul]
		}
		if mode&0o170000 == 0o040000 {
			return false // a sparse index's directory entry
		}
		switch fn(name, mode, flags) {
		case indexStop:
			return true
		case indexGiveUp:
			return false
		}
		// Entries are padded with 1 to 8 NULs to a multiple of eight.
		off += (nameAt - off + len(name) + 8) &^ 7
	}
	// Extensions: a split index keeps entries elsewhere (a scan stopped
	// early is trusted only where no shared index is there: trackedInIndex).
	for off+8 <= end {
		sig := string(b[off : off+4])
		size := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if sig == "link" || sig == "sdir" {
			return false
		}
		if size < 0 || off+8+size > end {
			return false
		}
		off += 8 + size
	}
	return off == end
}
