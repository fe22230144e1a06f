package notes

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// Bridge note budget. The rendered note has at most MaxBridgeLines lines of
// text ("under 20 lines", SPEC §2), each bullet at most MaxBridgeItemRunes
// runes. Blank lines are not counted: the budget bounds what the next
// session reads, and a blank line carries nothing to read (the token budget,
// bridge_tokens, bounds the note's cost in context, blank lines included).
// They are there because markdown wants them: a heading and a list stand
// between blank lines (markdownlint's MD022 and MD032; without them some
// renderers fold a list into the paragraph above it). The longest note, with
// every optional line and four sections, is 19 lines of text and 11 blank.
//
// When the bullets do not fit, Render shares the lines left out round-robin
// (Carry Forward first, then Context, Traps to Avoid, Open Questions),
// keeping the first bullets of each section and replacing the rest with one
// "- … and N more" bullet. With every optional line present (URGENT,
// Witness, Traps to Avoid, the comment) ten lines are left for bullets, so
// every section keeps at least one real bullet.
const (
	MaxBridgeLines     = 19
	MaxBridgeItemRunes = 300
)

// TextLines counts the lines of text that are not blank: what the bridge
// note's line budget counts. A line of markdownlint inline configuration
// alone is not counted either: it is for the linter, and it carries nothing
// to read.
func TextLines(text string) int {
	n := 0
	for _, l := range SplitLines(text) {
		if strings.TrimSpace(l) != "" && !markdown.LintDirective(l) {
			n++
		}
	}
	return n
}

// ErrNotBridgeNote is returned by ParseBridgeNote for text that has none of
// a bridge note's landmarks (title, Updated line or a known section).
var ErrNotBridgeNote = errors.New("not a bridge note")

// BridgeNote is the note handed to the next session
// (.claude/sonmat/bridge-note.md). It is a hypothesis to verify, not a fact:
// Commit and Cites let the reader tell which claims may be stale.
type BridgeNote struct {
	Urgent        string    // if non-empty, rendered as the first line: "⚠️ URGENT: <Urgent>"
	Updated       time.Time // when the note was written
	Witness       string    // "", PASS, WARN or BLOCK only: a compact marker, never findings
	Context       []string  // status sentences
	CarryForward  []string  // open work stated as status, not commands
	OpenQuestions []string
	Traps         []string // rendered as "## Traps to Avoid" only when non-empty
	Commit        string   // commit the note was written at
	Cites         []string // repo-relative files the note cites
}

// bridge note section names, in render order.
const (
	secContext   = "Context"
	secCarry     = "Carry Forward"
	secQuestions = "Open Questions"
	secTraps     = "Traps to Avoid"
)

const (
	bridgeTitle   = "# Bridge Note"
	urgentPrefix  = "⚠️ URGENT: "
	noCarryover   = "No carryover."
	noneSentinel  = "None."
	commentPrefix = "<!-- scribe:"
)

// The note's markdownlint inline configuration, on its last line. A bullet
// and the URGENT item are one line each, up to MaxBridgeItemRunes runes (the
// budget counts lines), and so is the provenance comment: MD013 (line
// length) is off. An urgent item goes on the first line, before the title
// (SPEC §2): MD041 (first line a heading) is off then too. It is kept short:
// the note is read into the next session's context.
const (
	bridgeLint       = "<!-- markdownlint-disable-file MD013 -->"
	bridgeLintUrgent = "<!-- markdownlint-disable-file MD013 MD041 -->"
)

// Normalize returns the note exactly as Render will write it and
// ParseBridgeNote will read it back: single-line bullets (newlines and
// control characters collapsed, invalid UTF-8 replaced, at most
// MaxBridgeItemRunes runes), empty bullets dropped, lists trimmed to the line
// budget, a Witness other than PASS, WARN or BLOCK dropped, Updated at second
// precision, and cites without empty or duplicate paths.
func (b BridgeNote) Normalize() BridgeNote {
	n := BridgeNote{
		Urgent:        CapRunes(SingleLine(b.Urgent), MaxBridgeItemRunes),
		Updated:       canonicalTime(b.Updated),
		Witness:       CanonicalVerdict(b.Witness),
		Context:       cleanItems(b.Context),
		CarryForward:  cleanItems(b.CarryForward),
		OpenQuestions: cleanItems(b.OpenQuestions),
		Traps:         cleanItems(b.Traps),
		Commit:        strings.TrimSpace(b.Commit),
	}
	seen := map[string]bool{}
	for _, c := range b.Cites {
		if c != "" && !seen[c] {
			seen[c] = true
			n.Cites = append(n.Cites, c)
		}
	}
	n.fitBudget()
	return n
}

// cleanItems makes each item one capped line and drops empty ones.
func cleanItems(items []string) []string {
	var out []string
	for _, it := range items {
		if s := CapRunes(SingleLine(it), MaxBridgeItemRunes); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// fixedLines counts the lines of text that are not bullets.
func (b BridgeNote) fixedLines() int {
	n := 2 + 3 // title, Updated, three section headings
	if b.Urgent != "" {
		n++
	}
	if b.Witness != "" {
		n++
	}
	if len(b.Traps) > 0 {
		n++
	}
	if b.hasComment() {
		n++
	}
	return n
}

func (b BridgeNote) hasComment() bool { return b.Commit != "" || len(b.Cites) > 0 }

// sections returns pointers to the present sections' lists in render order.
func (b *BridgeNote) sections() []*[]string {
	s := []*[]string{&b.Context, &b.CarryForward, &b.OpenQuestions}
	if len(b.Traps) > 0 {
		s = append(s, &b.Traps)
	}
	return s
}

// bodyLines counts the lines the sections' bodies take (an empty section
// still takes one line for its "None." or "No carryover.").
func (b *BridgeNote) bodyLines() int {
	n := 0
	for _, s := range b.sections() {
		n += max(len(*s), 1)
	}
	return n
}

// fitBudget trims the lists so the note fits MaxBridgeLines lines of text.
func (b *BridgeNote) fitBudget() {
	avail := MaxBridgeLines - b.fixedLines()
	if b.bodyLines() <= avail {
		return
	}
	// Round-robin in priority order: open work matters most to the next session.
	order := []*[]string{&b.CarryForward, &b.Context}
	if len(b.Traps) > 0 {
		order = append(order, &b.Traps)
	}
	order = append(order, &b.OpenQuestions)
	alloc := make([]int, len(order))
	for i := range alloc {
		alloc[i] = 1
	}
	left := avail - len(order)
	for progress := true; progress && left > 0; {
		progress = false
		for i, s := range order {
			if left > 0 && alloc[i] < len(*s) {
				alloc[i]++
				left--
				progress = true
			}
		}
	}
	for i, s := range order {
		if n := len(*s); alloc[i] < n {
			kept := append([]string(nil), (*s)[:alloc[i]-1]...)
			*s = append(kept, fmt.Sprintf("… and %d more", n-alloc[i]+1))
		}
	}
}

// Render writes the note in the bridge note format of SPEC §2, always within
// MaxBridgeLines lines of text (see Normalize and the budget above):
//
//	⚠️ URGENT: …          (when there is one: the first line)
//
//	# Bridge Note
//
//	Updated: <timestamp>
//	Witness: PASS          (when there is one)
//
//	## Context
//
//	- …
//
//	## Carry Forward       (then Open Questions, and Traps to Avoid when any)
//
//	No carryover.
//
//	<!-- scribe: commit=… cites=… --> <!-- markdownlint-disable-file MD013 -->
//
// The urgent item and the bullets are escaped (markdown.EscapeText and
// EscapeItem: a bare URL becomes an autolink, a "<" that would open inline
// HTML is escaped, a "# …" bullet is no heading), and ParseBridgeNote
// undoes it.
//
// The last line is the provenance comment, when there is a commit or a
// cite, then markdownlint's inline configuration (with MD041 when there is
// an urgent item); without provenance the configuration is the line alone,
// which the budget does not count (TextLines).
func (b BridgeNote) Render() string {
	n := b.Normalize()
	var lines []string
	if n.Urgent != "" {
		lines = append(lines, urgentPrefix+markdown.EscapeText(n.Urgent), "")
	}
	lines = append(lines, bridgeTitle, "", "Updated: "+FormatTime(n.Updated))
	if n.Witness != "" {
		lines = append(lines, "Witness: "+n.Witness)
	}
	section := func(name string, items []string, empty string) {
		lines = append(lines, "", "## "+name, "")
		if len(items) == 0 {
			lines = append(lines, empty)
		}
		for _, it := range items {
			lines = append(lines, "- "+markdown.EscapeItem(it))
		}
	}
	section(secContext, n.Context, noneSentinel)
	section(secCarry, n.CarryForward, noCarryover)
	section(secQuestions, n.OpenQuestions, noneSentinel)
	if len(n.Traps) > 0 {
		section(secTraps, n.Traps, "")
	}
	last := bridgeLint
	if n.Urgent != "" {
		last = bridgeLintUrgent
	}
	if n.hasComment() {
		last = n.comment() + " " + last
	}
	lines = append(lines, "", last)
	return strings.Join(lines, "\n") + "\n"
}

// LineCount returns the number of lines of text (blank lines aside) Render
// writes: what the budget counts.
func (b BridgeNote) LineCount() int {
	return TextLines(b.Render())
}

// comment renders the trailing provenance comment,
// e.g. "<!-- scribe: commit=abc1234 cites=a.go,dir/b.go -->".
func (b BridgeNote) comment() string {
	parts := []string{commentPrefix}
	if b.Commit != "" {
		parts = append(parts, "commit="+escapeField(b.Commit))
	}
	if len(b.Cites) > 0 {
		esc := make([]string, len(b.Cites))
		for i, c := range b.Cites {
			esc[i] = escapeField(c)
		}
		parts = append(parts, "cites="+strings.Join(esc, ","))
	}
	return strings.Join(append(parts, "-->"), " ")
}

// escapeField percent-encodes what would break the comment: "%", ",", ">"
// (so "-->" cannot occur), white space, non-printing characters and bytes
// that are not UTF-8. Other characters, non-ASCII letters included, stay
// readable. unescapeField inverts it exactly.
func escapeField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '%' || r == ',' || r == '>' ||
			unicode.IsSpace(r) || !unicode.IsPrint(r) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unescapeField decodes %XX sequences; a malformed one is kept literally.
func unescapeField(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

var (
	urgentLine  = lazyre.New(`^(?:⚠\x{FE0F}?\s*)?(?i:urgent)\s*:\s*(.*)$`)
	updatedLine = lazyre.New(`^(?i:updated)\s*:\s*(.*)$`)
	witnessLine = lazyre.New(`^(?i:witness)\s*:\s*(.*)$`)
)

// bridgeSection maps a "## " heading to the section it names, leniently.
func bridgeSection(heading string) (string, bool) {
	h := strings.ToLower(strings.TrimSpace(strings.TrimRight(heading, ": ")))
	switch h {
	case "context":
		return secContext, true
	case "carry forward", "carry-forward", "carryforward", "carryover", "carry over":
		return secCarry, true
	case "open questions", "questions":
		return secQuestions, true
	case "traps to avoid", "traps":
		return secTraps, true
	}
	return "", false
}

// ParseBridgeNote reads a bridge note. It is lenient with hand-edited notes:
// unknown sections, extra prose and a missing trailing comment are fine, an
// unreadable Updated line reads as the zero time, and a Witness value other
// than PASS, WARN or BLOCK is dropped. Non-bullet lines in a known section
// are read as items (except "None." and "No carryover."), and indented lines
// continue the bullet above them. It returns ErrNotBridgeNote, with whatever
// it could read, when text has no landmark of a bridge note at all.
// ParseBridgeNote(b.Render()) equals b.Normalize().
func ParseBridgeNote(text string) (BridgeNote, error) {
	var b BridgeNote
	recognized := false
	inSections := false
	var cur *[]string // list of the current known section, nil elsewhere
	continuable := false
	for _, raw := range SplitLines(strings.TrimPrefix(text, "\uFEFF")) {
		line := strings.TrimRightFunc(raw, unicode.IsSpace)
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continuable = false
			continue
		}
		if strings.HasPrefix(trimmed, "<!--") {
			if rest, ok := strings.CutPrefix(trimmed, commentPrefix); ok {
				b.parseComment(rest)
			}
			continuable = false
			continue
		}
		if level, heading, ok := markdown.Heading(line); ok {
			continuable = false
			switch level {
			case 1:
				if strings.EqualFold(heading, "Bridge Note") {
					recognized = true
				}
			case 2:
				inSections = true
				cur = nil
				if name, ok := bridgeSection(heading); ok {
					recognized = true
					cur = b.list(name)
				}
			}
			continue
		}
		if !inSections {
			if m := urgentLine().FindStringSubmatch(trimmed); m != nil && b.Urgent == "" {
				b.Urgent = markdown.UnescapeText(SingleLine(m[1]))
				recognized = true
			} else if m := updatedLine().FindStringSubmatch(trimmed); m != nil {
				b.Updated, _ = ParseTime(m[1]) // unreadable: zero time, never fatal
				recognized = true
			} else if m := witnessLine().FindStringSubmatch(trimmed); m != nil {
				b.Witness = CanonicalVerdict(m[1])
			}
			continue
		}
		if cur == nil {
			continue
		}
		if item, ok := bulletText(trimmed); ok {
			if s := markdown.UnescapeItem(SingleLine(item)); s != "" {
				*cur = append(*cur, s)
				continuable = true
			}
			continue
		}
		if continuable && line != trimmed && len(*cur) > 0 && unicode.IsSpace(rune(line[0])) {
			last := &(*cur)[len(*cur)-1]
			*last = SingleLine(*last + " " + markdown.UnescapeText(trimmed))
			continue
		}
		switch strings.ToLower(trimmed) {
		case "none", "none.", "no carryover", "no carryover.", "n/a":
			continue
		}
		*cur = append(*cur, markdown.UnescapeText(SingleLine(trimmed)))
		continuable = true
	}
	if !recognized {
		return b, ErrNotBridgeNote
	}
	return b, nil
}

// list returns the note's list for a section name.
func (b *BridgeNote) list(name string) *[]string {
	switch name {
	case secContext:
		return &b.Context
	case secCarry:
		return &b.CarryForward
	case secQuestions:
		return &b.OpenQuestions
	}
	return &b.Traps
}

// parseComment reads "commit=… cites=… -->" from the trailing comment.
func (b *BridgeNote) parseComment(s string) {
	if i := strings.Index(s, "-->"); i >= 0 {
		s = s[:i]
	}
	for _, field := range strings.Fields(s) {
		key, value, ok := strings.Cut(field, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(key) {
		case "commit":
			b.Commit = strings.TrimSpace(unescapeField(value))
		case "cites":
			b.Cites = nil
			for _, c := range strings.Split(value, ",") {
				if c = unescapeField(c); c != "" && !hasString(b.Cites, c) {
					b.Cites = append(b.Cites, c)
				}
			}
		}
	}
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// bulletText returns the text of a "- ", "* " or "+ " bullet line.
func bulletText(trimmed string) (string, bool) {
	if len(trimmed) >= 2 && strings.ContainsRune("-*+", rune(trimmed[0])) && (trimmed[1] == ' ' || trimmed[1] == '\t') {
		return trimmed[2:], true
	}
	if len(trimmed) == 1 && strings.ContainsRune("-*+", rune(trimmed[0])) {
		return "", true
	}
	return "", false
}
