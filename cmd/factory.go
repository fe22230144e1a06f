package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/dispatch"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/secrets"
	"github.com/git-scribe/git-scribe/vault"
)

// Factory opens what commands need, lazily: nothing is opened until asked.
type Factory struct {
	IO  *IOStreams
	Env []string
	// Dir is -C, resolved against the process's directory.
	Dir string

	hookMode bool
	// readOnly opens the vault for reading only (MCP's read tools): no
	// import, no view refresh.
	readOnly bool
	repo     *gitops.Repo
	cfg      *config.Loaded
}

func (f *Factory) getenv(k string) string {
	for _, kv := range f.Env {
		if n, v, ok := strings.Cut(kv, "="); ok && n == k {
			return v
		}
	}
	return ""
}

// Active reports whether scribe is running inside scribe (GIT_SCRIBE_ACTIVE).
func (f *Factory) Active() bool { return f.getenv(gitops.ActiveEnv) != "" }

// SkipActive is the guard of every writing command: inside scribe (an agent
// scribe started, a hook of scribe's own commit) it says so on stderr and
// the command does nothing.
func (f *Factory) SkipActive() bool {
	if !f.Active() {
		return false
	}
	fmt.Fprintln(f.IO.ErrOut, "git-scribe: GIT_SCRIBE_ACTIVE is set (called from inside scribe); doing nothing")
	return true
}

// hookSetUp is the guard of every --hook command: a directory that is no
// git work tree, or a repository never set up with git scribe init
// (gitops.Repo.SetUp), is left alone — exit 0, nothing written.
func (f *Factory) hookSetUp(ctx context.Context) bool {
	r, err := f.Repo(ctx)
	if err != nil {
		return false
	}
	return r.SetUp(ctx)
}

// Repo discovers the repository once.
func (f *Factory) Repo(ctx context.Context) (*gitops.Repo, error) {
	if f.repo != nil {
		return f.repo, nil
	}
	dir := f.Dir
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("cannot change to %s: no such directory", dir)}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	r, err := gitops.Discover(ctx, dir)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w; run git scribe inside a git work tree or pass -C <path>", err)}
	}
	// Queued records are redacted before they are written, like the vault.
	r.Redact = redact
	f.repo = r
	return r, nil
}

// Config loads the effective configuration once.
func (f *Factory) Config(ctx context.Context) (*config.Loaded, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	wt := ""
	if r, err := f.Repo(ctx); err == nil {
		wt = r.WorkTree
	}
	c, err := config.Load(wt, f.Env)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if f.IO != nil {
		for _, w := range c.Warnings {
			fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", w)
		}
	}
	f.cfg = c
	return c, nil
}

// Vault opens the repository's vault with the secret redactor plugged in.
func (f *Factory) Vault(ctx context.Context) (*vault.Vault, error) {
	r, err := f.Repo(ctx)
	if err != nil {
		return nil, err
	}
	c, err := f.Config(ctx)
	if err != nil {
		return nil, err
	}
	r.NetworkTimeout = c.Sync.NetworkTimeout
	if c.Sync.RemoteLock && r.RemoteLock == "" {
		// sync.remote_lock: every write also locks on the remote. When no
		// remote can be named, writes defer on "origin" (clearly, queued)
		// rather than run unlocked; reads are unaffected.
		if r.RemoteLock, err = resolveRemoteLock(ctx, r, c.Config); err != nil {
			r.RemoteLock = "origin"
		}
	}
	v := &vault.Vault{Repo: r, Config: c.Config, Redact: redact,
		Notify: func(msg string) { fmt.Fprintln(f.IO.ErrOut, "git-scribe: "+msg) }, ReadOnly: f.readOnly}
	// One landing for every kind the queue holds: memory's confirmed
	// writes land with the wrap's records.
	v.Landers = map[string]vault.Lander{memory.KindMemory: func(ctx context.Context) (int, string, []string) {
		st, err := f.Memory(ctx)
		if err != nil {
			return 0, err.Error(), nil
		}
		rep := st.LandPending(ctx)
		return rep.Landed, rep.Reason, rep.Warns
	}, dispatch.KindDispatch: func(ctx context.Context) (int, string, []string) {
		// Landing writes what the agents made before; it calls no agent.
		return dispatch.New(dispatch.Options{Repo: r, Config: c.Config, Env: f.Env, Redact: redact}).LandPending(ctx)
	}}
	return v, nil
}

func redact(s string) string {
	out, _ := secrets.Redact(s)
	return out
}

// printJSON writes v as indented JSON.
func printJSON(ios *IOStreams, v any) error {
	enc := json.NewEncoder(ios.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
