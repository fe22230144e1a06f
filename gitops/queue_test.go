package gitops

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestQueueRoundTrip(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	if items, err := r.Queued(); err != nil || len(items) != 0 {
		t.Fatalf("Queued on a fresh repo = %+v, %v", items, err)
	}
	type payload struct {
		N    int    `json:"n"`
		Text string `json:"text"`
	}
	var ids []string
	for i := 0; i < 5; i++ {
		it, err := r.Enqueue("journal", "HEAD is detached", payload{N: i, Text: "entry"})
		if err != nil {
			t.Fatalf("Enqueue: %v", err)
		}
		ids = append(ids, it.ID)
	}
	items, err := r.Queued()
	if err != nil {
		t.Fatalf("Queued: %v", err)
	}
	var got []string
	for i, it := range items {
		got = append(got, it.ID)
		var p payload
		if err := json.Unmarshal(it.Payload, &p); err != nil || p.N != i || it.Kind != "journal" || it.Reason != "HEAD is detached" {
			t.Errorf("item %d = %+v (payload %+v, %v)", i, it, p, err)
		}
	}
	if !reflect.DeepEqual(got, ids) {
		t.Errorf("Queued order = %q, want enqueue order %q", got, ids)
	}
	// The queue lives under the common git dir and never shows in status.
	if !strings.HasPrefix(r.QueueDir(), r.CommonDir+string(filepath.Separator)) {
		t.Errorf("QueueDir %s is not under %s", r.QueueDir(), r.CommonDir)
	}
	if st := tr.Git("status", "--porcelain=v2", "--untracked-files=all", "--ignored"); st != "" {
		t.Errorf("status = %q", st)
	}
	if err := r.Dequeue(items[:3]); err != nil {
		t.Fatalf("Dequeue: %v", err)
	}
	rest, err := r.Queued()
	if err != nil || len(rest) != 2 || rest[0].ID != ids[3] || rest[1].ID != ids[4] {
		t.Errorf("after Dequeue = %+v, %v; want the last two", rest, err)
	}
	// Dequeuing twice is harmless.
	if err := r.Dequeue(items[:3]); err != nil {
		t.Errorf("second Dequeue: %v", err)
	}
}

func TestQueueSharedAcrossWorktrees(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	wt := filepath.Join(filepath.Dir(tr.Dir), "wt")
	tr.Git("worktree", "add", "-q", "-b", "feature", wt)
	wr, err := Discover(t.Context(), wt)
	if err != nil {
		t.Fatal(err)
	}
	it, err := wr.Enqueue("journal", "", "from the worktree")
	if err != nil {
		t.Fatal(err)
	}
	items, err := tr.open().Queued()
	if err != nil || len(items) != 1 || items[0].ID != it.ID {
		t.Errorf("main work tree sees %+v, %v; want the worktree's record", items, err)
	}
}

func TestRecordOnce(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	ok, err := r.RecordOnce("commit", "abc123", map[string]string{"sha": "abc123"})
	if err != nil || !ok {
		t.Fatalf("first RecordOnce = %v, %v; want true", ok, err)
	}
	ok, err = r.RecordOnce("commit", "abc123", map[string]string{"sha": "different"})
	if err != nil || ok {
		t.Fatalf("second RecordOnce = %v, %v; want false", ok, err)
	}
	// Same key, other kind: a different record.
	if ok, err := r.RecordOnce("other", "abc123", 1); err != nil || !ok {
		t.Errorf("RecordOnce with another kind = %v, %v; want true", ok, err)
	}
	items, err := r.Queued()
	if err != nil || len(items) != 2 {
		t.Fatalf("Queued = %+v, %v", items, err)
	}
	var p map[string]string
	for _, it := range items {
		if it.Kind == "commit" {
			json.Unmarshal(it.Payload, &p)
		}
	}
	if p["sha"] != "abc123" {
		t.Errorf("the second RecordOnce overwrote the first: %v", p)
	}
	// After landing (Dequeue) the key may be recorded again.
	if err := r.Dequeue(items); err != nil {
		t.Fatal(err)
	}
	if ok, err := r.RecordOnce("commit", "abc123", 2); err != nil || !ok {
		t.Errorf("RecordOnce after Dequeue = %v, %v; want true", ok, err)
	}
	for _, key := range []string{"", "a/b", "../x", `a\b`, "a.b"} {
		if _, err := r.RecordOnce("commit", key, 1); err == nil {
			t.Errorf("RecordOnce(key %q) accepted an invalid key", key)
		}
	}
	assertNoTempFiles(t, r.QueueDir())
}

// The kind is part of the file name: it must not lead out of the queue.
func TestRecordOnceKindStaysInQueue(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	const kind = "../../../escape"
	if _, err := r.RecordOnce(kind, "key", 1); err != nil {
		return // refusing the kind is fine
	}
	root := filepath.Dir(tr.Dir)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "escape") && !strings.HasPrefix(p, r.QueueDir()+string(filepath.Separator)) {
			t.Errorf("RecordOnce with kind %q wrote outside the queue: %s", kind, p)
		}
		return nil
	})
}

func TestRecordOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	const n = 8
	tr := newRepo(t)
	errs, outs := runHelpers(t, n, "recordonce", func(int) []string { return []string{"GITOPS_REPO=" + tr.Dir} })
	first := 0
	for i, err := range errs {
		var ee *exec.ExitError
		switch {
		case err == nil:
			first++
		case errors.As(err, &ee) && ee.ExitCode() == helperNotFirst:
		default:
			t.Errorf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	if first != 1 {
		t.Errorf("%d processes recorded the key, want exactly 1", first)
	}
	r := tr.open()
	ents, err := os.ReadDir(r.QueueDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 {
		t.Errorf("queue dir holds %q, want exactly one record", names)
	}
	items, err := r.Queued()
	if err != nil || len(items) != 1 {
		t.Errorf("Queued = %+v, %v", items, err)
	}
}

func TestQueuedReportsCorruptRecords(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	a, err := r.Enqueue("journal", "", "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Enqueue("journal", "", "b")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(r.QueueDir(), "0000-corrupt.json")
	if err := os.WriteFile(bad, []byte(`{"id": "truncated`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Files that are not records are ignored.
	os.WriteFile(filepath.Join(r.QueueDir(), ".tmp-123-x"), []byte("partial"), 0o644)
	os.WriteFile(filepath.Join(r.QueueDir(), "README"), []byte("not a record"), 0o644)

	items, err := r.Queued()
	if err == nil || !strings.Contains(err.Error(), "0000-corrupt.json") {
		t.Errorf("Queued error = %v, want one naming 0000-corrupt.json", err)
	}
	if len(items) != 2 || items[0].ID != a.ID || items[1].ID != b.ID {
		t.Errorf("Queued items = %+v, want the two good records", items)
	}
	if err := r.Dequeue(items); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("the corrupt record was removed: %v", err)
	}
	items, err = r.Queued()
	if err == nil || len(items) != 0 {
		t.Errorf("Queued after Dequeue = %+v, %v; want no items and the error again", items, err)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temp file left in the queue: %s", e.Name())
		}
	}
}

// A keyed record's file name is the record: a torn or empty write (power
// loss between link and fsync of the content) still yields the kind and key.
func TestQueuedRecoversTornKeyedRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, kind, key, content string
		bug                      string
	}{
		{name: "empty file", kind: "commit", key: "0123abcd", content: ""},
		{name: "truncated json", kind: "commit", key: "0123abcd", content: `{"id":"1-commit-0123abcd","kind":"comm`},
		{name: "kind with a dash", kind: "commit", key: "0123abcd", content: "",
			bug: "keyedName splits k-<kind>-<key> at the first dash, so a kind containing one is misread"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRepo(t).open()
			if ok, err := r.RecordOnce(tt.kind, tt.key, map[string]string{"sha": tt.key}); err != nil || !ok {
				t.Fatalf("RecordOnce = %v, %v", ok, err)
			}
			file := filepath.Join(r.QueueDir(), "k-"+tt.kind+"-"+tt.key+".json")
			if err := os.WriteFile(file, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			items, err := r.Queued()
			if err != nil {
				t.Fatalf("Queued: %v", err)
			}
			if len(items) != 1 || items[0].Kind != tt.kind {
				t.Fatalf("Queued = %+v, want one %s record", items, tt.kind)
			}
			var p map[string]string
			if err := json.Unmarshal(items[0].Payload, &p); err != nil || p["sha"] != tt.key {
				t.Errorf("payload = %s, want the key %s recovered", items[0].Payload, tt.key)
			}
			// The key still blocks a second record until landed.
			if ok, _ := r.RecordOnce(tt.kind, tt.key, 1); ok {
				t.Errorf("RecordOnce recorded the key again")
			}
			if err := r.Dequeue(items); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Dequeue left %s", file)
			}
		})
	}
}

// TestQueueRedacts: with Repo.Redact set, no string of a queued record
// (payload, nested lists and maps, reason, keyed records) reaches the
// queue directory unredacted; numbers keep their exact value.
func TestQueueRedacts(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	r := tr.open()
	const secret = "hunter2-" + "s3cret"
	r.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED:test]") }
	type plan struct {
		Done  []string          `json:"done"`
		Meta  map[string]string `json:"meta"`
		Big   int64             `json:"big"`
		Inner struct{ Hint string }
	}
	p := plan{Done: []string{"rotated " + secret}, Meta: map[string]string{"k": "v " + secret}, Big: 1<<62 + 1}
	p.Inner.Hint = "hint " + secret
	if _, err := r.Enqueue("plan", "deferred: "+secret, p); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RecordOnce("commit", "abc", map[string]string{"subject": secret}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(r.QueueDir())
	if len(ents) != 2 {
		t.Fatalf("queue holds %d files, want 2", len(ents))
	}
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(r.QueueDir(), e.Name()))
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret: %s", e.Name(), data)
		}
	}
	items, err := r.Queued()
	if err != nil || len(items) != 2 {
		t.Fatalf("Queued = %v, %v", items, err)
	}
	var got plan
	for _, it := range items {
		if it.Kind != "plan" {
			continue
		}
		if err := json.Unmarshal(it.Payload, &got); err != nil {
			t.Fatal(err)
		}
		if got.Big != p.Big || got.Done[0] != "rotated [REDACTED:test]" || got.Meta["k"] != "v [REDACTED:test]" ||
			got.Inner.Hint != "hint [REDACTED:test]" || it.Reason != "deferred: [REDACTED:test]" {
			t.Errorf("landed plan = %+v (reason %q)", got, it.Reason)
		}
	}
}
