package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// Queue record kinds.
const (
	// KindPlan is a wrap that could not commit (or ran detached).
	KindPlan = "plan"
	// KindCommit is a commit recorded by the post-commit hook.
	KindCommit = "commit"
	// KindRoute is a person's follow-up routing that could not commit.
	KindRoute = "route"
)

// CommitRecord is what the post-commit hook queues for one commit.
type CommitRecord struct {
	SHA      string   `json:"sha"`
	Time     int64    `json:"time,omitempty"` // committer time, Unix seconds
	Subject  string   `json:"subject"`
	Files    []string `json:"files"`
	Added    int      `json:"added"`
	Deleted  int      `json:"deleted"`
	Progress []string `json:"progress,omitempty"`
}

// RecordedSHA is the commit a queued commit record names; "" for any other
// record, or one unreadable.
func RecordedSHA(it gitops.QueueItem) string {
	var c CommitRecord
	if it.Kind != KindCommit || json.Unmarshal(it.Payload, &c) != nil {
		return ""
	}
	return c.SHA
}

// queueContents splits queued records into plans and (enriched) commit
// records, skipping ones a crashed run already committed. landable are the
// records a successful landing removes.
func (v *Vault) queueContents(ctx context.Context, queued []gitops.QueueItem) (plans []Plan, records []CommitRecord, landable []gitops.QueueItem, ids []string, warns []string) {
	landedBefore := v.landedQueueIDs(ctx, queued)
	var recItems []gitops.QueueItem
	for _, it := range queued {
		if landedBefore[it.ID] {
			landable = append(landable, it) // committed before a crash; just forget it
			continue
		}
		switch it.Kind {
		case KindPlan:
			var p Plan
			if err := json.Unmarshal(it.Payload, &p); err != nil {
				warns = append(warns, fmt.Sprintf("queued record %s is unreadable and was left in place: %v", it.ID, err))
				continue
			}
			plans = append(plans, p)
			ids = append(ids, it.ID)
			landable = append(landable, it)
		case KindCommit:
			var c CommitRecord
			if err := json.Unmarshal(it.Payload, &c); err != nil || c.SHA == "" {
				warns = append(warns, fmt.Sprintf("queued record %s is unreadable and was left in place", it.ID))
				continue
			}
			records = append(records, c)
			recItems = append(recItems, it)
		}
	}
	fates, err := v.enrich(ctx, records)
	if err != nil {
		warns = append(warns, err.Error())
	}
	records = records[:0]
	held := len(fates) > 0 && v.sessionHoldsCommits(ctx)
	for i, f := range fates {
		if f.fate == recordLand && held {
			f.fate = recordKeep // an open session journals it, once, when it ends
		}
		switch f.fate {
		case recordLand:
			records = append(records, f.rec)
			ids = append(ids, recItems[i].ID)
			landable = append(landable, recItems[i])
		case recordDrop:
			landable = append(landable, recItems[i])
		}
	}
	sort.SliceStable(records, func(i, j int) bool { return records[i].Time < records[j].Time })
	return plans, records, landable, ids, warns
}

type recordFate int

const (
	recordLand recordFate = iota // on this branch: journal it
	recordKeep                   // on another branch only: wait for a wrap there
	recordDrop                   // amended away, reset or pruned: nothing to journal
)

type fatedRecord struct {
	rec  CommitRecord
	fate recordFate
}

// enrich fills in what the post-commit hook's fast path left out (it records
// only the sha): subject, files, stats and progress items, read from the
// immutable commit with one git process. It also decides each record's fate:
// only commits in HEAD's history are journaled here; a commit no branch
// reaches any more (amended, reset) is dropped, one on another branch waits,
// and one that concluded a conflicted merge or cherry-pick, not a session's
// own, is dropped (the reflog tells: gitops.NotOwnCommits).
func (v *Vault) enrich(ctx context.Context, recs []CommitRecord) ([]fatedRecord, error) {
	out := make([]fatedRecord, len(recs))
	var need []string
	for i, r := range recs {
		out[i] = fatedRecord{rec: r}
		if r.Subject == "" {
			need = append(need, r.SHA)
		}
	}
	if len(recs) == 0 {
		return out, nil
	}
	infos, err := v.commitInfos(ctx, need)
	if err != nil {
		for i := range out {
			out[i].fate = recordKeep
		}
		return out, err
	}
	head, _ := v.Repo.Head(ctx)
	shas := make([]string, len(recs))
	for i, r := range recs {
		shas[i] = r.SHA
	}
	notOwn := v.Repo.NotOwnCommits(shas)
	for i, r := range recs {
		if notOwn[r.SHA] {
			out[i].fate = recordDrop // a merge or cherry-pick concluded after a conflict
			continue
		}
		if ci, ok := infos[r.SHA]; ok && r.Subject == "" {
			if ci.Missing {
				out[i].fate = recordDrop
				continue
			}
			r = RecordFromCommit(ci.SHA, ci.Subject, ci.Body, ci.Files, ci.Added, ci.Deleted)
			r.Time = ci.Time
			out[i].rec = r
		}
		switch {
		case head.Commit != "" && v.Repo.IsAncestor(ctx, r.SHA, head.Commit):
			out[i].fate = recordLand
		case v.Repo.OnAnyBranch(ctx, r.SHA):
			out[i].fate = recordKeep
		default:
			out[i].fate = recordDrop
		}
	}
	return out, nil
}

// commitInfos is gitops.Repo.CommitInfos, read once per command: a wrap
// plans with the queued commits and lands them, and a commit does not
// change (on git/git each read of a 3-file commit's numstat took 100 ms).
func (v *Vault) commitInfos(ctx context.Context, shas []string) (map[string]gitops.CommitInfo, error) {
	if p := v.infosAhead; p != nil {
		<-p.done
		v.infosAhead = nil
		if p.err == nil {
			if v.infos == nil {
				v.infos = map[string]gitops.CommitInfo{}
			}
			for k, ci := range p.got {
				v.infos[k] = ci
			}
		}
	}
	var need []string
	for _, s := range shas {
		if _, ok := v.infos[s]; !ok {
			need = append(need, s)
		}
	}
	if len(need) > 0 {
		got, err := v.Repo.CommitInfos(ctx, need)
		if err != nil {
			return nil, err
		}
		if v.infos == nil {
			v.infos = map[string]gitops.CommitInfo{}
		}
		for k, ci := range got {
			v.infos[k] = ci
		}
	}
	out := make(map[string]gitops.CommitInfo, len(shas))
	for _, s := range shas {
		if ci, ok := v.infos[s]; ok {
			out[s] = ci
		}
	}
	return out, nil
}

// infoPrefetch is one commitInfos read running in the background.
type infoPrefetch struct {
	done chan struct{}
	got  map[string]gitops.CommitInfo
	err  error
}

// prefetchInfos starts reading the queued commit records' commits (their
// numstat is a wrap's or a Stop's second costliest read) beside the reads
// that come before their use; commitInfos waits for it.
func (v *Vault) prefetchInfos(ctx context.Context, queued []gitops.QueueItem) {
	var shas []string
	for _, it := range queued {
		var c CommitRecord
		if it.Kind == KindCommit && json.Unmarshal(it.Payload, &c) == nil && c.SHA != "" && c.Subject == "" {
			if _, read := v.infos[c.SHA]; !read {
				shas = append(shas, c.SHA)
			}
		}
	}
	if len(shas) == 0 || v.infosAhead != nil {
		return
	}
	p := &infoPrefetch{done: make(chan struct{})}
	v.infosAhead = p
	go func() {
		defer close(p.done)
		p.got, p.err = v.Repo.CommitInfos(ctx, shas)
	}()
}

// RecordFromCommit builds a commit record, reading the progress items a
// commit names: a "progress: ITEM done" subject or "Progress: ITEM" trailers.
func RecordFromCommit(sha, subject, body string, files []string, added, deleted int) CommitRecord {
	r := CommitRecord{SHA: sha, Subject: subject, Files: files, Added: added, Deleted: deleted}
	if rest, ok := strings.CutPrefix(subject, "progress: "); ok {
		if item, ok := strings.CutSuffix(strings.TrimSpace(rest), " done"); ok && strings.TrimSpace(item) != "" {
			r.Progress = append(r.Progress, strings.TrimSpace(item))
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "Progress: "); ok && strings.TrimSpace(item) != "" {
			r.Progress = append(r.Progress, strings.TrimSpace(item))
		}
	}
	return r
}

// landed is what one landing wrote: the vault commit (journal, bridge
// notes, ACTIVE-STATUS) and the branch commit of progress ticks, each
// zero when nothing changed there.
type landed struct {
	Vault  gitops.CommitResult
	Branch gitops.CommitResult
	Ticked []string
	// TicksQueued says why ticks wait for a later command ("" when none do).
	TicksQueued string
}

// land writes plans, queued plans and commit records: progress ticks, a
// person's decision for the branch (principle 3), as one branch commit of
// progress.md; everything else as one commit on refs/scribe/vault. Then it
// removes the queued records it landed. Ticks go first: they are
// idempotent, so a kill before the vault commit re-runs them harmlessly,
// and ticks that cannot be made now are queued on their own before the
// records that carried them are removed.
func (v *Vault) land(ctx context.Context, plans []Plan, queued []gitops.QueueItem) (landed, int, []string, error) {
	var out landed
	qplans, records, landedItems, ids, warns := v.queueContents(ctx, queued)
	all := append([]Plan{}, qplans...)
	if p, ok := v.planFromCommits(records, plans); ok {
		all = append(all, p)
	}
	all = append(all, plans...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].DoneAt.Before(all[j].DoneAt) })
	if len(all) == 0 {
		if err := v.Repo.Dequeue(landedItems); err != nil {
			warns = append(warns, err.Error())
		}
		return out, len(landedItems), warns, nil
	}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return out, 0, warns, err
	}

	// Ticks, per branch they were meant for: this branch's land now.
	var ticks []Plan
	for _, p := range all {
		if len(p.Done) > 0 && p.Modes.Has(notes.ModeProgress) {
			ticks = append(ticks, p)
		}
	}
	if len(ticks) > 0 {
		res, ticked, err := v.tick(ctx, head, ticks)
		warns = append(warns, res.Warnings...)
		out.Branch, out.Ticked = res, ticked
		var de *gitops.DeferredError
		switch {
		case errors.As(err, &de):
			out.TicksQueued = de.Reason
			for _, p := range ticks {
				if p.Branch == "" {
					p.Branch = head.Ref
				}
				if _, qerr := v.Repo.Enqueue(KindPlan, de.Reason, Plan{Modes: notes.Modes{notes.ModeProgress}, Row: "progress ticks",
					Summary: strings.Join(p.Done, ", ") + " done", Done: p.Done, DoneAt: p.DoneAt, Branch: p.Branch, RemoteLock: p.RemoteLock}); qerr != nil {
					return out, 0, warns, notRecorded("the progress tick of "+strings.Join(p.Done, ", "), de, qerr)
				}
			}
		case err != nil:
			return out, 0, warns, err
		}
	}

	var locks []string
	var modes notes.Modes
	for _, p := range all {
		for _, m := range p.Modes {
			if !modes.Has(m) {
				modes = append(modes, m)
			}
		}
		if p.Entry != nil {
			locks = append(locks, "journal")
		}
		if p.Bridge != nil {
			locks = append(locks, "bridge")
		}
		if p.Session != nil {
			locks = append(locks, "session")
		}
	}
	modes = notes.Canonical(modes)
	bridgeOf := func(p Plan) string {
		if p.Branch != "" {
			return notes.BridgeVaultPath(p.Branch)
		}
		return notes.BridgeVaultPath(head.Ref)
	}
	var touched []string
	for _, l := range dedup(locks) {
		switch l {
		case "journal":
			touched = append(touched, notes.VaultJournal, notes.VaultArchive)
		case "bridge":
			for _, p := range all {
				if p.Bridge != nil {
					touched = append(touched, bridgeOf(p))
				}
			}
		case "session":
			for _, p := range all {
				if p.Session != nil {
					touched = append(touched, notes.SessionVaultPath(p.Session.ID))
				}
				for _, id := range p.Prune {
					touched = append(touched, notes.SessionVaultPath(id))
				}
			}
		}
	}
	touched = dedup(touched)
	// ACTIVE-STATUS.md rides along, declared and locked only when it may change.
	var status *activeStatusUpdate
	var statusWarns []string
	if !allSessionTurns(all) {
		// A session's turn leaves the dashboard to its finalisation: a
		// Stop stays cheap.
		status, statusWarns = v.activeStatusFor(ctx, all, touched)
	}
	warns = append(warns, statusWarns...)
	if status != nil {
		touched = append(touched, notes.VaultActiveStatus)
		locks = append(locks, LockActiveStatus)
	}
	if len(touched) > 0 {
		req := gitops.CommitRequest{
			Paths:       touched,
			Locks:       locks,
			LockOptions: v.lockOptions("wrap"),
			Build: func(cur map[string][]byte) (map[string][]byte, error) {
				res := map[string][]byte{}
				var entries []notes.Entry
				var onlyUncovered []bool
				for _, p := range all {
					if p.Entry != nil {
						entries = append(entries, *p.Entry)
						onlyUncovered = append(onlyUncovered, p.OnlyUncovered)
					}
				}
				v.appendJournal(cur, res, entries, func(journal string, i int) bool {
					return onlyUncovered[i] && coveredAlready(journal, entries[i].Commits)
				})
				done := map[string]bool{}
				for i := len(all) - 1; i >= 0; i-- {
					bp := bridgeOf(all[i])
					if all[i].Bridge == nil || done[bp] {
						continue
					}
					if r := all[i].ReplacesBridge; r != "" && r != string(cur[bp]) {
						continue // agent prose for a note a newer one already replaced
					}
					res[bp] = []byte(all[i].Bridge.Render())
					done[bp] = true
				}
				for _, p := range all {
					if p.Session == nil {
						continue
					}
					sp := notes.SessionVaultPath(p.Session.ID)
					if have, err := v.parseSession(cur[sp]); err == nil && staleTurn(*p.Session, have) {
						continue
					}
					res[sp] = p.renderSession()
				}
				for _, p := range all {
					for _, id := range p.Prune {
						sp := notes.SessionVaultPath(id)
						if _, written := res[sp]; written {
							continue
						}
						if have, err := v.parseSession(cur[sp]); err == nil && prunable(have) {
							res[sp] = nil // deleted; an older vault commit keeps it
						}
					}
				}
				if b, ok := status.build(cur, res); ok {
					res[notes.VaultActiveStatus] = b
				}
				return res, nil
			},
			Message: func(changed []string) string {
				return commitMessage(all, modes, out.Ticked, ids)
			},
		}
		req.RemoteLock = v.remoteLockFor(all)
		res, err := v.commitVault(ctx, req)
		warns = append(warns, res.Warnings...)
		out.Vault = res
		if err != nil || speculating(ctx) {
			return out, 0, warns, err
		}
		if status != nil && status.built != nil {
			if key, err := v.dashboardKey(ctx); err == nil {
				v.keepDashboard(key, *status.built) // the audit after the wrap reads it
			}
		}
	}
	for _, f := range v.Repo.TakeFailures() {
		warns = append(warns, "post-commit hook failure (reported once): "+f)
	}
	if err := v.Repo.Dequeue(landedItems); err != nil {
		warns = append(warns, err.Error())
	}
	return out, len(landedItems), warns, nil
}

// tick makes the branch commit of progress ticks (principle 3): exactly
// progress.md, built on HEAD, signed when the user signs. Plans made on
// another branch wait for it.
func (v *Vault) tick(ctx context.Context, head gitops.Head, plans []Plan) (gitops.CommitResult, []string, error) {
	rel := v.Config.Paths.Progress
	branch := ""
	for _, p := range plans {
		if p.Branch != "" {
			branch = p.Branch
		}
	}
	var ticked []string
	req := gitops.CommitRequest{
		Paths:       []string{rel},
		Branch:      branch,
		Idempotent:  true, // a ticked box is not ticked again
		Locks:       []string{"progress"},
		LockOptions: v.lockOptions("progress"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			ticked = ticked[:0]
			prog, ok := cur[rel]
			if !ok {
				return nil, nil
			}
			text := string(prog)
			for _, p := range plans {
				for _, item := range p.Done {
					it, err := notes.Match(notes.ParseProgress(text), item)
					if err != nil {
						continue
					}
					var changed bool
					if text, changed = notes.Tick(text, it, p.DoneAt.In(v.Config.Location())); changed {
						ticked = append(ticked, it.Text)
					}
				}
			}
			if text == string(prog) {
				return nil, nil
			}
			return map[string][]byte{rel: []byte(text)}, nil
		},
		Message: func([]string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "progress: %s\n\n", notes.Truncate(notes.OneLine(strings.Join(ticked, ", ")+" done"), 72))
			for _, t := range ticked {
				fmt.Fprintf(&b, "- [x] %s\n", t)
			}
			fmt.Fprintf(&b, "\n%s: progress\n", gitops.TrailerMode)
			return b.String()
		},
	}
	req.RemoteLock = v.remoteLockFor(plans)
	res, err := v.Repo.CommitPaths(ctx, req)
	if res.SHA == "" {
		ticked = nil
	}
	return res, ticked, err
}

// coveredEntry is the idempotency check of one entry: the same entry id
// already in the journal, or (for entries built from post-commit records)
// every commit it names already named.
func coveredEntry(journal string, e notes.Entry, onlyUncovered bool) bool {
	if e.ID != "" && strings.Contains(journal, "<!-- scribe:entry "+e.ID+" -->") {
		return true
	}
	return onlyUncovered && coveredAlready(journal, e.Commits)
}

// coveredAlready is the idempotency check: an entry whose commits are all
// named by the journal already is not written again.
func coveredAlready(journal string, commits []string) bool {
	if len(commits) == 0 {
		return false
	}
	j := notes.ParseJournal(journal)
	for _, c := range commits {
		if !notes.HasCommit(j, c) {
			return false
		}
	}
	return true
}

func commitMessage(all []Plan, modes notes.Modes, ticked []string, ids []string) string {
	var main []Plan
	for _, p := range all {
		if p.Entry != nil || p.Bridge != nil {
			main = append(main, p)
		}
	}
	var subject string
	switch {
	case len(main) == 0 && len(ticked) > 0:
		subject = strings.Join(ticked, ", ") + " done"
	case len(main) == 0:
		subject = all[len(all)-1].Summary
	case len(main) == 1:
		subject = main[0].Summary
	default:
		subject = fmt.Sprintf("%s (+%d queued wrap%s)", main[len(main)-1].Summary, len(main)-1, notes.Plural(len(main)-1))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "progress: %s\n\n", notes.Truncate(notes.OneLine(subject), 72))
	for _, t := range ticked {
		fmt.Fprintf(&b, "- [x] %s\n", t)
	}
	if len(ticked) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s: %s\n", gitops.TrailerMode, strings.ReplaceAll(modes.String(), "+", ","))
	if fp := all[len(all)-1].Fingerprint; fp != "" {
		fmt.Fprintf(&b, "Scribe-Fingerprint: %s\n", fp)
	}
	if len(ids) > 0 {
		fmt.Fprintf(&b, "Scribe-Queue: %s\n", strings.Join(ids, ","))
	}
	return b.String()
}

// landedQueueIDs finds queue records a previous run already committed (it
// crashed before removing them): their ids are in a Scribe-Queue trailer.
func (v *Vault) landedQueueIDs(ctx context.Context, queued []gitops.QueueItem) map[string]bool {
	done := map[string]bool{}
	if len(queued) == 0 {
		return done
	}
	// Bounded by commits, not matches: a crash leaves its commit near the tip.
	tip, err := v.vaultTip(ctx)
	if err != nil {
		return done
	}
	log, err := v.Repo.VaultLog(ctx, tip, 50)
	if err != nil {
		return done
	}
	for _, c := range log {
		for _, id := range strings.Split(c.Trailers["Scribe-Queue"], ",") {
			if id = strings.TrimSpace(id); id != "" {
				done[id] = true
			}
		}
	}
	return done
}

// planFromCommits turns commits recorded by the post-commit hook into a plan:
// their progress ticks always land; a journal entry naming them is written
// when the dispatch table says so (3+ files) and no wrap in this landing
// already covers them.
func (v *Vault) planFromCommits(recs []CommitRecord, others []Plan) (Plan, bool) {
	if len(recs) == 0 {
		return Plan{}, false
	}
	covered := map[string]bool{}
	for _, p := range others {
		for _, c := range p.Commits {
			covered[c] = true
		}
	}
	now := v.now()
	p := Plan{DoneAt: now, OnlyUncovered: true}
	files := map[string]bool{}
	var add, del int
	var subjects []string
	uncovered := false
	for _, r := range recs {
		p.Done = append(p.Done, r.Progress...)
		if covered[shortSHA(r.SHA)] {
			continue
		}
		uncovered = true
		p.Commits = append(p.Commits, shortSHA(r.SHA))
		subjects = append(subjects, r.Subject)
		for _, f := range r.Files {
			files[f] = true
		}
		add += r.Added
		del += r.Deleted
	}
	var list []string
	for f := range files {
		list = append(list, f)
	}
	sort.Strings(list)
	if uncovered {
		p.Modes, p.Row = notes.Dispatch(notes.Situation{Files: len(list)})
	}
	if p.Modes.Has(notes.ModeJournal) {
		summary := fmt.Sprintf("%d commit%s recorded", len(p.Commits), notes.Plural(len(p.Commits)))
		if len(subjects) == 1 {
			summary = subjects[0]
		}
		p.Summary = notes.Truncate(v.redact(notes.OneLine(summary)), 72)
		p.Entry = &notes.Entry{ID: entryID(now), Time: now, Summary: p.Summary, Scope: v.scope(list), Result: "shipped",
			Notable: fmt.Sprintf("+%d −%d; %s", add, del, v.redact(listFew(subjects, 3))), Commits: p.Commits, Modes: p.Modes.String()}
	} else {
		p.Modes = nil
	}
	if len(p.Done) > 0 {
		p.Modes = notes.Canonical(append(p.Modes, notes.ModeProgress))
		if p.Summary == "" {
			p.Summary = strings.Join(p.Done, ", ") + " done"
		}
	}
	if len(p.Modes) == 0 {
		return Plan{}, false
	}
	return p, true
}

// Drain lands whatever is queued as one commit; synchronous commands call it
// first. It reports how many records landed and why any are still waiting.
func (v *Vault) Drain(ctx context.Context) (landed int, waiting string, err error) {
	// Sessions that went idle are over: their one journal entry first.
	if rep, ferr := v.FinaliseSessions(ctx, EndIdle, notes.WrapInput{}); ferr == nil {
		landed += len(rep.Finalised)
	}
	queued, qerr := v.Repo.Queued()
	if len(queued) == 0 {
		return landed, "", qerr
	}
	v.Migrate(ctx)
	others, owaiting, _ := v.landOthers(ctx, queued)
	_, n, _, err := v.land(ctx, nil, queued)
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		return others, de.Reason, nil
	}
	if err != nil {
		return n + others, owaiting, err
	}
	routed, _ := v.LandQueuedRoutes(ctx)
	return n + routed + others, owaiting, nil
}

// staleTurn reports whether a turn's record must not replace the one the
// vault has: a newer turn of the session landed first, or the session was
// journaled since this turn was queued (reopened, it would be journaled
// twice), or the vault's is a later record of the session (one that went
// on after its journaled record, continuedSession). A record started after
// the vault's is that later record, and replaces it.
func staleTurn(turn, have notes.Session) bool {
	switch {
	case turn.Started.After(have.Started):
		return false
	case turn.Started.Before(have.Started):
		return true
	}
	return have.Stops > turn.Stops || (!have.Open() && turn.Open())
}

// allSessionTurns reports whether every plan is a session's turn (a record
// and a bridge note, no entry, no ticks).
func allSessionTurns(all []Plan) bool {
	for _, p := range all {
		if p.Session == nil || p.Entry != nil || len(p.Done) > 0 {
			return false
		}
	}
	return len(all) > 0
}
