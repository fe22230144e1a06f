package gitops

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// packStored's pack is one git accepts: every object comes out of
// `git unpack-objects` with its id and bytes, the sizes' headers spanning
// one to three bytes, an empty blob among them.
func TestPackStoredUnpacks(t *testing.T) {
	tr := newEmptyRepo(t)
	mem := memory.NewStorage()
	var ids []plumbing.Hash
	want := map[plumbing.Hash][]byte{}
	for _, body := range [][]byte{nil, []byte("short\n"), bytes.Repeat([]byte("a line of the bridge note\n"), 100), bytes.Repeat([]byte{0, 1, 2, 3}, 40000)} {
		o := mem.NewEncodedObject()
		o.SetType(plumbing.BlobObject)
		w, _ := o.Writer()
		w.Write(body)
		w.Close()
		id, _ := mem.SetEncodedObject(o)
		ids = append(ids, id)
		want[id] = body
	}
	pack, err := packStored(mem, ids)
	if err != nil {
		t.Fatal(err)
	}
	tr.GitStdin(pack, "unpack-objects", "-q")
	for id, body := range want {
		if got := tr.Git("cat-file", "blob", id.String()); got != string(body) {
			t.Errorf("blob %s: %d bytes back, want %d", id, len(got), len(body))
		}
	}
	tr.fsck()
}

func TestPackEntryHeader(t *testing.T) {
	for _, c := range []struct {
		size int64
		want []byte
	}{
		{0, []byte{0x30}},
		{15, []byte{0x3f}},
		{16, []byte{0xb0, 0x01}},
		{2047, []byte{0xbf, 0x7f}},
		{2048, []byte{0xb0, 0x80, 0x01}},
	} {
		if got := packEntryHeader(plumbing.BlobObject, c.size); !bytes.Equal(got, c.want) {
			t.Errorf("size %d: header % x, want % x", c.size, got, c.want)
		}
	}
}

// appendStoredZlib's streams read back through compress/zlib whole, at the
// sizes around a stored block's 65,535-byte bound.
func TestAppendStoredZlib(t *testing.T) {
	for _, n := range []int{0, 1, 65534, 65535, 65536, 2*65535 + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i>>9)
		}
		z := appendStoredZlib([]byte("keep"), data)
		if string(z[:4]) != "keep" {
			t.Fatalf("%d bytes: dst's bytes not kept", n)
		}
		zr, err := zlib.NewReader(bytes.NewReader(z[4:]))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		back, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(back), err)
		}
	}
}
