package notes

import (
	"reflect"
	"testing"
)

func TestDispatchTable(t *testing.T) {
	t.Parallel()
	all := Modes{ModeBridge, ModeJournal, ModeProgress, ModeWitness}
	tests := []struct {
		name string
		s    Situation
		want Modes
	}{
		{"keep", Situation{Loop: "keep", Files: 1}, all},
		{"discard", Situation{Loop: "discard", Files: 9}, Modes{ModeJournal}},
		{"three files", Situation{Files: 3}, Modes{ModeBridge, ModeJournal}},
		{"two files", Situation{Files: 2}, nil},
		{"one file", Situation{Files: 1}, nil},
		{"no files", Situation{}, nil},
		{"session end unfinished", Situation{SessionEnd: true, Unfinished: true}, Modes{ModeBridge}},
		{"session end finished", Situation{SessionEnd: true}, nil},
		{"session end with 3 files", Situation{SessionEnd: true, Unfinished: true, Files: 4}, Modes{ModeBridge, ModeJournal}},
		{"trivial beats keep", Situation{Trivial: true, Loop: "keep", Files: 10}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, row := Dispatch(tt.s)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Dispatch(%+v) = %v (%s), want %v", tt.s, got, row, tt.want)
			}
			if row == "" {
				t.Error("every row explains itself")
			}
		})
	}
}

func TestParseModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   Modes
		forced bool
		err    bool
	}{
		{"auto", nil, false, false},
		{"", nil, false, false},
		{"all", Modes{ModeBridge, ModeJournal, ModeProgress, ModeWitness}, true, false},
		{"journal+bridge", Modes{ModeBridge, ModeJournal}, true, false},
		{"witness_log", Modes{ModeWitness}, true, false},
		{"journal,progress", Modes{ModeJournal, ModeProgress}, true, false},
		{"bogus", nil, false, true},
	}
	for _, tt := range tests {
		got, forced, err := ParseModes(tt.in)
		if (err != nil) != tt.err || forced != tt.forced || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseModes(%q) = %v, %v, %v; want %v, %v, err=%v", tt.in, got, forced, err, tt.want, tt.forced, tt.err)
		}
	}
}
