package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/skills"
)

// analyzerSkills maps compound detectors to their skills.
func analyzerSkill(detector string) string { return "compound_" + detector }

// WithAgents returns p with an agent-backed analyzer for every detector
// whose compound_<detector> skill is routed in the user config (the others
// keep their deterministic built-in) and the qa_judge skill as the judge
// when it is routed. memory still validates, dedups and gates whatever the
// agents propose; a person decides on every candidate.
func WithAgents(d *Dispatcher, p memory.Pipeline) memory.Pipeline {
	out := p
	out.Analyzers = nil
	for _, a := range p.Analyzers {
		if d.o.Routing.Routed(analyzerSkill(a.Detector())) {
			out.Analyzers = append(out.Analyzers, Analyzer{D: d, Name: a.Detector()})
			continue
		}
		out.Analyzers = append(out.Analyzers, a)
	}
	if d.o.Routing.Routed(skills.QAJudge) {
		out.Judge = Judge{D: d}
	}
	return out
}

// Analyzer is a compound analyzer run by an agent (compound_<detector>),
// reading the snapshot in a fresh context.
type Analyzer struct {
	D    *Dispatcher
	Name string
}

// Detector names the analyzer.
func (a Analyzer) Detector() string { return a.Name }

// AgentCandidate is one element of the candidates shape.
type AgentCandidate struct {
	Content        string `json:"content"`
	Trigger        string `json:"trigger_source"`
	TrackHint      string `json:"track_hint"`
	Rationale      string `json:"rationale"`
	TurnRange      any    `json:"turn_range"`
	Scope          string `json:"scope"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	OriginalClaim  string `json:"original_claim"`
	UserCorrection string `json:"user_correction"`
	Prevention     string `json:"prevention"`
}

// Analyze renders the detector's skill with the snapshot's turns, runs it
// and turns the JSON array it replies with into candidates.
func (a Analyzer) Analyze(ctx context.Context, s memory.Snapshot) ([]memory.Candidate, error) {
	skill := analyzerSkill(a.Name)
	sk, err := a.D.lib.Get(skill)
	if err != nil {
		return nil, err
	}
	prompt, err := sk.Render(map[string]string{"trigger_source": s.Trigger, "turns": renderTurns(s.Turns)})
	if err != nil {
		return nil, err
	}
	out, _, rt, err := a.D.Generate(ctx, skill, prompt)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", skill, rt.Runner, err)
	}
	raw, err := ParseCandidates(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", skill, err)
	}
	typ := map[string]string{memory.DetectorTacit: memory.TypeTacit, memory.DetectorCorrection: memory.TypeCorrection,
		memory.DetectorPattern: memory.TypePattern, memory.DetectorPreference: memory.TypePreference}[a.Name]
	var cands []memory.Candidate
	for _, r := range raw {
		content := a.D.redact(strings.TrimSpace(r.Content))
		if content == "" {
			continue
		}
		lo, hi := turnRange(r.TurnRange, s.TurnRange)
		c := memory.Candidate{ID: memory.CandidateID(typ, content), Detector: a.Name, Trigger: s.Trigger, Type: typ,
			Name: capText(firstNonEmpty(r.Name, content), 80), Description: capText(firstNonEmpty(r.Description, content), 150),
			Content: content, Rationale: a.D.redact(notes.OneLine(r.Rationale)), SessionID: s.SessionID, SourceTurn: lo, TurnRange: [2]int{lo, hi}}
		switch typ {
		case memory.TypeCorrection:
			c.OriginalClaim, c.UserCorrection, c.Prevention = a.D.redact(notes.OneLine(r.OriginalClaim)), a.D.redact(notes.OneLine(r.UserCorrection)), a.D.redact(notes.OneLine(r.Prevention))
		case memory.TypePreference:
			switch r.Scope {
			case memory.ScopeSession, memory.ScopeProject, memory.ScopeUser:
				c.Scope = r.Scope
			}
		}
		cands = append(cands, c)
	}
	return cands, nil
}

// ParseCandidates reads the candidates shape: a JSON array, tolerating a
// code fence or words around it.
func ParseCandidates(out string) ([]AgentCandidate, error) {
	s := strings.TrimSpace(out)
	i, j := strings.IndexByte(s, '['), strings.LastIndexByte(s, ']')
	if i < 0 || j < i {
		return nil, errors.New("the reply has no JSON array of candidates")
	}
	var raw []AgentCandidate
	if err := json.Unmarshal([]byte(s[i:j+1]), &raw); err != nil {
		return nil, fmt.Errorf("the reply's candidates are not valid JSON: %v", err)
	}
	return raw, nil
}

// Judge is the qa_judge skill as memory's evaluator.
type Judge struct{ D *Dispatcher }

// Score renders qa_judge with the candidate, runs it and returns the mean
// of its five 0.0–1.0 scores.
func (j Judge) Score(ctx context.Context, c memory.Candidate) (float64, error) {
	sk, err := j.D.lib.Get(skills.QAJudge)
	if err != nil {
		return 0, err
	}
	cj, _ := json.MarshalIndent(map[string]any{"type": c.Type, "name": c.Name, "content": c.Content,
		"rationale": c.Rationale, "turn_range": c.TurnRange}, "", "  ")
	prompt, err := sk.Render(map[string]string{"candidate": string(cj), "turns": "(the candidate's turn range is given; the transcript is not repeated)"})
	if err != nil {
		return 0, err
	}
	out, _, rt, err := j.D.Generate(ctx, skills.QAJudge, prompt)
	if err != nil {
		return 0, fmt.Errorf("qa_judge (%s): %w", rt.Runner, err)
	}
	return ParseScore(out)
}

// ParseScore reads the score shape: a JSON object with correctness,
// clarity, citations, safety and completeness in 0.0–1.0; it returns their
// mean. A missing or out-of-range dimension is an error (memory then scores
// the candidate 0.0 and the person decides alone).
func ParseScore(out string) (float64, error) {
	s := strings.TrimSpace(out)
	i, k := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || k < i {
		return 0, errors.New("the reply has no JSON score object")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s[i:k+1]), &m); err != nil {
		return 0, fmt.Errorf("the reply's score is not valid JSON: %v", err)
	}
	sum := 0.0
	for _, dim := range []string{"correctness", "clarity", "citations", "safety", "completeness"} {
		var v float64
		switch x := m[dim].(type) {
		case float64:
			v = x
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return 0, fmt.Errorf("score %s is %q, not a number", dim, x)
			}
			v = f
		default:
			return 0, fmt.Errorf("the score has no %s", dim)
		}
		if v < 0 || v > 1 || v != v {
			return 0, fmt.Errorf("score %s is %v, outside 0.0–1.0", dim, v)
		}
		sum += v
	}
	return sum / 5, nil
}

func renderTurns(turns []memory.Turn) string {
	var b strings.Builder
	for _, t := range turns {
		fmt.Fprintf(&b, "[%d] %s: %s\n", t.Index, t.Role, strings.TrimSpace(t.Text))
	}
	return strings.TrimRight(b.String(), "\n")
}

// turnRange reads "12-15", "12", [12, 15] or 12; fallback when unreadable.
func turnRange(v any, fallback [2]int) (int, int) {
	switch x := v.(type) {
	case float64:
		return int(x), int(x)
	case []any:
		if len(x) == 2 {
			a, ok1 := x[0].(float64)
			b, ok2 := x[1].(float64)
			if ok1 && ok2 {
				return int(a), int(b)
			}
		}
	case string:
		lo, hi, found := strings.Cut(strings.TrimSpace(x), "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		if !found {
			hi = lo
		}
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 == nil && err2 == nil {
			return a, b
		}
	}
	return fallback[0], fallback[1]
}

func capText(s string, n int) string {
	s = notes.OneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
