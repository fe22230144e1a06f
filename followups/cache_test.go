package followups

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"
)

// cacheSources are sources whose follow-ups take their times every way a
// scan gives them: an entry's heading (UTC, an offset), a Session header
// (a zone abbreviation, a bare date), the file's own time.
func cacheSources() []SourceFile {
	seoul := time.FixedZone("KST", 9*3600)
	return []SourceFile{
		{Kind: SourceJournal, Path: ".claude/sonmat/journal.md", Time: time.Date(2026, 11, 3, 8, 0, 0, 0, seoul),
			Text: "# Journal\n\n## 2026-11-01T09:00:00Z — one\n### Next\n- (api) migrate the cache layer\n- (api) fix `getUser` in v1.2\n\n" +
				"## 2026-11-02T10:30:00+09:00 — two\n### Next\n- (api) Migrate the cache layr\n- (web) 로그 정리\n### Done\n- (api) fix getuser in v1.2\n"},
		{Kind: SourceTodos, Path: "projects/web/todos.md", Project: "web", Time: time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC),
			Text: "# web\n\n## Next Session\n\n- fix the footer\n- [x] 로그 정리하기\n\n## Session: ops — 2026-10-30 14:00 PST\n\n- rotate the keys\n\n## Session: api — 2026-10-29\n\n- migrate the cache layer\n"},
		{Kind: SourceActive, Path: "projects/api/actives/t/todos.md", Project: "api", Task: "t", Time: time.Date(2026, 11, 1, 7, 0, 0, 0, time.Local),
			Text: "- [ ] Add pagination to /users endpoint\n- [ ] add pagination to /posts endpoint\n- [x] done already\n"},
		{Kind: SourceProgress, Path: "projects/ops/PROGRESS.md", Project: "ops", Unread: "too large"},
	}
}

// dashboardJSON is what a regeneration decided, as the commands print it.
func dashboardJSON(t *testing.T, d Dashboard) []byte {
	t.Helper()
	b, err := json.Marshal(struct {
		D Dashboard
		M []Followup
		R string
	}{d, d.Mentions, d.Render()})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCacheRoundTrip(t *testing.T) {
	t.Parallel()
	srcs := cacheSources()
	want := dashboardJSON(t, Regenerate(srcs, MergeOptions{}))
	c := NewCache("build 1")
	if got := dashboardJSON(t, Regenerate(srcs, MergeOptions{Cache: c})); !bytes.Equal(got, want) {
		t.Fatalf("with an empty cache:\n%s\nwant\n%s", got, want)
	}
	enc := c.Encode()
	if c.Changed() {
		t.Error("Changed after Encode")
	}
	back := DecodeCache(enc, "build 1")
	if again := back.Encode(); !bytes.Equal(again, enc) {
		t.Error("a decoded cache encodes to other bytes")
	}
	got := Regenerate(srcs, MergeOptions{Cache: back})
	if g := dashboardJSON(t, got); !bytes.Equal(g, want) {
		t.Fatalf("with the decoded cache:\n%s\nwant\n%s", g, want)
	}
	if back.Changed() {
		t.Error("the same sources changed a decoded cache")
	}
	// A source's time alone (a commit of it, a year gone by) is no new
	// scan: the follow-ups it dates take the new time.
	moved := cacheSources()
	for i := range moved {
		moved[i].Time = moved[i].Time.Add(49 * time.Hour)
	}
	if g, w := dashboardJSON(t, Regenerate(moved, MergeOptions{Cache: back})), dashboardJSON(t, Regenerate(moved, MergeOptions{})); !bytes.Equal(g, w) {
		t.Fatalf("sources moved in time, with the cache:\n%s\nwant\n%s", g, w)
	}
	if back.Changed() {
		t.Error("sources' times alone changed the cache")
	}
	// Times read back keep their instant, zone name and offset.
	cold := Regenerate(srcs, MergeOptions{})
	for i, m := range got.Mentions {
		w := cold.Mentions[i]
		gn, go_ := m.Time.Zone()
		wn, wo := w.Time.Zone()
		if !m.Time.Equal(w.Time) || gn != wn || go_ != wo {
			t.Errorf("mention %d time %v (%s %d), want %v (%s %d)", i, m.Time, gn, go_, w.Time, wn, wo)
		}
	}
}

// A cache another build wrote, or one damaged, is an empty one: nothing of
// it is used, and the regeneration is the same.
func TestDecodeCacheRejects(t *testing.T) {
	t.Parallel()
	srcs := cacheSources()
	want := dashboardJSON(t, Regenerate(srcs, MergeOptions{}))
	c := NewCache("build 1")
	Regenerate(srcs, MergeOptions{Cache: c})
	enc := c.Encode()
	flipped := bytes.Clone(enc)
	flipped[len(flipped)-3] ^= 1
	for name, b := range map[string][]byte{
		"another build": enc, "truncated": enc[:len(enc)/2], "a flipped bit": flipped, "empty": nil, "another format": append([]byte("x"), enc...),
	} {
		stamp := "build 1"
		if name == "another build" {
			stamp = "build 2"
		}
		d := DecodeCache(b, stamp)
		if len(d.scans) != 0 || d.index != nil {
			t.Errorf("%s: decoded %d scans", name, len(d.scans))
		}
		if got := dashboardJSON(t, Regenerate(srcs, MergeOptions{Cache: d})); !bytes.Equal(got, want) {
			t.Errorf("%s: the dashboard differs", name)
		}
	}
}

// FuzzDecodeCache: any bytes behind a valid checksum decode to a cache or
// to an empty one, never a panic.
func FuzzDecodeCache(f *testing.F) {
	c := NewCache("s")
	Regenerate(cacheSources(), MergeOptions{Cache: c})
	enc := c.Encode()
	f.Add(enc[len(cacheMagic)+sha256.Size:])
	f.Add([]byte{1, 's', 0, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha256.Sum256(body)
		b := append(append([]byte(cacheMagic), sum[:]...), body...)
		d := DecodeCache(b, "s")
		Regenerate(cacheSources(), MergeOptions{Cache: d})
	})
}

// The reader's varints are encoding/binary's.
func TestCacheVarints(t *testing.T) {
	t.Parallel()
	vals := []uint64{0, 1, 127, 128, 300, 1 << 32, 1<<63 - 1, 1 << 63, ^uint64(0)}
	for _, v := range vals {
		var w cacheWriter
		w.uint(v)
		w.b = binary.AppendVarint(w.b, int64(v))
		r := cacheReader{b: string(w.b)}
		if got := r.uint(); got != v || r.err != nil {
			t.Errorf("uint %d read %d (%v)", v, got, r.err)
		}
		if got := r.int(); got != int64(v) || r.err != nil || r.b != "" {
			t.Errorf("int %d read %d (%v)", int64(v), got, r.err)
		}
	}
	for _, bad := range []string{"", "\x80", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"} {
		r := cacheReader{b: bad}
		if r.uint(); r.err == nil {
			t.Errorf("%q read as a varint", bad)
		}
		if _, n := binary.Uvarint([]byte(bad)); n > 0 {
			t.Errorf("%q: encoding/binary reads it", bad)
		}
	}
}

// scanJSON is a scan of src as the dashboard would show it (the
// follow-ups dated by the file take src's time, as in Regenerate), times
// by instant, zone name and offset.
func scanJSON(t *testing.T, src SourceFile, s *scanned) string {
	t.Helper()
	type zoned struct {
		F    Followup
		Zone string
		Off  int
		Form []string
		File bool
	}
	var out []zoned
	for i, f := range s.mentions {
		if s.fileTime[i] {
			f.Time = src.Time
		}
		name, off := f.Time.Zone()
		out = append(out, zoned{f, name, off, append([]string{s.forms[i].norm}, s.forms[i].ids...), s.fileTime[i]})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkJournalScan: a journal scanned entry by entry — with no cache, with
// the cache of the same text, with the cache of the text before more was
// appended — is the journal scanned whole.
func checkJournalScan(t *testing.T, text, more string) {
	t.Helper()
	src := SourceFile{Kind: SourceArchive, Path: "j.md", Time: time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC), Text: text}
	whole := scanJSON(t, src, scanForms(src, ""))
	c := NewCache("s")
	for round, what := range []string{"no cache", "the same text's", "a decoded cache"} {
		if round == 2 {
			c = DecodeCache(c.Encode(), "s")
		}
		run := c.begin()
		got := scanJSON(t, src, run.scanJournal(src))
		run.end()
		if got != whole {
			t.Fatalf("%s: entry by entry\n%s\nwhole\n%s\ntext %q", what, got, whole, text)
		}
	}
	src.Text += more
	run := c.begin()
	got := scanJSON(t, src, run.scanJournal(src))
	run.end()
	if want := scanJSON(t, src, scanForms(src, "")); got != want {
		t.Fatalf("appended: entry by entry\n%s\nwhole\n%s\ntext %q", got, want, src.Text)
	}
}

func TestJournalScanByEntry(t *testing.T) {
	t.Parallel()
	for _, s := range cacheSources() {
		checkJournalScan(t, s.Text, "\n## 2026-11-04T09:00:00Z — three\n### Next\n- one more\n")
	}
	checkJournalScan(t, "# Session: api — 2026-10-29\n\n## not an entry\n- [x] ticked\n### Next\n- (x) a\n```\n## in code\n- [ ] no\n```\n## 2026-11-01 — e\n### Done\n- a\n",
		"## bad — heading\n### Next\n- dated by the entry before\n# Session: web\n## 2026-11-02T01:00:00+05:30 — f\n### Next Steps\n- b\n")
}

// FuzzJournalScan: scanning a journal entry by entry, from the cache or
// not, after an append or not, is scanning it whole.
func FuzzJournalScan(f *testing.F) {
	for _, s := range cacheSources() {
		f.Add(s.Text, "\n## 2026-11-04T09:00:00Z — three\n### Next\n- one more\n")
	}
	f.Add("## a\n```\n## b\n", "## c\n### Next\n- d\n```\n## e\n### Next\n- f\n")
	f.Fuzz(func(t *testing.T, text, more string) {
		checkJournalScan(t, text, more)
	})
}
