package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/markdown"
)

// Action is a person's answer to one candidate.
type Action string

// Gate actions (seed 003, Phase 4).
const (
	ActionApproved       Action = "approved"
	ActionEditedApproved Action = "edited_approved"
	ActionRejected       Action = "rejected"
	ActionSkipped        Action = "skipped"
)

// Decision is what a person decided about a candidate. For an edit the
// candidate carries the edited content.
type Decision struct {
	Candidate Candidate `yaml:"candidate" json:"candidate"`
	Action    Action    `yaml:"action" json:"action"`
	At        time.Time `yaml:"at" json:"at"`
}

// ErrNoAnswer is what an Asker returns when nobody can answer (stdin is
// not a terminal, or it closed): the remaining candidates are rejected for
// this gate — nothing written, kept for a person's next gate.
var ErrNoAnswer = errors.New("no person to answer")

// Asker puts one candidate to a person and returns their answer; the
// command implements it (prompt, editor). Edit returns the action
// ActionEditedApproved with the new content.
type Asker interface {
	Ask(ctx context.Context, c Candidate, pos, total int) (Action, string, error)
	// Notice tells the person something between questions.
	Notice(msg string)
}

// Promotion is one candidate written to memory.
type Promotion struct {
	ID   string `json:"candidate_id"`
	Name string `json:"name"`
	Path string `json:"path"`
}

// GateResult is what a gate did.
type GateResult struct {
	// Status: committed | queued (a pending write, retried next run) |
	// nothing (no decision to write) | refused (nobody could answer).
	Status   string               `json:"status"`
	Reason   string               `json:"reason,omitempty"`
	Promoted []Promotion          `json:"promoted"`
	Rejected []string             `json:"rejected"`
	Skipped  []string             `json:"skipped"`
	Held     []string             `json:"held,omitempty"` // from a detector disabled meanwhile
	Left     []string             `json:"left,omitempty"` // unanswered (input ended)
	Disabled []DetectorState      `json:"disabled,omitempty"`
	Commit   *gitops.CommitResult `json:"commit,omitempty"`
	// IndexLines counts MEMORY.md's lines after the gate; Suggestion is the
	// clean-up advice when it is over the limit.
	IndexLines int      `json:"index_lines"`
	Suggestion string   `json:"suggestion,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// Presentable returns the queued candidates a gate shows now and those it
// holds back because their detector is disabled.
func (s *Store) Presentable() (show, held []Candidate, warns []string) {
	q, warns := s.Queue()
	for _, c := range q {
		if _, off := s.DisabledUntil(c.Detector); off {
			held = append(held, c)
			continue
		}
		show = append(show, c)
	}
	return show, held, warns
}

// RunGate puts every presentable candidate to the person through ask, in
// queue order, then writes all decisions as one commit. A detector rejected
// the configured number of times in a row is disabled on the spot and its
// remaining candidates are held. When ask returns ErrNoAnswer the rest are
// left in the queue (rejected for this gate, nothing written for them).
func (s *Store) RunGate(ctx context.Context, ask Asker) (GateResult, error) {
	show, held, warns := s.Presentable()
	var ds []Decision
	var left, heldNow []string
	var disabled []DetectorState
	off := map[string]bool{}
	for _, c := range held {
		heldNow = append(heldNow, c.ID)
	}
	for i, c := range show {
		if off[c.Detector] {
			heldNow = append(heldNow, c.ID)
			continue
		}
		action, text, err := ask.Ask(ctx, c, i+1, len(show))
		if errors.Is(err, ErrNoAnswer) {
			for _, r := range show[i:] {
				left = append(left, r.ID)
			}
			break
		}
		if err != nil {
			return GateResult{}, err
		}
		if action == ActionEditedApproved {
			c = editedCandidate(c, text)
		}
		ds = append(ds, Decision{Candidate: c, Action: action, At: s.now()})
		until, now, err := s.noteDecision(c.Detector, action)
		if err != nil {
			warns = append(warns, err.Error())
		}
		if now {
			off[c.Detector] = true
			disabled = append(disabled, DetectorState{Detector: c.Detector, DisabledUntil: until})
			ask.Notice(fmt.Sprintf("[compound] detector %s rejected %d times in a row: disabled until %s (git scribe compound reactivate %s)",
				c.Detector, s.disableAfter(), until.Format("2006-01-02 15:04"), c.Detector))
		}
	}
	res, err := s.ApplyDecisions(ctx, ds)
	res.Held, res.Left, res.Disabled = heldNow, left, disabled
	res.Warnings = append(warns, res.Warnings...)
	if len(left) > 0 && res.Status == "nothing" {
		res.Status, res.Reason = "refused", "no answer: nothing written"
	}
	return res, err
}

// editedCandidate applies a person's edit: the new content, and a
// description drawn from it.
func editedCandidate(c Candidate, text string) Candidate {
	c.Content = strings.TrimSpace(text)
	c.Edited = true
	if first := firstSentence(c.Content, 150); first != "" {
		c.Description = first
	}
	return c
}

// NoteExplicit records decisions made outside the interactive gate (the
// --approve/--reject flags) in the detector streaks, and returns the
// disables they start.
func (s *Store) NoteExplicit(ds []Decision) ([]DetectorState, []string) {
	var out []DetectorState
	var warns []string
	for _, d := range ds {
		until, now, err := s.noteDecision(d.Candidate.Detector, d.Action)
		if err != nil {
			warns = append(warns, err.Error())
		}
		if now {
			out = append(out, DetectorState{Detector: d.Candidate.Detector, DisabledUntil: until})
		}
	}
	return out, warns
}

// ApplyDecisions writes a gate's decisions as one commit,
// "progress: memory +N -M (compound)": approved candidates become records
// with their MEMORY.md lines, rejected ones go to the rejection history.
// Skipped candidates stay queued. When the commit cannot be made (or
// fails), the decisions become a pending write, retried by LandPending.
func (s *Store) ApplyDecisions(ctx context.Context, ds []Decision) (GateResult, error) {
	res := GateResult{Promoted: []Promotion{}, Rejected: []string{}, Skipped: []string{}}
	var decided []Decision
	for _, d := range ds {
		if d.Action == ActionSkipped {
			res.Skipped = append(res.Skipped, d.Candidate.ID)
			continue
		}
		decided = append(decided, d)
	}
	if len(decided) == 0 {
		res.Status, res.Reason = "nothing", "no candidate approved or rejected"
		res.IndexLines = s.indexLines()
		return res, nil
	}
	var ids []string
	for _, d := range decided {
		ids = append(ids, d.Candidate.ID)
	}
	out, err := s.commitDecisions(ctx, decided, s.confirmedBy())
	if err != nil {
		// The person's decisions are kept: as a pending write, landed by
		// the next run.
		if perr := s.savePending(pendingOp{Kind: "gate", Decisions: decided, Reason: err.Error(), Created: s.now()}); perr != nil {
			return res, fmt.Errorf("%w; and saving the decisions as a pending write failed: %v", err, perr)
		}
		if qerr := s.dequeue(ids); qerr != nil {
			res.Warnings = append(res.Warnings, qerr.Error())
		}
		res.Status, res.Reason = "queued", pendingReason(err)
		for _, d := range decided {
			if d.Action == ActionRejected {
				res.Rejected = append(res.Rejected, d.Candidate.ID)
			} else {
				res.Promoted = append(res.Promoted, Promotion{ID: d.Candidate.ID, Name: d.Candidate.Name})
			}
		}
		return res, nil
	}
	if qerr := s.dequeue(ids); qerr != nil {
		res.Warnings = append(res.Warnings, qerr.Error())
	}
	res.Promoted, res.Rejected, res.Commit = out.promoted, out.rejected, out.commit
	res.Warnings = append(res.Warnings, out.warnings...)
	res.Status = "committed"
	if out.commit == nil {
		res.Status, res.Reason = "nothing", "the vault already records these decisions"
	}
	res.IndexLines = s.indexLines()
	if max := s.indexMax(); res.IndexLines > max {
		res.Suggestion = fmt.Sprintf("%s has %d lines, more than %d: consider merging or retiring old memories (oldest first in the file); scribe never deletes them itself",
			s.IndexPath(), res.IndexLines, max)
	}
	return res, nil
}

func pendingReason(err error) string {
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		return de.Reason + "; the decisions are saved and land at the next git scribe compound or wrap"
	}
	return "write failed (" + err.Error() + "); the decisions are saved as a pending write and retried at the next git scribe compound or wrap"
}

func (s *Store) indexMax() int {
	if n := s.Config.Memory.IndexMaxLines; n > 0 {
		return n
	}
	return 200
}

func (s *Store) indexLines() int {
	abs, err := s.Repo.Abs(s.IndexPath())
	if err != nil {
		return 0
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return 0
	}
	return ParseIndex(string(data)).Lines
}

type commitOutcome struct {
	promoted []Promotion
	rejected []string
	commit   *gitops.CommitResult
	warnings []string
}

// commitDecisions builds and makes the gate's commit. It is idempotent: a
// candidate already promoted or already in the rejection history is not
// written again.
func (s *Store) commitDecisions(ctx context.Context, ds []Decision, via string) (commitOutcome, error) {
	var out commitOutcome
	memories, err := s.Memories()
	if err != nil {
		return out, err
	}
	promotedAt := map[string]string{}
	for _, m := range memories {
		if m.Err == nil && m.Record.CandidateID != "" {
			promotedAt[m.Record.CandidateID] = m.Path
		}
	}
	head, err := s.Repo.Head(ctx)
	if err != nil {
		return out, err
	}
	type approval struct {
		d    Decision
		path string
	}
	var approvals []approval
	var rejects []Decision
	taken := map[string]bool{}
	paths := []string{s.IndexPath()}
	for _, d := range ds {
		c := d.Candidate
		if d.Action == ActionRejected {
			rejects = append(rejects, d)
			paths = append(paths, path.Join(s.RejectedDir(), safeName(c.ID)+".md"))
			continue
		}
		if p, ok := promotedAt[c.ID]; ok {
			out.warnings = append(out.warnings, fmt.Sprintf("%s is already promoted as %s", c.ID, p))
			out.promoted = append(out.promoted, Promotion{ID: c.ID, Name: c.Name, Path: p})
			continue
		}
		p, err := s.freePath(ctx, head.Commit, c, taken)
		if err != nil {
			return out, err
		}
		taken[p] = true
		approvals = append(approvals, approval{d, p})
		paths = append(paths, p)
	}
	if len(rejects) > 0 {
		paths = append(paths, s.RejectionsLog())
	}
	now := s.now()
	stamp := now.Format("2006-01-02T15:04:05-07:00")
	var promoted []Promotion
	var rejected []string
	req := gitops.CommitRequest{
		Paths:       paths,
		Locks:       []string{lockMemory},
		LockOptions: s.lockOptions("compound gate"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			next := map[string][]byte{}
			promoted, rejected = promoted[:0], rejected[:0]
			var entries []IndexEntry
			for _, a := range approvals {
				c := a.d.Candidate
				if old, ok := cur[a.path]; ok {
					if r, _, err := ParseRecord(old); err == nil && r.CandidateID == c.ID {
						promoted = append(promoted, Promotion{ID: c.ID, Name: c.Name, Path: a.path})
						continue
					}
					return nil, fmt.Errorf("%s appeared meanwhile; scribe never overwrites a memory: run the gate again", a.path)
				}
				rec, body := s.record(c, stamp)
				next[a.path] = []byte(RenderRecord(rec, body))
				entries = append(entries, IndexEntry{Name: rec.Name, Path: strings.TrimPrefix(a.path, s.memDir()+"/"), Description: rec.Description})
				promoted = append(promoted, Promotion{ID: c.ID, Name: rec.Name, Path: a.path})
			}
			if len(entries) > 0 {
				idx := string(cur[s.IndexPath()])
				if n := AddToIndex(idx, entries...); n != idx {
					next[s.IndexPath()] = []byte(n)
				}
			}
			var log strings.Builder
			for _, d := range rejects {
				c := d.Candidate
				p := path.Join(s.RejectedDir(), safeName(c.ID)+".md")
				rejected = append(rejected, c.ID)
				if _, ok := cur[p]; ok {
					continue
				}
				next[p] = []byte(s.rejectedRecord(c, stamp))
				fmt.Fprintf(&log, "%s\trejected\t%s\t%s\t%s\n", stamp, c.ID, c.Detector, oneLine(s.redact(c.Name)))
			}
			if log.Len() > 0 {
				prev := string(cur[s.RejectionsLog()])
				if prev != "" && !strings.HasSuffix(prev, "\n") {
					prev += "\n"
				}
				next[s.RejectionsLog()] = []byte(prev + log.String())
			}
			return next, nil
		},
		Message: func(changed []string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "progress: memory +%d -%d (compound)\n\n", len(promoted), len(rejected))
			for _, p := range promoted {
				fmt.Fprintf(&b, "+ %s\n", p.Path)
			}
			for _, id := range rejected {
				fmt.Fprintf(&b, "- rejected %s\n", id)
			}
			var ids []string
			for _, d := range ds {
				ids = append(ids, d.Candidate.ID)
			}
			fmt.Fprintf(&b, "\n%s: compound\n%s: %s\n%s: %s\n", gitops.TrailerMode, TrailerConfirmed, via, TrailerCandidates, strings.Join(ids, ","))
			return b.String()
		},
	}
	res, err := s.commitPaths(ctx, req)
	if err != nil {
		return out, err
	}
	out.promoted = append(out.promoted, promoted...)
	out.rejected = append(out.rejected, rejected...)
	if res.SHA != "" {
		out.commit = &res
	}
	return out, nil
}

// freePath picks where a candidate's record goes: <dir>/<slug>.md, or
// <dir>/<slug>-<candidate id prefix>.md when that name is taken (in the
// work tree, at HEAD or earlier in this gate). Nothing is overwritten.
func (s *Store) freePath(ctx context.Context, head string, c Candidate, taken map[string]bool) (string, error) {
	dir := path.Join(s.memDir(), c.Dir())
	slug := c.Slug()
	for _, stem := range []string{slug, slug + "-" + c.ID[:min(8, len(c.ID))], slug + "-" + c.ID} {
		p := path.Join(dir, stem+".md")
		if err := gitops.CheckRelPath(p); err != nil {
			return "", err
		}
		if taken[p] {
			continue
		}
		abs, err := s.Repo.Abs(p)
		if err != nil {
			return "", err
		}
		if _, err := os.Lstat(abs); err == nil {
			continue
		}
		at, err := s.Repo.ReadFiles(ctx, head, []string{p})
		if err != nil {
			return "", err
		}
		if _, ok := at[p]; ok {
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("no free file name for memory %q in %s", c.Name, dir)
}

// record renders a promoted candidate: frontmatter, the name as H1, the
// content; every text redacted.
func (s *Store) record(c Candidate, stamp string) (Record, string) {
	name := oneLine(s.redact(c.Name))
	desc := oneLine(s.redact(c.Description))
	if desc == "" {
		desc = name
	}
	r := Record{
		Name: name, Description: capRunes(desc, 150), Type: c.Type, CandidateID: c.ID, PromotedAt: stamp,
		EvaluatorScore: c.EvaluatorScore, SourceTurn: max(c.SourceTurn, 0), TriggerSource: c.Trigger, Detector: c.Detector,
		SessionID: c.SessionID, Edited: c.Edited,
		OriginalClaim: s.redact(c.OriginalClaim), UserCorrection: s.redact(c.UserCorrection), Prevention: s.redact(c.Prevention),
		Topic: s.redact(c.Topic), Occurrences: c.Occurrences, Scope: c.Scope,
	}
	if c.Type == TypePattern && r.Occurrences < 1 {
		r.Occurrences = 1
	}
	if c.Type == TypeCorrection {
		if r.UserCorrection == "" {
			r.UserCorrection = oneLine(s.redact(c.Content))
		}
		if r.Prevention == "" {
			r.Prevention = "Apply this without being reminded: " + oneLine(s.redact(c.Content))
		}
	}
	if c.Type == TypePreference && r.Scope == "" {
		r.Scope = ScopeProject
	}
	if s.Config.Memory.Global {
		r.ProjectID = s.ProjectID
	}
	return r, recordBody("", name, s.redact(c.Content))
}

// rejectedRecord renders the rejection history entry of a candidate.
func (s *Store) rejectedRecord(c Candidate, stamp string) string {
	var fm struct {
		CandidateID    string  `yaml:"candidate_id"`
		Name           string  `yaml:"name"`
		Type           string  `yaml:"type"`
		Detector       string  `yaml:"detector"`
		TriggerSource  string  `yaml:"trigger_source"`
		RejectedAt     string  `yaml:"rejected_at"`
		EvaluatorScore float64 `yaml:"evaluator_score"`
		OverlapBand    string  `yaml:"overlap_band"`
		SourceTurn     int     `yaml:"source_turn"`
	}
	fm.CandidateID, fm.Name, fm.Type, fm.Detector, fm.TriggerSource = c.ID, oneLine(s.redact(c.Name)), c.Type, c.Detector, c.Trigger
	fm.RejectedAt, fm.EvaluatorScore, fm.OverlapBand, fm.SourceTurn = stamp, c.EvaluatorScore, c.OverlapBand, c.SourceTurn
	data, _ := yamlMarshal(fm)
	return "---\n" + data + "---\n" + recordBody("Rejected: ", fm.Name, s.redact(c.Content))
}

// recordBody is a memory record's markdown after its frontmatter: the
// title as an H1 (cut to fit 80 columns), then the content. A record is a person's file, committed,
// so it lints clean without markdownlint configuration: the title and
// content are escaped (a URL an autolink, a "<" escaped) and the content
// wrapped at 80 columns (markdown.FormatText); Existing.comparable reads it
// back with markdown.ReadText.
func recordBody(prefix, name, content string) string {
	title := headingText(name)
	for n := utf8.RuneCountInString(title); n > 1 && markdown.Columns("# "+prefix+markdown.EscapeText(title)) > markdown.Width; n-- {
		title = capRunes(title, n-1) // the frontmatter keeps the whole name
	}
	return "# " + prefix + markdown.EscapeText(title) + "\n\n" + markdown.FormatText(markdown.CanonicalText(content), markdown.Width) + "\n"
}

// headingText is a name as a heading's text: without the trailing
// punctuation markdownlint (MD026) flags ("… t.Parallel()." → "… t.Parallel()").
func headingText(name string) string {
	return strings.TrimRight(name, ".,;:!。，；：！ ")
}
