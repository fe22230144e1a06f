package notes

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// SessionStatus is where a session record is in its life.
type SessionStatus string

// Session record statuses.
const (
	// SessionOpen: turns still update the record and the bridge note.
	SessionOpen SessionStatus = "open"
	// SessionJournaled: the session's one journal entry is written (or the
	// dispatch table decided it needs none); the record is final.
	SessionJournaled SessionStatus = "journaled"
)

// FollowupStatus says what became of a follow-up a session found.
type FollowupStatus string

// Follow-up statuses in a session record.
const (
	FollowupPending FollowupStatus = "pending" // awaiting a person's routing
	FollowupRouted  FollowupStatus = "routed"
	FollowupSkipped FollowupStatus = "skipped"
	FollowupDurable FollowupStatus = "durable" // already in a follow-up source
)

// Bounds of a session record: it grows with turns, never without limit.
const (
	MaxSessionSummaries = 40
	MaxSessionFiles     = 200
	MaxSessionTests     = 20
	MaxSessionFollowups = 50
	MaxSummaryRunes     = 400
)

// SessionCommit is a commit the session made.
type SessionCommit struct {
	SHA     string   `yaml:"sha"`
	Subject string   `yaml:"subject"`
	PatchID string   `yaml:"patch_id,omitempty"`
	Files   []string `yaml:"files,omitempty"`
	Added   int      `yaml:"added,omitempty"`
	Deleted int      `yaml:"deleted,omitempty"`
}

// SessionFollowup is a follow-up the session's transcript announced.
type SessionFollowup struct {
	Text    string         `yaml:"text"`
	Project string         `yaml:"project,omitempty"`
	Quote   string         `yaml:"quote,omitempty"`
	Status  FollowupStatus `yaml:"status"`
}

// Session is an agent session's record (sessions/<id>.yaml on the vault):
// what its turns did, kept up to date by each Stop from the part of the
// transcript not read before (SPEC principle 12).
type Session struct {
	ID        string        `yaml:"id"`
	Agent     string        `yaml:"agent,omitempty"`
	Status    SessionStatus `yaml:"status"`
	Branch    string        `yaml:"branch,omitempty"`
	StartHead string        `yaml:"start_head,omitempty"`
	Head      string        `yaml:"head,omitempty"`
	Started   time.Time     `yaml:"started"`
	Updated   time.Time     `yaml:"updated"`
	Ended     time.Time     `yaml:"ended,omitempty"`
	// EndReason says what finalised it: session-end, explicit wrap, idle,
	// new session.
	EndReason string `yaml:"end_reason,omitempty"`
	Stops     int    `yaml:"stops"`
	// Transcript, Format and Offset say how far the transcript is read.
	Transcript   string            `yaml:"transcript,omitempty"`
	Format       string            `yaml:"format,omitempty"`
	Offset       int64             `yaml:"offset"`
	SkippedLines int               `yaml:"skipped_lines,omitempty"`
	Commits      []SessionCommit   `yaml:"commits,omitempty"`
	Files        []string          `yaml:"files,omitempty"`
	Tests        []string          `yaml:"tests,omitempty"`
	Summaries    []string          `yaml:"summaries,omitempty"`
	Followups    []SessionFollowup `yaml:"followups,omitempty"`
	Signals      []string          `yaml:"memory_signals,omitempty"`
	// Entry is the id of the session's journal entry once written.
	Entry string `yaml:"journal_entry,omitempty"`
}

// Clone is a deep copy of s: what one copy's owner changes (AddCommit
// appends) never reaches another.
func (s Session) Clone() Session {
	c := s
	if s.Commits != nil {
		c.Commits = make([]SessionCommit, len(s.Commits))
		for i, sc := range s.Commits {
			sc.Files = slices.Clone(sc.Files)
			c.Commits[i] = sc
		}
	}
	c.Files = slices.Clone(s.Files)
	c.Tests = slices.Clone(s.Tests)
	c.Summaries = slices.Clone(s.Summaries)
	c.Followups = slices.Clone(s.Followups)
	c.Signals = slices.Clone(s.Signals)
	return c
}

// SanitizeSessionID makes an agent's session id safe as one path segment:
// letters, digits, '.', '_' and '-' are kept, anything else becomes '_', no
// leading dot, at most 128 bytes. ok is false when nothing usable is left.
func SanitizeSessionID(id string) (string, bool) {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 128 {
			break
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if strings.Trim(s, "_") == "" {
		return "", false
	}
	return s, true
}

// SessionVaultPath is the vault path of a session's record; id must be
// sanitized (SanitizeSessionID).
func SessionVaultPath(id string) string { return VaultSessionsDir + "/" + id + ".yaml" }

// ParseSession reads a session record.
func ParseSession(data []byte) (Session, error) {
	var s Session
	if err := yaml.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("parse session record: %w", err)
	}
	if s.ID == "" {
		return s, fmt.Errorf("parse session record: no id")
	}
	return s, nil
}

// Render writes the record as YAML: what yaml.Marshal writes, most often
// without its cost (renderSession).
func (s Session) Render() []byte {
	if out, ok := renderSession(s); ok {
		return out
	}
	out, err := yaml.Marshal(s)
	if err != nil {
		return []byte(fmt.Sprintf("id: %q\nstatus: %s\n", s.ID, s.Status))
	}
	return out
}

// Open reports whether turns still update the record.
func (s Session) Open() bool { return s.Status == SessionOpen }

// AddSummary keeps an assistant's turn summary: one capped line, no exact
// repeat of the previous one, the newest MaxSessionSummaries kept.
func (s *Session) AddSummary(text string) {
	t := CapRunes(SingleLine(text), MaxSummaryRunes)
	if t == "" || (len(s.Summaries) > 0 && s.Summaries[len(s.Summaries)-1] == t) {
		return
	}
	s.Summaries = append(s.Summaries, t)
	if n := len(s.Summaries) - MaxSessionSummaries; n > 0 {
		s.Summaries = append([]string{}, s.Summaries[n:]...)
	}
}

// AddFiles, AddTests and AddSignals merge without repeats, bounded.
func (s *Session) AddFiles(paths ...string) { s.Files = addBounded(s.Files, paths, MaxSessionFiles) }

// AddTests records test commands or results the transcript mentions.
func (s *Session) AddTests(tests ...string) { s.Tests = addBounded(s.Tests, tests, MaxSessionTests) }

// AddSignals records memory signals (corrections, rules stated).
func (s *Session) AddSignals(sig ...string) { s.Signals = addBounded(s.Signals, sig, MaxSessionTests) }

func addBounded(have, add []string, max int) []string {
	seen := map[string]bool{}
	for _, h := range have {
		seen[h] = true
	}
	for _, a := range add {
		a = CapRunes(SingleLine(a), MaxSummaryRunes)
		if a == "" || seen[a] || len(have) >= max {
			continue
		}
		seen[a] = true
		have = append(have, a)
	}
	return have
}

// AddCommit records a commit once (by sha).
func (s *Session) AddCommit(c SessionCommit) bool {
	for i, have := range s.Commits {
		if have.SHA == c.SHA {
			if have.Subject == "" {
				s.Commits[i] = c
			}
			return false
		}
	}
	s.Commits = append(s.Commits, c)
	s.AddFiles(c.Files...)
	return true
}

// AddFollowup records a follow-up once (by its text, case-insensitively).
func (s *Session) AddFollowup(f SessionFollowup) {
	key := strings.ToLower(SingleLine(f.Text))
	if key == "" {
		return
	}
	for _, have := range s.Followups {
		if strings.ToLower(have.Text) == key {
			return
		}
	}
	if len(s.Followups) < MaxSessionFollowups {
		f.Text = CapRunes(SingleLine(f.Text), MaxSummaryRunes)
		f.Quote = CapRunes(SingleLine(f.Quote), MaxSummaryRunes)
		s.Followups = append(s.Followups, f)
	}
}

// Pending are the follow-ups still awaiting a person.
func (s Session) Pending() []SessionFollowup {
	var out []SessionFollowup
	for _, f := range s.Followups {
		if f.Status == FollowupPending {
			out = append(out, f)
		}
	}
	return out
}

// Open follow-ups are the ones the next session should know about:
// pending and durable ones alike (routed ones live in their source now).
func (s Session) OpenFollowups() []SessionFollowup {
	var out []SessionFollowup
	for _, f := range s.Followups {
		if f.Status == FollowupPending || f.Status == FollowupDurable {
			out = append(out, f)
		}
	}
	return out
}
