package vault

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/notes"
)

func longSession(commits int) notes.Session {
	s := notes.Session{ID: "s1", Status: notes.SessionOpen, Branch: "refs/heads/main",
		Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Stops: commits}
	for i := 0; i < commits; i++ {
		s.Commits = append(s.Commits, notes.SessionCommit{SHA: "0123456789abcdef0123456789abcdef0123456" + string(rune('a'+i%6)),
			Subject: "change", Files: []string{"a.go", "b.go"}})
	}
	return s
}

// A write's Build reads back the records the command parsed when it
// started: the same bytes are parsed once, and every caller gets a copy
// of its own.
func TestParseSessionIsKeptByItsBytes(t *testing.T) {
	v := &Vault{}
	b := longSession(50).Render()
	first, err := v.parseSession(b)
	if err != nil {
		t.Fatal(err)
	}
	first.Commits[0].Files[0] = "changed by the first caller"
	first.Stops = -1
	second, err := v.parseSession(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.sessionParses) != 1 {
		t.Fatalf("%d parses kept, want 1 (the same bytes twice)", len(v.sessionParses))
	}
	if second.Stops != 50 || second.Commits[0].Files[0] != "a.go" {
		t.Fatalf("the second parse saw the first caller's change: stops %d, file %q", second.Stops, second.Commits[0].Files[0])
	}
	if !bytes.Equal(second.Render(), b) {
		t.Fatal("a kept parse renders differently from the bytes it was parsed from")
	}
	if _, err := v.parseSession([]byte("id: [")); err == nil {
		t.Fatal("a broken record parsed")
	}
	if len(v.sessionParses) != 1 {
		t.Fatal("a failed parse was kept")
	}
}

// A Stop renders its record beside the status scan; the write uses that
// render only for the record it was made of.
func TestRenderAheadIsOfItsRecord(t *testing.T) {
	rec := longSession(20)
	p := Plan{Session: &rec, rendered: renderAhead(&rec)}
	if got := p.renderSession(); !bytes.Equal(got, rec.Render()) {
		t.Fatal("the render made ahead differs from Render")
	}
	other := longSession(3)
	p.Session = &other
	if got := p.renderSession(); !bytes.Equal(got, other.Render()) {
		t.Fatal("a plan whose record changed wrote the render of the old one")
	}
	if got := (Plan{Session: &other}).renderSession(); !bytes.Equal(got, other.Render()) {
		t.Fatal("a plan without a render made ahead")
	}
}

// A journaled record is parsed from its YAML once across processes: the
// next Vault (the next command) reads the kept parse, equal to the YAML's;
// an open record is parsed every time; a cache of another build, or
// damaged, is not read.
func TestJournaledRecordsParseOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	v := proseRepo(t)
	journaled := longSession(200)
	journaled.ID, journaled.Status = "old", notes.SessionJournaled
	journaled.Followups = []notes.SessionFollowup{{Text: "route me", Status: notes.FollowupPending}}
	open := longSession(3)
	jb, ob := journaled.Render(), open.Render()

	first := &Vault{Repo: v.Repo, Config: v.Config}
	a, err := first.parseSession(jb)
	if err != nil {
		t.Fatal(err)
	}
	first.parseSession(ob)
	first.saveSessionCache()
	if first.yamlParses != 2 {
		t.Fatalf("first process parsed %d records as YAML, want 2", first.yamlParses)
	}

	next := &Vault{Repo: v.Repo, Config: v.Config}
	b, err := next.parseSession(jb)
	if err != nil {
		t.Fatal(err)
	}
	next.parseSession(ob)
	if next.yamlParses != 1 {
		t.Errorf("the next process parsed %d records as YAML, want 1 (the open one)", next.yamlParses)
	}
	if len(jb) < cachedRecordMin {
		t.Fatalf("the long record is %d bytes, under the cache's %d", len(jb), cachedRecordMin)
	}
	if !bytes.Equal(a.Render(), b.Render()) || len(b.Followups) != 1 || len(b.Commits) != 200 {
		t.Errorf("the kept parse differs from the YAML's")
	}

	// Damaged: not read.
	raw, err := os.ReadFile(v.sessionCachePath())
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 0xff
	os.WriteFile(v.sessionCachePath(), raw, 0o644)
	damaged := &Vault{Repo: v.Repo, Config: v.Config}
	if _, err := damaged.parseSession(jb); err != nil || damaged.yamlParses != 1 {
		t.Errorf("a damaged cache was read (%d YAML parses, %v)", damaged.yamlParses, err)
	}
}

// The open record a Stop wrote is parsed from YAML by no one: the next
// Stop finds the writer's own parse kept for its bytes.
func TestWrittenRecordIsNotParsedAgain(t *testing.T) {
	t.Parallel()
	v := proseRepo(t)
	open := longSession(300)
	b := open.Render()
	if len(b) < cachedRecordMin {
		t.Fatalf("the record is %d bytes, under the cache's %d", len(b), cachedRecordMin)
	}
	writer := &Vault{Repo: v.Repo, Config: v.Config}
	writer.keepWrittenSession(b, open)
	next := &Vault{Repo: v.Repo, Config: v.Config}
	got, err := next.parseSession(b)
	if err != nil {
		t.Fatal(err)
	}
	if next.yamlParses != 0 {
		t.Errorf("the next Stop parsed %d records as YAML, want 0", next.yamlParses)
	}
	if !bytes.Equal(got.Render(), b) || !got.Open() {
		t.Error("the kept record renders otherwise than the record written")
	}
	// A short record is not worth gob's setup: nothing is kept for it.
	short := longSession(2)
	sb := short.Render()
	writer.keepWrittenSession(sb, short)
	again := &Vault{Repo: v.Repo, Config: v.Config}
	again.parseSession(sb)
	if again.yamlParses != 1 {
		t.Errorf("a short record: %d YAML parses, want 1", again.yamlParses)
	}
}
