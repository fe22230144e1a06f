package gitops

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// packStored is a version-2 pack of the objects, whole (no deltas), each
// one a zlib stream of stored blocks: the pack lives only on its way to
// `git unpack-objects`, which inflates every object and writes it loose,
// compressed by git at its own level. Compressing it here first (go-git's
// encoder, at zlib's default level) was the largest CPU cost of a vault
// write after the reads, on the path a Stop hook waits for; and
// compress/zlib even at NoCompression allocates its compressor's 650 KB of
// hash tables, ~160 fresh pages a Stop faults in (~1.4 ms on a VM), so the
// stored blocks are written here (appendStoredZlib).
func packStored(mem *memory.Storage, ids []plumbing.Hash) ([]byte, error) {
	var pack bytes.Buffer
	sum := sha1.New()
	w := io.MultiWriter(&pack, sum)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], uint32(len(ids)))
	w.Write(head[:])
	var z []byte
	for _, id := range ids {
		o, err := mem.EncodedObject(plumbing.AnyObject, id)
		if err == nil {
			var r io.ReadCloser
			if r, err = o.Reader(); err == nil {
				data := make([]byte, o.Size())
				_, err = io.ReadFull(r, data)
				r.Close()
				z = appendStoredZlib(z[:0], data)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("pack object %s: %w", id, err)
		}
		w.Write(packEntryHeader(o.Type(), o.Size()))
		w.Write(z)
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

// appendStoredZlib appends data as a zlib stream (RFC 1950) of stored
// deflate blocks (RFC 1951, BTYPE 00): the header of a 32 KB window at the
// fastest level, blocks of at most 65,535 bytes each with its length and
// the length's complement, the last one flagged (an empty last block for
// no data), then the Adler-32 of data.
func appendStoredZlib(dst, data []byte) []byte {
	sum := adler32.Checksum(data)
	dst = append(dst, 0x78, 0x01)
	for {
		n := min(len(data), 0xffff)
		final := byte(0)
		if n == len(data) {
			final = 1
		}
		dst = append(dst, final)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
		dst = binary.LittleEndian.AppendUint16(dst, ^uint16(n))
		dst = append(dst, data[:n]...)
		data = data[n:]
		if final == 1 {
			return binary.BigEndian.AppendUint32(dst, sum)
		}
	}
}
