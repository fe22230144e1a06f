package notes

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// TimeLayout is the timestamp layout of every note: ISO 8601 at second
// precision with a numeric UTC offset (never "Z"), e.g.
// 2026-11-30T21:25:32+09:00.
const TimeLayout = "2006-01-02T15:04:05-07:00"

// FormatTime formats t as an ISO 8601 timestamp with offset at second
// precision, in t's own location.
func FormatTime(t time.Time) string {
	return t.Format(TimeLayout)
}

// offsetLayouts are timestamp layouts that carry their own offset.
var offsetLayouts = []string{
	time.RFC3339Nano, // also accepts "Z" and a missing fraction
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02 15:04 -07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04 -0700",
}

// zonelessLayouts are timestamp layouts without an offset.
var zonelessLayouts = []string{
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// zoneAbbrevs maps the zone abbreviations hand-written notes use to their
// offsets; time.Parse would silently read an unknown abbreviation as UTC.
var zoneAbbrevs = map[string]int{
	"UTC": 0, "GMT": 0, "Z": 0,
	"KST": 9 * 3600, "JST": 9 * 3600,
	"CET": 1 * 3600, "CEST": 2 * 3600,
	"BST": 1 * 3600,
	"EST": -5 * 3600, "EDT": -4 * 3600,
	"CST": -6 * 3600, "CDT": -5 * 3600,
	"MST": -7 * 3600, "MDT": -6 * 3600,
	"PST": -8 * 3600, "PDT": -7 * 3600,
}

// ParseTime reads a timestamp as written by FormatTime, and leniently the
// forms people write by hand: RFC 3339 with or without fraction, a space
// instead of "T", minutes precision, a trailing zone abbreviation such as
// "KST", or a bare date. A timestamp without any zone is read as UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range offsetLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	loc := time.UTC
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		if off, ok := zoneAbbrevs[strings.ToUpper(s[i+1:])]; ok {
			loc = time.FixedZone(strings.ToUpper(s[i+1:]), off)
			s = strings.TrimSpace(s[:i])
		}
	}
	var firstErr error
	for _, layout := range zonelessLayouts {
		t, err := time.ParseInLocation(layout, s, loc)
		if err == nil {
			return t, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return time.Time{}, firstErr
}

// canonicalTime returns t as it reads back after FormatTime and ParseTime:
// truncated to the second, with the offset FormatTime can express. Times
// that layout cannot express (years outside 0000–9999) become the zero time.
func canonicalTime(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	c, err := ParseTime(FormatTime(t))
	if err != nil {
		return time.Time{}
	}
	return c
}

// SingleLine collapses s to a single clean line: invalid UTF-8 becomes U+FFFD,
// control characters and runs of white space (newlines included) become one
// space, and the ends are trimmed. It is idempotent.
func SingleLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// CapRunes shortens a singleLine string to at most n runes, ending it with "…"
// when it was cut. It is idempotent.
func CapRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}

// SplitLines splits text at "\n" and drops one trailing "\r" from each line.
// A final newline does not produce an empty last line.
func SplitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// DetectEOL returns the line ending text uses, judged by its first line:
// "\r\n" for CRLF files, else "\n".
func DetectEOL(text string) string {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// WithBlankLineEnd returns text ending in a complete line followed by a blank
// line, adding only line terminators (never changing existing bytes).
func WithBlankLineEnd(text, eol string) string {
	if !strings.HasSuffix(text, "\n") {
		if eol == "\r\n" && strings.HasSuffix(text, "\r") {
			text += "\n"
		} else {
			text += eol
		}
	}
	body := strings.TrimSuffix(text[:len(text)-1], "\r")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	if strings.TrimSpace(last) != "" {
		text += eol
	}
	return text
}

func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// OneLine joins s's whitespace runs into single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
