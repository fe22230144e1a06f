// Package sentence is git-scribe's one sentence splitter: the wrap summary,
// the hook's hint, follow-up extraction and memory's signals all cut text
// into sentences here, the same way. It holds text rules only.
package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end in a dot that does not end a sentence ("e.g." and other
// dotted initialisms are recognised by their shape, see isAbbreviation).
var abbreviations = map[string]bool{
	"etc": true, "vs": true, "cf": true, "approx": true, "incl": true, "esp": true, "resp": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "jr": true, "sr": true,
	"fig": true, "eq": true, "vol": true, "al": true, "ca": true,
}

// Split cuts text into sentences, each trimmed, terminators kept, none
// empty. A sentence ends at a run of ".", "!" or "?" (closing quotes and
// brackets included) followed by white space or the end of the text, and
// at "。", "！" or "？" anywhere. So a dot inside a number, a version or a
// file name ("1.26", "v2.0.1", "main.go") ends nothing, and neither does
// the dot of an abbreviation ("e.g.", "i.e.", "etc.", "vs.", "Dr.").
// Newlines are white space: callers that treat lines as boundaries split
// lines first.
func Split(text string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '。', '！', '？':
			end := i + size
			for end < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[end:])
				if r2 != '。' && r2 != '！' && r2 != '？' && !isCloser(r2) {
					break
				}
				end += s2
			}
			emit(end)
			i = end
			continue
		case '.', '!', '?':
			end := i
			for end < len(text) && strings.IndexByte(".!?", text[end]) >= 0 {
				end++
			}
			run := text[i:end]
			for end < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[end:])
				if !isCloser(r2) {
					break
				}
				end += s2
			}
			next, _ := utf8.DecodeRuneInString(text[end:])
			atBoundary := end == len(text) || unicode.IsSpace(next)
			if atBoundary && !(run == "." && isAbbreviation(text[start:i])) {
				emit(end)
			}
			i = end
			continue
		}
		i += size
	}
	emit(len(text))
	return out
}

// First is the first sentence of text, "" when it has none.
func First(text string) string {
	if s := Split(text); len(s) > 0 {
		return s[0]
	}
	return ""
}

// FirstEnd is the length of the part of text before the first sentence's
// terminator: text[:FirstEnd(text)] is the first sentence without its
// final punctuation (with any leading white space), the whole text when it
// has no terminator, "" when it has no sentence.
func FirstEnd(text string) int {
	first := First(text)
	if first == "" {
		return 0
	}
	at := strings.Index(text, first)
	bare := strings.TrimRightFunc(first, func(r rune) bool { return strings.ContainsRune(".!?。！？", r) || isCloser(r) })
	if bare == "" {
		return at + len(first)
	}
	return at + len(bare)
}

// FirstN is the first n sentences of text joined by single spaces (white
// space inside them collapsed to single spaces).
func FirstN(text string, n int) string {
	s := Split(text)
	if len(s) > n {
		s = s[:n]
	}
	return strings.Join(strings.Fields(strings.Join(s, " ")), " ")
}

// isCloser reports whether r may follow a sentence's terminator and still
// belong to the sentence.
func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»', '`', '」', '』', '）':
		return true
	}
	return false
}

// isAbbreviation reports whether the text before a single dot ends in an
// abbreviation: a known one ("etc", "vs", "Dr") or a dotted initialism whose
// parts are single letters ("e.g", "i.e", "U.S").
func isAbbreviation(before string) bool {
	f := strings.Fields(before)
	if len(f) == 0 {
		return false
	}
	w := strings.TrimLeft(f[len(f)-1], "([{\"'")
	if abbreviations[strings.ToLower(w)] {
		return true
	}
	parts := strings.Split(w, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if utf8.RuneCountInString(p) != 1 || !unicode.IsLetter([]rune(p)[0]) {
			return false
		}
	}
	return true
}
