package gitops

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// Kept files are what a command keeps in scribe's state dir for the next
// one: parses of records that do not change (a journaled session's, the
// vault's history), never the record itself. One is a sha256 of the rest,
// this build's stamp on a line, then a gob of the value. Missing, damaged
// or of another build (which may parse differently), it is not there:
// it costs the reads it saves, never a record.

// BuildStamp names this binary (once a process): its module version and
// commit, and the executable's size and time, so that a rebuild of changed
// code is another build.
var BuildStamp = sync.OnceValue(func() string {
	var b strings.Builder
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.WriteString(bi.Main.Path + "@" + bi.Main.Version)
		for _, s := range bi.Settings {
			if strings.HasPrefix(s.Key, "vcs.") {
				b.WriteString(" " + s.Key + "=" + s.Value)
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(&b, " %d %d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
})

// ReadKept decodes the kept file at path into v; false when there is none
// this build can trust.
func ReadKept(path string, v any) bool {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < sha256.Size {
		return false
	}
	sum, body := b[:sha256.Size], b[sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return false
	}
	stamp, rest, ok := bytes.Cut(body, []byte("\n"))
	if !ok || string(stamp) != BuildStamp() {
		return false
	}
	return gob.NewDecoder(bytes.NewReader(rest)).Decode(v) == nil
}

// WriteKept replaces the kept file at path with v (WriteFileReplace: a
// reader sees the old file or the new, never part of one).
func WriteKept(path string, v any) error {
	var body bytes.Buffer
	body.WriteString(BuildStamp() + "\n")
	if err := gob.NewEncoder(&body).Encode(v); err != nil {
		return err
	}
	sum := sha256.Sum256(body.Bytes())
	return WriteFileReplace(path, append(sum[:], body.Bytes()...))
}
