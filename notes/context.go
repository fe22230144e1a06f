package notes

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ContextSection is one part of the SessionStart context, in priority
// order: FitContext keeps the first ones whole and cuts from the end.
type ContextSection struct {
	Name string // how "left out" names it
	Text string
}

// FitContext joins sections within budget bytes: sections that do not fit
// are cut at a line (a line longer than what is left is cut at a character,
// never inside one) or left out, and the result always ends saying what was
// left out. A budget too small for anything still says so.
func FitContext(sections []ContextSection, budget int) string {
	var b strings.Builder
	var left []string
	const reserve = 200 // room for the "left out" line
	for i, s := range sections {
		text := strings.TrimRight(s.Text, "\n")
		if text == "" {
			continue
		}
		sep := ""
		if b.Len() > 0 {
			sep = "\n\n"
		}
		room := budget - reserve - b.Len() - len(sep)
		if len(left) == 0 && len(text) <= room {
			b.WriteString(sep + text)
			continue
		}
		if len(left) > 0 || room < 40 {
			left = append(left, s.Name)
			continue
		}
		// Cut this section by lines; what remains of it is left out.
		var kept []string
		used, dropped := 0, 0
		lines := strings.Split(text, "\n")
		for j, line := range lines {
			if used+len(line)+1 > room {
				if j == 0 {
					kept = append(kept, cutUTF8(line, room-1)+"…")
				}
				dropped = len(lines) - j
				if j == 0 {
					dropped--
				}
				break
			}
			kept = append(kept, line)
			used += len(line) + 1
		}
		b.WriteString(sep + strings.Join(kept, "\n"))
		if dropped > 0 || len(kept) == 0 {
			left = append(left, fmt.Sprintf("%s (%d of %d lines)", s.Name, dropped, len(lines)))
		}
		_ = i
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\n\n[Left out to stay within the %d-token budget: %s. Run `git scribe bridge` for the note, `git scribe followups` for follow-ups.]", budget/4, strings.Join(left, "; "))
	}
	out := b.String()
	if len(out) > budget {
		out = cutUTF8(out, budget)
	}
	return out
}

// cutUTF8 is s cut to at most n bytes, never inside a character.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
