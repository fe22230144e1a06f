package notes

import (
	"testing"
	"time"
)

func TestConversationOutcome(t *testing.T) {
	t.Parallel()
	ex := Extraction{Transcript: "t.jsonl", Found: make([]Candidate, 4), Orphans: []Candidate{{N: 1, Text: "a"}, {N: 2, Text: "b"}, {N: 3, Text: "c"}}}
	rr := &RouteReport{Routed: []Assignment{{Candidate: Candidate{Text: "a"}}}, Skipped: []Assignment{{Candidate: Candidate{Text: "b"}, Project: "api"}}}
	ca, lost := ConversationOutcome(ex, rr, []Candidate{{Text: "c"}}, "no terminal")
	if ca.Found != 4 || ca.Durable != 1 || ca.Routed != 1 || ca.Skipped != 1 || ca.Unrouted != 1 {
		t.Errorf("audit = %+v", ca)
	}
	if len(lost) != 2 || lost[0].Text != "(api) b" || lost[0].Reason != "skipped" || lost[1].Reason != "unrouted" {
		t.Errorf("potentially lost = %+v", lost)
	}
	_ = time.Now
}
