package dispatch

import (
	"context"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/memory"
)

func TestWithAgents(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, "")
	dl := &config.DispatchLoaded{Origins: map[string]string{}, File: config.Dispatch{Skills: map[string]config.SkillRoute{
		"compound_correction": {Route: config.Route{Runner: "claude"}}, "qa_judge": {},
	}}}
	s := &stub{reply: func(prompt string, _ Route) (string, error) {
		if strings.Contains(prompt, "Skill: qa_judge") {
			return "```json\n{\"correctness\": 1, \"clarity\": 0.5, \"citations\": \"0.5\", \"safety\": 1, \"completeness\": 0.5}\n```", nil
		}
		if !strings.Contains(prompt, "[7] user: no, that's wrong — use tabs") {
			t.Errorf("the turns are not in the prompt:\n%s", prompt)
		}
		return `Here you go: [{"content": "Indent with tabs, not spaces.", "trigger_source": "user_correction", "track_hint": "bug",
			"rationale": "the user corrected it", "turn_range": "7-8", "original_claim": "spaces are fine",
			"user_correction": "no, use tabs", "prevention": "check .editorconfig"}, {"content": "  "}]`, nil
	}}
	d := newDispatcher(r, NewRouting(dl, Flags{}), s, nil)
	p := WithAgents(d, memory.Pipeline{Analyzers: memory.BuiltinAnalyzers(memory.Keywords{})})
	var agents []string
	for _, a := range p.Analyzers {
		if _, ok := a.(Analyzer); ok {
			agents = append(agents, a.Detector())
		}
	}
	if strings.Join(agents, ",") != "correction" || len(p.Analyzers) != 4 || p.Judge == nil {
		t.Fatalf("agents %q (of %d), judge %v", agents, len(p.Analyzers), p.Judge)
	}
	snap := memory.Snapshot{SessionID: "s1", Trigger: "user_correction", TurnRange: [2]int{0, 9},
		Turns: []memory.Turn{{Index: 6, Role: "assistant", Text: "spaces"}, {Index: 7, Role: "user", Text: "no, that's wrong — use tabs"}}}
	cands, err := Analyzer{D: d, Name: memory.DetectorCorrection}.Analyze(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 {
		t.Fatalf("candidates %+v", cands)
	}
	c := cands[0]
	if c.Type != memory.TypeCorrection || c.Detector != "correction" || c.TurnRange != [2]int{7, 8} || c.SourceTurn != 7 ||
		c.UserCorrection != "no, use tabs" || c.ID != memory.CandidateID(memory.TypeCorrection, "Indent with tabs, not spaces.") {
		t.Fatalf("candidate %+v", c)
	}
	score, err := p.Judge.Score(context.Background(), c)
	if err != nil || score != 0.7 {
		t.Fatalf("score %v %v", score, err)
	}
	if _, err := ParseScore(`{"correctness": 2}`); err == nil {
		t.Fatal("an out-of-range score is accepted")
	}
	if _, err := ParseCandidates("no array"); err == nil {
		t.Fatal("a reply without an array is accepted")
	}
}
