package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// Redactor removes secrets from text before it reaches a vault file; cmd
// plugs in the real one (memory stays free of the scanner's weight).
type Redactor func(string) string

// Store is a repository's memory: the vault files it writes (CLAUDE.md's
// rules, trap records, promoted memories, MEMORY.md, the rejection history)
// and its runtime state under the git dir.
type Store struct {
	Repo   *gitops.Repo
	Config config.Config
	Redact Redactor
	Now    func() time.Time
	// ProjectID tags records in global-memory mode.
	ProjectID string
	// UniversalDir is the absolute universal trap directory (config
	// memory.universal_dir with "~" expanded by the caller).
	UniversalDir string
	// ConfirmedVia is how the person said yes to this store's writes,
	// stamped as the Scribe-Confirmed trailer: ConfirmedYes (the default:
	// a terminal answer or a flag a person typed) or
	// ConfirmedMCPElicitation.
	ConfirmedVia string

	// commit makes scribe commits; tests replace it to simulate failures.
	commit func(context.Context, gitops.CommitRequest) (gitops.CommitResult, error)
	// branch, while a queued write lands, is the branch it was made on: it
	// lands only there.
	branch string
}

// Commit trailers of memory commits.
const (
	TrailerConfirmed  = "Scribe-Confirmed"
	TrailerCandidates = "Scribe-Candidates"
)

// Values of the Scribe-Confirmed trailer: how a person said yes.
const (
	// ConfirmedYes is a terminal answer or a flag a person typed.
	ConfirmedYes = "yes"
	// ConfirmedMCPElicitation is an MCP elicitation the person accepted in
	// their client.
	ConfirmedMCPElicitation = "mcp-elicitation"
)

// ConfirmedValue reports whether v is a Scribe-Confirmed value that records
// a person's yes.
func ConfirmedValue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case ConfirmedYes, ConfirmedMCPElicitation:
		return true
	}
	return false
}

func (s *Store) confirmedBy() string {
	if s.ConfirmedVia == "" {
		return ConfirmedYes
	}
	return s.ConfirmedVia
}

// Lock names memory commits take.
const (
	lockMemory = "memory"
	lockRules  = "rules"
	lockTraps  = "traps"
)

func (s *Store) now() time.Time {
	t := time.Now()
	if s.Now != nil {
		t = s.Now()
	}
	return t.In(s.Config.Location())
}

func (s *Store) redact(t string) string {
	if s.Redact == nil || t == "" {
		return t
	}
	return s.Redact(t)
}

func (s *Store) commitPaths(ctx context.Context, req gitops.CommitRequest) (gitops.CommitResult, error) {
	if req.Branch == "" {
		req.Branch = s.branch
	}
	if s.commit != nil {
		return s.commit(ctx, req)
	}
	return s.Repo.CommitPaths(ctx, req)
}

func (s *Store) lockOptions(purpose string) gitops.LockOptions {
	return gitops.LockOptions{Timeout: s.Config.LockTimeout, Purpose: purpose}
}

// RuntimeDir holds memory's runtime state: $GIT_COMMON_DIR/scribe/memory.
func (s *Store) RuntimeDir() string { return filepath.Join(s.Repo.ScribeDir(), "memory") }

func (s *Store) candidatesDir() string { return filepath.Join(s.RuntimeDir(), "candidates") }
func (s *Store) pendingDir() string    { return filepath.Join(s.RuntimeDir(), "pending") }
func (s *Store) sessionsDir() string   { return filepath.Join(s.RuntimeDir(), "sessions") }

// EditDir is where the command puts files it opens in $EDITOR (under the
// git dir, so nothing is written outside the repository).
func (s *Store) EditDir() string { return filepath.Join(s.RuntimeDir(), "edit") }

func (s *Store) memDir() string { return strings.TrimSuffix(s.Config.Paths.MemoryDir, "/") }

// IndexPath is MEMORY.md's repo-relative path.
func (s *Store) IndexPath() string { return path.Join(s.memDir(), IndexFile) }

// RejectedDir is the rejection history's repo-relative directory.
func (s *Store) RejectedDir() string { return path.Join(s.memDir(), "corrections", "_rejected") }

// RejectionsLog is the rejection log's repo-relative path.
func (s *Store) RejectionsLog() string { return path.Join(s.RejectedDir(), "_rejections.log") }

func (s *Store) window() int {
	if s.Config.Memory.Window > 0 {
		return s.Config.Memory.Window
	}
	return 50
}

// Keywords are the configured user_correction keywords.
func (s *Store) Keywords() Keywords {
	return Keywords{EN: s.Config.Memory.CorrectionsEN, KR: s.Config.Memory.CorrectionsKR}
}

// ---- runtime files

func writeJSON(p string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return gitops.WriteFileAtomic(p, append(data, '\n'))
}

func writeYAML(p string, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	return gitops.WriteFileAtomic(p, data)
}

var safeNameRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_\-]{0,127}$`)

// safeName keeps a runtime file name flat and harmless.
func safeName(s string) string {
	if safeNameRE().MatchString(s) {
		return s
	}
	return "s-" + hashID(s)
}

// readYAMLDir reads every *.yaml record in dir, oldest-first order left to
// the caller. A record that does not parse or check is reported (named by
// what) and left in place: a person may repair it, nothing is lost.
func readYAMLDir[T any](dir, what string, check func(*T, string) error) ([]T, []string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("read %s directory: %v", what, err)}
	}
	var out []T
	var warns []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".yaml") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		var v T
		if err == nil {
			err = yaml.Unmarshal(data, &v)
		}
		if err == nil {
			err = check(&v, p)
		}
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s %s is unreadable and was left in place: %v", what, p, err))
			continue
		}
		out = append(out, v)
	}
	return out, warns
}

// ---- candidate queue

// Queue returns the queued candidates, oldest first. Unreadable files are
// reported and left in place.
func (s *Store) Queue() ([]Candidate, []string) {
	out, warns := readYAMLDir(s.candidatesDir(), "queued candidate", func(c *Candidate, _ string) error { return c.Validate() })
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		if out[i].SourceTurn != out[j].SourceTurn {
			return out[i].SourceTurn < out[j].SourceTurn // conversation order
		}
		return out[i].ID < out[j].ID
	})
	return out, warns
}

func (s *Store) candidatePath(id string) string {
	return filepath.Join(s.candidatesDir(), safeName(id)+".yaml")
}

// enqueue stores a candidate unless one with its id is queued already (a
// skipped or re-found candidate keeps its place and its state).
func (s *Store) enqueue(c Candidate) (bool, error) {
	p := s.candidatePath(c.ID)
	if _, err := os.Lstat(p); err == nil {
		return false, nil
	}
	if err := writeYAML(p, c); err != nil {
		return false, fmt.Errorf("queue candidate %s: %w", c.ID, err)
	}
	return true, nil
}

func (s *Store) dequeue(ids []string) error {
	var errs []error
	for _, id := range ids {
		if err := os.Remove(s.candidatePath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ---- detector state (the 3-rejections rule)

// DetectorState is one detector's rejection streak and disable.
type DetectorState struct {
	Detector              string    `json:"detector"`
	ConsecutiveRejections int       `json:"consecutive_rejections"`
	DisabledUntil         time.Time `json:"disabled_until,omitzero"`
}

func (s *Store) detectorsFile() string { return filepath.Join(s.RuntimeDir(), "detectors.json") }

// DetectorStates returns every detector's state, in Detectors() order.
func (s *Store) DetectorStates() []DetectorState {
	m := s.readDetectors()
	out := make([]DetectorState, 0, len(Detectors()))
	for _, d := range Detectors() {
		st := m[d]
		st.Detector = d
		out = append(out, st)
	}
	return out
}

func (s *Store) readDetectors() map[string]DetectorState {
	m := map[string]DetectorState{}
	data, err := os.ReadFile(s.detectorsFile())
	if err == nil {
		json.Unmarshal(data, &m)
	}
	return m
}

// DisabledUntil reports whether detector is disabled now, and until when.
func (s *Store) DisabledUntil(detector string) (time.Time, bool) {
	st := s.readDetectors()[detector]
	if !st.DisabledUntil.IsZero() && s.now().Before(st.DisabledUntil) {
		return st.DisabledUntil, true
	}
	return time.Time{}, false
}

func (s *Store) disableAfter() int {
	if n := s.Config.Memory.DisableAfter; n > 0 {
		return n
	}
	return 3
}

func (s *Store) disableFor() time.Duration {
	if d := s.Config.Memory.DisableFor; d > 0 {
		return d
	}
	return 7 * 24 * time.Hour
}

// noteDecision updates a detector's streak: a rejection extends it (and
// the configured number in a row disables the detector), an approval ends
// it, a skip leaves it. It reports a disable that starts now.
func (s *Store) noteDecision(detector string, a Action) (time.Time, bool, error) {
	if a == ActionSkipped || detector == "" {
		return time.Time{}, false, nil
	}
	m := s.readDetectors()
	st := m[detector]
	st.Detector = detector
	var until time.Time
	if a == ActionRejected {
		st.ConsecutiveRejections++
		if st.ConsecutiveRejections >= s.disableAfter() {
			until = s.now().Add(s.disableFor())
			st.DisabledUntil, st.ConsecutiveRejections = until, 0
		}
	} else {
		st.ConsecutiveRejections = 0
	}
	m[detector] = st
	if err := writeJSON(s.detectorsFile(), m); err != nil {
		return time.Time{}, false, fmt.Errorf("record detector state: %w", err)
	}
	return until, !until.IsZero(), nil
}

// Reactivate lifts a detector's disable and resets its streak; it reports
// whether the detector was disabled.
func (s *Store) Reactivate(detector string) (bool, error) {
	known := false
	for _, d := range Detectors() {
		known = known || d == detector
	}
	if !known {
		return false, fmt.Errorf("unknown detector %q; the detectors are %s", detector, strings.Join(Detectors(), ", "))
	}
	m := s.readDetectors()
	st := m[detector]
	_, was := s.DisabledUntil(detector)
	st.Detector, st.DisabledUntil, st.ConsecutiveRejections = detector, time.Time{}, 0
	m[detector] = st
	if err := writeJSON(s.detectorsFile(), m); err != nil {
		return false, fmt.Errorf("reactivate %s: %w", detector, err)
	}
	return was, nil
}

// ---- declined project rules

func (s *Store) rulesFile() string { return filepath.Join(s.RuntimeDir(), "declined-rules.json") }

// DeclineRule remembers that a person said no to a rule, so `rule detect`
// does not propose it again.
func (s *Store) DeclineRule(rule string) error {
	m := map[string]string{}
	if data, err := os.ReadFile(s.rulesFile()); err == nil {
		json.Unmarshal(data, &m)
	}
	m[hashID(normalize(CleanRule(rule)))] = CleanRule(rule)
	return writeJSON(s.rulesFile(), m)
}

// RuleDeclined reports whether a person said no to rule before.
func (s *Store) RuleDeclined(rule string) bool {
	m := map[string]string{}
	if data, err := os.ReadFile(s.rulesFile()); err == nil {
		json.Unmarshal(data, &m)
	}
	_, ok := m[hashID(normalize(CleanRule(rule)))]
	return ok
}

// ---- existing memory

// Existing is a memory already in the vault (promoted or rejected).
type Existing struct {
	Path   string
	Record Record
	Body   string
	// Err is set when the file could not be read or parsed.
	Err error
}

func (e Existing) comparable() Comparable {
	body := strings.TrimSpace(e.Body)
	if strings.HasPrefix(body, "# ") {
		_, body, _ = strings.Cut(body, "\n")
	}
	content := markdown.ReadText(body) // as recordBody wrapped and escaped it
	if e.Record.Type == TypePattern && e.Record.Topic != "" {
		content = e.Record.Topic
	}
	return Comparable{Name: e.Record.Name, Content: content, Type: e.Record.Type, Scope: e.Record.Scope}
}

// Memories lists the promoted memory records in the work tree.
func (s *Store) Memories() ([]Existing, error) {
	var out []Existing
	for _, kind := range []string{"tacit", "corrections", "preferences"} {
		found, err := s.readRecords(path.Join(s.memDir(), kind))
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// Rejected lists the rejection history in the work tree.
func (s *Store) Rejected() ([]Existing, error) { return s.readRecords(s.RejectedDir()) }

// readRecords reads the .md files directly in dir ("_" names skipped, no
// symlinks followed).
func (s *Store) readRecords(dir string) ([]Existing, error) {
	abs, err := s.Repo.Abs(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []Existing
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".md") || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			continue
		}
		rel := path.Join(dir, name)
		ex := Existing{Path: rel}
		data, err := os.ReadFile(filepath.Join(abs, name))
		if err == nil {
			ex.Record, ex.Body, err = ParseRecord(data)
		}
		ex.Err = err
		out = append(out, ex)
	}
	return out, nil
}

// ---- intake

// Intake normalizes a transcript's conversation (what people said and
// what the agent answered; tool output and injected text left out), keeps
// the last memory.window turns and snapshots them under the git dir. It
// returns the snapshot and the file it was written to.
func (s *Store) Intake(turns []Turn, trigger, sessionID, transcriptPath string, corrupt int) (Snapshot, string, error) {
	if n := s.window(); len(turns) > n {
		turns = turns[len(turns)-n:]
	}
	snap := Snapshot{SessionID: sessionID, Trigger: trigger, Transcript: transcriptPath, Turns: turns, Created: s.now(), Corrupt: corrupt}
	if len(turns) > 0 {
		snap.TurnRange = [2]int{turns[0].Index, turns[len(turns)-1].Index}
	}
	for i := range snap.Turns {
		snap.Turns[i].Text = s.redact(snap.Turns[i].Text)
	}
	p := filepath.Join(s.sessionsDir(), safeName(sessionID)+".turns.json")
	if err := writeJSON(p, snap); err != nil {
		return snap, "", fmt.Errorf("snapshot session %s: %w", sessionID, err)
	}
	return snap, p, nil
}

// Fired reports whether a trigger fires on a snapshot: pattern_repeat
// needs a topic in three user turns, user_correction a correction;
// session_wrap and manual always fire.
func Fired(snap Snapshot, trigger string, k Keywords) (bool, string) {
	switch trigger {
	case TriggerPatternRepeat:
		if ts := Topics(snap.Turns, 3); len(ts) > 0 {
			return true, fmt.Sprintf("%q came up in %d user turns", ts[0].Term, len(ts[0].Turns))
		}
		return false, "no topic came up in three user turns"
	case TriggerUserCorrection:
		for _, t := range snap.Turns {
			if t.Role == RoleUser && k.IsCorrection(t.Text) {
				return true, fmt.Sprintf("turn %d corrects the agent", t.Index)
			}
		}
		return false, "no user correction in the window"
	}
	return true, trigger
}
