package vault

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// LockActiveStatus is the ref lock (refs/scribe/locks/active-status) every
// write of ACTIVE-STATUS.md holds.
const LockActiveStatus = "active-status"

// maxSourceBytes caps one follow-up source; a bigger file is not read
// whole, and the dashboard names it (its follow-ups are missing, said so).
const maxSourceBytes = 32 << 20

// sourcePattern is one configured source glob and the kind it yields.
type sourcePattern struct {
	kind    followups.SourceKind
	pattern string
}

func (v *Vault) sourcePatterns() []sourcePattern {
	f := v.Config.Followups
	var out []sourcePattern
	for _, p := range f.Actives {
		out = append(out, sourcePattern{followups.SourceActive, p})
	}
	for _, p := range f.Todos {
		out = append(out, sourcePattern{followups.SourceTodos, p})
	}
	for _, p := range f.Progress {
		out = append(out, sourcePattern{followups.SourceProgress, p})
	}
	return out
}

// sourceGlobs are the valid source patterns as git pathspecs (":(glob)",
// where "*" stops at a slash as in path.Match, and "**/" is any number of
// directories: each matches at least what its path.Match does).
func (v *Vault) sourceGlobs() []string {
	var out []string
	for _, sp := range v.sourcePatterns() {
		if gitops.CheckRelPath(sp.pattern) == nil {
			out = append(out, ":(glob)"+sp.pattern)
		}
	}
	return out
}

// projectFromPath reads the project (and task) a source path names: the
// path segments matched by the pattern's first (and second) wildcard
// segment.
func projectFromPath(pattern, rel string) (project, task string) {
	ps, rs := strings.Split(pattern, "/"), strings.Split(rel, "/")
	if len(ps) != len(rs) {
		return "", ""
	}
	n := 0
	for i, seg := range ps {
		if !strings.ContainsAny(seg, "*?[") {
			continue
		}
		switch n {
		case 0:
			project = rs[i]
		case 1:
			task = rs[i]
		}
		n++
	}
	return project, task
}

// FollowupSources reads every durable follow-up source that exists, from
// the work tree: the journal and archive, then each configured pattern's
// files. ACTIVE-STATUS.md itself is never a source. over replaces the work
// tree's text of a path (a nil value: the path is absent) — the texts a
// commit being built is writing. Each file's Time is its last commit's
// time, or its modification time when it has uncommitted changes or was
// never committed.
func (v *Vault) FollowupSources(ctx context.Context, over map[string][]byte) ([]followups.SourceFile, []string, error) {
	var warns []string
	seen := map[string]bool{v.Config.Paths.ActiveStatus: true}
	var srcs []followups.SourceFile
	// A source a sparse checkout leaves out of the work tree is still a
	// source: the dashboard is the whole vault's, not this checkout's.
	skipped := map[string][]byte{}
	var patterns []string
	for _, sp := range v.sourcePatterns() {
		if gitops.CheckRelPath(sp.pattern) == nil {
			patterns = append(patterns, sp.pattern)
		}
	}
	if names, err := v.Repo.SkippedFiles(ctx, patterns); err != nil {
		warns = append(warns, "follow-up sources outside the sparse checkout skipped: "+err.Error())
	} else if len(names) > 0 {
		if skipped, err = v.Repo.ReadIndexFiles(ctx, names); err != nil {
			warns = append(warns, "follow-up sources outside the sparse checkout skipped: "+err.Error())
		}
		for _, rel := range slices.Sorted(maps.Keys(skipped)) {
			if b := skipped[rel]; len(b) > maxSourceBytes {
				delete(skipped, rel)
				warns = append(warns, fmt.Sprintf("follow-up source %s skipped: %d bytes is over the %d MB limit", rel, len(b), maxSourceBytes>>20))
			}
		}
	}
	add := func(kind followups.SourceKind, rel, pattern string) {
		if seen[rel] {
			return
		}
		seen[rel] = true
		src := followups.SourceFile{Kind: kind, Path: rel}
		if pattern != "" {
			src.Project, src.Task = projectFromPath(pattern, rel)
		}
		if b, ok := over[rel]; ok {
			if b == nil {
				return
			}
			// Written by the commit being built: it changes now.
			src.Text, src.Time = string(b), v.commitTime()
			srcs = append(srcs, src)
			return
		}
		if b, ok := skipped[rel]; ok {
			// Outside a sparse checkout: the index's copy.
			src.Text = string(b)
			srcs = append(srcs, src)
			return
		}
		abs, err := v.Repo.Abs(rel)
		if err != nil {
			warns = append(warns, fmt.Sprintf("follow-up source %s skipped: %v", rel, err))
			return
		}
		fi, err := os.Stat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if fi.Size() > maxSourceBytes {
			why := fmt.Sprintf("%d MB is over the %d MB a source may have; split it", fi.Size()>>20, maxSourceBytes>>20)
			warns = append(warns, fmt.Sprintf("follow-up source %s skipped: %s", rel, why))
			src.Unread = why
			srcs = append(srcs, src)
			return
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			warns = append(warns, fmt.Sprintf("follow-up source %s skipped: %v", rel, err))
			src.Unread = err.Error()
			srcs = append(srcs, src)
			return
		}
		src.Text = string(b)
		srcs = append(srcs, src)
	}
	// The journal and archive are the vault's (refs/scribe/vault); over
	// holds them under their vault paths while a vault commit is built.
	p := v.Config.Paths
	_, vf, err := v.ReadVault(ctx, notes.VaultJournal, notes.VaultArchive)
	if err != nil {
		return nil, warns, err
	}
	for _, j := range []struct {
		kind      followups.SourceKind
		vp, shown string
	}{{followups.SourceJournal, notes.VaultJournal, p.Journal}, {followups.SourceArchive, notes.VaultArchive, p.JournalArchive}} {
		b, ok := over[j.vp]
		if !ok {
			b, ok = vf[j.vp]
		}
		seen[j.shown] = true
		if ok && b != nil {
			srcs = append(srcs, followups.SourceFile{Kind: j.kind, Path: j.shown, Text: string(b)})
		}
	}
	for _, sp := range v.sourcePatterns() {
		if err := gitops.CheckRelPath(sp.pattern); err != nil {
			warns = append(warns, fmt.Sprintf("follow-up source pattern %q skipped: %v", sp.pattern, err))
			continue
		}
		matches, err := filepath.Glob(filepath.Join(v.Repo.WorkTree, filepath.FromSlash(sp.pattern)))
		if err != nil {
			warns = append(warns, fmt.Sprintf("follow-up source pattern %q skipped: %v", sp.pattern, err))
			continue
		}
		for _, m := range matches {
			rel, err := filepath.Rel(v.Repo.WorkTree, m)
			if err != nil {
				continue
			}
			add(sp.kind, filepath.ToSlash(rel), sp.pattern)
		}
		for _, rel := range slices.Sorted(maps.Keys(skipped)) {
			if ok, _ := pathMatch(sp.pattern, rel); ok {
				add(sp.kind, rel, sp.pattern)
			}
		}
		// A file the commit creates is a source before it is in the tree.
		for _, rel := range slices.Sorted(maps.Keys(over)) {
			if ok, _ := pathMatch(sp.pattern, rel); ok && over[rel] != nil {
				add(sp.kind, rel, sp.pattern)
			}
		}
	}
	if err := v.stampTimes(ctx, srcs); err != nil {
		return nil, warns, err
	}
	return srcs, warns, nil
}

// stampTimes sets each source's Time: the newest commit touching it, or
// the file's modification time when it differs from HEAD or is untracked
// (the journal and archive: always their modification time).
func (v *Vault) stampTimes(ctx context.Context, srcs []followups.SourceFile) error {
	if len(srcs) == 0 {
		return nil
	}
	// Journal items carry their entries' times; the file's own time only
	// dates text outside any entry, so the journal costs no git call.
	var rels []string
	for _, s := range srcs {
		if s.Time.IsZero() && s.Kind != followups.SourceJournal && s.Kind != followups.SourceArchive {
			rels = append(rels, s.Path)
		}
	}
	committed := map[string]time.Time{}
	dirty := map[string]bool{}
	if len(rels) > 0 {
		untracked := map[string]bool{}
		// The sources' patterns, not their hundreds of paths: git matches
		// every pathspec against every path it looks at (723 paths: 18 ms
		// of status, 3 ms with the three patterns). The patterns match a
		// superset; only the sources' records are looked up.
		spec := rels
		if globs := v.sourceGlobs(); len(globs) > 0 {
			spec = globs
		}
		if out, err := v.Repo.Git(ctx, append([]string{"status", "--porcelain", "-z", "--untracked-files=all", "--"}, spec...)...); err == nil {
			for _, rec := range strings.Split(string(out), "\x00") {
				if len(rec) > 3 {
					dirty[rec[3:]] = true
					untracked[rec[3:]] = strings.HasPrefix(rec, "??")
				}
			}
		}
		// An untracked source has no commit: asking history for it would
		// walk all of it (the log's bound counts matching commits).
		var tracked []string
		for _, r := range rels {
			if !untracked[r] {
				tracked = append(tracked, r)
			}
		}
		var err error
		if committed, err = v.Repo.LastChanged(ctx, tracked); err != nil {
			return err
		}
	}
	for i := range srcs {
		if !srcs[i].Time.IsZero() {
			continue
		}
		t, ok := committed[srcs[i].Path]
		if !ok || dirty[srcs[i].Path] {
			if abs, err := v.Repo.Abs(srcs[i].Path); err == nil {
				if fi, err := os.Stat(abs); err == nil {
					t = fi.ModTime()
				}
			}
		}
		if t.IsZero() {
			t = v.now()
		}
		srcs[i].Time = t.In(v.Config.Location()).Truncate(time.Second)
	}
	return nil
}

// pathMatch is path.Match for slash-separated repo paths.
func pathMatch(pattern, rel string) (bool, error) { return path.Match(pattern, rel) }

// commitTime is the committer time a commit made now carries: git's own
// GIT_COMMITTER_DATE when set, else the clock.
func (v *Vault) commitTime() time.Time {
	if d := os.Getenv("GIT_COMMITTER_DATE"); d != "" {
		if t, err := notes.ParseTime(d); err == nil {
			return t.In(v.Config.Location())
		}
		var sec int64
		if _, err := fmt.Sscanf(strings.TrimPrefix(d, "@"), "%d", &sec); err == nil {
			return time.Unix(sec, 0).In(v.Config.Location())
		}
	}
	return v.now().Truncate(time.Second)
}

// DefaultProject is the tag untagged follow-ups get: the configured
// project, else — when no source path names a project (a single-project
// repository) — the repository's directory name; "" in a multi-project
// repository, where an untagged item is ambiguous.
func (v *Vault) DefaultProject(srcs []followups.SourceFile) string {
	if v.Config.Project != "" {
		return v.Config.Project
	}
	for _, s := range srcs {
		if s.Project != "" {
			return ""
		}
	}
	return filepath.Base(v.Repo.WorkTree)
}

func (v *Vault) mergeOptions(srcs []followups.SourceFile) followups.MergeOptions {
	f := v.Config.Followups
	return followups.MergeOptions{Section: f.Section, Cap: f.Cap, Similarity: v.Similarity(), DefaultProject: v.DefaultProject(srcs),
		Cache: v.followupCache()}
}

// followupCache is the regenerations' cache (followups.Cache: each
// source's scan by its content, the similarity join's pairs), read once
// per process from scribe's state dir, never from the work tree.
func (v *Vault) followupCache() *followups.Cache {
	if v.followups == nil {
		b, _ := os.ReadFile(v.followupCachePath()) // none yet: an empty cache
		v.followups = followups.DecodeCache(b, gitops.BuildStamp())
	}
	return v.followups
}

// followupCachePath is the cache of this work tree's sources (worktrees
// share the state dir; the view's state is kept per work tree the same
// way, viewStateFile).
func (v *Vault) followupCachePath() string {
	return filepath.Join(v.Repo.ScribeDir(), "followups", v.Repo.WorkTreeKey())
}

// saveFollowupCache writes the cache back when a regeneration changed it:
// a temporary file renamed over the old one, so a reader sees one whole
// cache or the other. Never synced, and errors are ignored: a cache lost
// or damaged is an empty one (DecodeCache checks it), which costs one
// regeneration the work it saves, never a follow-up.
func (v *Vault) saveFollowupCache() {
	c := v.followups
	if c == nil || v.ReadOnly {
		return
	}
	path := v.followupCachePath()
	// A write killed between create and rename left its temporary file:
	// the next regeneration removes it, whether or not it saves (cache-*
	// are an older scribe's).
	if old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "cache-*")); len(old) > 0 {
		for _, o := range old {
			if fi, err := os.Stat(o); err == nil && time.Since(fi.ModTime()) > gitops.StaleTempAge {
				os.Remove(o)
			}
		}
	}
	if c.Changed() {
		gitops.WriteFileReplace(path, c.Encode())
	} else {
		gitops.TidyTemps(path)
	}
}

// ActiveStatus computes the dashboard from the durable sources as they are
// in the work tree now; it writes nothing.
func (v *Vault) ActiveStatus(ctx context.Context) (followups.Dashboard, error) {
	tip, terr := v.dashboardKey(ctx)
	if m := v.dashboard; m != nil && terr == nil && m.tip == tip && time.Since(m.at) < dashboardFresh {
		return m.d, nil
	}
	srcs, warns, err := v.FollowupSources(ctx, nil)
	if err != nil {
		return followups.Dashboard{}, err
	}
	d := followups.Regenerate(srcs, v.mergeOptions(srcs))
	v.regenerated++
	d.Audit.Warnings = append(d.Audit.Warnings, warns...)
	v.saveFollowupCache()
	if terr == nil {
		v.keepDashboard(tip, d)
	}
	return d, nil
}

// dashboardFresh is how long a command takes a dashboard it regenerated as
// the sources' for the same vault tip: a wrap asks for it when it plans
// its commit, builds it under the lock and audits it afterwards (three
// regenerations of every source were one wrap's), all within milliseconds;
// a long-running process regenerates again.
const dashboardFresh = 2 * time.Second

// dashboardKey names the state a dashboard was made from: the vault's tip
// and HEAD (a branch write, such as a routed follow-up, changes sources
// without a vault commit).
func (v *Vault) dashboardKey(ctx context.Context) (string, error) {
	tip, err := v.vaultTip(ctx)
	if err != nil {
		return "", err
	}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return "", err
	}
	return tip + " " + head.Commit, nil
}

// dashboardMemo is the dashboard last regenerated, for the state it was
// made from (or, from a commit's build, the state that commit made).
type dashboardMemo struct {
	tip string
	d   followups.Dashboard
	at  time.Time
}

func (v *Vault) keepDashboard(tip string, d followups.Dashboard) {
	v.dashboard = &dashboardMemo{tip: tip, d: d, at: time.Now()}
}

// ActiveStatusReport is what `git scribe status regenerate` did.
type ActiveStatusReport struct {
	// Status is committed, unchanged, deferred or dry-run.
	Status    string               `json:"status"`
	Reason    string               `json:"reason,omitempty"`
	Path      string               `json:"path"`
	Commit    *gitops.CommitResult `json:"commit,omitempty"`
	Dashboard followups.Dashboard  `json:"dashboard"`
	Text      string               `json:"text"`
}

// renderActiveStatus is the file's text, redacted like every vault write:
// the follow-ups shown, as plain text, before Render escapes them for
// markdown (an autolink's brackets must not split what a secret rule
// matches), then the whole file.
func (v *Vault) renderActiveStatus(d followups.Dashboard) string {
	if v.Redact != nil {
		shown := slices.Clone(d.Items[:d.Shown])
		for i := range shown {
			shown[i].Text, shown[i].Project = v.redact(shown[i].Text), v.redact(shown[i].Project)
		}
		d.Items = append(shown, d.Items[d.Shown:]...)
	}
	return v.redact(d.Render())
}

// RegenerateActiveStatus rebuilds ACTIVE-STATUS.md from the durable sources
// under the active-status lock and commits it as
// "progress: active-status regenerated" when its content changed. The
// sources are read under the lock, so concurrent regenerations serialise
// and each later one finds the file already right: N of them leave the same
// file (and at most one commit) as one.
func (v *Vault) RegenerateActiveStatus(ctx context.Context, dryRun bool) (ActiveStatusReport, error) {
	rel := notes.VaultActiveStatus
	rep := ActiveStatusReport{Path: gitops.VaultRef + ":" + rel}
	if dryRun {
		d, err := v.ActiveStatus(ctx)
		if err != nil {
			return rep, err
		}
		rep.Status, rep.Reason, rep.Dashboard, rep.Text = "dry-run", "nothing written (--dry-run)", d, v.renderActiveStatus(d)
		return rep, nil
	}
	var fingerprint string
	req := gitops.CommitRequest{
		Paths:       []string{rel},
		Locks:       []string{LockActiveStatus},
		LockOptions: v.lockOptions("active-status regenerate"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			srcs, warns, err := v.FollowupSources(ctx, nil)
			if err != nil {
				return nil, err
			}
			d := followups.Regenerate(srcs, v.mergeOptions(srcs))
			d.Audit.Warnings = append(d.Audit.Warnings, warns...)
			rep.Dashboard, rep.Text = d, v.renderActiveStatus(d)
			fingerprint = v.carriedFingerprint(ctx)
			return map[string][]byte{rel: []byte(rep.Text)}, nil
		},
		Message: func([]string) string {
			return scribeMessage("active-status regenerated", "active-status", fingerprint)
		},
	}
	res, err := v.commitVault(ctx, req)
	v.saveFollowupCache() // after the lock is released
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		if rep.Text == "" {
			d, derr := v.ActiveStatus(ctx)
			if derr != nil {
				return rep, derr
			}
			rep.Dashboard, rep.Text = d, v.renderActiveStatus(d)
		}
		rep.Status, rep.Reason = "deferred", de.Reason+"; nothing is lost: the dashboard is derived, and the next wrap or status regenerate rebuilds it"
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("regenerate %s: %w", rel, err)
	}
	if res.SHA == "" {
		rep.Status, rep.Reason = "unchanged", rel+" already says this; no commit made"
		return rep, nil
	}
	rep.Status, rep.Reason, rep.Commit = "committed", "regenerated from durable sources", &res
	return rep, nil
}

// carriedFingerprint is the wrap fingerprint of the newest scribe commit:
// a scribe commit that is not a wrap carries it on, so that wrap's "already
// wrapped" check still sees the session's last wrap.
func (v *Vault) carriedFingerprint(ctx context.Context) string {
	return v.lastFingerprint(ctx)
}

// scribeMessage is the message of a scribe commit that is not a wrap.
func scribeMessage(subject, mode, fingerprint string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "progress: %s\n\n%s: %s\n", notes.Truncate(notes.OneLine(subject), 72), gitops.TrailerMode, mode)
	if fingerprint != "" {
		fmt.Fprintf(&b, "Scribe-Fingerprint: %s\n", fingerprint)
	}
	return b.String()
}

// activeStatusUpdate regenerates ACTIVE-STATUS.md inside another commit
// (a wrap's, a routing's), from the texts that commit writes.
type activeStatusUpdate struct {
	v *Vault
	// built is the dashboard the last build made: the one of the commit.
	built *followups.Dashboard
	// overlay are the declared paths that are follow-up sources; their
	// text is taken from the commit being built.
	overlay []string
	ctx     context.Context
}

// activeStatusFor decides whether a commit writing plans may change
// ACTIVE-STATUS.md; nil when it cannot (nothing is then declared or
// locked). The dashboard may change when it is stale already, or when the
// commit adds "### Next" or "### Done" items or ticks boxes. A dashboard
// with uncommitted edits of the user's is left alone, with a warning.
func (v *Vault) activeStatusFor(ctx context.Context, plans []Plan, declared []string) (*activeStatusUpdate, []string) {
	may := false
	for _, p := range plans {
		if len(p.Done) > 0 || (p.Entry != nil && (len(p.Entry.Next) > 0 || len(p.Entry.Done) > 0)) {
			may = true
		}
	}
	return v.activeStatusUpdate(ctx, may, declared)
}

// activeStatusUpdate is activeStatusFor for a commit that changes follow-up
// sources (may) or not.
func (v *Vault) activeStatusUpdate(ctx context.Context, may bool, declared []string) (*activeStatusUpdate, []string) {
	var warns []string
	if !may {
		d, err := v.ActiveStatus(ctx)
		if err != nil {
			return nil, []string{"ACTIVE-STATUS not regenerated: " + err.Error()}
		}
		_, files, err := v.ReadVault(ctx, notes.VaultActiveStatus)
		if err != nil {
			return nil, []string{"ACTIVE-STATUS not regenerated: " + err.Error()}
		}
		if cur, exists := files[notes.VaultActiveStatus]; exists {
			may = string(cur) != v.renderActiveStatus(d)
		} else {
			may = d.Shown > 0
		}
	}
	if !may {
		return nil, nil
	}
	u := &activeStatusUpdate{v: v, ctx: ctx}
	for _, p := range declared {
		switch p {
		case notes.VaultJournal, notes.VaultArchive:
			u.overlay = append(u.overlay, p)
		default:
			for _, sp := range v.sourcePatterns() {
				if ok, _ := pathMatch(sp.pattern, p); ok {
					u.overlay = append(u.overlay, p)
					break
				}
			}
		}
	}
	return u, warns
}

// build returns the new ACTIVE-STATUS.md given the commit's current and
// new texts; ok is false when nothing should be written (unchanged, or no
// follow-ups and no file yet).
func (u *activeStatusUpdate) build(cur, out map[string][]byte) ([]byte, bool) {
	if u == nil {
		return nil, false
	}
	over := map[string][]byte{}
	for _, p := range u.overlay {
		if b, ok := out[p]; ok {
			over[p] = b
		} else {
			over[p] = cur[p] // nil when absent
		}
	}
	srcs, warns, err := u.v.FollowupSources(u.ctx, over)
	if err != nil {
		return nil, false
	}
	d := followups.Regenerate(srcs, u.v.mergeOptions(srcs))
	u.v.regenerated++
	built := d
	built.Audit.Warnings = append(slices.Clip(d.Audit.Warnings), warns...)
	u.built = &built // the dashboard of the commit this build goes into
	rel := notes.VaultActiveStatus
	old, exists := cur[rel]
	if !exists && d.Shown == 0 {
		return nil, false
	}
	text := []byte(u.v.renderActiveStatus(d))
	if exists && string(old) == string(text) {
		return nil, false
	}
	return text, true
}
