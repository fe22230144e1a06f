package gitops

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// packStored is a version-2 pack of the objects, whole (no deltas), each
// one a zlib stream of stored blocks: the pack lives only on its way to
// `git unpack-objects`, which inflates every object and writes it loose,
// compressed by git at its own level. Compressing it here first (go-git's
// encoder, at zlib's default level) was the largest CPU cost of a vault
// write after the reads, on the path a Stop hook waits for.
func packStored(mem *memory.Storage, ids []plumbing.Hash) ([]byte, error) {
	var pack bytes.Buffer
	sum := sha1.New()
	w := io.MultiWriter(&pack, sum)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], uint32(len(ids)))
	w.Write(head[:])
	zw, _ := zlib.NewWriterLevel(w, zlib.NoCompression) // the level is valid
	for _, id := range ids {
		o, err := mem.EncodedObject(plumbing.AnyObject, id)
		if err != nil {
			return nil, fmt.Errorf("pack object %s: %w", id, err)
		}
		w.Write(packEntryHeader(o.Type(), o.Size()))
		r, err := o.Reader()
		if err != nil {
			return nil, fmt.Errorf("pack object %s: %w", id, err)
		}
		zw.Reset(w)
		_, err = io.Copy(zw, r)
		r.Close()
		if err == nil {
			err = zw.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("pack object %s: %w", id, err)
		}
	}
	pack.Write(sum.Sum(nil))
	return pack.Bytes(), nil
}

// packEntryHeader is a pack entry's type and size: the type in bits 4-6 of
// the first byte with the size's low four bits, then seven bits a byte,
// the high bit saying another follows.
func packEntryHeader(t plumbing.ObjectType, size int64) []byte {
	b := []byte{byte(t)<<4 | byte(size&0x0f)}
	for size >>= 4; size > 0; size >>= 7 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
	}
	return b
}
