package dispatch

import (
	"crypto/rand"
	"encoding/hex"
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

// pendingPass is a pass whose agents ran but whose commit could not be made
// (a rebase in progress, a detached HEAD, a vault path with your edits): its
// outputs wait under the git dir and land with the next run, so nothing an
// agent produced is lost or produced twice.
type pendingPass struct {
	ID     string            `json:"id"`
	Reason string            `json:"reason"`
	Files  map[string]string `json:"files"`
	// Packs are the pack shas the artifacts cite, verified again at landing.
	Packs   map[string]string `json:"packs"`
	Landed  []Landed          `json:"landed"`
	Created time.Time         `json:"created"`
	path    string
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

func (d *Dispatcher) pendingDir() string { return filepath.Join(d.scratch(), "pending") }

func (d *Dispatcher) loadPending() (pendingList, error) {
	ents, err := os.ReadDir(d.pendingDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read deferred dispatch outputs: %w", err)
	}
	var out pendingList
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(d.pendingDir(), e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read deferred dispatch outputs %s: %w", p, err)
		}
		var pp pendingPass
		if err := json.Unmarshal(data, &pp); err != nil {
			return nil, fmt.Errorf("deferred dispatch outputs %s are unreadable (%v); move the file away to continue", p, err)
		}
		for f := range pp.Files {
			if err := gitops.CheckRelPath(f); err != nil {
				return nil, fmt.Errorf("deferred dispatch outputs %s: %w", p, err)
			}
		}
		pp.path = p
		out = append(out, pp)
	}
	slices.SortFunc(out, func(a, b pendingPass) int { return a.Created.Compare(b.Created) })
	return out, nil
}

func (d *Dispatcher) savePending(p pendingPass) (string, error) {
	b := make([]byte, 4)
	rand.Read(b)
	p.ID = fmt.Sprintf("%d-%s", time.Now().UnixNano(), hex.EncodeToString(b))
	p.Created = time.Now().UTC()
	data, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("keep deferred dispatch outputs: %w", err)
	}
	if err := os.MkdirAll(d.pendingDir(), 0o755); err != nil {
		return "", fmt.Errorf("keep deferred dispatch outputs: %w", err)
	}
	if err := gitops.WriteFileAtomic(filepath.Join(d.pendingDir(), p.ID+".json"), data); err != nil {
		return "", fmt.Errorf("keep deferred dispatch outputs: %w", err)
	}
	return p.ID, nil
}

func (l pendingList) remove() {
	for _, p := range l {
		os.Remove(p.path)
	}
}
