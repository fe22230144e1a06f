package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/sentence"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/transcript"
)

// Sessions, not turns (SPEC principle 12): an agent's Stop hook fires after
// every turn. A Stop updates the session's record (sessions/<id>.yaml on the
// vault) from the part of the transcript not read before and rewrites the
// branch's bridge note from the whole record; the journal gets one entry per
// session, written when the session is over (SessionEnd, an explicit wrap,
// or the next command after it went idle or a new session started).

// SessionReport is what a Stop (or a session's finalisation) did.
type SessionReport struct {
	Status  string   `json:"status"` // updated | journaled | queued | nothing
	Reason  string   `json:"reason"`
	Session string   `json:"session,omitempty"`
	Stops   int      `json:"stops,omitempty"`
	Commits []string `json:"commits,omitempty"`
	// Pending counts follow-ups kept for a person's routing (all sessions).
	Pending int `json:"pending_followups"`
	// SkippedLines counts transcript lines over the line cap.
	SkippedLines int                  `json:"skipped_lines,omitempty"`
	Entry        string               `json:"journal_entry,omitempty"`
	Bridge       string               `json:"bridge_note,omitempty"`
	Commit       *gitops.CommitResult `json:"commit,omitempty"`
	// Finalised names other sessions journaled on the way (idle, or a new
	// session started on the branch).
	Finalised []string `json:"finalised,omitempty"`
	QueueID   string   `json:"queue_id,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// Finalisation reasons, as the record's end_reason says them.
const (
	EndSessionEnd   = "session-end"
	EndExplicitWrap = "explicit wrap"
	EndIdle         = "idle"
	EndNewSession   = "new session"
)

// agentScratch are paths agents keep inside the work tree for themselves
// (Claude Code's own worktrees, Codex's): never the person's work.
var agentScratch = []string{".claude/worktrees", ".codex/worktrees"}

// Sessions reads every session record on the vault, by id.
func (v *Vault) Sessions(ctx context.Context) (map[string]notes.Session, error) {
	tip, err := v.Repo.VaultTip(ctx)
	if err != nil || tip == "" {
		return map[string]notes.Session{}, err
	}
	return v.sessionsAt(ctx, tip)
}

// writtenPaths are the vault files a write from head may change or the
// view after it shows — the journal, the archive, ACTIVE-STATUS, the
// branch's bridge note — plus more: what a command reads with the session
// records (ReadVaultFiles keeps it for the write and the view).
func (v *Vault) writtenPaths(head gitops.Head, more ...string) []string {
	return append([]string{notes.VaultJournal, notes.VaultArchive, notes.VaultActiveStatus, notes.BridgeVaultPath(head.Ref)}, more...)
}

// sessionsAt reads the session records at the vault commit tip. also are
// vault paths read with them, for the write that follows (ReadVaultFiles
// keeps them): a Stop's bridge note and its own record.
func (v *Vault) sessionsAt(ctx context.Context, tip string, also ...string) (map[string]notes.Session, error) {
	// A wrap reads them up to three times (the sessions it finalises, the
	// queue's landing twice): parse once per tip, hand out copies.
	if m, ok := v.parsedSessions[tip]; ok && tip != "" {
		if len(also) > 0 {
			v.Repo.ReadVaultFiles(ctx, tip, also)
		}
		out := make(map[string]notes.Session, len(m))
		for id, s := range m {
			out[id] = s.Clone()
		}
		return out, nil
	}
	out, err := v.readSessionsAt(ctx, tip, also)
	if err == nil && tip != "" {
		if v.parsedSessions == nil || len(v.parsedSessions) > 2 {
			v.parsedSessions = map[string]map[string]notes.Session{} // a long-running process keeps few
		}
		kept := make(map[string]notes.Session, len(out))
		for id, s := range out {
			kept[id] = s.Clone()
		}
		v.parsedSessions[tip] = kept
	}
	return out, err
}

func (v *Vault) readSessionsAt(ctx context.Context, tip string, also []string) (map[string]notes.Session, error) {
	out := map[string]notes.Session{}
	paths, err := v.Repo.ListFiles(ctx, tip, notes.VaultSessionsDir)
	if err != nil || (len(paths) == 0 && len(also) == 0) {
		return out, nil
	}
	files, err := v.Repo.ReadVaultFiles(ctx, tip, append(paths, also...))
	if err != nil {
		return out, fmt.Errorf("read session records: %w", err)
	}
	for _, p := range paths {
		s, err := v.parseSession(files[p])
		if err != nil {
			continue
		}
		if id, ok := notes.SanitizeSessionID(s.ID); ok && notes.SessionVaultPath(id) == p {
			out[id] = s
		}
	}
	v.saveSessionCache()
	return out, nil
}

// parseSession is notes.ParseSession, kept by the record's bytes: a
// write's Build reads back, at the tip, the records this command parsed
// when it started (a long session's record is tens of KB of YAML, ~2 ms a
// parse). Each caller gets its own copy.
func (v *Vault) parseSession(b []byte) (notes.Session, error) {
	v.sessionParsesMu.Lock()
	s, ok := v.sessionParses[string(b)]
	v.sessionParsesMu.Unlock()
	if ok {
		return s.Clone(), nil
	}
	// Only a long record is worth the cache: reading it costs gob's setup
	// (~1 ms a process) before it saves anything.
	key := ""
	if len(b) >= cachedRecordMin {
		key = recordKey(b)
		v.sessionParsesMu.Lock()
		s, ok = v.cachedSession(key)
		v.sessionParsesMu.Unlock()
	}
	if !ok {
		var err error
		if s, err = notes.ParseSession(b); err != nil {
			return s, err
		}
	}
	v.sessionParsesMu.Lock()
	if !ok {
		v.yamlParses++
		if key != "" {
			v.keepSession(key, s)
		}
	}
	if v.sessionParses == nil || len(v.sessionParses) >= 64 {
		v.sessionParses = map[string]notes.Session{} // a long-running process keeps few
	}
	v.sessionParses[string(b)] = s.Clone()
	v.sessionParsesMu.Unlock()
	return s.Clone(), nil
}

// sessionRender is a session record rendered in the background; the
// record must not change once it started.
type sessionRender struct {
	of   *notes.Session
	done chan struct{}
	b    []byte
}

// renderAhead starts rendering s.
func renderAhead(s *notes.Session) *sessionRender {
	r := &sessionRender{of: s, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.b = s.Render()
	}()
	return r
}

// renderSession is p.Session rendered: the render made ahead when it is
// of this record.
func (p Plan) renderSession() []byte {
	if r := p.rendered; r != nil && r.of == p.Session {
		<-r.done
		return r.b
	}
	return p.Session.Render()
}

// SessionState is what SessionStart leaves under the git dir (never the
// vault: bridge writes nothing there): the HEAD the session started at.
type SessionState struct {
	StartHead string    `json:"start_head"`
	Started   time.Time `json:"started"`
	Branch    string    `json:"branch"`
}

func (v *Vault) sessionStateFile(id string) string {
	return filepath.Join(v.Repo.ScribeDir(), "sessions", id+".json")
}

// NoteSessionStart remembers where a session started (SessionStart), so
// its first Stop knows which commits are the session's.
func (v *Vault) NoteSessionStart(ctx context.Context, sessionID string) {
	id, ok := notes.SanitizeSessionID(sessionID)
	if !ok {
		return
	}
	if _, err := os.Stat(v.sessionStateFile(id)); err == nil {
		return // resume, compact: the start stays where it was
	}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return
	}
	b, _ := json.Marshal(SessionState{StartHead: head.Commit, Started: v.now(), Branch: head.Ref})
	os.MkdirAll(filepath.Dir(v.sessionStateFile(id)), 0o755)
	gitops.WriteFileAtomic(v.sessionStateFile(id), b)
}

// SessionStop is a Stop hook's turn: the session's record takes in the
// transcript's new part, the commits the post-commit hook recorded and the
// commits reachable since the session's start, and the branch's bridge note
// is rewritten from the whole record. No journal entry (principle 12)
// unless end says the session is over (SessionEnd): then its one entry is
// written in the same commit.
func (v *Vault) SessionStop(ctx context.Context, h notes.Hook, in notes.WrapInput, end bool) (SessionReport, error) {
	rep := SessionReport{}
	id, ok := notes.SanitizeSessionID(h.SessionID)
	if !ok {
		rep.Status, rep.Reason = "nothing", "the hook input names no usable session_id"
		return rep, nil
	}
	rep.Session = id
	v.Migrate(ctx)
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return rep, err
	}
	// A turn's bridge note needs the work tree's state: the status scan,
	// the costliest read, runs beside the vault and queue reads below.
	if !end {
		v.Repo.PrefetchWorktree(ctx, v.ownPaths(), head.Commit)
	}
	if !in.DryRun && !v.ReadOnly {
		// The session always writes its record: its commit's identities
		// are read beside the reads.
		v.Repo.PrepareIdent(ctx)
		v.PrepareWrite(ctx)
	}
	queued, qerr := v.Repo.Queued()
	tip, err := v.Repo.VaultTip(ctx)
	if err != nil {
		return rep, err
	}
	// The turn writes its record and the bridge note, and the view shows
	// the rest: read with the records, in one git process.
	all, err := v.sessionsAt(ctx, tip, v.writtenPaths(head, notes.SessionVaultPath(id))...)
	if err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	}
	now := v.now()
	rec, known := all[id]
	if known && rec.Status == notes.SessionJournaled {
		rec = continuedSession(rec, now)
	} else if !known {
		rec = notes.Session{ID: id, Started: now, StartHead: head.Commit, Branch: head.Ref}
		if b, err := os.ReadFile(v.sessionStateFile(id)); err == nil {
			var st SessionState
			if json.Unmarshal(b, &st) == nil && st.StartHead != "" {
				rec.StartHead, rec.Started = st.StartHead, st.Started
			}
		}
	}
	rec.Status = notes.SessionOpen
	rec.Branch = head.Ref
	if rec.Agent == "" {
		rec.Agent = agentOf(h)
	}
	if qerr != nil {
		rep.Warnings = append(rep.Warnings, qerr.Error())
	}
	// Sessions that are over are journaled first: idle ones, and the
	// branch's other open sessions once a new one has started.
	var plans []Plan
	var absorbed []gitops.QueueItem
	for _, oid := range sortedIDs(all) {
		o := all[oid]
		if oid == id || !o.Open() {
			continue
		}
		reason := ""
		switch {
		case now.Sub(o.Updated) > v.idle():
			reason = EndIdle
		case !known && o.Branch == head.Ref:
			reason = EndNewSession
		default:
			continue
		}
		if o.Branch == head.Ref {
			v.absorbCommits(ctx, &o, head, queued, &absorbed)
		}
		p, err := v.finalise(ctx, o, reason, notes.WrapInput{}, head)
		if err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("session %s not journaled: %v", oid, err))
			continue
		}
		plans = append(plans, p)
		rep.Finalised = append(rep.Finalised, oid)
	}

	rep.Warnings = append(rep.Warnings, v.absorbTranscript(ctx, &rec, h)...)
	v.absorbCommits(ctx, &rec, head, queued, &absorbed)
	rec.Updated, rec.Head = now, head.Commit
	rec.Stops++
	if in.Hint != "" && in.Hint != notes.OneLine(h.LastAssistantMessage) {
		rec.AddSummary(v.redact(in.Hint))
	}
	rec.AddTests(v.redact(notes.OneLine(in.Tests)))
	var p Plan
	if end {
		if p, err = v.finalise(ctx, rec, EndSessionEnd, in, head); err != nil {
			return rep, err
		}
		p.Prune = pruneSessions(all, id)
	} else {
		// The record is complete: it renders (tens of KB of YAML in a long
		// session) while the status scan finishes.
		rendered := renderAhead(&rec)
		turn := func(uncommitted string) Plan {
			b := v.sessionBridge(ctx, rec, in, uncommitted, head, now)
			return Plan{Modes: notes.Modes{notes.ModeBridge}, Row: "session turn: record + bridge note (no journal entry per turn)",
				Summary: fmt.Sprintf("session %s: turn %d", shortID(id), rec.Stops), Bridge: &b, Session: &rec,
				DoneAt: now, Head: head.Commit, Branch: head.Ref, rendered: rendered, Prune: pruneSessions(all, id)}
		}
		// The turn's write is made while the status scan runs, for the
		// uncommitted work the last turn's note named (speculateTurn);
		// when the scan says the same, only the ref is left to move.
		if len(plans) == 0 && !in.DryRun && !v.ReadOnly {
			v.speculateTurn(ctx, turn(v.lastUncommitted(ctx, head)))
			defer v.Repo.DropSpeculation() // not taken: its transaction holds the vault ref
		}
		ch, err := v.uncommitted(ctx, head)
		if err != nil {
			return rep, err
		}
		p = turn(v.uncommittedLine(ch))
	}
	plans = append(plans, p)
	rep.Stops, rep.SkippedLines = rec.Stops, rec.SkippedLines
	for _, c := range rec.Commits {
		rep.Commits = append(rep.Commits, shortSHA(c.SHA))
	}
	if in.DryRun {
		rep.Status, rep.Reason = "dry-run", "nothing written (--dry-run)"
		rep.fill(plans)
		return rep, nil
	}
	err = v.landSessionPlans(ctx, plans, absorbed, &rep)
	if err != nil {
		return rep, err
	}
	if rep.Commit != nil && p.Session != nil && p.rendered != nil { // a turn's, rendered ahead
		v.keepWrittenSession(p.renderSession(), *p.Session)
	}
	if end {
		os.Remove(v.sessionStateFile(id))
	}
	all[id] = rec
	for _, s := range all {
		rep.Pending += len(s.Pending())
	}
	return rep, nil
}

func (rep *SessionReport) fill(plans []Plan) {
	for _, p := range plans {
		if p.Entry != nil {
			rep.Entry = p.Entry.Render()
		}
		if p.Bridge != nil {
			rep.Bridge = p.Bridge.Render()
		}
	}
}

// landSessionPlans commits session plans on the vault (never the queue's
// other records: those land with their own command), then forgets the
// commit records the sessions took in. Deferred → the plans are queued.
func (v *Vault) landSessionPlans(ctx context.Context, plans []Plan, absorbed []gitops.QueueItem, rep *SessionReport) error {
	res, _, warns, err := v.land(ctx, plans, nil)
	rep.Warnings = append(rep.Warnings, warns...)
	rep.fill(plans)
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		var ids []string
		for _, p := range plans {
			p.RemoteLock = v.Repo.RemoteLock
			it, qerr := v.Repo.Enqueue(KindPlan, de.Reason, p)
			if qerr != nil {
				return notRecorded("the session record", de, qerr)
			}
			ids = append(ids, it.ID)
		}
		rep.Status, rep.Reason, rep.QueueID = "queued", de.Reason, strings.Join(ids, ",")
	} else if err != nil {
		return err
	} else {
		if res.Vault.SHA != "" {
			rep.Commit = &res.Vault
		}
		rep.Status, rep.Reason = "updated", "session record and bridge note updated; the journal entry is written when the session ends"
		if rep.Entry != "" {
			rep.Status, rep.Reason = "journaled", "the session is over: its one journal entry is written"
		}
	}
	if err := v.Repo.Dequeue(absorbed); err != nil {
		rep.Warnings = append(rep.Warnings, err.Error())
	}
	return nil
}

// FinaliseSessions journals the sessions that are over (principle 12):
// with reason EndExplicitWrap every open session of the checked-out branch
// (in carries the person's flags into the entry), otherwise (the next
// command) the idle ones. It reports the sessions journaled.
func (v *Vault) FinaliseSessions(ctx context.Context, reason string, in notes.WrapInput) (SessionReport, error) {
	rep := SessionReport{}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return rep, err
	}
	tip, err := v.vaultTip(ctx)
	if err != nil || tip == "" {
		return rep, err
	}
	// The files a wrap or a journal entry writes are read with the records,
	// in one git process, for the planning and the write that follow.
	all, err := v.sessionsAt(ctx, tip, v.writtenPaths(head)...)
	if err != nil || len(all) == 0 {
		return rep, err
	}
	now := v.now()
	queued, _ := v.Repo.Queued()
	var plans []Plan
	var absorbed []gitops.QueueItem
	for _, id := range sortedIDs(all) {
		s := all[id]
		if !s.Open() {
			continue
		}
		r := reason
		switch {
		case (reason == EndExplicitWrap || reason == EndNewSession) && s.Branch == head.Ref:
		case now.Sub(s.Updated) > v.idle():
			r = EndIdle
		default:
			continue
		}
		if s.Branch == head.Ref {
			v.absorbCommits(ctx, &s, head, queued, &absorbed)
		}
		sin := notes.WrapInput{}
		if r == EndExplicitWrap {
			sin = in
		}
		p, err := v.finalise(ctx, s, r, sin, head)
		if err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("session %s not journaled: %v", id, err))
			continue
		}
		plans = append(plans, p)
		rep.Finalised = append(rep.Finalised, id)
	}
	if len(plans) == 0 {
		rep.Status, rep.Reason = "nothing", "no session is over"
		return rep, nil
	}
	if in.DryRun {
		rep.Status, rep.Reason = "dry-run", "nothing written (--dry-run)"
		rep.fill(plans)
		return rep, nil
	}
	err = v.landSessionPlans(ctx, plans, absorbed, &rep)
	return rep, err
}

// continuedSession is the record a session's turn starts when the session
// went on after its record was journaled (a person's wrap, idle, a new
// session on the branch): the turns from then on are a record of their
// own, from where the journaled one ended (its head, its place in the
// transcript), journaled in turn when this one ends. Kept as it was, the
// journaled record took no later turn (a journaled record is never
// reopened) and each turn walked, and read the numstat of, every commit
// since the session's first start again: 135 commits, 100–170 ms a turn,
// on git/git. Its later start tells the landing that it is a new record,
// not a late turn of the journaled one.
func continuedSession(ended notes.Session, now time.Time) notes.Session {
	start := ended.Head
	if start == "" {
		start = ended.StartHead
	}
	// Its journal entry's id is its start's second and the session's id
	// (sessionEntryID): a start in the journaled record's second would
	// name that entry, which is written.
	if first := ended.Started.UTC().Truncate(time.Second).Add(time.Second); now.Before(first) {
		now = first
	}
	return notes.Session{ID: ended.ID, Agent: ended.Agent, Started: now, StartHead: start, Branch: ended.Branch,
		Transcript: ended.Transcript, Format: ended.Format, Offset: ended.Offset}
}

// OpenSession is the open record of session id, if there is one.
func (v *Vault) OpenSession(ctx context.Context, sessionID string) (notes.Session, bool) {
	id, ok := notes.SanitizeSessionID(sessionID)
	if !ok {
		return notes.Session{}, false
	}
	tip, err := v.vaultTip(ctx)
	if err != nil || tip == "" {
		return notes.Session{}, false
	}
	all, err := v.sessionsAt(ctx, tip)
	if err != nil {
		return notes.Session{}, false
	}
	s, ok := all[id]
	return s, ok && s.Open()
}

func (v *Vault) idle() time.Duration {
	if d := v.Config.Sessions.Idle; d > 0 {
		return d
	}
	return 2 * time.Hour
}

// keepJournaled is how many journaled session records stay on the vault:
// the newest ones, whose commits a rebase or amend may still rewrite (their
// patch ids keep the journal from naming the work twice). Every command
// that reads sessions reads them all, so older ones are pruned by the next
// Stop; the vault's history keeps them.
const keepJournaled = 10

// prunable reports whether a record may leave the vault: journaled, and no
// follow-up in it still waits for a person's decision.
func prunable(s notes.Session) bool {
	return s.Status == notes.SessionJournaled && len(s.Pending()) == 0
}

// pruneSessions lists the journaled records beyond the newest
// keepJournaled (by end time) that hold nothing pending, except self.
func pruneSessions(all map[string]notes.Session, self string) []string {
	var done []notes.Session
	for id, s := range all {
		if id != self && s.Status == notes.SessionJournaled {
			done = append(done, s)
		}
	}
	if len(done) <= keepJournaled {
		return nil
	}
	sort.Slice(done, func(i, j int) bool {
		if !done[i].Ended.Equal(done[j].Ended) {
			return done[i].Ended.After(done[j].Ended)
		}
		return done[i].ID < done[j].ID
	})
	var out []string
	for _, s := range done[keepJournaled:] {
		if prunable(s) {
			out = append(out, s.ID)
		}
	}
	sort.Strings(out)
	return out
}

func sortedIDs(m map[string]notes.Session) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func agentOf(h notes.Hook) string {
	if h.TurnID != "" {
		return "codex"
	}
	return "claude"
}

// uncommitted reads the person's staged, unstaged and untracked work,
// scribe's own files and agent scratch left out.
func (v *Vault) uncommitted(ctx context.Context, head gitops.Head) (gitops.Changes, error) {
	return v.Repo.ReadChanges(ctx, head.Commit, head.Commit, v.ownPaths())
}

// absorbTranscript reads the transcript's part after the record's offset:
// files the agent edited, tests it ran, its summary of the turn, the
// follow-ups it announced and memory signals (corrections).
func (v *Vault) absorbTranscript(ctx context.Context, rec *notes.Session, h notes.Hook) []string {
	var warns []string
	summary := v.redact(h.LastAssistantMessage)
	defer func() {
		if summary != "" {
			rec.AddSummary(summary)
		}
	}()
	// Without a readable transcript the turn's message is all there is.
	lastOnly := []transcript.Turn{{Role: transcript.RoleAssistant, Text: h.LastAssistantMessage}}
	path := h.TranscriptPath
	if path == "" {
		return v.extractInto(ctx, rec, lastOnly)
	}
	if rec.Transcript != path {
		rec.Transcript, rec.Offset, rec.Format = path, 0, ""
	}
	part, err := transcript.ReadSince(path, rec.Offset, transcript.Format(rec.Format), v.Config.Sessions.MaxLine)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			warns = append(warns, "transcript not read: "+err.Error())
		}
		return append(warns, v.extractInto(ctx, rec, lastOnly)...)
	}
	rec.Offset, rec.SkippedLines = part.Offset, rec.SkippedLines+part.Skipped
	if len(part.Turns) > 0 || rec.Format == "" {
		rec.Format = string(part.Format)
	}
	if part.Skipped > 0 {
		warns = append(warns, fmt.Sprintf("%d transcript line(s) over %d bytes skipped", part.Skipped, v.Config.Sessions.MaxLine))
	}
	lastText := ""
	corrections := append(append([]string{}, v.Config.Memory.CorrectionsEN...), v.Config.Memory.CorrectionsKR...)
	for _, t := range part.Turns {
		if t.Sidechain {
			continue
		}
		if t.Role == transcript.RoleAssistant {
			if strings.TrimSpace(t.Text) != "" {
				lastText = t.Text
			}
			for _, b := range t.Blocks {
				if b.Kind != transcript.KindToolUse {
					continue
				}
				files, test := toolUse(b)
				for _, f := range files {
					if rel := v.relPath(f); rel != "" {
						rec.AddFiles(v.redact(rel)) // the record is on the vault: names pass the redactor
					}
				}
				if test != "" {
					rec.AddTests(v.redact(test))
				}
			}
		}
		if t.Role == transcript.RoleUser && !t.Meta && !t.ToolResultOnly {
			low := strings.ToLower(t.Text)
			for _, c := range corrections {
				if c != "" && strings.Contains(low, strings.ToLower(c)) {
					rec.AddSignals(v.redact(notes.CapRunes(notes.OneLine(t.Text), 160)))
					break
				}
			}
		}
	}
	if summary == "" && lastText != "" {
		summary = v.redact(lastText)
	}
	return append(warns, v.extractInto(ctx, rec, part.Conversation())...)
}

// extractInto finds the follow-ups conv announces and keeps them on the
// record: pending for a person, or durable when a source already has them.
func (v *Vault) extractInto(ctx context.Context, rec *notes.Session, conv []transcript.Turn) []string {
	var warns []string
	if len(conv) == 0 || (len(conv) == 1 && strings.TrimSpace(conv[0].Text) == "") {
		return nil
	}
	cands := v.extractFollowups(conv)
	if len(cands) == 0 {
		return warns
	}
	srcs, _, err := v.FollowupSources(ctx, nil)
	if err != nil {
		warns = append(warns, "follow-up sources: "+err.Error())
	}
	followups.MarkDurable(cands, followups.Regenerate(srcs, v.mergeOptions(srcs)).Mentions, v.Similarity())
	def := v.DefaultProject(srcs)
	for _, c := range cands {
		st := notes.FollowupPending
		if c.Durable != nil {
			st = notes.FollowupDurable
		}
		proj := c.Project
		if proj == "" {
			proj = def
		}
		rec.AddFollowup(notes.SessionFollowup{Text: c.Text, Project: proj, Quote: c.Quote, Status: st}) // redacted by extractFollowups
	}
	return warns
}

// toolUse reads a tool call: the files an edit names, a test command.
func toolUse(b transcript.Block) (files []string, test string) {
	var in struct {
		FilePath     string          `json:"file_path"`
		NotebookPath string          `json:"notebook_path"`
		Path         string          `json:"path"`
		Command      json.RawMessage `json:"command"`
		Cmd          string          `json:"cmd"`
		Input        string          `json:"input"`
		Patch        string          `json:"patch"`
	}
	json.Unmarshal([]byte(b.Text), &in)
	switch b.ToolName {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		for _, p := range []string{in.FilePath, in.NotebookPath} {
			if p != "" {
				files = append(files, p)
			}
		}
	case "apply_patch":
		patch := in.Input + in.Patch
		if patch == "" {
			patch = b.Text
		}
		for _, line := range strings.Split(patch, "\n") {
			for _, pre := range []string{"*** Add File: ", "*** Update File: "} {
				if p, ok := strings.CutPrefix(strings.TrimSpace(line), pre); ok {
					files = append(files, strings.TrimSpace(p))
				}
			}
		}
	}
	cmd := in.Cmd
	if len(in.Command) > 0 {
		var s string
		var list []string
		if json.Unmarshal(in.Command, &s) == nil {
			cmd = s
		} else if json.Unmarshal(in.Command, &list) == nil {
			cmd = strings.Join(list, " ")
		}
	}
	if cmd != "" && isTestCommand(cmd) {
		test = notes.CapRunes(notes.OneLine(cmd), 120)
	}
	return files, test
}

func isTestCommand(cmd string) bool {
	c := " " + strings.ToLower(cmd) + " "
	for _, k := range []string{" go test", " pytest", " npm test", " npm run test", " yarn test", " pnpm test", " cargo test",
		" make test", " make check", " mix test", " rspec", " jest", " vitest", " .ci/run", " ctest", " tox "} {
		if strings.Contains(c, k) {
			return true
		}
	}
	return false
}

// relPath makes an agent's file path repository-relative ("" outside the
// work tree or in agent scratch).
func (v *Vault) relPath(p string) string {
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(v.Repo.WorkTree, p)
		if err != nil || strings.HasPrefix(r, "..") {
			if rp, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				if r2, err := filepath.Rel(v.Repo.WorkTree, filepath.Join(rp, filepath.Base(p))); err == nil && !strings.HasPrefix(r2, "..") {
					r = r2
				} else {
					return ""
				}
			} else {
				return ""
			}
		}
		p = r
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if p == "." || strings.HasPrefix(p, "../") {
		return ""
	}
	for _, s := range agentScratch {
		if p == s || strings.HasPrefix(p, s+"/") {
			return ""
		}
	}
	return p
}

// absorbCommits takes into rec the commits the session made on head's
// branch: the post-commit hook's queued records (their queue items are
// appended to taken, to be forgotten once the record is committed) and the
// person's commits reachable from HEAD since the session's start.
func (v *Vault) absorbCommits(ctx context.Context, rec *notes.Session, head gitops.Head, queued []gitops.QueueItem, taken *[]gitops.QueueItem) {
	var items []gitops.QueueItem
	var recs []CommitRecord
	already := map[string]bool{}
	for _, it := range *taken {
		already[it.ID] = true
	}
	for _, it := range queued {
		if it.Kind != KindCommit || already[it.ID] {
			continue
		}
		var c CommitRecord
		if json.Unmarshal(it.Payload, &c) != nil || c.SHA == "" {
			continue
		}
		recs = append(recs, c)
		items = append(items, it)
	}
	if len(recs) > 0 {
		fates, _ := v.enrich(ctx, recs)
		for i, f := range fates {
			switch f.fate {
			case recordLand:
				rec.AddCommit(notes.SessionCommit{SHA: f.rec.SHA, Subject: v.redact(f.rec.Subject), Files: v.redactAll(v.notOwn(f.rec.Files)),
					Added: f.rec.Added, Deleted: f.rec.Deleted})
				*taken = append(*taken, items[i])
			case recordDrop:
				*taken = append(*taken, items[i])
			}
		}
	}
	if rec.StartHead != "" && head.Commit != "" && rec.StartHead != head.Commit && !v.chainRecorded(*rec, head.Commit) {
		cs, err := v.Repo.CommitsBetween(ctx, rec.StartHead, head.Commit)
		if err == nil && len(cs) <= 200 {
			var need []string
			have := map[string]bool{}
			for _, c := range rec.Commits {
				have[c.SHA] = true
			}
			for _, c := range cs {
				if !c.Scribe && !have[c.SHA] {
					need = append(need, c.SHA)
				}
			}
			if infos, err := v.commitInfos(ctx, need); err == nil {
				for _, sha := range need {
					ci, ok := infos[sha]
					if !ok || ci.Missing || (ci.Time > 0 && !rec.Started.IsZero() && ci.Time < rec.Started.Add(-time.Minute).Unix()) {
						continue // older than the session: brought in by a pull or rebase
					}
					rec.AddCommit(notes.SessionCommit{SHA: sha, Subject: v.redact(ci.Subject), Files: v.redactAll(v.notOwn(ci.Files)), Added: ci.Added, Deleted: ci.Deleted})
				}
			}
		}
	}
}

// chainRecorded reports whether the commits since the record's last turn
// (its start, before the first) are all in it already: HEAD's first-parent
// chain back to there is one of single-parent commits the record names —
// the post-commit hook queued each of them. Then the session's range holds
// nothing the record lacks, and listing it (a history walk per turn) is
// skipped; the commits up to the last turn were taken in by that turn.
func (v *Vault) chainRecorded(rec notes.Session, head string) bool {
	target := rec.Head
	if target == "" {
		target = rec.StartHead
	}
	have := map[string]bool{}
	for _, c := range rec.Commits {
		have[c.SHA] = true
	}
	for cur, n := head, 0; n <= len(rec.Commits); n++ {
		if cur == target {
			return true
		}
		ci, ok := v.infos[cur]
		if !ok || !have[cur] || len(ci.Parents) != 1 {
			return false
		}
		cur = ci.Parents[0]
	}
	return false
}

func (v *Vault) notOwn(files []string) []string {
	managed := v.managedPaths()
	var out []string
	for _, f := range files {
		if !managed[f] {
			out = append(out, f)
		}
	}
	return out
}

// sessionCommits are the record's commits still worth naming: present and
// on a branch (an amended-away or reset commit is not), one per patch id,
// not named by a queued wrap that will land, and not named by the journal
// already — by sha, or by patch id when a rebase or amend rewrote a
// journaled commit.
func (v *Vault) sessionCommits(ctx context.Context, rec notes.Session, journal notes.Journal, all map[string]notes.Session) []notes.SessionCommit {
	var shas []string
	for _, c := range rec.Commits {
		shas = append(shas, c.SHA)
	}
	// Patch ids of the work already journaled: other journaled sessions',
	// and the journal's newest named commits.
	journaledPID := map[string]bool{}
	for id, s := range all {
		if id == rec.ID || s.Status != notes.SessionJournaled {
			continue
		}
		for _, c := range s.Commits {
			if c.PatchID != "" && notes.HasCommit(journal, shortSHA(c.SHA)) {
				journaledPID[c.PatchID] = true
			}
		}
	}
	var named []string
	for i := len(journal.Entries) - 1; i >= 0 && len(named) < 60; i-- {
		named = append(named, journal.Entries[i].Commits...)
	}
	pids, _ := v.Repo.PatchIDs(ctx, append(append([]string{}, shas...), named...))
	mine := map[string]bool{}
	for _, s := range shas {
		mine[s] = true
	}
	for sha, pid := range pids {
		if !mine[sha] {
			journaledPID[pid] = true
		}
	}
	// A queued wrap that names a commit journals it when it lands.
	queuedPlan := map[string]bool{}
	if items, err := v.Repo.Queued(); err == nil {
		for _, it := range items {
			var qp Plan
			if it.Kind == KindPlan && json.Unmarshal(it.Payload, &qp) == nil && qp.Entry != nil {
				for _, c := range qp.Commits {
					queuedPlan[c] = true
				}
			}
		}
	}
	head, _ := v.Repo.Head(ctx)
	ids := make([]string, len(rec.Commits))
	for i, c := range rec.Commits {
		ids[i] = c.SHA
	}
	inHead := v.Repo.Reachable(ctx, head.Commit, ids)
	seenPID := map[string]bool{}
	var out []notes.SessionCommit
	// Newest first, so a rewritten commit's live version wins.
	for i := len(rec.Commits) - 1; i >= 0; i-- {
		c := rec.Commits[i]
		c.PatchID = pids[c.SHA]
		reachable := inHead[c.SHA] || v.Repo.OnAnyBranch(ctx, c.SHA)
		if !reachable || notes.HasCommit(journal, shortSHA(c.SHA)) || queuedPlan[shortSHA(c.SHA)] {
			continue
		}
		if c.PatchID != "" && (journaledPID[c.PatchID] || seenPID[c.PatchID]) {
			continue
		}
		if c.PatchID != "" {
			seenPID[c.PatchID] = true
		}
		out = append(out, c)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// finalise is the plan that ends a session: seed 000's dispatch table for
// the session as a whole decides the modes; the entry (when there is one)
// names every commit of the session not journaled yet, once; the record is
// marked journaled either way, so it is never journaled again.
func (v *Vault) finalise(ctx context.Context, rec notes.Session, reason string, in notes.WrapInput, head gitops.Head) (Plan, error) {
	now := v.now()
	_, files, err := v.ReadVault(ctx, notes.VaultJournal)
	if err != nil {
		return Plan{}, err
	}
	journal := notes.ParseJournal(string(files[notes.VaultJournal]))
	all, _ := v.Sessions(ctx)
	commits := v.sessionCommits(ctx, rec, journal, all)
	pid := map[string]string{}
	for _, c := range commits {
		pid[c.SHA] = c.PatchID
	}
	for i := range rec.Commits {
		if p := pid[rec.Commits[i].SHA]; p != "" {
			rec.Commits[i].PatchID = p
		}
	}
	var ch gitops.Changes
	if rec.Branch == head.Ref {
		if ch, err = v.uncommitted(ctx, head); err != nil {
			return Plan{}, err
		}
	}
	var changed []string
	var add, del int
	for _, c := range commits {
		changed = append(changed, c.Files...)
		add += c.Added
		del += c.Deleted
	}
	changed = append(changed, ch.Files()...)
	changed = dedup(changed)
	uncommitted := len(ch.Staged)+len(ch.Unstaged)+len(ch.Untracked) > 0
	open := rec.OpenFollowups()
	hint := v.redact(notes.OneLine(in.Hint))
	sit := notes.Situation{Loop: in.Loop, SessionEnd: reason == EndSessionEnd || in.SessionEnd, Trivial: in.Trivial, Files: len(changed),
		Unfinished: len(open) > 0 || uncommitted || hint != "" || len(in.Next) > 0}
	p := Plan{DoneAt: now, Head: head.Commit, Branch: rec.Branch}
	p.Modes, p.Row = notes.Dispatch(sit)
	if forced, isForced, err := notes.ParseModes(in.Mode); err == nil && isForced {
		p.Modes, p.Row = forced, "mode forced: "+forced.String()
	}
	p.Row = "session as a whole: " + p.Row
	for _, c := range commits {
		p.Commits = append(p.Commits, shortSHA(c.SHA))
	}
	summary := hint
	if summary == "" && len(rec.Summaries) > 0 {
		summary = rec.Summaries[len(rec.Summaries)-1]
	}
	summary = firstSentence(summary)
	if summary == "" && len(commits) == 1 {
		summary = commits[0].Subject
	}
	if summary == "" {
		summary = fmt.Sprintf("Session: %d file%s in %d commit%s", len(changed), notes.Plural(len(changed)), len(commits), notes.Plural(len(commits)))
	}
	p.Summary = notes.Truncate(v.redact(summary), 72)
	if p.Modes.Has(notes.ModeJournal) {
		var next []string
		for _, f := range open {
			next = append(next, followupLine(f))
		}
		next = append(next, v.redactAll(in.Next)...)
		notable := fmt.Sprintf("session %s (%s; %d turn%s; %s): +%d −%d", rec.ID, reason, rec.Stops, notes.Plural(rec.Stops),
			plural(len(commits), "commit"), add, del)
		if n := len(ch.Staged) + len(ch.Unstaged) + len(ch.Untracked); n > 0 {
			notable += fmt.Sprintf("; %d uncommitted change%s", n, notes.Plural(n))
		}
		tests := v.redact(notes.OneLine(in.Tests))
		if tests == "" && len(rec.Tests) > 0 {
			tests = listFew(rec.Tests, 3)
		}
		res := "shipped"
		switch {
		case in.Result != "":
			res = in.Result
		case in.Loop == "discard":
			res = "reverted"
		case uncommitted:
			res = "partial"
		}
		e := notes.Entry{ID: sessionEntryID(rec), Time: now, Summary: p.Summary, Scope: v.scope(changed), Result: res,
			Notable: notable, Tests: tests, Commits: p.Commits, Modes: p.Modes.String(), Next: next}
		if p.Modes.Has(notes.ModeProgress) {
			e.Done = v.redactAll(in.Done)
		}
		p.Entry = &e
		rec.Entry = e.ID
	}
	if p.Modes.Has(notes.ModeProgress) {
		p.Done = in.Done
	}
	if rec.Branch == head.Ref {
		b := v.sessionBridge(ctx, rec, in, v.uncommittedLine(ch), head, v.now())
		p.Bridge = &b
	}
	rec.Status, rec.Ended, rec.EndReason, rec.Updated = notes.SessionJournaled, now, reason, now
	if rec.Branch == head.Ref && head.Commit != "" {
		rec.Head = head.Commit // it took the commits up to here: a continuation starts here
	}
	p.Session = &rec
	return p, nil
}

func plural(n int, word string) string { return fmt.Sprintf("%d %s%s", n, word, notes.Plural(n)) }

// sessionEntryID is the session's entry id: the same on every attempt, so
// a finalisation killed after its commit is never journaled twice.
func sessionEntryID(rec notes.Session) string {
	return fmt.Sprintf("%s-session-%s", rec.Started.UTC().Format("20060102T150405Z"), rec.ID)
}

func followupLine(f notes.SessionFollowup) string {
	if f.Project != "" {
		return "(" + f.Project + ") " + f.Text
	}
	return f.Text
}

// sessionBridge is the branch's bridge note from the whole session: what it
// did (its summaries and commits), what is open (its follow-ups, open
// progress items, uncommitted work), and where it was written (commit and
// cites for the stale-claim check).
func (v *Vault) sessionBridge(ctx context.Context, rec notes.Session, in notes.WrapInput, uncommitted string, head gitops.Head, now time.Time) notes.BridgeNote {
	b := notes.BridgeNote{Urgent: v.redact(notes.OneLine(in.Urgent)), Updated: now, Commit: head.Commit,
		OpenQuestions: v.redactAll(in.Questions), Traps: v.redactAll(in.Traps)}
	n := len(rec.Summaries)
	if hint := v.redact(notes.OneLine(in.Hint)); hint != "" {
		b.Context = append(b.Context, hint)
	} else if n > 0 {
		b.Context = append(b.Context, "Last turn: "+rec.Summaries[n-1])
	}
	if len(rec.Commits) > 0 {
		var subj []string
		for _, c := range rec.Commits {
			subj = append(subj, shortSHA(c.SHA)[:7]+" "+c.Subject)
		}
		b.Context = append(b.Context, fmt.Sprintf("This session made %s: %s.", plural(len(rec.Commits), "commit"), strings.Join(subj, "; ")))
	}
	// Earlier turns, newest first, while they say something new.
	for i, k := n-2, 0; i >= 0 && k < 2; i-- {
		if s := rec.Summaries[i]; !strings.HasPrefix(s, "Done") {
			b.Context = append(b.Context, "Earlier: "+s)
			k++
		}
	}
	if len(rec.Tests) > 0 {
		b.Context = append(b.Context, "Tests run: "+strings.TrimRight(listFew(rec.Tests, 3), ".")+".")
	}
	for _, f := range rec.OpenFollowups() {
		b.CarryForward = append(b.CarryForward, "Follow-up: "+followupLine(f))
	}
	b.CarryForward = append(b.CarryForward, v.redactAll(in.Next)...)
	if items, ok, _ := v.Progress(ctx); ok {
		var open []string
		for _, it := range items {
			if !it.Done {
				open = append(open, it.Text)
			}
		}
		if len(open) > 0 {
			b.CarryForward = append(b.CarryForward, fmt.Sprintf("Open in %s: %s.", v.Config.Paths.Progress, listFew(open, 6)))
		}
	}
	if uncommitted != "" {
		b.CarryForward = append(b.CarryForward, uncommitted)
	}
	var cites []string
	for _, c := range rec.Commits {
		cites = append(cites, c.Files...)
	}
	cites = append(cites, rec.Files...)
	b.Cites = v.citeable(dedup(cites), 10)
	return b
}

// uncommittedPrefix begins the bridge note's line on the work tree's
// uncommitted work.
const uncommittedPrefix = "Uncommitted work remains in "

// uncommittedLine is that line for ch ("" when nothing is uncommitted).
func (v *Vault) uncommittedLine(ch gitops.Changes) string {
	var paths []string
	for _, set := range [][]gitops.FileChange{ch.Staged, ch.Unstaged} {
		for _, f := range set {
			paths = append(paths, f.Path)
		}
	}
	paths = append(paths, ch.Untracked...)
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf(uncommittedPrefix+"%s.", v.fileList(dedup(paths), 4))
}

// PendingFollowup is a follow-up a session found that awaits a person.
type PendingFollowup struct {
	N       int    `json:"n"`
	Session string `json:"session"`
	Text    string `json:"text"`
	Project string `json:"project,omitempty"`
	Quote   string `json:"quote,omitempty"`
}

// PendingFollowups lists, numbered from 1, the follow-ups sessions found
// in hook mode that no person has routed or skipped yet.
func (v *Vault) PendingFollowups(ctx context.Context) ([]PendingFollowup, error) {
	all, err := v.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	var out []PendingFollowup
	for _, id := range sortedIDs(all) {
		for _, f := range all[id].Pending() {
			out = append(out, PendingFollowup{N: len(out) + 1, Session: id, Text: f.Text, Project: f.Project, Quote: f.Quote})
		}
	}
	return out, nil
}

// Candidates are pending follow-ups as routing takes them.
func Candidates(pending []PendingFollowup) []followups.Candidate {
	out := make([]followups.Candidate, len(pending))
	for i, p := range pending {
		out[i] = followups.Candidate{N: p.N, Text: p.Text, Project: p.Project, Quote: p.Quote, Role: "assistant", Keyword: "session"}
	}
	return out
}

// RoutePending routes pending follow-ups by a person's decisions (by index
// into pending): each goes to its destination, or is skipped; either way
// it leaves the pending list (its status is written on its session record).
func (v *Vault) RoutePending(ctx context.Context, pending []PendingFollowup, routes map[int]followups.Route) (*RouteReport, error) {
	if len(routes) == 0 {
		return nil, nil
	}
	cands := Candidates(pending)
	srcs, _, err := v.FollowupSources(ctx, nil)
	if err != nil {
		return nil, err
	}
	assigns, err := v.Assign(cands, routes, srcs)
	if err != nil {
		return nil, err
	}
	var rep *RouteReport
	if len(assigns) > 0 {
		r, err := v.RouteFollowups(ctx, assigns)
		if err != nil {
			return nil, err
		}
		rep = &r
	}
	status := map[string]map[string]notes.FollowupStatus{}
	for i, r := range routes {
		if i < 0 || i >= len(pending) {
			continue
		}
		p := pending[i]
		if status[p.Session] == nil {
			status[p.Session] = map[string]notes.FollowupStatus{}
		}
		st := notes.FollowupRouted
		if r.To == followups.RouteSkip {
			st = notes.FollowupSkipped
		}
		status[p.Session][p.Text] = st
	}
	var paths []string
	for id := range status {
		paths = append(paths, notes.SessionVaultPath(id))
	}
	sort.Strings(paths)
	_, err = v.commitVault(ctx, gitops.CommitRequest{
		Paths: paths, Locks: []string{"session"}, LockOptions: v.lockOptions("followups"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			out := map[string][]byte{}
			for id, sts := range status {
				p := notes.SessionVaultPath(id)
				s, err := v.parseSession(cur[p])
				if err != nil {
					continue
				}
				for i := range s.Followups {
					if st, ok := sts[s.Followups[i].Text]; ok && s.Followups[i].Status == notes.FollowupPending {
						s.Followups[i].Status = st
					}
				}
				out[p] = s.Render()
			}
			return out, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: %d session follow-up%s decided\n\n%s: session\n", len(routes), notes.Plural(len(routes)), gitops.TrailerMode)
		},
	})
	return rep, err
}

// sessionHoldsCommits reports whether an open, not idle session on the
// checked-out branch will journal the post-commit hook's records: landing
// them now would journal the same commits twice.
func (v *Vault) sessionHoldsCommits(ctx context.Context) bool {
	tip, err := v.vaultTip(ctx)
	if err != nil || tip == "" {
		return false
	}
	all, err := v.sessionsAt(ctx, tip)
	if err != nil || len(all) == 0 {
		return false
	}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return false
	}
	for _, s := range all {
		if s.Open() && s.Branch == head.Ref && v.now().Sub(s.Updated) <= v.idle() {
			return true
		}
	}
	return false
}

// firstSentence is s's first sentence without its final punctuation, by
// the one sentence splitter (internal/sentence), its first line at most.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s[:sentence.FirstEnd(s)])
}
