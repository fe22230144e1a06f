package vault

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// Redactor removes secrets from text before it reaches a vault file; the
// caller plugs in the real one (vault stays free of the scanner's weight).
type Redactor func(string) string

// Vault is a repository's scribe-managed files and the way they are written.
type Vault struct {
	Repo   *gitops.Repo
	Config config.Config
	Redact Redactor
	Now    func() time.Time
	// Prose, when set, writes a wrap's prose with an agent (see ProseWriter).
	Prose ProseWriter
	// NoRemoteLock lands queued writes that asked for a remote lock without
	// it (the person's explicit --no-remote-lock).
	NoRemoteLock bool
	// Notify receives one-time notices for the person (the vault import).
	Notify func(string)
	// ReadOnly makes reads write nothing: no import of tracked vault files
	// (Migrate), no view refresh (RenderView). Read-only MCP tools set it.
	ReadOnly bool
	// Landers land the queue's other kinds of deferred write (memory's
	// confirmed writes), keyed by queue kind: Drain and Wrap call them, so
	// one landing serves every kind the queue holds.
	Landers map[string]Lander

	migrated bool
	tip      string // vaultTip's memo
	tipKnown bool
	infos    map[string]gitops.CommitInfo // commitInfos' memo
	// prepared and prefetched say PrepareWrite and PrefetchWrapReads ran:
	// a command starts them once (its cmd, and Wrap for other callers).
	prepared, prefetched bool
	// dashboard is the ACTIVE-STATUS dashboard last regenerated;
	// regenerated counts the regenerations (the tests count them).
	dashboard   *dashboardMemo
	regenerated int
	// parsedSessions are the session records parsed at a vault commit.
	parsedSessions map[string]map[string]notes.Session
	// sessionParses are session records parsed by their bytes: a write's
	// Build reads back the records the command parsed at its start.
	sessionParses   map[string]notes.Session
	sessionParsesMu sync.Mutex
	// sessionCache is the journaled records' parses kept across processes
	// (sessioncache.go); yamlParses counts the YAML parses (the tests).
	sessionCache *sessionCache
	yamlParses   int
	// infosAhead is a commitInfos read started early (prefetchInfos).
	infosAhead *infoPrefetch

	// tracked is the view paths' listing in the index, started early by
	// prefetchTracked so it runs beside a command's other reads.
	tracked *trackedListing
	// followups is the regenerations' cache (followupCache).
	followups *followups.Cache
}

// trackedListing is one `git ls-files` of the view paths, in flight or done.
type trackedListing struct {
	paths []string // sorted: what was asked
	done  chan struct{}
	out   []byte
	err   error
}

// Lander lands the queued records of one kind, oldest first; it reports
// how many landed and, when some still wait, why.
type Lander func(ctx context.Context) (landed int, waiting string, warns []string)

// landOthers runs the landers of the kinds present in queued.
func (v *Vault) landOthers(ctx context.Context, queued []gitops.QueueItem) (landed int, waiting string, warns []string) {
	kinds := map[string]bool{}
	for _, it := range queued {
		kinds[it.Kind] = true
	}
	for kind, land := range v.Landers {
		if !kinds[kind] {
			continue
		}
		n, w, ws := land(ctx)
		landed += n
		warns = append(warns, ws...)
		if w != "" && waiting == "" {
			waiting = w
		}
	}
	return landed, waiting, warns
}

func (v *Vault) now() time.Time {
	if v.Now != nil {
		return v.Now().In(v.Config.Location())
	}
	return time.Now().In(v.Config.Location())
}

func (v *Vault) redact(s string) string {
	if v.Redact == nil || s == "" {
		return s
	}
	return v.Redact(s)
}

func (v *Vault) redactAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = v.redact(s)
	}
	return out
}

// ownPaths are the view files, scribe-written directories and agent
// scratch; they never count as a session's changes.
func (v *Vault) ownPaths() []string {
	p := v.Config.Paths
	own := []string{p.BridgeNote, p.Journal, p.JournalArchive, p.ActiveStatus}
	// memory_dir holds only what the compound gate wrote after a person's
	// yes (records, MEMORY.md, the rejection history): never session work.
	if d := strings.Trim(p.MemoryDir, "/"); d != "" && d != "." {
		own = append(own, d)
	}
	// Agent scratch (Claude Code's own worktrees, …) is not the person's work.
	return append(own, agentScratch...)
}

// managedPaths are every file scribe writes, including progress.md.
func (v *Vault) managedPaths() map[string]bool {
	m := map[string]bool{v.Config.Paths.Progress: true, v.Config.Paths.ClaudeMD: true}
	for _, p := range v.ownPaths() {
		m[p] = true
	}
	return m
}

func (v *Vault) lockOptions(purpose string) gitops.LockOptions {
	return gitops.LockOptions{Timeout: v.Config.LockTimeout, Purpose: purpose}
}

// remoteLockFor is the remote whose locks a landing takes: the repository's
// (--remote-lock, sync.remote_lock), else the one a queued plan asked for —
// a write queued because the remote was unreachable is never landed
// unlocked unless the person said --no-remote-lock.
func (v *Vault) remoteLockFor(plans []Plan) string {
	if v.Repo.RemoteLock != "" || v.NoRemoteLock {
		return v.Repo.RemoteLock
	}
	for _, p := range plans {
		if p.RemoteLock != "" {
			return p.RemoteLock
		}
	}
	return ""
}
