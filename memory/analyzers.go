package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// Snapshot is intake's normalized input, shared by the four analyzers: the
// last turns of one session, frozen under the git dir.
type Snapshot struct {
	SessionID  string    `json:"session_id"`
	Trigger    string    `json:"trigger_source"`
	Transcript string    `json:"transcript,omitempty"`
	TurnRange  [2]int    `json:"turn_range"`
	Turns      []Turn    `json:"turns"`
	Created    time.Time `json:"created"`
	// Corrupt counts transcript lines that could not be read (skipped).
	Corrupt int `json:"corrupt_lines,omitempty"`
}

// Analyzer proposes memory candidates from a snapshot. The built-ins are
// deterministic; the dispatch issue plugs in agent-backed ones (each reads
// the snapshot in a fresh context) behind the same interface.
type Analyzer interface {
	// Detector names the analyzer: tacit, correction, pattern or preference.
	Detector() string
	Analyze(ctx context.Context, s Snapshot) ([]Candidate, error)
}

// Judge scores a candidate between 0.0 and 1.0 (the qa-judge's mean of
// correctness, clarity, citations, safety and completeness). Without a
// judge every candidate scores 0.0 and the person decides alone.
type Judge interface {
	Score(ctx context.Context, c Candidate) (float64, error)
}

// BuiltinAnalyzers are the four deterministic analyzers.
func BuiltinAnalyzers(k Keywords) []Analyzer {
	return []Analyzer{tacitAnalyzer{}, correctionAnalyzer{k: k}, patternAnalyzer{}, preferenceAnalyzer{k: k}}
}

// newCandidate fills the common fields; key is what the id hashes besides
// the type (the content, or the topic of a pattern).
func newCandidate(s Snapshot, detector, typ, key, name, desc, content string, turn int) Candidate {
	return Candidate{
		ID:          CandidateID(typ, key),
		Detector:    detector,
		Trigger:     s.Trigger,
		Type:        typ,
		Name:        capRunes(oneLine(name), 80),
		Description: capRunes(oneLine(desc), 150),
		Content:     strings.TrimSpace(content),
		SessionID:   s.SessionID,
		SourceTurn:  turn,
		TurnRange:   s.TurnRange,
	}
}

// ---- correction: the user said the agent was wrong (Bug track)

type correctionAnalyzer struct{ k Keywords }

func (correctionAnalyzer) Detector() string { return DetectorCorrection }

func (a correctionAnalyzer) Analyze(_ context.Context, s Snapshot) ([]Candidate, error) {
	var out []Candidate
	for _, g := range a.k.Corrections(s.Turns) {
		ins := g.Instruction
		if ins == "" {
			continue
		}
		n := len(g.Turns)
		desc := "User correction: " + ins
		if n > 1 {
			desc = fmt.Sprintf("User correction (%d×): %s", n, ins)
		}
		c := newCandidate(s, DetectorCorrection, TypeCorrection, ins, ins, desc, ins, g.Turns[len(g.Turns)-1])
		c.UserCorrection = capRunes(oneLine(g.Texts[len(g.Texts)-1]), 300)
		c.OriginalClaim = g.Claims[0]
		c.Prevention = "Apply this without being reminded: " + ins
		c.Rationale = fmt.Sprintf("the user corrected the agent in %d turn(s): %s", n, joinInts(g.Turns))
		c.Occurrences = n
		out = append(out, c)
	}
	return out, nil
}

// ---- pattern: the same topic three times

type patternAnalyzer struct{}

func (patternAnalyzer) Detector() string { return DetectorPattern }

// patternMax bounds how many recurring topics one snapshot proposes.
const patternMax = 3

func (patternAnalyzer) Analyze(_ context.Context, s Snapshot) ([]Candidate, error) {
	var out []Candidate
	seen := map[string]bool{}
	for _, t := range Topics(s.Turns, 3) {
		key := joinInts(t.Turns)
		if seen[key] {
			continue // another term for the same turns
		}
		seen[key] = true
		n := len(t.Turns)
		content := fmt.Sprintf("The user keeps coming back to %q (%d turns). First raised as: %q", t.Term, n, capRunes(oneLine(t.Sample), 160))
		c := newCandidate(s, DetectorPattern, TypePattern, "topic:"+t.Term, "Recurring topic: "+t.Term,
			fmt.Sprintf("Raised in %d user turns: %s", n, t.Term), content, t.Turns[0])
		c.Topic, c.Occurrences = t.Term, n
		c.Rationale = "pattern_repeat: turns " + joinInts(t.Turns)
		out = append(out, c)
		if len(out) == patternMax {
			break
		}
	}
	return out, nil
}

// ---- tacit: lessons and facts stated in passing (Knowledge track)

type tacitAnalyzer struct{}

func (tacitAnalyzer) Detector() string { return DetectorTacit }

var (
	tacitUser      = lazyre.New(`(?i)\b(turns out|it turned out|the (root )?cause (is|was)|the trick is|the catch is|gotcha|lesson learned|note that|keep in mind|remember that|the reason (is|was)|til)\b|알고 보니|원인은|이유는|주의할 점|핵심은|교훈|기억해`)
	tacitAssistant = lazyre.New(`(?i)\b(turns out|it turned out|the root cause (is|was)|the trick is|the catch is|lesson learned)\b|알고 보니|근본 원인은|교훈`)
)

// tacitMax bounds how many tacit candidates one snapshot proposes.
const tacitMax = 3

func (tacitAnalyzer) Analyze(_ context.Context, s Snapshot) ([]Candidate, error) {
	var out []Candidate
	for _, t := range s.Turns {
		re := tacitAssistant()
		if t.Role == RoleUser {
			re = tacitUser()
		}
		for _, sent := range sentences(t.Text) {
			n := len(strings.Fields(sent))
			if !re.MatchString(sent) || n < 4 || len(sent) > 400 || strings.Contains(sent, "```") {
				continue
			}
			sent = oneLine(strings.Trim(sent, "*_` "))
			c := newCandidate(s, DetectorTacit, TypeTacit, sent, sent, sent, sent, t.Index)
			c.Rationale = "stated in turn " + fmt.Sprint(t.Index) + " (" + t.Role + ")"
			out = append(out, c)
			if len(out) == tacitMax {
				return out, nil
			}
		}
	}
	return out, nil
}

// ---- preference: how the user likes things done

type preferenceAnalyzer struct{ k Keywords }

func (preferenceAnalyzer) Detector() string { return DetectorPreference }

var (
	preferenceRE = lazyre.New(`(?i)\b(i (really )?(prefer|like|want|hate|dislike)|i'd (rather|prefer|like)|please (always|never|don't|do not|use|keep|avoid)|from now on|going forward|don't ever|(always|never) (use|write|add|put|run|call|make|give|show))\b|선호|좋겠|앞으로는|앞으로|싫어|좋아해|하지\s*말아`)
	scopeSession = lazyre.New(`(?i)\b(this session|for now|right now|today)\b|이번 세션|지금은|오늘은`)
	scopeProject = lazyre.New(`(?i)\b(this project|this repo|this repository|in here)\b|이 프로젝트|이 저장소`)
	scopeUser    = lazyre.New(`(?i)\b(always|from now on|going forward|in general|everywhere|all my)\b|앞으로|항상|언제나`)
)

// preferenceMax bounds how many preferences one snapshot proposes.
const preferenceMax = 3

func (a preferenceAnalyzer) Analyze(_ context.Context, s Snapshot) ([]Candidate, error) {
	var out []Candidate
	for _, t := range s.Turns {
		if t.Role != RoleUser || a.k.IsCorrection(t.Text) {
			continue // corrections are the correction analyzer's
		}
		for _, sent := range sentences(t.Text) {
			if !preferenceRE().MatchString(sent) || DirectRule(sent) != "" || len(strings.Fields(sent)) < 3 || len(sent) > 300 {
				continue // direct project rules belong to `rule detect`
			}
			sent = oneLine(sent)
			scope := ScopeProject
			switch {
			case scopeSession().MatchString(sent):
				scope = ScopeSession
			case scopeProject().MatchString(sent):
				scope = ScopeProject
			case scopeUser().MatchString(sent):
				scope = ScopeUser
			}
			c := newCandidate(s, DetectorPreference, TypePreference, scope+":"+sent, sent, "Preference ("+scope+"): "+sent, sent, t.Index)
			c.Scope = scope
			c.Rationale = "stated by the user in turn " + fmt.Sprint(t.Index)
			out = append(out, c)
			if len(out) == preferenceMax {
				return out, nil
			}
		}
	}
	return out, nil
}

func joinInts(in []int) string {
	s := make([]string, len(in))
	for i, n := range in {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
