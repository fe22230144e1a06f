package dispatch

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/skills"
)

// Options are what a Dispatcher needs; cmd fills them.
type Options struct {
	Repo    *gitops.Repo
	Config  config.Config
	Routing *Routing
	// Env is the environment agents inherit and API keys come from.
	Env []string
	// Redact removes secrets from agent output before it lands.
	Redact func(string) string
	Now    func() time.Time
	// NewRunner builds a backend for a route; nil means the real backends.
	NewRunner func(rt Route) (Runner, error)
	// Progress, when set, gets a line as each agent run starts and ends.
	Progress io.Writer
}

// Dispatcher plans and runs passes over one repository's vault.
type Dispatcher struct {
	o   Options
	lay Layout
	lib skills.Library

	mu      sync.Mutex
	runners map[string]Runner
}

// New returns a Dispatcher.
func New(o Options) *Dispatcher {
	if o.Routing == nil {
		o.Routing = NewRouting(nil, Flags{})
	}
	return &Dispatcher{o: o, lay: LayoutOf(o.Config.Paths),
		lib: skills.Library{Root: o.Repo.WorkTree, Dir: clean(o.Config.Paths.Skills)}, runners: map[string]Runner{}}
}

// Skills is the skill library the dispatcher renders from.
func (d *Dispatcher) Skills() skills.Library { return d.lib }

// Routing is the dispatcher's routing.
func (d *Dispatcher) Routing() *Routing { return d.o.Routing }

func (d *Dispatcher) now() time.Time {
	t := time.Now()
	if d.o.Now != nil {
		t = d.o.Now()
	}
	return t.In(d.o.Config.Location())
}

func (d *Dispatcher) redact(s string) string {
	if d.o.Redact == nil {
		return s
	}
	return d.o.Redact(s)
}

func (d *Dispatcher) progress(format string, args ...any) {
	if d.o.Progress != nil {
		fmt.Fprintf(d.o.Progress, format+"\n", args...)
	}
}

// scratch is where CLI agents may write files: under the git dir, never
// committed.
func (d *Dispatcher) scratch() string { return filepath.Join(d.o.Repo.ScribeDir(), "dispatch") }

// runner returns the (shared) backend for a route.
func (d *Dispatcher) runner(rt Route) (Runner, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.runners[rt.Key()]; ok {
		return r, nil
	}
	var r Runner
	var err error
	if d.o.NewRunner != nil {
		r, err = d.o.NewRunner(rt)
	} else {
		r, err = NewRunner(rt, d.o.Env, d.o.Repo.WorkTree, d.scratch())
	}
	if err != nil {
		return nil, err
	}
	d.runners[rt.Key()] = r
	return r, nil
}

// Generate runs skill's route on prompt within its limits: the hook the
// engine's prose and analyzer adapters use.
func (d *Dispatcher) Generate(ctx context.Context, skill string, prompt string) (string, Usage, Route, error) {
	rt := d.o.Routing.Route(skill, 0)
	r, err := d.runner(rt)
	if err != nil {
		return "", Usage{}, rt, err
	}
	out, u, err := generate(ctx, r, prompt, Limits{Timeout: rt.Timeout, MaxOutput: rt.MaxOutput})
	return out, u, rt, err
}
