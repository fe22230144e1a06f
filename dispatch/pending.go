package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
)

// KindDispatch is the queue kind of a dispatch pass whose agents ran but
// whose commit could not be made: it waits in the one queue of deferred
// writes (gitops.Repo.Enqueue), where status and check see it.
const KindDispatch = "dispatch"

// pendingPass is a pass whose agents ran but whose commit could not be made
// (a rebase in progress, a detached HEAD, a vault path with your edits): its
// outputs wait in the queue under the git dir and land with the next run,
// so nothing an agent produced is lost or produced twice.
type pendingPass struct {
	Reason string            `json:"reason"`
	Files  map[string]string `json:"files"`
	// Packs are the pack shas the artifacts cite, verified again at landing.
	Packs   map[string]string `json:"packs"`
	Landed  []Landed          `json:"landed"`
	Created time.Time         `json:"created"`
	// Branch is the branch the pass ran on: its outputs land only there.
	Branch string `json:"branch,omitempty"`
	item   gitops.QueueItem
}

type pendingList []pendingPass

func (l pendingList) files() map[string][]byte {
	out := map[string][]byte{}
	for _, p := range l {
		for f, data := range p.Files {
			out[f] = []byte(data)
		}
	}
	return out
}

// legacyPendingDir is where earlier versions kept deferred passes.
func (d *Dispatcher) legacyPendingDir() string { return filepath.Join(d.scratch(), "pending") }

func (d *Dispatcher) loadPending() (pendingList, error) {
	if err := d.importLegacyPending(); err != nil {
		return nil, err
	}
	items, err := d.o.Repo.Queued()
	if err != nil {
		return nil, fmt.Errorf("read deferred dispatch outputs: %w", err)
	}
	head, _ := d.o.Repo.Head(context.Background())
	var out pendingList
	for _, it := range items {
		if it.Kind != KindDispatch {
			continue
		}
		var pp pendingPass
		if err := json.Unmarshal(it.Payload, &pp); err != nil {
			return nil, fmt.Errorf("deferred dispatch outputs %s are unreadable (%v); remove it from %s to continue", it.ID, err, d.o.Repo.QueueDir())
		}
		for f := range pp.Files {
			if err := gitops.CheckRelPath(f); err != nil {
				return nil, fmt.Errorf("deferred dispatch outputs %s: %w", it.ID, err)
			}
		}
		if pp.Branch != "" && pp.Branch != head.Ref {
			continue // made on another branch: it lands there
		}
		pp.item = it
		out = append(out, pp)
	}
	slices.SortFunc(out, func(a, b pendingPass) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// importLegacyPending moves passes an earlier version kept in a directory
// of their own into the one queue.
func (d *Dispatcher) importLegacyPending() error {
	dir := d.legacyPendingDir()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read deferred dispatch outputs: %w", err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("read deferred dispatch outputs %s: %w", p, err)
		}
		var pp pendingPass
		if err := json.Unmarshal(data, &pp); err != nil {
			return fmt.Errorf("deferred dispatch outputs %s are unreadable (%v); move the file away to continue", p, err)
		}
		if _, err := d.o.Repo.Enqueue(KindDispatch, pp.Reason, pp); err != nil {
			return err
		}
		os.Remove(p)
	}
	os.Remove(dir)
	return nil
}

func (d *Dispatcher) savePending(ctx context.Context, p pendingPass) (string, error) {
	p.Created = time.Now().UTC()
	if head, err := d.o.Repo.Head(ctx); err == nil && p.Branch == "" {
		p.Branch = head.Ref
	}
	it, err := d.o.Repo.Enqueue(KindDispatch, p.Reason, p)
	if err != nil {
		return "", fmt.Errorf("keep deferred dispatch outputs: %w", err)
	}
	return it.ID, nil
}

func (d *Dispatcher) removePending(l pendingList) {
	var items []gitops.QueueItem
	for _, p := range l {
		items = append(items, p.item)
	}
	d.o.Repo.Dequeue(items)
}

// LandPending lands the deferred passes made on this branch, and nothing
// else: no plan, no agent run. It is dispatch's lander for the one queue,
// so any synchronous scribe command lands them, not only dispatch run.
func (d *Dispatcher) LandPending(ctx context.Context) (landed int, waiting string, warns []string) {
	lk, err := d.o.Repo.Acquire(ctx, "dispatch-pass", gitops.LockOptions{Timeout: 3 * time.Second, TTL: time.Hour, Purpose: "dispatch landing"})
	if err != nil {
		return 0, "another dispatch pass is running", nil
	}
	defer lk.Release(context.WithoutCancel(ctx))
	pend, err := d.loadPending()
	if err != nil || len(pend) == 0 {
		if err != nil {
			warns = append(warns, err.Error())
		}
		return 0, "", warns
	}
	rep := RunReport{Landed: []Landed{}}
	packsRead := map[string]string{}
	for _, p := range pend {
		for pk, sha := range p.Packs {
			packsRead[pk] = sha
		}
		rep.Landed = append(rep.Landed, p.Landed...)
	}
	res, skipped, err := d.land(ctx, pend.files(), packsRead, d.ledger(rep, len(pend)), rep)
	warns = append(append(warns, skipped...), res.Warnings...)
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		return 0, de.Reason, warns
	}
	if err != nil {
		return 0, err.Error(), warns
	}
	d.removePending(pend)
	return len(pend), "", warns
}
