package check

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/git-scribe/git-scribe/notes"
)

// Recognising old versions without reading them. The journal's history is
// append-only when it is clean, so every version of the journal and the
// archive can be rebuilt from the files at HEAD: an archive version is a
// prefix of the archive, a journal version is the preamble plus a run of
// consecutive entries of the whole history (archive entries, then journal
// entries). A guess is accepted only when it hashes to the version's blob
// id, so a wrong guess costs a hash, never a wrong answer; a version that
// is not recognised (an edit, a merge, a hand-made file) is read.

// blobHasher hashes strings as git blobs without copying them whole.
type blobHasher struct {
	h   hash.Hash
	buf []byte
}

func newBlobHasher(hexLen int) *blobHasher {
	b := &blobHasher{buf: make([]byte, 32<<10)}
	if hexLen == 64 {
		b.h = sha256.New()
	} else {
		b.h = sha1.New()
	}
	return b
}

// id returns the blob id of the concatenation of parts.
func (b *blobHasher) id(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b.h.Reset()
	b.h.Write([]byte("blob " + strconv.Itoa(n) + "\x00"))
	for _, p := range parts {
		for len(p) > 0 {
			c := copy(b.buf, p)
			b.h.Write(b.buf[:c])
			p = p[c:]
		}
	}
	return hex.EncodeToString(b.h.Sum(nil))
}

// blobID computes git's object id for a blob with this content, in the
// repository's hash (hexLen 40: SHA-1, 64: SHA-256).
func blobID(content string, hexLen int) string {
	return newBlobHasher(hexLen).id(content)
}

// archiveRef is a known archive text. The archive only grows, so an older
// version is normally a prefix of it ending where a later entry begins:
// find recognises such a version by its blob id without reading it.
type archiveRef struct {
	text   string
	hint   int // where the last version found here ended
	hasher *blobHasher
	known  map[string]int // blob id → prefix length, from prepare
}

// prepare hashes, spread over the CPUs, the prefixes of the reference that
// end at its last n entry headings, so that find answers those versions
// with a map lookup. A long clean history needs exactly these; the hashing
// is the same work find would do one version at a time, done in parallel.
func (r *archiveRef) prepare(n, hexLen int) {
	var ks []int
	for end := len(r.text); len(ks) < n; {
		h := headingBefore(r.text, end)
		if h <= 0 {
			break
		}
		ks = append(ks, h)
		end = h
	}
	ids := make([]string, len(ks))
	workers := min(runtime.GOMAXPROCS(0), len(ks))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newBlobHasher(hexLen)
			for i := w; i < len(ks); i += workers {
				ids[i] = h.id(r.text[:ks[i]])
			}
		}()
	}
	wg.Wait()
	r.known = make(map[string]int, len(ks))
	for i, id := range ids {
		r.known[id] = ks[i]
	}
}

// maxPrefixTries bounds the hashing spent on one blob before it is read.
const maxPrefixTries = 8

// find returns the prefix of the reference whose blob id is id.
func (r *archiveRef) find(id string, hexLen int) (string, bool) {
	if r.text == "" {
		return "", false
	}
	if k, ok := r.known[id]; ok {
		r.hint = k
		return r.text[:k], true
	}
	if r.hasher == nil {
		r.hasher = newBlobHasher(hexLen)
	}
	try := func(k int) bool { return k > 0 && k <= len(r.text) && r.hasher.id(r.text[:k]) == id }
	// Versions are met newest first: look just below the last match, then
	// just above it (history is not always walked in that order).
	tries := 0
	for end := min(r.hint, len(r.text)); tries < maxPrefixTries; {
		h := headingBefore(r.text, end)
		if h <= 0 {
			break
		}
		// The version may stop at the heading or up to two line breaks
		// before it (Append adds a blank line before moved entries).
		for k := h; k >= h-2 && k > 0 && (k == h || r.text[k] == '\n' || r.text[k] == '\r'); k-- {
			tries++
			if try(k) {
				r.hint = k
				return r.text[:k], true
			}
		}
		end = h
	}
	for pos, n := r.hint, 0; n < maxPrefixTries/2; n++ {
		k := headingAfter(r.text, pos)
		if k < 0 {
			k = len(r.text)
		}
		if try(k) {
			r.hint = k
			return r.text[:k], true
		}
		if k == len(r.text) {
			break
		}
		pos = k
	}
	return "", false
}

// journalSeq recognises journal versions as the preamble plus a window of
// consecutive entries of the whole history.
type journalSeq struct {
	// preambles are HEAD's and, when HEAD's starts with the lint directive,
	// the one before Append put it on top (notes.JournalLintDirective): the
	// versions an older scribe wrote. The one that matched last is first.
	preambles []string
	all       []jentry // archive entries, then journal entries, as at HEAD
	a, b      int      // the window [a, b) of the last version found
	hasher    *blobHasher
}

func newJournalSeq(journal string, archived, current []jentry) journalSeq {
	all := append(append([]jentry(nil), archived...), current...)
	if n := len(archived); n > 0 {
		// The archive's last entry ends the file with one newline; in the
		// journal versions that held it, a blank line separated it from
		// the next entry (notes.Append).
		last := &all[n-1]
		if strings.HasSuffix(last.raw, "\n") && lastEntryText(last.raw) == last.raw {
			last.raw += lineEnd(last.raw)
		}
	}
	pre := journal
	if len(current) > 0 {
		pre = journal[:current[0].offset]
	}
	pres := []string{pre}
	for _, eol := range []string{"\n", "\r\n"} {
		if old, ok := strings.CutPrefix(pre, notes.JournalLintDirective+eol); ok {
			pres = append(pres, old)
			break
		}
	}
	return journalSeq{preambles: pres, all: all, a: len(archived), b: len(all)}
}

// lineEnd is the line ending a text's last line ends with.
func lineEnd(s string) string {
	if strings.HasSuffix(s, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// windowMoves are the guesses per journal version, most likely first:
// one entry archived and one appended, one appended, …
func windowMoves() [][2]int {
	return [][2]int{{1, 1}, {0, 1}, {1, 0}, {2, 1}, {1, 2}, {0, 2}, {2, 2}, {2, 0}}
}

// find returns the entries of the journal version whose blob id is id.
func (s *journalSeq) find(id string, hexLen int) ([]jentry, bool) {
	if len(s.all) == 0 {
		return nil, false
	}
	if s.hasher == nil {
		s.hasher = newBlobHasher(hexLen)
	}
	// Versions are met newest first: the window slides towards the start.
	for i, pre := range s.preambles {
		for _, d := range windowMoves() {
			a, b := s.a-d[0], s.b-d[1]
			if a < 0 || b <= a || b > len(s.all) || !s.joinable(pre, a, b) {
				continue
			}
			if s.windowID(pre, a, b) == id {
				s.a, s.b = a, b
				s.preambles[0], s.preambles[i] = s.preambles[i], s.preambles[0]
				return s.all[a:b], true
			}
		}
	}
	return nil, false
}

// joinable reports whether preamble + entries [a, b) parse back into
// exactly those entries: every piece but the last ends a line.
func (s *journalSeq) joinable(preamble string, a, b int) bool {
	if preamble != "" && !strings.HasSuffix(preamble, "\n") {
		return false
	}
	for i := a; i < b-1; i++ {
		if !strings.HasSuffix(s.all[i].raw, "\n") {
			return false
		}
	}
	return true
}

// windowID hashes preamble + entries [a, b), the last one ending with a
// single line break as the newest entry of a journal does.
func (s *journalSeq) windowID(preamble string, a, b int) string {
	parts := make([]string, 0, b-a+1)
	parts = append(parts, preamble)
	for i := a; i < b-1; i++ {
		parts = append(parts, s.all[i].raw)
	}
	parts = append(parts, lastEntryText(s.all[b-1].raw))
	return s.hasher.id(parts...)
}

// lastEntryText is an entry's raw text as the last entry of a file: without
// the blank line that separates it from a following entry.
func lastEntryText(raw string) string {
	body := strings.TrimRight(raw, "\r\n")
	if strings.HasSuffix(raw[len(body):], "\r\n") {
		return body + "\r\n"
	}
	if len(body) < len(raw) {
		return body + "\n"
	}
	return raw
}
