package followups

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
)

// Cache is what one regeneration leaves for the next, so that a vault of
// ten thousand follow-ups costs what changed, not what it holds (sources
// are append-only journals or files edited a line at a time):
//
//   - each source's scan (its follow-ups, their normalised texts and
//     identifiers), keyed by everything the scan reads: the source's
//     kind, path and project, the section and a SHA-256 of its text (not
//     its time: the follow-ups dated by the file take the time of the
//     source they are read for);
//   - a journal's or archive's scan entry by entry (scanJournal), each
//     keyed by its lines and the state the scan is in after its heading:
//     a wrap appends an entry and moves the oldest verbatim into the
//     archive, and only the new entry is scanned;
//   - the groups the similarity join last joined and the pairs it found
//     among them, for the threshold it used. Whether two groups pair
//     depends on nothing but the two (their texts, projects, resolution
//     and identifiers), so a regeneration looks only for the pairs of the
//     groups the cache has not seen.
//
// A cache only saves work: Regenerate decides exactly what it decides
// without one (TestCachedRegenerateMatchesCold). It keeps the latest
// regeneration's entries only, so it does not grow with the vault's
// history. It is safe for concurrent use (regenerations sharing one take
// turns).
type Cache struct {
	mu      sync.Mutex
	stamp   string
	scans   map[scanKey]*scanned
	chunks  map[chunkKey]*chunk
	theta   float64
	joined  []string         // the last join's groups (joinKey), in its order
	index   map[string]int32 // joined's positions
	pairs   [][2]int32       // the pairs it found, as positions in joined
	changed bool
}

// NewCache returns an empty cache. stamp names the build that fills it
// (DecodeCache drops a cache another build wrote: a parser may have
// changed).
func NewCache(stamp string) *Cache {
	return &Cache{stamp: stamp, scans: map[scanKey]*scanned{}, chunks: map[chunkKey]*chunk{}}
}

// Changed reports whether the cache holds anything DecodeCache (or
// NewCache) did not give it: whether it is worth writing back.
func (c *Cache) Changed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// scanKey is everything a source's scan depends on.
type scanKey struct {
	kind                   SourceKind
	path, project, section string
	sum                    [sha256.Size]byte
}

// timeKey is a time as the dashboard shows it: its instant and its zone's
// name and offset (time.Time itself compares Location pointers).
type timeKey struct {
	set  bool // false: the zero time
	sec  int64
	nsec int32
	zone string
	off  int32
}

func keyOfTime(t time.Time) timeKey {
	if t.IsZero() {
		return timeKey{}
	}
	zone, off := t.Zone()
	return timeKey{set: true, sec: t.Unix(), nsec: int32(t.Nanosecond()), zone: zone, off: int32(off)}
}

// time is the time the key names, in a zone of its name and offset.
func (k timeKey) time() time.Time {
	if !k.set {
		return time.Time{}
	}
	loc := time.UTC
	if k.zone != "UTC" || k.off != 0 {
		loc = time.FixedZone(k.zone, int(k.off))
	}
	return time.Unix(k.sec, int64(k.nsec)).In(loc)
}

func (r *cacheRun) newScanKey(src SourceFile, section string) scanKey {
	if section == "" {
		section = DefaultSection
	}
	return scanKey{kind: src.Kind, path: src.Path, project: src.Project, section: section, sum: r.sum(src.Text)}
}

// sum is the SHA-256 of s, hashed from a buffer the run reuses (not a
// copy of every source's text).
func (r *cacheRun) sum(s string) [sha256.Size]byte {
	r.buf = append(r.buf[:0], s...)
	return sha256.Sum256(r.buf)
}

// cacheRun is one regeneration's use of a cache; nil when it has none.
type cacheRun struct {
	c      *Cache
	scans  map[scanKey]*scanned // this regeneration's: what the cache keeps
	chunks map[chunkKey]*chunk
	buf    []byte
}

// begin starts a regeneration with c (nil: none); end finishes it.
func (c *Cache) begin() *cacheRun {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	return &cacheRun{c: c, scans: make(map[scanKey]*scanned, len(c.scans)), chunks: make(map[chunkKey]*chunk, len(c.chunks))}
}

func (r *cacheRun) end() {
	if r == nil {
		return
	}
	if len(r.scans) != len(r.c.scans) || len(r.chunks) != len(r.c.chunks) {
		r.c.changed = true // a source or an entry gone
	}
	r.c.scans, r.c.chunks = r.scans, r.chunks
	r.c.mu.Unlock()
}

// scan is src's scan, from the cache when src is unchanged.
func (r *cacheRun) scan(src SourceFile, section string) *scanned {
	if r == nil {
		return scanForms(src, section)
	}
	if src.Kind == SourceJournal || src.Kind == SourceArchive {
		return r.scanJournal(src)
	}
	key := r.newScanKey(src, section)
	s := r.c.scans[key]
	if s == nil {
		if s = r.scans[key]; s == nil {
			s = scanForms(src, section)
			r.c.changed = true
		}
	}
	r.scans[key] = s
	return s
}

// chunkKey is everything the scan of one journal entry depends on: its
// lines, its source's project, and the state the scan is in after the
// entry's heading (which sets the entry's time and ends the entry
// before's subsection, so an entry moved verbatim is the same key).
type chunkKey struct {
	project string
	sum     [sha256.Size]byte
	in      stateKey
}

// stateKey is a scanState as a key: times as timeKey, and the source's
// own time not as a time but as whenIsFile.
type stateKey struct {
	whenIsFile   bool
	when         timeKey
	session      string
	sessionLevel int
	sessionTime  timeKey
	sub          string
	sectionLevel int
	sectionBase  int
}

func (st scanState) key() stateKey {
	k := stateKey{whenIsFile: st.whenIsFile, session: st.session, sessionLevel: st.sessionLevel, sessionTime: keyOfTime(st.sessionTime),
		sub: st.sub, sectionLevel: st.sectionLevel, sectionBase: st.sectionBase}
	if !st.whenIsFile {
		k.when = keyOfTime(st.when)
	}
	return k
}

// state is the scan state k names, for src.
func (k stateKey) state(src SourceFile) scanState {
	st := scanState{whenIsFile: k.whenIsFile, when: k.when.time(), session: k.session, sessionLevel: k.sessionLevel, sessionTime: k.sessionTime.time(),
		sub: k.sub, sectionLevel: k.sectionLevel, sectionBase: k.sectionBase}
	if k.whenIsFile {
		st.when = src.Time
	}
	return st
}

// chunk is one journal entry's scan: its follow-ups (Line counted from
// the entry's first line, no Kind or Path: its source's), their forms,
// which carry the source's time, and the state the scan is in after it.
type chunk struct {
	scanned
	out stateKey
}

// journalEntries are where a journal's entries start: 0 (what comes before
// the first entry) and every level-2 heading outside a fenced block, where
// the scan's fence is closed.
func journalEntries(lines []string) []int {
	starts := []int{0}
	var fences markdown.Fences
	for i, line := range lines {
		if fences.Skip(strings.TrimLeft(line, " \t")) {
			continue
		}
		if level, _, ok := markdown.Heading(line); ok && level == 2 && i > 0 {
			starts = append(starts, i)
		}
	}
	return starts
}

// scanJournal is scanForms for a journal or archive, entry by entry: an
// entry the cache holds for the state its heading leaves is not scanned
// again, and the scan goes on from the state it left.
func (r *cacheRun) scanJournal(src SourceFile) *scanned {
	lines := notes.SplitLines(src.Text)
	starts := journalEntries(lines)
	// Where each line starts in the text: an entry is hashed as its bytes
	// (the same bytes are the same lines).
	offsets := make([]int, 0, len(lines)+1)
	for at := 0; len(offsets) < len(lines); {
		offsets = append(offsets, at)
		if nl := strings.IndexByte(src.Text[at:], '\n'); nl >= 0 {
			at += nl + 1
		} else {
			at = len(src.Text)
		}
	}
	offsets = append(offsets, len(src.Text))
	s := newScanner(src, "")
	res := &scanned{}
	for n, b := range starts {
		e := len(lines)
		if n+1 < len(starts) {
			e = starts[n+1]
		}
		first := b
		if n > 0 {
			s.line(b, lines[b]) // the heading: a heading yields no follow-up
			first++
		}
		key := chunkKey{project: src.Project, sum: r.sum(src.Text[offsets[b]:offsets[e]]), in: s.scanState.key()}
		c := r.c.chunks[key]
		if c == nil {
			c = r.chunks[key]
		}
		if c == nil {
			mark := len(s.out)
			for i := first; i < e; i++ {
				s.line(i, lines[i])
			}
			c = &chunk{out: s.scanState.key()}
			for j := mark; j < len(s.out); j++ {
				f := s.out[j]
				f.Kind, f.Path, f.Line = "", "", f.Line-b
				c.mentions = append(c.mentions, f)
				c.forms = append(c.forms, form{norm: string(s.norms[j]), ids: Identifiers(f.Text)})
				c.fileTime = append(c.fileTime, s.fromFile[j])
			}
			s.out, s.norms, s.fromFile = s.out[:mark], s.norms[:mark], s.fromFile[:mark]
			r.c.changed = true
		} else {
			s.scanState, s.fences = c.out.state(src), markdown.Fences{}
		}
		r.chunks[key] = c
		for _, f := range c.mentions {
			f.Kind, f.Path, f.Line = src.Kind, src.Path, f.Line+b
			res.mentions = append(res.mentions, f)
		}
		res.forms = append(res.forms, c.forms...)
		res.fileTime = append(res.fileTime, c.fileTime...)
	}
	return res
}

// pairs is pairsByIdentifiers over every group, looking only for the pairs
// of the groups the cache has not joined before; the others' pairs are
// the cache's. The cache then holds these groups and their pairs.
func (r *cacheRun) pairs(groups []*group, theta float64, compatible func(i, j int) bool, fn func(i, j int)) {
	if r == nil {
		pairsByIdentifiers(groups, theta, compatible, nil, fn)
		return
	}
	c := r.c
	valid := c.theta == theta && c.index != nil
	keys := make([]string, len(groups))
	fresh := make([]bool, len(groups))
	var cur []int32 // each joined group's index in groups, or -1
	if valid {
		cur = make([]int32, len(c.joined))
		for i := range cur {
			cur[i] = -1
		}
	}
	matched, anyFresh := 0, false
	for i, g := range groups {
		keys[i] = g.joinKey()
		if valid {
			if o, ok := c.index[keys[i]]; ok && cur[o] < 0 {
				cur[o] = int32(i)
				matched++
				continue
			}
		}
		fresh[i], anyFresh = true, true
	}
	var pairs [][2]int
	if valid {
		for _, p := range c.pairs {
			if a, b := cur[p[0]], cur[p[1]]; a >= 0 && b >= 0 {
				pairs = append(pairs, [2]int{int(min(a, b)), int(max(a, b))})
			}
		}
	}
	if anyFresh {
		pairsByIdentifiers(groups, theta, compatible, fresh, func(i, j int) { pairs = append(pairs, [2]int{i, j}) })
	}
	emitPairs(pairs, fn)
	if valid && !anyFresh && matched == len(c.joined) {
		return // the same groups: the cache has them
	}
	c.changed = true
	c.theta, c.joined = theta, keys
	c.index = make(map[string]int32, len(keys))
	for i, k := range keys {
		c.index[k] = int32(i)
	}
	c.pairs = make([][2]int32, len(pairs))
	for i, p := range pairs {
		c.pairs[i] = [2]int32{int32(p[0]), int32(p[1])}
	}
}

// cacheMagic starts an encoded cache; its last byte is the format's
// version.
const cacheMagic = "git-scribe follow-up cache\n\x03"

// Encode writes the cache for DecodeCache: a magic line, a SHA-256 of the
// rest, then the stamp, the scans, the journal entries' scans and the
// join. The cache is unchanged
// afterwards (Changed is false).
func (c *Cache) Encode() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var w cacheWriter
	w.str(c.stamp)
	w.uint(math.Float64bits(c.theta))
	w.uint(uint64(len(c.scans)))
	// In a stable order, so the same cache is the same bytes.
	keys := slices.SortedFunc(maps.Keys(c.scans), func(a, b scanKey) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return bytes.Compare(a.sum[:], b.sum[:])
	})
	for _, k := range keys {
		s := c.scans[k]
		w.str(string(k.kind))
		w.str(k.path)
		w.str(k.project)
		w.str(k.section)
		w.b = append(w.b, k.sum[:]...)
		w.scanned(s)
	}
	// Each entry's bytes, sorted: a stable order without comparing keys.
	var entries [][]byte
	for k, ch := range c.chunks {
		var e cacheWriter
		e.str(k.project)
		e.b = append(e.b, k.sum[:]...)
		e.state(k.in)
		e.state(ch.out)
		e.scanned(&ch.scanned)
		entries = append(entries, e.b)
	}
	slices.SortFunc(entries, bytes.Compare)
	w.uint(uint64(len(entries)))
	for _, e := range entries {
		w.b = append(w.b, e...)
	}
	w.uint(uint64(len(c.joined)))
	for _, k := range c.joined {
		w.str(k)
	}
	w.uint(uint64(len(c.pairs)))
	for _, p := range c.pairs {
		w.uint(uint64(p[0]))
		w.uint(uint64(p[1]))
	}
	c.changed = false
	sum := sha256.Sum256(w.b)
	out := make([]byte, 0, len(cacheMagic)+len(sum)+len(w.b))
	out = append(append(append(out, cacheMagic...), sum[:]...), w.b...)
	return out
}

// DecodeCache reads a cache Encode wrote. A cache that cannot be read
// whole — another format, another build's (stamp), damaged — is an empty
// one: the cache only ever saves work.
func DecodeCache(b []byte, stamp string) *Cache {
	if c, err := decodeCache(b, stamp); err == nil {
		return c
	}
	return NewCache(stamp)
}

var errCache = errors.New("follow-up cache unreadable")

func decodeCache(b []byte, stamp string) (*Cache, error) {
	body, ok := bytes.CutPrefix(b, []byte(cacheMagic))
	if !ok || len(body) < sha256.Size {
		return nil, errCache
	}
	sum, body := body[:sha256.Size], body[sha256.Size:]
	if s := sha256.Sum256(body); !bytes.Equal(s[:], sum) {
		return nil, errCache
	}
	// One copy of the whole; every string read is a part of it.
	r := cacheReader{b: string(body)}
	if r.str() != stamp {
		return nil, errCache
	}
	c := NewCache(stamp)
	c.theta = math.Float64frombits(r.uint())
	str := r.str
	for n := r.count(); n > 0 && r.err == nil; n-- {
		var k scanKey
		k.kind = SourceKind(str())
		k.path, k.project, k.section = r.str(), str(), str()
		copy(k.sum[:], r.bytes(sha256.Size))
		s := &scanned{}
		r.scanned(s, k.kind, k.path)
		c.scans[k] = s
	}
	for n := r.count(); n > 0 && r.err == nil; n-- {
		k := chunkKey{project: r.str()}
		copy(k.sum[:], r.bytes(sha256.Size))
		k.in = r.state()
		ch := &chunk{out: r.state()}
		r.scanned(&ch.scanned, "", "")
		c.chunks[k] = ch
	}
	n := r.count()
	c.joined = make([]string, 0, n)
	c.index = make(map[string]int32, n)
	for ; n > 0 && r.err == nil; n-- {
		k := r.str()
		c.index[k] = int32(len(c.joined))
		c.joined = append(c.joined, k)
	}
	if len(c.index) != len(c.joined) {
		return nil, errCache
	}
	for n := r.count(); n > 0 && r.err == nil; n-- {
		a, b := r.uint(), r.uint()
		if a >= uint64(len(c.joined)) || b >= uint64(len(c.joined)) {
			return nil, errCache
		}
		c.pairs = append(c.pairs, [2]int32{int32(a), int32(b)})
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errCache
	}
	return c, nil
}

// cacheWriter appends the cache's fields: unsigned varints, strings
// (length, bytes) and times.
type cacheWriter struct{ b []byte }

func (w *cacheWriter) uint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

func (w *cacheWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *cacheWriter) time(t timeKey) {
	if !t.set {
		w.uint(0)
		return
	}
	w.uint(1)
	w.b = binary.AppendVarint(w.b, t.sec)
	w.uint(uint64(uint32(t.nsec)))
	w.str(t.zone)
	w.b = binary.AppendVarint(w.b, int64(t.off))
}

// scanned writes a scan's follow-ups (not their kind and path: the
// source's) and forms.
func (w *cacheWriter) scanned(s *scanned) {
	w.uint(uint64(len(s.mentions)))
	for i, f := range s.mentions {
		w.str(f.Text)
		w.str(f.Project)
		w.str(f.TagFrom)
		w.uint(uint64(f.Line))
		var flags uint64
		if f.Resolved {
			flags |= 1
		}
		if s.fileTime[i] {
			flags |= 2
		}
		w.uint(flags)
		if !s.fileTime[i] {
			w.time(keyOfTime(f.Time))
		}
		w.str(s.forms[i].norm)
		w.uint(uint64(len(s.forms[i].ids)))
		for _, id := range s.forms[i].ids {
			w.str(id)
		}
	}
}

func (w *cacheWriter) state(k stateKey) {
	var flags uint64
	if k.whenIsFile {
		flags = 1
	}
	w.uint(flags)
	w.time(k.when)
	w.str(k.session)
	w.b = binary.AppendVarint(w.b, int64(k.sessionLevel))
	w.time(k.sessionTime)
	w.str(k.sub)
	w.b = binary.AppendVarint(w.b, int64(k.sectionLevel))
	w.b = binary.AppendVarint(w.b, int64(k.sectionBase))
}

// cacheReader reads what cacheWriter wrote, from a string so that the
// strings it returns cost no copy; the first error sticks and every later
// read returns zero values.
type cacheReader struct {
	b   string
	err error
}

// uint reads an unsigned varint (binary.Uvarint's format).
func (r *cacheReader) uint() uint64 {
	var v uint64
	for i := 0; i < len(r.b) && i < binary.MaxVarintLen64 && r.err == nil; i++ {
		c := r.b[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break // overflow
			}
			r.b = r.b[i+1:]
			return v | uint64(c)<<(7*i)
		}
		v |= uint64(c&0x7f) << (7 * i)
	}
	r.err = errCache
	return 0
}

// int reads a signed varint (binary.Varint's zig-zag format).
func (r *cacheReader) int() int64 {
	u := r.uint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// count reads a number of entries, each at least a byte long.
func (r *cacheReader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.err = errCache
		return 0
	}
	return int(n)
}

func (r *cacheReader) bytes(n int) string {
	if r.err != nil || n > len(r.b) {
		r.err = errCache
		return ""
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *cacheReader) str() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.err = errCache
		return ""
	}
	return r.bytes(int(n))
}

// scanned reads what cacheWriter.scanned wrote into s, for a source of
// that kind and path.
func (r *cacheReader) scanned(s *scanned, kind SourceKind, path string) {
	m := r.count()
	s.mentions, s.forms, s.fileTime = make([]Followup, 0, m), make([]form, 0, m), make([]bool, 0, m)
	for ; m > 0 && r.err == nil; m-- {
		f := Followup{Kind: kind, Path: path}
		f.Text, f.Project, f.TagFrom = r.str(), r.str(), r.str()
		f.Line = int(r.uint())
		flags := r.uint()
		f.Resolved = flags&1 != 0
		fileTime := flags&2 != 0
		if !fileTime {
			f.Time = r.time().time()
		}
		fm := form{norm: r.str()}
		if ids := r.count(); ids > 0 {
			fm.ids = make([]string, 0, ids)
			for ; ids > 0; ids-- {
				fm.ids = append(fm.ids, r.str())
			}
		}
		s.mentions = append(s.mentions, f)
		s.forms = append(s.forms, fm)
		s.fileTime = append(s.fileTime, fileTime)
	}
}

func (r *cacheReader) state() stateKey {
	k := stateKey{whenIsFile: r.uint() == 1, when: r.time(), session: r.str(), sessionLevel: int(r.int()), sessionTime: r.time(),
		sub: r.str(), sectionLevel: int(r.int()), sectionBase: int(r.int())}
	return k
}

func (r *cacheReader) time() timeKey {
	switch r.uint() {
	case 0:
		return timeKey{}
	case 1:
	default:
		r.err = errCache
		return timeKey{}
	}
	t := timeKey{set: true, sec: r.int()}
	nsec := r.uint()
	if nsec >= 1e9 {
		r.err = errCache
	}
	t.nsec = int32(nsec)
	t.zone = r.str()
	off := r.int()
	if off < -86400 || off > 86400 {
		r.err = errCache
	}
	t.off = int32(off)
	return t
}
