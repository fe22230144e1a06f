package vault

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/notes"
)

func TestPruneSessionsKeepsTheNewestAndThePending(t *testing.T) {
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	all := map[string]notes.Session{}
	for i := 1; i <= keepJournaled+4; i++ {
		id := fmt.Sprintf("j%02d", i)
		all[id] = notes.Session{ID: id, Status: notes.SessionJournaled, Ended: base.Add(time.Duration(i) * time.Minute)}
	}
	// The oldest but one still waits for a person: it stays.
	waiting := all["j02"]
	waiting.Followups = []notes.SessionFollowup{{Text: "route me", Status: notes.FollowupPending}}
	all["j02"] = waiting
	// Open sessions and the caller's own record are never pruned, however old.
	all["open"] = notes.Session{ID: "open", Status: notes.SessionOpen}
	all["self"] = notes.Session{ID: "self", Status: notes.SessionJournaled}

	got := pruneSessions(all, "self")
	want := []string{"j01", "j03", "j04"}
	if !slices.Equal(got, want) {
		t.Fatalf("pruneSessions = %q, want %q", got, want)
	}
	for _, id := range got {
		if !prunable(all[id]) {
			t.Errorf("%s pruned but not prunable", id)
		}
	}
	if prunable(all["j02"]) || prunable(all["open"]) {
		t.Error("a record with a pending follow-up, or an open one, is prunable")
	}

	few := map[string]notes.Session{}
	for id, s := range all {
		if id >= "j05" && id[0] == 'j' {
			few[id] = s
		}
	}
	if got := pruneSessions(few, ""); got != nil {
		t.Errorf("%d journaled records: pruned %q, want none", len(few), got)
	}
}
