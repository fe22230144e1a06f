package gitops

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// One object looked up in the packs, in process: the commit a check
// --since names by its id (CI passes the pull request's base). git's
// `log -1` of it is a process of ~3 ms started beside the history walk;
// here it is a binary search in a mapped pack index and one inflate
// (go-git's index reader parses a whole index first: ~180 ms for git/git's
// 23 MB one, "status and bridge" in docs/BENCHMARKS.md).
// Only an object a pack holds whole is read; a delta, an object in an
// alternate store or replaced by refs/replace is git's to read.

var errNotPacked = errors.New("not an object a pack holds whole")

// packedObjects reads whole (undeltified) objects from the repository's
// packs, then its loose objects.
type packedObjects struct {
	dir   string // the objects directory
	loose *looseObjects
}

// objectsInProcess is the repository's object store read in process, or
// nil where git must read it: objects elsewhere (GIT_OBJECT_DIRECTORY,
// alternates), replaced (refs/replace), or SHA-256.
func (r *Repo) objectsInProcess() *packedObjects {
	l := r.loose()
	if l == nil || os.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES") != "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(l.dir, "info", "alternates")); err == nil {
		return nil
	}
	if es, err := os.ReadDir(filepath.Join(r.CommonDir, "refs", "replace")); err == nil && len(es) > 0 {
		return nil
	}
	if b, release, err := mapFile(filepath.Join(r.CommonDir, "packed-refs")); err == nil {
		replaced := bytes.Contains(b, []byte(" refs/replace/"))
		release()
		if replaced {
			return nil
		}
	}
	return &packedObjects{dir: l.dir, loose: l}
}

// EncodedObject is object h of type t, whole in a pack or loose.
func (p *packedObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, b, err := p.read(h)
	if errors.Is(err, errNotPacked) {
		return p.loose.EncodedObject(t, h)
	}
	if err != nil {
		return nil, err
	}
	return asObject(t, h, typ, b)
}

// read is the type and content of h from the first pack that holds it,
// checked against h.
func (p *packedObjects) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	idxs, err := filepath.Glob(filepath.Join(p.dir, "pack", "pack-*.idx"))
	if err != nil {
		return 0, nil, err
	}
	for _, idx := range idxs {
		off, ok, err := packOffset(idx, h)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return readPacked(strings.TrimSuffix(idx, ".idx")+".pack", off, h)
		}
	}
	return 0, nil, errNotPacked
}

// packOffset looks h up in a version 2 pack index (gitformat-pack(5)):
// 256 fan-out counts, the sorted ids, their CRCs, their 4-byte offsets
// (the high bit sends a large one to the 8-byte table after them).
func packOffset(idx string, h plumbing.Hash) (int64, bool, error) {
	b, release, err := mapFile(idx)
	if err != nil {
		return 0, false, err
	}
	defer release()
	const head, fan = 8, 256 * 4
	if len(b) < head+fan || !bytes.Equal(b[:head], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return 0, false, fmt.Errorf("%s: not a version 2 pack index", idx)
	}
	count := func(i int) int { return int(binary.BigEndian.Uint32(b[head+4*i:])) }
	n := count(255)
	names := head + fan
	crcs := names + 20*n
	offs := crcs + 4*n
	if n < 0 || len(b) < offs+4*n {
		return 0, false, fmt.Errorf("%s: truncated pack index", idx)
	}
	lo, hi := 0, count(int(h[0]))
	if h[0] > 0 {
		lo = count(int(h[0]) - 1)
	}
	if lo > hi || hi > n {
		return 0, false, fmt.Errorf("%s: damaged fan-out table", idx)
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		switch c := bytes.Compare(b[names+20*mid:names+20*mid+20], h[:]); {
		case c == 0:
			off := binary.BigEndian.Uint32(b[offs+4*mid:])
			if off&0x80000000 == 0 {
				return int64(off), true, nil
			}
			big := offs + 4*n + 8*int(off&0x7fffffff)
			if len(b) < big+8 {
				return 0, false, fmt.Errorf("%s: truncated pack index", idx)
			}
			return int64(binary.BigEndian.Uint64(b[big:])), true, nil
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

// readPacked reads the object at off in pack when it is stored whole: its
// header (type, then the size in 7-bit groups) and its deflated content.
func readPacked(pack string, off int64, h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	f, err := os.Open(pack)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	var hdr [16]byte
	n, err := f.ReadAt(hdr[:], off)
	if n == 0 {
		return 0, nil, fmt.Errorf("%s: read the object at %d: %w", pack, off, err)
	}
	typ := plumbing.ObjectType(hdr[0] >> 4 & 7)
	size, i, shift := int64(hdr[0]&15), 1, 4
	for c := hdr[0]; c&0x80 != 0; shift += 7 {
		if i == n || shift > 56 {
			return 0, nil, fmt.Errorf("%s: damaged object header at %d", pack, off)
		}
		c = hdr[i]
		size |= int64(c&0x7f) << shift
		i++
	}
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	default:
		return 0, nil, errNotPacked // a delta
	}
	if size > maxLoose {
		return 0, nil, errNotPacked
	}
	zr, err := zlib.NewReader(io.NewSectionReader(f, off+int64(i), 1<<62))
	if err != nil {
		return 0, nil, fmt.Errorf("%s: object at %d: %w", pack, off, err)
	}
	defer zr.Close()
	b := make([]byte, size)
	if _, err := io.ReadFull(zr, b); err != nil {
		return 0, nil, fmt.Errorf("%s: object at %d: %w", pack, off, err)
	}
	if !hashesTo(typ, b, h) {
		return 0, nil, fmt.Errorf("%s: the object at %d does not hash to %s", pack, off, h)
	}
	return typ, b, nil
}

// CommitDate is the committer date of commit id, as git's %cI prints it
// (strict ISO 8601 in the committer's zone), read in process. ok is false
// when id is not a full object id of a commit this store holds whole
// (abbreviated, a tag, a delta, anywhere git alone reads): ask git.
func (r *Repo) CommitDate(id string) (date string, ok bool) {
	id = strings.ToLower(id)
	st := r.objectsInProcess()
	if st == nil || len(id) != 40 {
		return "", false
	}
	c, ok := decodeCommit(st, id)
	if !ok {
		return "", false
	}
	return c.Committer.When.Format("2006-01-02T15:04:05-07:00"), true
}
