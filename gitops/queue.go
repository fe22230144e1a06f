package gitops

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// kindRE keeps record kinds file-name safe and dash-free (keyed records are
// named k-<kind>-<key>.json).
var kindRE = lazyre.New(`^[a-z]{1,32}$`)

// QueueItem is one durable record waiting to be landed by the next
// synchronous scribe command.
type QueueItem struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Created time.Time       `json:"created"`
	Reason  string          `json:"reason,omitempty"`
	Payload json.RawMessage `json:"payload"`
	path    string
}

// QueueDir is where deferred writes and post-commit records wait.
func (r *Repo) QueueDir() string { return filepath.Join(r.ScribeDir(), "queue") }

// Enqueue stores a record durably (temp file, fsync, rename) and returns it.
// When the git dir cannot be written (a read-only sandbox) the record goes
// to the state queue (StateQueueDir) instead; Queued lists both.
func (r *Repo) Enqueue(kind, reason string, payload any) (QueueItem, error) {
	body, err := r.queuePayload(payload)
	if err != nil {
		return QueueItem{}, fmt.Errorf("queue %s: %w", kind, err)
	}
	if r.Redact != nil {
		reason = r.Redact(reason)
	}
	now := time.Now()
	b := make([]byte, 4)
	rand.Read(b)
	it := QueueItem{ID: fmt.Sprintf("%d-%d-%s", now.UnixNano(), os.Getpid(), hex.EncodeToString(b)),
		Kind: kind, Created: now.UTC(), Reason: reason, Payload: body}
	data, _ := json.Marshal(it)
	write := func(dir string) error {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		it.path = filepath.Join(dir, it.ID+".json")
		return WriteFileAtomic(it.path, data)
	}
	gerr := write(r.QueueDir())
	if gerr == nil {
		return it, nil
	}
	dir, serr := r.prepareStateQueue()
	if serr == nil {
		serr = write(dir)
	}
	if serr != nil {
		return QueueItem{}, fmt.Errorf("queue %s: %w (and in the state queue %s: %v)", kind, gerr, r.StateQueueDir(), serr)
	}
	return it, nil
}

// queuePayload is payload as JSON, with r.Redact applied to every string
// in it (keys too) when set.
func (r *Repo) queuePayload(payload any) (json.RawMessage, error) {
	body, err := json.Marshal(payload)
	if err != nil || r.Redact == nil {
		return body, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers travel as written, not through float64
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("redact payload: %w", err)
	}
	return json.Marshal(redactStrings(v, r.Redact))
}

// redactStrings returns v (a decoded JSON value) with redact applied to
// every string in it.
func redactStrings(v any, redact func(string) string) any {
	switch x := v.(type) {
	case string:
		return redact(x)
	case []any:
		for i := range x {
			x[i] = redactStrings(x[i], redact)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[redact(k)] = redactStrings(e, redact)
		}
		return out
	}
	return v
}

// RecordOnce stores a record under a caller-chosen key; it reports false
// without writing when a record with that key is already queued, so the same
// key can never be queued twice. The link(2) of a complete temp file makes it
// both atomic and exclusive.
func (r *Repo) RecordOnce(kind, key string, payload any) (bool, error) {
	if key == "" || strings.ContainsAny(key, "/\\.") {
		return false, fmt.Errorf("queue %s: invalid key %q", kind, key)
	}
	if !kindRE().MatchString(kind) {
		return false, fmt.Errorf("queue: invalid kind %q: lowercase letters only", kind)
	}
	body, err := r.queuePayload(payload)
	if err != nil {
		return false, fmt.Errorf("queue %s: %w", kind, err)
	}
	now := time.Now()
	it := QueueItem{ID: fmt.Sprintf("%d-%s-%s", now.UnixNano(), kind, key), Kind: kind, Created: now.UTC(), Payload: body}
	data, _ := json.Marshal(it)
	name := "k-" + kind + "-" + key + ".json"
	for _, dir := range []string{r.QueueDir(), r.StateQueueDir()} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return false, nil
		}
	}
	created, gerr := linkOnce(r.QueueDir(), name, key, data)
	if gerr == nil {
		return created, nil
	}
	dir, serr := r.prepareStateQueue()
	if serr == nil {
		created, serr = linkOnce(dir, name, key, data)
	}
	if serr != nil {
		return false, fmt.Errorf("queue %s: %w (and in the state queue %s: %v)", kind, gerr, r.StateQueueDir(), serr)
	}
	return created, nil
}

// linkOnce writes dir/name exclusively: false without error when it exists.
func linkOnce(dir, name, key string, data []byte) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	final := filepath.Join(dir, name)
	tmp := filepath.Join(dir, fmt.Sprintf(".tmp-%d-%s", os.Getpid(), key))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return false, err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	defer os.Remove(tmp)
	if err := errors.Join(werr, serr, cerr); err != nil {
		return false, err
	}
	if err := os.Link(tmp, final); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// Queued returns every waiting record, oldest first: the git dir's queue
// and the state queue (records written while the git dir could not be
// written). Unreadable records are reported, never deleted.
func (r *Repo) Queued() ([]QueueItem, error) {
	items, err := readQueueDir(r.QueueDir())
	more, serr := readQueueDir(r.StateQueueDir())
	items = append(items, more...)
	sort.Slice(items, func(i, j int) bool {
		if !items[i].Created.Equal(items[j].Created) {
			return items[i].Created.Before(items[j].Created)
		}
		return items[i].ID < items[j].ID
	})
	return items, errors.Join(err, serr)
}

func readQueueDir(dir string) ([]QueueItem, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read queue: %w", err)
	}
	var items []QueueItem
	var bad []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			bad = append(bad, name)
			continue
		}
		var it QueueItem
		if err := json.Unmarshal(data, &it); err != nil || it.Kind == "" {
			// A keyed record's file name is the record (the post-commit
			// hook writes k-<kind>-<key>.json): a torn write loses nothing.
			kind, key, ok := keyedName(name)
			if !ok {
				bad = append(bad, name)
				continue
			}
			it = QueueItem{Kind: kind}
			if err == nil && len(it.Payload) == 0 {
				json.Unmarshal(data, &it)
			}
			it.Kind = kind
			if len(it.Payload) == 0 || !json.Valid(it.Payload) {
				it.Payload, _ = json.Marshal(map[string]string{"sha": key})
			}
		}
		if it.ID == "" {
			it.ID = strings.TrimSuffix(name, ".json")
		}
		if it.Created.IsZero() {
			if fi, err := e.Info(); err == nil {
				it.Created = fi.ModTime().UTC()
			}
		}
		it.path = p
		items = append(items, it)
	}
	if len(bad) > 0 {
		return items, fmt.Errorf("unreadable queue records left in place in %s: %s", dir, strings.Join(bad, ", "))
	}
	return items, nil
}

// Dequeue removes landed records.
func (r *Repo) Dequeue(items []QueueItem) error {
	var errs []error
	for _, it := range items {
		if it.path == "" {
			continue
		}
		if err := os.Remove(it.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// keyedName splits "k-<kind>-<key>.json".
func keyedName(name string) (kind, key string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSuffix(name, ".json"), "k-")
	if !ok {
		return "", "", false
	}
	kind, key, ok = strings.Cut(rest, "-")
	return kind, key, ok && kind != "" && key != ""
}

// FailuresFile is where the post-commit hook logs what it could not record.
func (r *Repo) FailuresFile() string { return filepath.Join(r.ScribeDir(), "failures.log") }

// Failures returns the logged hook failures, oldest first.
func (r *Repo) Failures() []string {
	b, err := os.ReadFile(r.FailuresFile())
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TakeFailures returns the logged failures and clears the log: a landing
// reports them once, after which they are history.
func (r *Repo) TakeFailures() []string {
	f := r.Failures()
	if len(f) > 0 {
		os.Remove(r.FailuresFile())
	}
	return f
}
