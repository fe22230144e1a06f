package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Triggers start an intake (SPEC §6).
const (
	TriggerPatternRepeat  = "pattern_repeat"  // the same topic three times
	TriggerUserCorrection = "user_correction" // the user said the agent was wrong
	TriggerSessionWrap    = "session_wrap"    // wrap at the end of a session
	TriggerManual         = "manual"          // a person ran collect
)

// Triggers lists the trigger names.
func Triggers() []string {
	return []string{TriggerPatternRepeat, TriggerUserCorrection, TriggerSessionWrap, TriggerManual}
}

// Detectors are the four analyzers; each is also the unit the disable rule
// counts rejections for and `compound reactivate` names.
const (
	DetectorTacit      = "tacit"
	DetectorCorrection = "correction"
	DetectorPattern    = "pattern"
	DetectorPreference = "preference"
)

// Detectors lists the detector names.
func Detectors() []string {
	return []string{DetectorTacit, DetectorCorrection, DetectorPattern, DetectorPreference}
}

// Memory types: the frontmatter "type" of a promoted record.
const (
	TypeTacit      = "tacit"
	TypeCorrection = "correction"
	TypePattern    = "pattern"
	TypePreference = "preference"
)

// Overlap bands (SPEC §6).
const (
	BandHigh     = "High"
	BandModerate = "Moderate"
	BandLow      = "Low"
	BandUnknown  = "unknown"
)

// Preference scopes.
const (
	ScopeSession = "session"
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Candidate is one memory proposed by an analyzer, queued under the git dir
// until a person decides on it at the gate.
type Candidate struct {
	ID       string `yaml:"candidate_id" json:"candidate_id"`
	Detector string `yaml:"detector" json:"detector"`
	// Trigger is the trigger_source of the intake that produced it.
	Trigger     string `yaml:"trigger_source" json:"trigger_source"`
	Type        string `yaml:"type" json:"type"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	Content     string `yaml:"content" json:"content"`
	Rationale   string `yaml:"rationale,omitempty" json:"rationale,omitempty"`
	SessionID   string `yaml:"session_id,omitempty" json:"session_id,omitempty"`
	// SourceTurn is the transcript turn index the candidate comes from.
	SourceTurn int    `yaml:"source_turn" json:"source_turn"`
	TurnRange  [2]int `yaml:"turn_range,flow" json:"turn_range"`
	// Type fields: correction.
	OriginalClaim  string `yaml:"original_claim,omitempty" json:"original_claim,omitempty"`
	UserCorrection string `yaml:"user_correction,omitempty" json:"user_correction,omitempty"`
	Prevention     string `yaml:"prevention,omitempty" json:"prevention,omitempty"`
	// Type fields: pattern.
	Topic       string `yaml:"topic,omitempty" json:"topic,omitempty"`
	Occurrences int    `yaml:"occurrences,omitempty" json:"occurrences,omitempty"`
	// Type fields: preference.
	Scope string `yaml:"scope,omitempty" json:"scope,omitempty"`
	// Validator results.
	EvaluatorScore float64   `yaml:"evaluator_score" json:"evaluator_score"`
	OverlapScore   float64   `yaml:"overlap_score" json:"overlap_score"`
	OverlapBand    string    `yaml:"overlap_band" json:"overlap_band"`
	OverlapWith    string    `yaml:"overlap_with,omitempty" json:"overlap_with,omitempty"`
	Created        time.Time `yaml:"created" json:"created"`
	// Edited is set when a person rewrote the content at the gate.
	Edited bool `yaml:"edited,omitempty" json:"edited,omitempty"`
}

// CandidateID is the stable id of a candidate: it depends only on its type
// and normalized content, so the same lesson found again (in a later
// session, by a later collect) has the same id — which is how a rejected
// candidate is recognised and never proposed again.
func CandidateID(typ, content string) string { return hashID(typ, normalize(content)) }

// Dir is the memory_dir subdirectory the candidate is stored in: user
// corrections in corrections/, scoped preferences in preferences/,
// everything else in tacit/.
func (c Candidate) Dir() string {
	switch {
	case c.Detector == DetectorCorrection || c.Type == TypeCorrection:
		return "corrections"
	case c.Type == TypePreference && c.Scope != "":
		return "preferences"
	}
	return "tacit"
}

// Slug is the file name stem of the candidate's record. A name that is
// not all ASCII (a Korean one, say) keeps only its ASCII words in the slug,
// so the id prefix is added to keep the name telling and unique.
func (c Candidate) Slug() string {
	id := c.ID[:min(8, len(c.ID))]
	s := Slug(c.Name)
	switch {
	case s == "":
		return c.Type + "-" + id
	case nonASCIILetters(c.Name):
		return s + "-" + id
	}
	return s
}

func nonASCIILetters(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// Validate reports what is missing from a candidate read back from the queue.
func (c Candidate) Validate() error {
	var missing []string
	for _, f := range []struct{ name, val string }{{"candidate_id", c.ID}, {"detector", c.Detector}, {"type", c.Type}, {"name", c.Name}, {"content", c.Content}} {
		if strings.TrimSpace(f.val) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("candidate %q lacks %s", c.ID, strings.Join(missing, ", "))
	}
	if !candidateIDRE().MatchString(c.ID) {
		return fmt.Errorf("candidate id %q is not a lowercase hex id", c.ID)
	}
	return nil
}

// Verdict is the gate's colour for a candidate's evaluator score.
type Verdict string

// Verdicts: ≥ 0.80 green (y recommended), ≤ 0.40 red (N recommended),
// between yellow (the person's call).
const (
	VerdictGreen  Verdict = "green"
	VerdictYellow Verdict = "yellow"
	VerdictRed    Verdict = "red"
)

// VerdictOf maps an evaluator score to its gate colour.
func VerdictOf(score float64) Verdict {
	switch {
	case score >= 0.80:
		return VerdictGreen
	case score <= 0.40:
		return VerdictRed
	}
	return VerdictYellow
}
