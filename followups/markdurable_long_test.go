package followups

import (
	"fmt"
	"strings"
	"testing"
)

// A follow-up longer than maxFollowupRunes is journaled whole and read
// back capped: it is durable, not lost, though words and identifiers past
// the cap (KST here) are not in what the journal's reader returns.
func TestMarkDurableLongFollowup(t *testing.T) {
	var w []string
	for i := 0; i < 60; i++ {
		w = append(w, fmt.Sprintf("term%d", i))
	}
	next := "(lf) " + strings.Join(w, " ") + " and KST"
	text, tag := cleanFollowup(next)
	if len([]rune(text)) != maxFollowupRunes {
		t.Fatalf("the test's follow-up is not over the cap: %d runes", len([]rune(text)))
	}
	mentions := []Followup{{Text: text, Project: tag, Path: "journal.md", Line: 28}}
	if lost := MarkDurable([]Candidate{{N: 1, Text: next}}, mentions, 0); len(lost) != 0 {
		t.Errorf("a journaled long follow-up is reported lost: %+v", lost)
	}
	// Another follow-up that shares the first 240 runes' words but not the
	// project is still not taken for it.
	if lost := MarkDurable([]Candidate{{N: 1, Text: "(other) " + strings.Join(w, " ")}}, mentions, 0); len(lost) != 1 {
		t.Errorf("a follow-up of another project was taken as durable: %+v", lost)
	}
}
