package vault

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/sentence"
	"github.com/git-scribe/git-scribe/notes"
)

// Plan is a wrap's result before it lands: durable, so it can be queued.
type Plan struct {
	Modes       notes.Modes       `json:"modes"`
	Row         string            `json:"row"`
	Summary     string            `json:"summary"`
	Entry       *notes.Entry      `json:"entry,omitempty"`
	Bridge      *notes.BridgeNote `json:"bridge,omitempty"`
	Done        []string          `json:"done,omitempty"`
	DoneAt      time.Time         `json:"done_at"`
	Fingerprint string            `json:"fingerprint,omitempty"`
	Commits     []string          `json:"commits,omitempty"`
	Head        string            `json:"head,omitempty"` // HEAD the plan was computed at
	// Branch is the branch the plan was made on (refs/heads/…): its bridge
	// note is that branch's, its ticks land only on that branch.
	Branch string `json:"branch,omitempty"`
	// OnlyUncovered skips the journal entry when the journal already names
	// every commit (plans built from post-commit records).
	OnlyUncovered bool `json:"only_uncovered,omitempty"`
	// RemoteLock is the remote whose lock the write was asked to take: a
	// queued plan lands only under it (or with --no-remote-lock).
	RemoteLock string `json:"remote_lock,omitempty"`
	// ReplacesBridge, when set, is the exact bridge note this plan's note
	// replaces: agent prose made detached for a Stop hook's wrap lands only
	// while the deterministic note it rewrote is still the current one.
	ReplacesBridge string `json:"replaces_bridge,omitempty"`
	// Session, when set, is the session record this plan writes
	// (sessions/<id>.yaml): a Stop's update or a session's finalisation.
	Session *notes.Session `json:"session,omitempty"`
	// Prune names journaled session records this plan removes from the
	// vault (pruneSessions): every command reads every record, so the
	// finished ones must not pile up. Their history stays in the vault's.
	Prune []string `json:"prune,omitempty"`

	lastFingerprint string // of the newest scribe commit, read while planning
	// rendered is Session rendered ahead (renderAhead), beside the Stop's
	// last read.
	rendered *sessionRender
}

// WrapReport is what wrap did, for people and for --json.
type WrapReport struct {
	Status  string               `json:"status"` // committed | queued | nothing | dry-run
	Reason  string               `json:"reason"`
	Row     string               `json:"dispatch_row,omitempty"`
	Modes   notes.Modes          `json:"modes"`
	Files   []string             `json:"files,omitempty"`
	Commits []string             `json:"commits,omitempty"`
	Commit  *gitops.CommitResult `json:"commit,omitempty"`
	// BranchCommit is the commit of progress ticks on the branch, the one
	// write a wrap makes there (a person's --done).
	BranchCommit *gitops.CommitResult `json:"branch_commit,omitempty"`
	QueueID      string               `json:"queue_id,omitempty"`
	Landed       int                  `json:"landed_from_queue"`
	Entry        string               `json:"journal_entry,omitempty"`
	Bridge       string               `json:"bridge_note,omitempty"`
	Ticks        []string             `json:"progress_ticks,omitempty"`
	Warnings     []string             `json:"warnings,omitempty"`
}

// shortSHA is how commits are named in journal entries.
func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// Wrap persists a session per seed 000's dispatch table: it reads the
// session's changes from the repo (or takes them from in), decides the modes,
// writes bridge note, journal entry and progress ticks as one `progress:`
// commit, and lands anything queued with it. When the commit cannot be made
// now the plan is queued and the report says why.
func (v *Vault) Wrap(ctx context.Context, in notes.WrapInput) (WrapReport, error) {
	v.PrefetchWrapReads(ctx)
	if !in.DryRun {
		v.Repo.ReapDeadLocks(ctx)
		v.PrepareWrite(ctx)
	}
	rep, err := v.wrap(ctx, in)
	if err == nil && !in.DryRun && rep.Commit == nil {
		// No vault commit here to refresh the view: catch up one a killed
		// write left behind.
		rep.Warnings = append(rep.Warnings, v.RefreshStaleView(ctx)...)
	}
	return rep, err
}

// PrefetchWrapReads starts the reads a wrap's plan takes beside each
// other: the work tree's state (the largest read on a big repository), the
// vault's recent history (the queue's landed ids, the last fingerprint)
// and its session listing. Each is waited for by its use; unused (an
// explicit wrap that ends a session) it is dropped.
func (v *Vault) PrefetchWrapReads(ctx context.Context) {
	if v.prefetched {
		return // the command started them already (cmd, then Wrap)
	}
	v.prefetched = true
	if head, err := v.Repo.Head(ctx); err == nil {
		v.Repo.PrefetchWorktree(ctx, v.ownPaths(), head.Commit)
	}
	if tip, err := v.vaultTip(ctx); err == nil && tip != "" {
		go v.Repo.VaultLog(ctx, tip, 50)
		go v.Repo.ListFiles(ctx, tip, notes.VaultSessionsDir)
	}
}

// PrepareWrite starts, beside a wrap's first reads, what its write will
// wait for: the view paths' listing in the index, the queued commits'
// numstat and, when records are queued (they land: the wrap writes), the
// commit's identities. Each is taken by its use, or left unused.
func (v *Vault) PrepareWrite(ctx context.Context) {
	if v.ReadOnly || v.prepared {
		return
	}
	v.prepared = true
	if head, err := v.Repo.Head(ctx); err == nil {
		v.prefetchTracked(ctx, head)
	}
	queued, err := v.Repo.Queued()
	if err != nil || len(queued) == 0 {
		return
	}
	v.prefetchInfos(ctx, queued)
	// The queued commits land in a journal entry and the bridge note: the
	// commit's identities are read beside the reads.
	v.Repo.PrepareIdent(ctx)
}

func (v *Vault) wrap(ctx context.Context, in notes.WrapInput) (WrapReport, error) {
	rep := WrapReport{Modes: notes.Modes{}}
	forced, isForced, err := notes.ParseModes(in.Mode)
	if err != nil {
		return rep, err
	}
	queued, qerr := v.Repo.Queued()
	if qerr != nil {
		rep.Warnings = append(rep.Warnings, qerr.Error())
	}
	var records []CommitRecord
	covered := map[string]bool{}
	if len(queued) > 0 {
		var qplans []Plan
		qplans, records, _, _, _ = v.queueContents(ctx, queued)
		for _, qp := range qplans {
			for _, c := range qp.Commits {
				covered[c] = true
			}
		}
	}
	plan, files, err := v.plan(ctx, in, forced, isForced, records, covered)
	if err != nil {
		return rep, err
	}
	rep.Files = files
	rep.Row = plan.Row
	rep.Commits = plan.Commits

	var plans []Plan
	if len(plan.Modes) > 0 {
		// Re-running after success changes nothing: no new commits since the
		// last scribe commit, and the same uncommitted state and inputs.
		if len(plan.Commits) == 0 && plan.Fingerprint != "" && plan.lastFingerprint == plan.Fingerprint {
			rep.Status, rep.Reason = "nothing", "already wrapped: the last scribe commit recorded exactly these changes"
			plan.Modes = nil
		} else {
			rep.Warnings = append(rep.Warnings, v.writeProse(ctx, &plan, in.DryRun)...)
			plans = append(plans, plan)
		}
	}
	if len(plans) == 0 && len(queued) == 0 {
		if rep.Status == "" {
			rep.Status, rep.Reason = "nothing", plan.Row
		}
		return rep, nil
	}
	rep.Modes = plan.Modes
	if in.DryRun {
		rep.Status, rep.Reason = "dry-run", "nothing written (--dry-run)"
		rep.fill(plans)
		rep.Landed = len(queued)
		return rep, nil
	}
	res, landed, warns, err := v.land(ctx, plans, queued)
	rep.Warnings = append(rep.Warnings, warns...)
	rep.fill(plans)
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		if len(plans) == 0 {
			rep.Status, rep.Reason = "queued", fmt.Sprintf("%d queued record(s) still waiting: %s", len(queued), de.Reason)
			return rep, nil
		}
		plan.RemoteLock = v.Repo.RemoteLock
		if res.Branch.SHA != "" || res.TicksQueued != "" {
			plan.Done, plan.Modes = nil, plan.Modes.Without(notes.ModeProgress) // the ticks are settled already
		}
		it, qerr := v.Repo.Enqueue("plan", de.Reason, plan)
		if qerr != nil {
			return rep, notRecorded("this wrap", de, qerr)
		}
		rep.Status, rep.Reason, rep.QueueID = "queued", de.Reason, it.ID
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	routed, warns := v.LandQueuedRoutes(ctx)
	others, owaiting, owarns := v.landOthers(ctx, queued)
	rep.Landed = landed + routed + others
	rep.Warnings = append(append(rep.Warnings, warns...), owarns...)
	if owaiting != "" {
		rep.Warnings = append(rep.Warnings, "queued writes still wait: "+owaiting)
	}
	rep.Ticks = res.Ticked
	if res.TicksQueued != "" {
		rep.Warnings = append(rep.Warnings, "progress ticks queued: "+res.TicksQueued)
	}
	if res.Branch.SHA != "" {
		rep.BranchCommit = &res.Branch
	}
	if res.Vault.SHA == "" && res.Branch.SHA == "" {
		rep.Status, rep.Reason = "nothing", "the vault already says this; no commit made"
		if len(plans) == 0 && plan.Row != "" {
			// This wrap planned nothing itself: say the dispatch table's
			// reason, not the landing's.
			rep.Reason = plan.Row
		}
		return rep, nil
	}
	rep.Status, rep.Reason = "committed", plan.Row
	if res.Vault.SHA != "" {
		rep.Commit = &res.Vault
	}
	if len(plans) == 0 {
		rep.Reason = "landed queued records"
	}
	return rep, nil
}

// notRecorded is the error of a write that could be neither committed nor
// queued (a full disk with no room even for the queue record): nothing is
// lost silently, the person is told to run it again.
func notRecorded(what string, de *gitops.DeferredError, qerr error) error {
	return fmt.Errorf("%s was not recorded: it could not be committed (%s) and queueing it failed too (%w); free some space, or make the git dir writable, and run it again", what, de.Reason, qerr)
}

func (rep *WrapReport) fill(plans []Plan) {
	for _, p := range plans {
		if p.Entry != nil {
			rep.Entry = p.Entry.Render()
		}
		if p.Bridge != nil {
			rep.Bridge = p.Bridge.Render()
		}
		if p.Modes.Has(notes.ModeProgress) {
			rep.Ticks = append(rep.Ticks, p.Done...)
		}
	}
}

// Plan computes what a wrap would write without writing it.
//
// Commits the post-commit hook recorded join the plan: the entry names them
// and their files count toward the dispatch table.
func (v *Vault) plan(ctx context.Context, in notes.WrapInput, forced notes.Modes, isForced bool, records []CommitRecord, covered map[string]bool) (Plan, []string, error) {
	now := v.now()
	p := Plan{DoneAt: now}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return p, nil, err
	}
	p.Head, p.Branch = head.Commit, head.Ref
	var ch gitops.Changes
	var files []string
	var notable string
	base := in.Base
	if base != "" {
		if base, err = v.Repo.ResolveCommit(ctx, base); err != nil {
			return p, nil, &notes.UsageError{Msg: "--base: " + err.Error()}
		}
	} else {
		base = v.journaledBase(ctx, head.Commit)
	}
	p.lastFingerprint = v.lastFingerprint(ctx)
	if len(in.ChangedFiles) > 0 || in.DiffSummary != "" {
		// The artifacts describe the change; the repo still names the commits.
		files = in.ChangedFiles
		notable = in.DiffSummary
		if head.Commit != "" && base != "" && base != head.Commit {
			if ch.Commits, err = v.Repo.CommitsBetween(ctx, base, head.Commit); err != nil {
				return p, nil, err
			}
		}
	} else {
		var known []gitops.Commit
		if base != "" {
			if _, cs, ok := v.recordedRange(head.Commit, base); ok {
				known = cs // the range's commits without listing them
			}
		}
		if ch, err = v.Repo.ReadChangesOf(ctx, base, head.Commit, v.ownPaths(), known); err != nil {
			return p, nil, err
		}
		// Commits a queued wrap already covers count as journaled: landing
		// the queue writes their entry (principle 7).
		if len(covered) > 0 && len(ch.Commits) > 0 {
			var left []gitops.Commit
			for _, c := range ch.Commits {
				if !covered[shortSHA(c.SHA)] {
					left = append(left, c)
				}
			}
			if len(left) == 0 {
				ch.Committed = nil
			}
			ch.Commits = left
		}
		if err := v.dropScribeChanges(ctx, &ch); err != nil {
			return p, nil, err
		}
		files = ch.Files()
		notable = diffSummary(ch)
	}
	// Scribe's own commits (a wrap, a tick, a dispatch pass) are not the
	// session's work: never named, never counted.
	own := ch.Commits[:0]
	for _, c := range ch.Commits {
		if !c.Scribe {
			own = append(own, c)
		}
	}
	ch.Commits = own
	inRange := map[string]bool{}
	for _, c := range ch.Commits {
		inRange[shortSHA(c.SHA)] = true
	}
	var recorded []gitops.Commit
	var recAdd, recDel int
	for _, r := range records {
		if id := shortSHA(r.SHA); !inRange[id] {
			inRange[id] = true
			recorded = append(recorded, gitops.Commit{SHA: r.SHA, Subject: r.Subject})
			files = append(files, r.Files...)
			recAdd += r.Added
			recDel += r.Deleted
		}
	}
	if len(recorded) > 0 && notable != "" && len(in.ChangedFiles) == 0 && in.DiffSummary == "" {
		ch.Committed = append(ch.Committed, gitops.FileChange{Path: "", Added: recAdd, Deleted: recDel})
		notable = diffSummary(ch)
	}
	ch.Commits = append(recorded, ch.Commits...)
	files = dedup(files)
	for _, c := range ch.Commits {
		p.Commits = append(p.Commits, shortSHA(c.SHA))
	}
	uncommitted := len(ch.Staged)+len(ch.Unstaged)+len(ch.Untracked) > 0
	sit := notes.Situation{Loop: in.Loop, SessionEnd: in.SessionEnd, Trivial: in.Trivial, Files: len(files),
		Unfinished: in.Hint != "" || len(in.Next) > 0 || uncommitted || in.Urgent != ""}
	p.Modes, p.Row = notes.Dispatch(sit)
	if isForced {
		p.Modes, p.Row = forced, "mode forced: "+forced.String()
	}
	if len(in.Done) > 0 && !p.Modes.Has(notes.ModeProgress) {
		// A person who says --done ITEM wants it ticked, whatever the
		// dispatch table decides for the rest (it used to be dropped
		// silently unless the mode included progress).
		p.Modes = notes.Canonical(append(p.Modes, notes.ModeProgress))
		p.Row += "; --done ticks progress.md"
	}
	if len(p.Modes) == 0 {
		return p, files, nil
	}

	hint := v.redact(notes.OneLine(in.Hint))
	witness := notes.ParseWitness(v.redact(in.Witness))
	// A commit subject can stand in for the hint: it passes the redactor too.
	p.Summary = v.redact(summarise(hint, ch, files))
	if p.Modes.Has(notes.ModeJournal) {
		e := notes.Entry{ID: entryID(now), Time: now, Summary: p.Summary, Scope: v.scope(files), Result: result(in, uncommitted),
			Notable: v.redact(notable), Tests: v.redact(notes.OneLine(in.Tests)), Commits: p.Commits, Modes: p.Modes.String(),
			Next: v.redactAll(in.Next)}
		if p.Modes.Has(notes.ModeWitness) || in.Witness != "" {
			e.Witness = witness
		}
		if in.LoopReport != "" {
			e.Notable = strings.TrimSpace(e.Notable + "; loop report: " + v.redact(notes.OneLine(in.LoopReport)))
		}
		if p.Modes.Has(notes.ModeProgress) {
			e.Done = v.redactAll(in.Done)
		}
		p.Entry = &e
	}
	if p.Modes.Has(notes.ModeBridge) {
		b := notes.BridgeNote{Urgent: v.redact(notes.OneLine(in.Urgent)), Updated: now, Commit: head.Commit,
			Witness: notes.FinalVerdict(witness), OpenQuestions: v.redactAll(in.Questions), Traps: v.redactAll(in.Traps)}
		if hint != "" {
			b.Context = append(b.Context, hint)
		}
		if len(files) > 0 {
			// File names pass the redactor too (a token in a file name).
			b.Context = append(b.Context, fmt.Sprintf("Changed %s: %s.", changeCount(ch, files), v.fileList(files, 5)))
			b.Cites = v.citeable(files, 10)
		}
		if in.Loop == "discard" {
			b.Context = append(b.Context, "The last approach was discarded; see the journal for why.")
		}
		for _, n := range v.redactAll(in.Next) {
			b.CarryForward = append(b.CarryForward, n)
		}
		if uncommitted {
			var paths []string
			for _, set := range [][]gitops.FileChange{ch.Staged, ch.Unstaged} {
				for _, f := range set {
					paths = append(paths, f.Path)
				}
			}
			paths = append(paths, ch.Untracked...)
			b.CarryForward = append(b.CarryForward, fmt.Sprintf("Uncommitted work remains in %s.", v.fileList(dedup(paths), 4)))
		}
		p.Bridge = &b
	}
	if p.Modes.Has(notes.ModeProgress) {
		p.Done = in.Done
	}
	p.Fingerprint = fingerprint(ch, in, p.Modes)
	return p, files, nil
}

// fingerprint identifies a wrap's uncommitted state and inputs; commits are
// identified by the journal naming them.
func fingerprint(ch gitops.Changes, in notes.WrapInput, m notes.Modes) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", m, in.Base)
	for _, set := range [][]gitops.FileChange{ch.Staged, ch.Unstaged} {
		for _, f := range set {
			fmt.Fprintf(h, "%s %s %d %d\n", f.Status, f.Path, f.Added, f.Deleted)
		}
	}
	for _, u := range ch.Untracked {
		fmt.Fprintf(h, "? %s\n", u)
	}
	fmt.Fprintf(h, "%q %q %q %q %q %q %v %v %q %q %q\n", in.Loop, in.Hint, in.Tests, in.Witness, in.LoopReport, in.Urgent,
		in.SessionEnd, in.Trivial, in.Done, in.Next, in.ChangedFiles)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func dedup(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// summarise is the deterministic one-line summary: the hint's first sentence,
// else the only commit's subject when that commit is all the change, else a
// count.
func summarise(hint string, ch gitops.Changes, files []string) string {
	s := hint
	if i := sentence.FirstEnd(s); i > 0 {
		s = s[:i]
	}
	// The only commit's subject says it all only when nothing else changed.
	if s == "" && len(ch.Commits) == 1 && len(ch.Staged)+len(ch.Unstaged)+len(ch.Untracked) == 0 {
		s = ch.Commits[0].Subject
	}
	if s == "" {
		s = "Changed " + changeCount(ch, files)
	}
	return notes.Truncate(s, 72)
}

func changeCount(ch gitops.Changes, files []string) string {
	s := fmt.Sprintf("%d file%s", len(files), notes.Plural(len(files)))
	if n := len(ch.Commits); n > 0 {
		s += fmt.Sprintf(" in %d commit%s", n, notes.Plural(n))
	}
	return s
}

func listFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// citeable keeps up to n plain repo paths (cites are stored comma-joined),
// never scribe-managed ones: scribe's own ticks would make the note look
// stale.
func (v *Vault) citeable(files []string, n int) []string {
	managed := v.managedPaths()
	var out []string
	for _, f := range v.redactAll(files) {
		if managed[f] || strings.ContainsAny(f, ",\n") || strings.Contains(f, "-->") {
			continue
		}
		out = append(out, f)
		if len(out) == n {
			break
		}
	}
	return out
}

// fileList names a few file names for a note: they pass the redactor like
// every text (a token in a file name), as in scope and citeable.
func (v *Vault) fileList(files []string, n int) string { return listFew(v.redactAll(files), n) }

// scope names the top-level areas touched.
func (v *Vault) scope(files []string) string {
	count := map[string]int{}
	var order []string
	for _, f := range v.redactAll(files) {
		top := f
		if i := strings.IndexByte(f, '/'); i >= 0 {
			top = f[:i+1]
		} else {
			top = path.Base(f)
		}
		if count[top] == 0 {
			order = append(order, top)
		}
		count[top]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	if len(order) == 0 {
		return "no file changes"
	}
	return fmt.Sprintf("%s (%d file%s)", listFew(order, 6), len(files), notes.Plural(len(files)))
}

func result(in notes.WrapInput, uncommitted bool) string {
	switch {
	case in.Result != "":
		return in.Result
	case in.Loop == "discard":
		return "reverted"
	case in.Loop == "keep":
		return "shipped"
	case uncommitted:
		return "partial"
	default:
		return "shipped"
	}
}

// diffSummary is the journal's "Notable" diffstat: totals, binaries,
// renames and submodules, never file contents.
func diffSummary(ch gitops.Changes) string {
	var add, del int
	var bins, renames, subs []string
	for _, set := range [][]gitops.FileChange{ch.Committed, ch.Staged, ch.Unstaged} {
		for _, f := range set {
			add += f.Added
			del += f.Deleted
			switch {
			case f.Submodule:
				subs = append(subs, f.Path)
			case f.Binary:
				bins = append(bins, f.Path)
			}
			if f.OldPath != "" {
				renames = append(renames, f.OldPath+" → "+f.Path)
			}
		}
	}
	parts := []string{fmt.Sprintf("+%d −%d", add, del)}
	if n := len(ch.Staged) + len(ch.Unstaged); n > 0 {
		parts = append(parts, fmt.Sprintf("%d uncommitted change%s", n, notes.Plural(n)))
	}
	if n := len(ch.Untracked); n > 0 {
		parts = append(parts, fmt.Sprintf("%d untracked file%s", n, notes.Plural(n)))
	}
	if len(bins) > 0 {
		parts = append(parts, "binary: "+listFew(dedup(bins), 3))
	}
	if len(renames) > 0 {
		parts = append(parts, "renamed: "+listFew(dedup(renames), 3))
	}
	if len(subs) > 0 {
		parts = append(parts, "submodules: "+listFew(dedup(subs), 3))
	}
	return strings.Join(parts, "; ")
}

// Queue computes a wrap's plan and queues it without committing: the
// detached half of `wrap --background` (principle 11: detached work never
// moves a branch).
func (v *Vault) Queue(ctx context.Context, in notes.WrapInput, reason string) (WrapReport, error) {
	rep := WrapReport{Modes: notes.Modes{}}
	forced, isForced, err := notes.ParseModes(in.Mode)
	if err != nil {
		return rep, err
	}
	plan, files, err := v.plan(ctx, in, forced, isForced, nil, nil)
	if err != nil {
		return rep, err
	}
	rep.Files, rep.Row, rep.Commits, rep.Modes = files, plan.Row, plan.Commits, plan.Modes
	if len(plan.Modes) == 0 {
		rep.Status, rep.Reason = "nothing", plan.Row
		return rep, nil
	}
	rep.Warnings = append(rep.Warnings, v.writeProse(ctx, &plan, false)...)
	plan.RemoteLock = v.Repo.RemoteLock
	it, err := v.Repo.Enqueue(KindPlan, reason, plan)
	if err != nil {
		return rep, err
	}
	rep.fill([]Plan{plan})
	rep.Status, rep.Reason, rep.QueueID = "queued", reason, it.ID
	return rep, nil
}

// entryID is unique per entry: the time plus random bits.
func entryID(t time.Time) string {
	b := make([]byte, 4)
	rand.Read(b)
	return fmt.Sprintf("%s-%s", t.UTC().Format("20060102T150405Z"), hex.EncodeToString(b))
}

// lastFingerprint is the Scribe-Fingerprint of the newest vault commit
// that has one, within a bounded walk of the vault's history.
func (v *Vault) lastFingerprint(ctx context.Context) string {
	tip, err := v.vaultTip(ctx)
	if err != nil || tip == "" {
		return ""
	}
	log, err := v.Repo.VaultLog(ctx, tip, 50)
	if err != nil {
		return ""
	}
	for _, c := range log {
		if fp := c.Trailers["Scribe-Fingerprint"]; fp != "" {
			return fp
		}
	}
	return ""
}

// journaledBase is where a wrap's range starts: the newest commit the
// journal (at head) already names that is in head's history. Other scribe
// commits (ticks, dispatch, memory) do not end a range: they journal nothing.
// "" means no journaled commit: the range is head's own commit.
func (v *Vault) journaledBase(ctx context.Context, head string) string {
	if head == "" {
		return ""
	}
	v.Migrate(ctx)
	_, files, err := v.ReadVault(ctx, notes.VaultJournal)
	if err != nil {
		return ""
	}
	j := notes.ParseJournal(string(files[notes.VaultJournal]))
	var cands []string // newest first
	for i := len(j.Entries) - 1; i >= 0; i-- {
		cs := j.Entries[i].Commits
		for k := len(cs) - 1; k >= 0; k-- {
			if isHexID(cs[k]) { // hand-edited text never reaches git
				cands = append(cands, cs[k])
			}
		}
	}
	if len(cands) == 0 {
		return ""
	}
	// A default wrap after hooked commits knows head's chain back to the
	// newest journaled commit from the queued records: no git process.
	if base, _, ok := v.recordedRange(head, cands[0]); ok {
		return base
	}
	// Nearly always the newest journaled commit is in head's history: one
	// merge-base says so and gives its full id (the merge base of an
	// ancestor of head and head is that ancestor).
	if out, err := v.Repo.Git(ctx, "merge-base", cands[0], head); err == nil {
		if f := strings.TrimSpace(string(out)); strings.HasPrefix(f, strings.ToLower(cands[0])) {
			return f
		}
	}
	// Else two processes however many entries: one resolves every
	// abbreviation, one says which are in head's history.
	cands = cands[1:]
	full, err := v.Repo.ResolveCommits(ctx, cands)
	if err != nil || len(full) == 0 {
		return ""
	}
	var ids []string
	for _, c := range cands {
		if f := full[c]; f != "" {
			ids = append(ids, f)
		}
	}
	inHead := v.Repo.Reachable(ctx, head, ids)
	for _, c := range cands {
		if f := full[c]; f != "" && inHead[f] {
			return f
		}
	}
	return ""
}

// recordedRange walks head's history through the commits the post-commit
// hook recorded (their infos, read with the queue) to the commit whose id
// starts with base: its full id, and the commits after it, oldest first,
// as CommitsBetween lists them. ok is false where the walk leaves what was
// recorded — a merge, a commit made without the hook, a commit whose
// message names scribe's mode trailer — and git is asked instead.
func (v *Vault) recordedRange(head, base string) (string, []gitops.Commit, bool) {
	base = strings.ToLower(base)
	if head == "" || base == "" {
		return "", nil, false
	}
	var chain []gitops.Commit
	for cur := head; len(chain) <= len(v.infos); {
		if strings.HasPrefix(cur, base) {
			slices.Reverse(chain)
			return cur, chain, true
		}
		ci, ok := v.infos[cur]
		if !ok || ci.Missing || len(ci.Parents) != 1 || strings.Contains(strings.ToLower(ci.Body), strings.ToLower(gitops.TrailerMode)) {
			return "", nil, false
		}
		chain = append(chain, gitops.Commit{SHA: ci.SHA, Subject: ci.Subject})
		cur = ci.Parents[0]
	}
	return "", nil, false
}

// isHexID reports whether s can be a (possibly abbreviated) object id.
func isHexID(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for _, c := range strings.ToLower(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// dropScribeChanges keeps scribe's own commits in the range (a project rule,
// a trap record, a dispatch pass) from counting as the session's changes:
// when the range holds any, the committed changes are re-read from the
// person's commits alone.
func (v *Vault) dropScribeChanges(ctx context.Context, ch *gitops.Changes) error {
	var people []string
	scribe := false
	for _, c := range ch.Commits {
		if c.Scribe {
			scribe = true
		} else {
			people = append(people, c.SHA)
		}
	}
	if !scribe {
		return nil
	}
	ch.Committed = nil
	if len(people) == 0 {
		return nil
	}
	infos, err := v.commitInfos(ctx, people)
	if err != nil {
		return err
	}
	own := map[string]bool{}
	for _, p := range v.ownPaths() {
		own[p] = true
	}
	at := map[string]int{}
	for _, sha := range people {
		ci := infos[sha]
		for i, f := range ci.Files {
			if own[f] {
				continue
			}
			k, ok := at[f]
			if !ok {
				k = len(ch.Committed)
				at[f] = k
				ch.Committed = append(ch.Committed, gitops.FileChange{Path: f, Status: "M"})
			}
			if i < len(ci.Stats) {
				ch.Committed[k].Added += ci.Stats[i].Added
				ch.Committed[k].Deleted += ci.Stats[i].Deleted
			}
		}
	}
	return nil
}
