package notes

import (
	"testing"
	"time"
)

func TestMergeBridge(t *testing.T) {
	t.Parallel()
	at := func(s string) string {
		ts, _ := time.Parse(time.RFC3339, s)
		return BridgeNote{Updated: ts, Context: []string{"written " + s}}.Render()
	}
	older, newer := at("2026-01-02T03:04:05Z"), at("2026-01-02T04:00:00Z")
	tests := []struct {
		name, ours, theirs, want string
	}{
		{"ours newer", newer, older, newer},
		{"theirs newer", older, newer, newer},
		{"tie goes to theirs", older, at("2026-01-02T03:04:05Z") + "\n", at("2026-01-02T03:04:05Z") + "\n"},
		{"unparsable ours", "garbage\n", older, older},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := MergeBridge("", tt.ours, tt.theirs); got != tt.want {
				t.Errorf("MergeBridge = %q, want %q", got, tt.want)
			}
		})
	}
}
