package cmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-scribe/git-scribe/memory"
)

// Memory opens the repository's memory store with the secret redactor
// plugged in (as Vault does for the vault).
func (f *Factory) Memory(ctx context.Context) (*memory.Store, error) {
	r, err := f.Repo(ctx)
	if err != nil {
		return nil, err
	}
	c, err := f.Config(ctx)
	if err != nil {
		return nil, err
	}
	project := c.Project
	if project == "" {
		project = filepath.Base(r.WorkTree)
	}
	return &memory.Store{Repo: r, Config: c.Config, Redact: redact, ProjectID: project,
		UniversalDir: expandHome(c.Memory.UniversalDir, f.getenv("HOME"))}, nil
}

// expandHome resolves a leading "~/" against home.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// abstractor gathers the identifiers abstraction strips: the repository's
// names, its work tree and the home directory, the people (git user.name,
// the login, the remote's owner) and the remote's host.
func (f *Factory) abstractor(ctx context.Context) memory.Abstractor {
	var a memory.Abstractor
	r, err := f.Repo(ctx)
	if err != nil {
		return a
	}
	a.RepoNames = append(a.RepoNames, filepath.Base(r.WorkTree))
	a.Roots = append(a.Roots, r.WorkTree)
	if real, err := filepath.EvalSymlinks(r.WorkTree); err == nil && real != r.WorkTree {
		a.Roots = append(a.Roots, real)
	}
	if h := f.getenv("HOME"); h != "" && h != "/" {
		a.Roots = append(a.Roots, h)
		a.Users = append(a.Users, filepath.Base(h))
	}
	for _, k := range []string{"USER", "LOGNAME"} {
		if u := f.getenv(k); u != "" && u != "root" {
			a.Users = append(a.Users, u)
		}
	}
	if out, err := r.Git(ctx, "config", "user.name"); err == nil {
		name := strings.TrimSpace(string(out))
		a.Users = append(a.Users, name)
		a.Users = append(a.Users, strings.Fields(name)...)
	}
	if out, err := r.Git(ctx, "config", "user.email"); err == nil {
		if local, _, ok := strings.Cut(strings.TrimSpace(string(out)), "@"); ok {
			a.Users = append(a.Users, local)
		}
	}
	if out, err := r.Git(ctx, "remote", "get-url", "origin"); err == nil {
		host, owner, repo := parseRemote(strings.TrimSpace(string(out)))
		if host != "" {
			a.Hosts = append(a.Hosts, host)
		}
		if owner != "" {
			a.Users = append(a.Users, owner)
		}
		if repo != "" {
			a.RepoNames = append(a.RepoNames, repo)
		}
	}
	return a
}

// parseRemote splits https://host/owner/repo(.git) and git@host:owner/repo.
func parseRemote(u string) (host, owner, repo string) {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
		if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
			rest = rest[at+1:]
		}
		host, rest, _ = strings.Cut(rest, "/")
	} else if at := strings.Index(rest, "@"); at >= 0 {
		rest = rest[at+1:]
		host, rest, _ = strings.Cut(rest, ":")
	} else {
		return "", "", ""
	}
	host, _, _ = strings.Cut(host, ":")
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if len(parts) >= 2 {
		owner, repo = parts[len(parts)-2], strings.TrimSuffix(parts[len(parts)-1], ".git")
	}
	return host, owner, repo
}

// openMemoryForWrite opens the memory store for a command that may write,
// first landing what the queue holds (landQueue).
func openMemoryForWrite(ctx context.Context, f *Factory) (*memory.Store, error) {
	st, err := f.Memory(ctx)
	if err != nil {
		return nil, err
	}
	landPendingMemory(ctx, f, st)
	return st, nil
}

// landPendingMemory is landQueue for the memory commands, which open the
// store themselves.
func landPendingMemory(ctx context.Context, f *Factory, _ *memory.Store) { landQueue(ctx, f) }

// landQueue is the one landing every synchronous command runs first: every
// kind of deferred write the queue holds (wraps, post-commit records,
// ticks, routings, confirmed memory writes, dispatch passes) through
// vault.Vault.Drain, and what happened on stderr.
func landQueue(ctx context.Context, f *Factory) {
	if f.Active() {
		return
	}
	v, err := f.Vault(ctx)
	if err != nil {
		return
	}
	if q, _ := v.Repo.Queued(); len(q) == 0 {
		return
	}
	n, waiting, err := v.Drain(ctx)
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: landing queued writes failed: %v\n", err)
	}
	if n > 0 {
		fmt.Fprintf(f.IO.ErrOut, "landed %d queued write(s)\n", n)
	}
	if waiting != "" {
		fmt.Fprintf(f.IO.ErrOut, "queued writes still wait: %s\n", waiting)
	}
}

// notConfirmed is the refusal when nobody can say yes: nothing written,
// exit 1, and how to confirm.
func notConfirmed(what, how string) error {
	return &ExitError{Code: ExitFindings, Err: fmt.Errorf("nothing written: %s needs a person's yes; run this in a terminal to answer, or %s", what, how)}
}

// runGh runs the GitHub CLI found on PATH.
func runGh(f *Factory, args ...string) ([]byte, error) {
	gh, err := lookPath("gh", f.getenv("PATH"))
	if err != nil {
		return nil, fmt.Errorf("%w: install the GitHub CLI (https://cli.github.com) to submit", err)
	}
	c := exec.Command(gh, args...)
	c.Env = f.Env
	c.Stderr = f.IO.ErrOut
	return c.Output()
}

// lookPath finds name on the given PATH (the factory's environment, not
// necessarily the process's).
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH", name)
}

// MemoryStatus is the memory part of `git scribe status`.
type MemoryStatus struct {
	Candidates    int      `json:"candidates"`     // waiting for the gate
	Held          int      `json:"held,omitempty"` // their detector is disabled
	PendingWrites int      `json:"pending_writes"` // confirmed, not committed yet
	Disabled      []string `json:"disabled_detectors,omitempty"`
}

// memoryStatus reads the compound queue and memory's pending writes; nil
// when there is nothing to say.
func memoryStatus(ctx context.Context, f *Factory) *MemoryStatus {
	st, err := f.Memory(ctx)
	if err != nil {
		return nil
	}
	show, held, _ := st.Presentable()
	ms := &MemoryStatus{Candidates: len(show), Held: len(held), PendingWrites: st.PendingCount()}
	for _, d := range memory.Detectors() {
		if until, off := st.DisabledUntil(d); off {
			ms.Disabled = append(ms.Disabled, d+" until "+until.Format("2006-01-02 15:04"))
		}
	}
	if ms.Candidates+ms.Held+ms.PendingWrites+len(ms.Disabled) == 0 {
		return nil
	}
	return ms
}

func renderMemoryStatus(ios *IOStreams, ms *MemoryStatus) {
	if ms == nil {
		return
	}
	var parts []string
	if ms.Candidates > 0 {
		parts = append(parts, fmt.Sprintf("%d candidate(s) wait for git scribe compound gate", ms.Candidates))
	}
	if ms.Held > 0 {
		parts = append(parts, fmt.Sprintf("%d held (detector disabled)", ms.Held))
	}
	if ms.PendingWrites > 0 {
		parts = append(parts, fmt.Sprintf("%d confirmed write(s) pending", ms.PendingWrites))
	}
	for _, d := range ms.Disabled {
		parts = append(parts, "detector "+d)
	}
	fmt.Fprintf(ios.Out, "%s %s\n", ios.Bold("memory:"), strings.Join(parts, "; "))
}
