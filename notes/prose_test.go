package notes

import (
	"strings"
	"testing"
	"time"
)

func proseDraft() BridgeNote {
	return BridgeNote{Urgent: "prod config", Updated: time.Date(2026, 7, 12, 9, 0, 0, 0, time.UTC), Witness: VerdictWarn,
		Context: []string{"Parser streams now.", "Changed 3 files: a.go, b.go, c.go."}, CarryForward: []string{"(api) add paging"},
		Commit: "abc1234def", Cites: []string{"a.go"}}
}

func TestAcceptBridgeProse(t *testing.T) {
	t.Parallel()
	findings := []string{"not-covered-by-tests in parser.go", "<table> tag at https://example.com/t"}
	good := "# Bridge Note\nWitness: WARN\n## Context\n- The parser streams its input.\n## Carry Forward\n- Paging is not started.\n## Open Questions\nNone.\n"
	tests := []struct{ name, text, why string }{
		{"accepted", good, ""},
		{"no witness line is fine", strings.Replace(good, "Witness: WARN\n", "", 1), ""},
		{"not a note", "Sure! Here is a better note.", "not a bridge note"},
		{"findings line", strings.Replace(good, "- Paging", "- WARN iter2: parser lacks tests\n- Paging", 1), "witness findings"},
		{"talks about the witness", strings.Replace(good, "- Paging", "- Witness flagged the parser\n- Paging", 1), "witness findings"},
		{"repeats a finding", strings.Replace(good, "Paging is not started.", "Fix not-covered-by-tests in parser.go first.", 1), "repeats a witness finding"},
		{"repeats a finding in markdown", strings.Replace(good, "Paging is not started.", "Close the \\<table> tag at <https://example.com/t> first.", 1), "repeats a witness finding"},
		{"changes the verdict", strings.Replace(good, "Witness: WARN", "Witness: PASS", 1), "changes the witness verdict"},
		{"drops everything", "# Bridge Note\n## Context\nNone.\n## Carry Forward\nNo carryover.\n", "drops every"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, why := AcceptBridgeProse(tt.text, proseDraft(), findings)
			if tt.why != "" {
				if !strings.Contains(why, tt.why) {
					t.Fatalf("why = %q, want %q", why, tt.why)
				}
				return
			}
			if why != "" {
				t.Fatalf("rejected: %s", why)
			}
			d := proseDraft()
			if got.Context[0] != "The parser streams its input." || got.CarryForward[0] != "Paging is not started." ||
				got.Urgent != d.Urgent || got.Witness != d.Witness || got.Commit != d.Commit || !got.Updated.Equal(d.Updated) || got.Cites[0] != "a.go" {
				t.Fatalf("merged note: %+v", got)
			}
		})
	}
}
