package markdown

import (
	"strings"
	"unicode/utf16"
)

// Width is the line length scribe wraps the prose it writes into
// person-owned files at: markdownlint's MD013 default.
const Width = 80

// Wrap breaks text, one line of markdown inline text (a paragraph, or a
// list item's content), into lines of at most width columns, counted as
// markdownlint counts them (UTF-16 code units): the first line starts with
// first (a list marker, say "- "), the others with rest (the item's
// indent, "  "). It breaks only at a single space, never before a word that
// would start a block of its own at the start of a line (a list marker, a
// heading's #, a quote's >, a fence, a table row, a rule; see continues)
// and never after a backslash (that would be a hard line break). A word
// longer than the width stands alone on its line, which markdownlint
// allows. Joining the lines with single spaces, their prefixes dropped,
// gives text back: Unwrap does that.
func Wrap(text string, width int, first, rest string) []string {
	var out []string
	line := first
	cols := Columns(first)
	empty := true // line holds no word yet
	for _, w := range wrapUnits(text) {
		wc := Columns(w)
		if !empty && cols+1+wc > width {
			out = append(out, line)
			line, cols, empty = rest, Columns(rest), true
		}
		if !empty {
			line += " "
			cols++
		}
		line += w
		cols += wc
		empty = false
	}
	return append(out, line)
}

// wrapUnits splits text at the spaces Wrap may break at: single spaces
// between two characters that are not blanks, not after a backslash, not
// before a word that must not start a line, and not where the line before
// the break would be another block than the whole (keepsBlock).
func wrapUnits(text string) []string {
	whole := strings.TrimLeft(text, " \t")
	var units []string
	start := 0
	for i := 1; i+1 < len(text); i++ {
		if text[i] != ' ' || blank(text[i-1]) || blank(text[i+1]) || text[i-1] == '\\' {
			continue
		}
		if !continues(text[i+1:]) || !keepsBlock(strings.TrimLeft(text[:i], " \t"), whole) {
			continue
		}
		units = append(units, text[start:i])
		start = i + 1
	}
	return append(units, text[start:])
}

func blank(c byte) bool { return c == ' ' || c == '\t' }

// keepsBlock reports whether a line cut to first (a prefix of whole, both
// without leading blanks) is still the block whole is: a line of text, or
// the same list item or quote. A heading, a fence, a table row or a rule
// cut short is another block, or a block where there was text (a rule's
// characters alone, a fence without its info string's backtick).
func keepsBlock(first, whole string) bool {
	if !blockStart(first) {
		return true
	}
	switch {
	case listMarker(first) > 0 && listMarker(whole) > 0:
		return true
	case first[0] == '>' && whole[0] == '>':
		return true
	}
	return false
}

// continues reports whether a line starting with s (no leading blanks)
// reads as a continuation of the paragraph above it, whatever follows its
// first word: it is false when the first word could start a list item, a
// heading, a quote, a fence, a table row, a thematic break or a setext
// underline. It is stricter than CommonMark, and than blockStart.
func continues(s string) bool {
	word := s
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		word = s[:i]
	}
	if word == "" {
		return false
	}
	switch word[0] {
	case '>', '|', '<':
		return false
	}
	if strings.HasPrefix(word, "```") || strings.HasPrefix(word, "~~~") {
		return false
	}
	if strings.Trim(word, ruleChars) == "" {
		return false
	}
	if orderedMarker(word) {
		return false
	}
	return true
}

// orderedMarker reports whether word is an ordered list marker: 1–9 digits
// and "." or ")".
func orderedMarker(word string) bool {
	n := len(word) - 1
	if n < 1 || n > 9 || (word[n] != '.' && word[n] != ')') {
		return false
	}
	for i := 0; i < n; i++ {
		if word[i] < '0' || word[i] > '9' {
			return false
		}
	}
	return true
}

// Columns is the length markdownlint measures a line by: UTF-16 code
// units.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

// listMarker returns the length of the list marker and the blanks after it
// that start trimmed ("- ", "10. "), or 0 when trimmed is not a list item.
func listMarker(trimmed string) int {
	n := 0
	switch {
	case trimmed == "":
		return 0
	case strings.IndexByte("-*+", trimmed[0]) >= 0:
		n = 1
	default:
		for n < len(trimmed) && n < 10 && trimmed[n] >= '0' && trimmed[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 || n >= len(trimmed) || (trimmed[n] != '.' && trimmed[n] != ')') {
			return 0
		}
		n++
	}
	if n < len(trimmed) && trimmed[n] != ' ' && trimmed[n] != '\t' {
		return 0
	}
	for n < len(trimmed) && (trimmed[n] == ' ' || trimmed[n] == '\t') {
		n++
	}
	return n
}

// blockStart reports whether a line (leading blanks trimmed) starts a block
// of its own, so that it never continues the paragraph or list item above
// it: a heading, a fence, a quote, a list item, a table row, or a line of
// rule characters alone (a thematic break, a setext underline, a table's
// delimiter row). An HTML line does not count: the text scribe writes has
// its "<" escaped. Every line it is true of has a first word continues
// rejects, so Wrap never makes one.
func blockStart(trimmed string) bool {
	if trimmed == "" {
		return false
	}
	if _, _, ok := Heading(trimmed); ok {
		return true
	}
	if OpeningFence(trimmed) != "" || trimmed[0] == '>' || trimmed[0] == '|' || listMarker(trimmed) > 0 {
		return true
	}
	return strings.Trim(trimmed, ruleChars+" \t") == ""
}

// ruleChars are the characters of thematic breaks, setext underlines,
// table delimiter rows and ATX heading markers, and "+", "~".
const ruleChars = "-*_=+#|:~"

// hardBreak reports whether a line ends in a hard line break: two spaces
// or a backslash.
func hardBreak(line string) bool {
	return strings.HasSuffix(line, "  ") || strings.HasSuffix(line, "\\")
}

// indent is a line's indentation in columns (a tab to the next multiple of
// four).
func indent(line string) int {
	n := 0
	for _, c := range []byte(line) {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

// lineKind is what a line of a markdown body is, for Unwrap, FormatText and
// ReadText.
type lineKind int

const (
	kindBlank lineKind = iota
	kindCode           // a fence or a line of fenced or indented code
	kindBlock          // a heading, quote, table row or rule: never joined or wrapped
	kindItem           // a list item's first line
	kindPara           // a paragraph's first line (or the first after a hard break)
	kindCont           // a line continuing the paragraph or item above (a soft break)
)

// classifier reads a markdown body line by line. The zero value is ready.
type classifier struct {
	fences   Fences
	joinable bool // the line above is a paragraph's or item's text
	hard     bool // and it ends in a hard line break
}

func (c *classifier) next(line string) lineKind {
	trimmed := strings.TrimLeft(line, " \t")
	if c.fences.Skip(trimmed) {
		c.joinable = false
		return kindCode
	}
	if trimmed == "" {
		c.joinable = false
		return kindBlank
	}
	start := blockStart(trimmed)
	if c.joinable && !c.hard && !start {
		c.hard = hardBreak(line)
		return kindCont
	}
	switch {
	case start && listMarker(trimmed) > 0:
		c.joinable, c.hard = true, hardBreak(line)
		return kindItem
	case start:
		c.joinable = false
		return kindBlock
	case !c.joinable && indent(line) >= 4:
		return kindCode
	}
	c.joinable, c.hard = true, hardBreak(line)
	return kindPara
}

// Unwrap joins the soft-wrapped lines of a markdown body's paragraphs and
// list items: a line that continues the one above (not blank, not code,
// not the start of a block, the line above not ending in a hard break) is
// appended to it after a single space, its indentation dropped. Other
// lines are kept as they are. Lines carry no line endings. Unwrap of Wrap's
// lines gives the wrapped line back.
func Unwrap(lines []string) []string {
	out, _ := UnwrapAt(lines)
	return out
}

// UnwrapAt is Unwrap, also returning where each of its lines starts: the
// index in lines of the first line joined into it. A reader that reports
// line numbers (the follow-up scanner) keeps the wrapped item's first line.
func UnwrapAt(lines []string) (out []string, at []int) {
	out = make([]string, 0, len(lines))
	at = make([]int, 0, len(lines))
	var c classifier
	for i, l := range lines {
		if c.next(l) == kindCont && len(out) > 0 {
			last := &out[len(out)-1]
			*last = strings.TrimRight(*last, " \t") + " " + strings.TrimLeft(l, " \t")
			continue
		}
		out = append(out, l)
		at = append(at, i)
	}
	return out, at
}

// FormatText writes text, a person's or an agent's (possibly several
// lines of markdown), as a markdown body for a person-owned file: its
// paragraphs and list items joined (Unwrap), escaped (EscapeText; code is
// left as it is) and wrapped at width columns (Wrap, a list item's
// continuation lines indented under its text). ReadText(FormatText(text))
// is CanonicalText(text).
func FormatText(text string, width int) string {
	lines := Unwrap(splitText(text))
	out := make([]string, 0, len(lines))
	var c classifier
	for _, l := range lines {
		switch c.next(l) {
		case kindBlank, kindCode:
			out = append(out, l)
		case kindBlock:
			out = append(out, EscapeText(l))
		case kindItem:
			e := EscapeText(l)
			lead := len(e) - len(strings.TrimLeft(e, " \t"))
			p := lead + listMarker(e[lead:])
			out = append(out, Wrap(e[p:], width, e[:p], blanks(e[:p]))...)
		default: // a paragraph's line: there are no continuations after Unwrap
			e := EscapeText(l)
			p := len(e) - len(strings.TrimLeft(e, " \t"))
			out = append(out, Wrap(e[p:], width, e[:p], e[:p])...)
		}
	}
	return strings.Join(out, "\n")
}

// ReadText reads a markdown body (FormatText's, or a person's edit of it)
// back to the text it holds: paragraphs and list items unwrapped (Unwrap),
// what EscapeText escaped unescaped (code aside), leading blank lines and
// trailing white space dropped, "\n" line endings.
func ReadText(md string) string {
	lines := Unwrap(splitText(md))
	var c classifier
	for i, l := range lines {
		if k := c.next(l); k != kindBlank && k != kindCode {
			lines[i] = UnescapeText(l)
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \t\n")
}

// CanonicalText is the form of text FormatText and ReadText keep exactly:
// soft-wrapped lines joined (Unwrap), "\n" line endings, no leading blank
// lines or trailing white space. Store text in this form and
// ReadText(FormatText(t)) == t.
func CanonicalText(text string) string {
	lines := Unwrap(splitText(text))
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	return strings.TrimRight(strings.Join(lines, "\n"), " \t\n")
}

// splitText splits text into lines without their endings: "\n", "\r\n"
// or a lone "\r", as CommonMark reads them.
func splitText(text string) []string {
	if strings.Contains(text, "\r") {
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	}
	return strings.Split(text, "\n")
}

// blanks is prefix with every character but a tab turned into a space: a
// list item's continuation indent.
func blanks(prefix string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return r
		}
		return ' '
	}, prefix)
}
