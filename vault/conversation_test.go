package vault

import (
	"github.com/git-scribe/git-scribe/followups"
	"testing"
	"time"
)

func TestConversationOutcome(t *testing.T) {
	t.Parallel()
	ex := followups.Extraction{Transcript: "t.jsonl", Found: make([]followups.Candidate, 4), Orphans: []followups.Candidate{{N: 1, Text: "a"}, {N: 2, Text: "b"}, {N: 3, Text: "c"}}}
	rr := &RouteReport{Routed: []followups.Assignment{{Candidate: followups.Candidate{Text: "a"}}}, Skipped: []followups.Assignment{{Candidate: followups.Candidate{Text: "b"}, Project: "api"}}}
	ca, lost := ConversationOutcome(ex, rr, []followups.Candidate{{Text: "c"}}, "no terminal")
	if ca.Found != 4 || ca.Durable != 1 || ca.Routed != 1 || ca.Skipped != 1 || ca.Unrouted != 1 {
		t.Errorf("audit = %+v", ca)
	}
	if len(lost) != 2 || lost[0].Text != "(api) b" || lost[0].Reason != "skipped" || lost[1].Reason != "unrouted" {
		t.Errorf("potentially lost = %+v", lost)
	}
	_ = time.Now
}
