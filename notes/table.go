package notes

import "strings"

// Mode is one kind of write a wrap performs.
type Mode string

// The modes of seed 000's dispatch table.
const (
	ModeBridge   Mode = "bridge"
	ModeJournal  Mode = "journal"
	ModeProgress Mode = "progress"
	ModeWitness  Mode = "witness"
)

// Modes is a set of modes in canonical order.
type Modes []Mode

// Has reports whether m includes x.
func (m Modes) Has(x Mode) bool {
	for _, y := range m {
		if y == x {
			return true
		}
	}
	return false
}

func (m Modes) String() string {
	s := make([]string, len(m))
	for i, x := range m {
		s[i] = string(x)
	}
	return strings.Join(s, "+")
}

// Situation is what the dispatch table looks at.
type Situation struct {
	Loop       string // "keep", "discard" or ""
	SessionEnd bool
	Trivial    bool
	Files      int  // distinct changed files
	Unfinished bool // carry-forward items, a hint, or uncommitted work
}

// Dispatch applies seed 000's dispatch table exactly and says which row fired:
//
//	loop exit with keep             → bridge + journal + progress + witness
//	loop exit with discard          → journal
//	trivial task                    → nothing
//	3+ files changed                → bridge + journal
//	session ending, unfinished work → bridge
//	1–2 files changed               → nothing (overhead > value)
func Dispatch(s Situation) (Modes, string) {
	switch {
	case s.Trivial:
		return nil, "trivial task: nothing to persist"
	case s.Loop == "keep":
		return Modes{ModeBridge, ModeJournal, ModeProgress, ModeWitness}, "loop exit with keep"
	case s.Loop == "discard":
		return Modes{ModeJournal}, "loop exit with discard"
	case s.Files >= 3:
		return Modes{ModeBridge, ModeJournal}, "task completed with 3+ files changed"
	case s.SessionEnd && s.Unfinished:
		return Modes{ModeBridge}, "session ending with unfinished context"
	case s.SessionEnd:
		return nil, "session ending with nothing unfinished"
	case s.Files == 0:
		return nil, "no changes since the last wrap"
	default:
		return nil, "only 1–2 files changed: overhead > value (use --mode to force)"
	}
}

// ParseModes reads a forced mode: "auto" (nil), "all", or a list joined by
// "+" or ",".
func ParseModes(s string) (Modes, bool, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" || s == "auto" {
		return nil, false, nil
	}
	if s == "all" {
		return Modes{ModeBridge, ModeJournal, ModeProgress, ModeWitness}, true, nil
	}
	var m Modes
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ',' }) {
		x := Mode(strings.TrimSpace(part))
		if x == "witness_log" {
			x = ModeWitness
		}
		switch x {
		case ModeBridge, ModeJournal, ModeProgress, ModeWitness:
			if !m.Has(x) {
				m = append(m, x)
			}
		default:
			return nil, false, &UsageError{Msg: "unknown mode " + part + ": use auto, all, or bridge, journal, progress, witness joined by +"}
		}
	}
	return Canonical(m), true, nil
}

func Canonical(m Modes) Modes {
	var out Modes
	for _, x := range []Mode{ModeBridge, ModeJournal, ModeProgress, ModeWitness} {
		if m.Has(x) {
			out = append(out, x)
		}
	}
	return out
}

// UsageError is a bad input the user can fix; it maps to exit status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Without returns m minus x.
func (m Modes) Without(x Mode) Modes {
	var out Modes
	for _, y := range m {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}
