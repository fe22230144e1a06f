package dispatch

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock drives Watch without waiting.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func TestWatchSettlesPassesAndMines(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	clock := &fakeClock{now: time.Now()}
	// Everything settled long ago but one note written 5 s ago: the vault
	// is not quiet yet.
	old := clock.now.Add(-time.Hour)
	filepath.Walk(r.WorkTree, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	p := filepath.Join(r.WorkTree, "canon/world.md")
	os.Chtimes(p, clock.now.Add(-5*time.Second), clock.now.Add(-5*time.Second))
	d := newDispatcher(r, nil, nil, nil)
	var out bytes.Buffer
	mines := 0
	err := d.Watch(context.Background(), WatchOptions{Interval: time.Minute, Settle: 30 * time.Second, Ticks: 2, Out: &out,
		Now: clock.Now, Sleep: clock.Sleep, Mine: func(context.Context) (string, error) { mines++; return "mined", nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(clock.sleeps) != 2 || clock.sleeps[0] != 25*time.Second || clock.sleeps[1] != time.Minute {
		t.Fatalf("sleeps %v: want the 25 s left of the settle period, then the interval", clock.sleeps)
	}
	if mines != 1 {
		t.Fatalf("mined %d times: want once, after the pass that landed reviews", mines)
	}
	if s := out.String(); !strings.Contains(s, "pass 1: committed") || !strings.Contains(s, "pass 2: nothing") || !strings.Contains(s, "waiting 25s") {
		t.Fatalf("output:\n%s", s)
	}
}

func TestWatchEndsOnErrorsAndHonoursNoMine(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	clock := &fakeClock{now: time.Now().Add(time.Hour)}
	s := &stub{reply: func(string, Route) (string, error) { return "", errors.New("backend down") }}
	d := newDispatcher(r, nil, s, nil)
	err := d.Watch(context.Background(), WatchOptions{Ticks: 5, Now: clock.Now, Sleep: clock.Sleep,
		Mine: func(context.Context) (string, error) { t.Error("mined after a failed pass"); return "", nil }})
	if err == nil || !strings.Contains(err.Error(), "watch pass 1: 1 agent run(s) failed") || !strings.Contains(err.Error(), "backend down") {
		t.Fatalf("err = %v", err)
	}
	// --no-mine: reviews land, nothing is mined.
	r2 := vaultRepo(t, fixture)
	d2 := newDispatcher(r2, nil, nil, nil)
	if err := d2.Watch(context.Background(), WatchOptions{Ticks: 1, NoMine: true, Now: clock.Now, Sleep: clock.Sleep,
		Mine: func(context.Context) (string, error) { t.Error("mined with --no-mine"); return "", nil }}); err != nil {
		t.Fatal(err)
	}
	// A mining error ends the watch too.
	r3 := vaultRepo(t, fixture)
	d3 := newDispatcher(r3, nil, nil, nil)
	err = d3.Watch(context.Background(), WatchOptions{Ticks: 1, Now: clock.Now, Sleep: clock.Sleep,
		Mine: func(context.Context) (string, error) { return "", errors.New("inbox unreadable") }})
	if err == nil || !strings.Contains(err.Error(), "ratify --mine: inbox unreadable") {
		t.Fatalf("err = %v", err)
	}
}

// An interrupt ends the watch cleanly.
func TestWatchInterrupted(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := newDispatcher(r, nil, nil, nil).Watch(ctx, WatchOptions{Settle: time.Hour}); err != nil {
		t.Fatalf("err = %v", err)
	}
}

// TestWatchIgnoresEditorState: Obsidian's workspace, vim swap files and
// backup files written just now do not make the vault look busy; a note
// written just now does. Checked with real files in a real repository.
func TestWatchIgnoresEditorState(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := filepath.WalkDir(r.WorkTree, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	d := newDispatcher(r, nil, nil, nil)
	for _, rel := range []string{".obsidian/workspace.json", "cards/.01-01-the-ferry.md.swp", "cards/01-01-the-ferry.md~",
		"canon/#world.md#", "canon/.#world.md", "cards/4913", ".DS_Store"} {
		writeFile(t, r, rel, "editor state")
	}
	last, err := d.lastChange(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !last.Equal(old) {
		t.Fatalf("editor state counted as vault activity: last change %s, want %s", last, old)
	}
	writeFile(t, r, "cards/01-04-new.md", "# New card\n")
	if last, _ := d.lastChange(context.Background()); !last.After(old) {
		t.Fatalf("a new note is not vault activity: last change %s", last)
	}
	for rel, want := range map[string]bool{"notes/.swp-notes.md": false, "a/.obsidianx/b.md": false, ".stversions/x.md": false, "x.md.swp": false, ".x.md.swp": true} {
		if got := editorState(rel); got != want {
			t.Errorf("editorState(%q) = %v, want %v", rel, got, want)
		}
	}
}
