package notes

import (
	"strings"
	"unicode"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// Witness verdicts: the only values a bridge note's Witness marker may hold.
const (
	VerdictPass  = "PASS"
	VerdictWarn  = "WARN"
	VerdictBlock = "BLOCK"
)

// WitnessEvent is one witness verdict from the [Judge] pipeline. It goes to
// the journal in full; a bridge note only ever gets the bare verdict.
type WitnessEvent struct {
	Verdict   string // PASS, WARN or BLOCK; "" when the text named none
	Iteration string // e.g. "iter1" or "iter 2"
	Findings  string // WARN/BLOCK detail, kept in full on one line
}

// CanonicalVerdict returns PASS, WARN or BLOCK when v is one of them
// (ignoring case and surrounding space), and "" for anything else.
func CanonicalVerdict(v string) string {
	switch u := strings.ToUpper(strings.TrimSpace(v)); u {
	case VerdictPass, VerdictWarn, VerdictBlock:
		return u
	}
	return ""
}

// FinalVerdict returns the verdict of the last event that has one: the
// overall verdict of a session whose iterations were judged in turn. It is
// the only witness information a bridge note may carry.
func FinalVerdict(events []WitnessEvent) string {
	for i := len(events) - 1; i >= 0; i-- {
		if v := CanonicalVerdict(events[i].Verdict); v != "" {
			return v
		}
	}
	return ""
}

var (
	verdictWord   = lazyre.New(`^(?i)(pass|warn|block)(?:ed|ing|es|s)?\b`)
	iterPrefix    = lazyre.New(`^(?i)(?:iter(?:ation)?\.?\s*#?\s*\d+|#\d+|i\d+|round\s*\d+)\b`)
	iterWhole     = lazyre.New(`^(?i)(?:iter(?:ation)?\.?\s*#?\s*\d+|#\d+|i\d+|round\s*\d+|\d+)$`)
	renderedEvent = lazyre.New(`^(PASS|WARN|BLOCK)(?: \(([^(),;]*)\))?(?: — (.*))?$`)
)

// ParseWitness reads a witness verdict list as given to `wrap --witness` or
// in a dispatch's artifacts, in either form:
//
//	PASS iter1; WARN iter2 not-covered-by-tests; BLOCK iter3 reason…
//	PASS (iter 1), WARN (iter 2, not-covered-by-tests), PASS (iter 3)
//
// Events are separated by ";", "," or a newline followed by a verdict word
// (outside parentheses), so findings may themselves contain commas. "N/A",
// "none" and empty input give no events. A piece that names no verdict is
// kept as an event with an empty Verdict and the text as its findings.
func ParseWitness(s string) []WitnessEvent {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "", "n/a", "na", "none", "-":
		return nil
	}
	var events []WitnessEvent
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		case ';', ',', '\n':
			if depth == 0 && verdictWord().MatchString(strings.TrimLeft(s[i+1:], " \t\r\n")) {
				if ev, ok := parseWitnessEvent(s[start:i]); ok {
					events = append(events, ev)
				}
				start = i + 1
			}
		}
	}
	if ev, ok := parseWitnessEvent(s[start:]); ok {
		events = append(events, ev)
	}
	return events
}

// parseWitnessEvent reads one event such as "WARN (iter 2, no tests)",
// "BLOCK iter3 reason" or "WARN (iter2) — reason".
func parseWitnessEvent(p string) (WitnessEvent, bool) {
	p = strings.TrimSpace(p)
	if p == "" {
		return WitnessEvent{}, false
	}
	m := verdictWord().FindStringSubmatchIndex(p)
	if m == nil {
		return WitnessEvent{Findings: SingleLine(p)}, true
	}
	ev := WitnessEvent{Verdict: strings.ToUpper(p[m[2]:m[3]])}
	rest := trimSeparator(p[m[1]:])
	if strings.HasPrefix(rest, "(") {
		if end := closingParen(rest); end > 0 {
			inner := rest[1:end]
			after := trimSeparator(rest[end+1:])
			first, remainder, _ := cutAny(inner, ",;")
			if iterWhole().MatchString(strings.TrimSpace(first)) {
				ev.Iteration = SingleLine(first)
				inner = remainder
			}
			ev.Findings = joinNonEmpty(" — ", SingleLine(inner), SingleLine(after))
			return ev, true
		}
	}
	if loc := iterPrefix().FindStringIndex(rest); loc != nil {
		ev.Iteration = SingleLine(rest[:loc[1]])
		rest = trimSeparator(rest[loc[1]:])
	}
	ev.Findings = SingleLine(rest)
	return ev, true
}

// parseWitnessLine reads the value of a journal "- Witness:" line. A line in
// the form Render writes is one event, whatever its findings contain; other
// lines may list several events.
func parseWitnessLine(v string) []WitnessEvent {
	v = strings.TrimSpace(v)
	if m := renderedEvent().FindStringSubmatch(v); m != nil {
		return []WitnessEvent{{Verdict: m[1], Iteration: m[2], Findings: m[3]}}
	}
	return ParseWitness(v)
}

// String renders the event as it appears after "- Witness: " in a journal
// entry: "PASS (iter1)" compact; WARN and BLOCK followed by " — findings".
func (w WitnessEvent) String() string {
	v := CanonicalVerdict(w.Verdict)
	it := cleanIteration(w.Iteration)
	f := SingleLine(w.Findings)
	if v == "" {
		if it != "" {
			return joinNonEmpty(" ", "("+it+")", f)
		}
		return f
	}
	s := v
	if it != "" {
		s += " (" + it + ")"
	}
	if v != VerdictPass && f != "" {
		s += " — " + f
	}
	return s
}

// cleanIteration makes an iteration label safe inside "( )".
func cleanIteration(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune("()[];,", r) {
			return ' '
		}
		return r
	}, s)
	return SingleLine(s)
}

// trimSeparator drops leading space and one separator (":", or a dash
// followed by space) between a verdict and what follows it.
func trimSeparator(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if strings.HasPrefix(s, ":") {
		return strings.TrimLeftFunc(s[1:], unicode.IsSpace)
	}
	for _, d := range []string{"—", "–", "-"} {
		if rest, ok := strings.CutPrefix(s, d); ok && (rest == "" || unicode.IsSpace(rune(rest[0]))) {
			return strings.TrimLeftFunc(rest, unicode.IsSpace)
		}
	}
	return s
}

// closingParen returns the index of the parenthesis closing s[0], or -1.
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// cutAny cuts s around the first byte that is in seps.
func cutAny(s, seps string) (before, after string, found bool) {
	if i := strings.IndexAny(s, seps); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}
