package dispatch

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// WatchOptions tune `dispatch watch`.
type WatchOptions struct {
	// Interval is the wait between passes (default 60s).
	Interval time.Duration
	// Settle is how long the vault must have been quiet before a pass
	// (default 30s): a sync tool delivers notes as bursts of writes, and a
	// half-synced note must never dispatch.
	Settle time.Duration
	// Ticks is the number of passes; 0 runs until interrupted.
	Ticks int
	// NoMine turns off mining after a pass that landed reviews.
	NoMine bool
	// Mine is the engine's own mining command (`git scribe ratify --mine`);
	// watch invokes it, never reimplements it. It returns a one-line report.
	Mine func(ctx context.Context) (string, error)
	// Out gets one line per pass.
	Out io.Writer
	// Sleep waits d or until ctx is done (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock (tests replace it).
	Now func() time.Time
}

// Watch runs debounced passes: each waits until no vault file has changed
// for the settle period, runs, and (after landing reviews) mines. Errors end
// the watch — a dead watch is visible, one that silently skips failures is
// not; a failed agent run is such an error. An interrupt ends it cleanly.
func (d *Dispatcher) Watch(ctx context.Context, o WatchOptions) error {
	if o.Interval <= 0 {
		o.Interval = 60 * time.Second
	}
	if o.Settle < 0 {
		o.Settle = 0
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	for tick := 1; o.Ticks == 0 || tick <= o.Ticks; tick++ {
		if tick > 1 {
			if err := o.Sleep(ctx, o.Interval); err != nil {
				return nil // interrupted between passes
			}
		}
		if err := d.settle(ctx, o); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		rep, err := d.Run(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("watch pass %d: %w", tick, err)
		}
		fmt.Fprintf(o.Out, "pass %d: %s: %s\n", tick, rep.Status, rep.Reason)
		for _, w := range rep.Warnings {
			fmt.Fprintf(o.Out, "  warning: %s\n", w)
		}
		if rep.HasFailures() {
			var msgs []string
			for _, f := range rep.Failed {
				msgs = append(msgs, f.Job.Target+": "+f.Error)
			}
			return fmt.Errorf("watch pass %d: %d agent run(s) failed: %s", tick, len(rep.Failed), strings.Join(msgs, "; "))
		}
		if rep.Status == "queued" {
			fmt.Fprintf(o.Out, "  outputs kept under the git dir; they land with the next pass\n")
		}
		if rep.Status == "committed" && rep.Reviews > 0 && !o.NoMine && o.Mine != nil {
			msg, err := o.Mine(ctx)
			if err != nil {
				return fmt.Errorf("watch pass %d: ratify --mine: %w", tick, err)
			}
			fmt.Fprintf(o.Out, "  mine: %s\n", msg)
		}
	}
	return nil
}

// settle waits until the vault has been quiet for o.Settle.
func (d *Dispatcher) settle(ctx context.Context, o WatchOptions) error {
	if o.Settle == 0 {
		return nil
	}
	for {
		last, err := d.lastChange(ctx)
		if err != nil {
			return err
		}
		quiet := o.Now().Sub(last)
		if quiet >= o.Settle {
			return nil
		}
		wait := o.Settle - quiet
		fmt.Fprintf(o.Out, "vault changed %s ago; waiting %s for it to settle\n", quiet.Round(time.Second), wait.Round(time.Second))
		if err := o.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// lastChange is the newest modification time among the work tree's files
// (tracked and untracked, not ignored), editor state left out.
func (d *Dispatcher) lastChange(ctx context.Context) (time.Time, error) {
	out, err := d.o.Repo.Git(ctx, "ls-files", "-z", "-c", "-o", "--exclude-standard", "--deduplicate")
	if err != nil {
		return time.Time{}, fmt.Errorf("list vault files: %w", err)
	}
	var last time.Time
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" || editorState(rel) {
			continue
		}
		// Only a stat: no need for Abs' symlink walk, nothing is read or written.
		fi, err := os.Lstat(filepath.Join(d.o.Repo.WorkTree, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		if fi.ModTime().After(last) {
			last = fi.ModTime()
		}
	}
	return last, nil
}

// editorState reports whether rel is an editor's own state rather than a
// note: Obsidian's .obsidian/ (workspace.json changes whenever a pane
// moves), vim's swap files (.x.md.swp, .swo, …) and write test 4913, and
// backup and autosave files (x.md~, #x.md#, .#x.md). Editing them is not vault
// activity; a sync tool's temporary files are, so they still count.
func editorState(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if p == ".obsidian" || p == ".vscode" || p == ".idea" {
			return true
		}
	}
	base := parts[len(parts)-1]
	switch {
	case base == ".DS_Store" || base == "4913":
		return true
	case strings.HasSuffix(base, "~"):
		return true
	case strings.HasPrefix(base, "#") && strings.HasSuffix(base, "#"), strings.HasPrefix(base, ".#"):
		return true
	case strings.HasPrefix(base, "."):
		ext := path.Ext(base)
		return len(ext) == 4 && strings.HasPrefix(ext, ".sw") // .swp, .swo, .swn, …
	}
	return false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
