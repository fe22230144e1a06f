// Package markdown holds the few CommonMark rules git-scribe's note parsers
// and renderers share: ATX headings, fenced code blocks, the markdownlint
// inline configuration comments the formats carry once per file, and the
// way a person's or an agent's text is put into markdown and read back
// (escaped so that a URL or a "<" lints clean, wrapped at 80 columns in
// files people own) so that it reads back exactly. It works on strings
// only; it never writes files or imports anything of the project's.
package markdown

import "strings"

// Heading returns the level and text of an ATX heading line ("## Next"):
// at most three spaces of indent, 1–6 #s, then a blank or the end; a
// closing run of #s is not part of the text. A trailing "\r" is ignored.
func Heading(line string) (level int, text string, ok bool) {
	s := strings.TrimRight(line, "\r\n")
	for i := 0; i < 3 && strings.HasPrefix(s, " "); i++ {
		s = s[1:]
	}
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest := s[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	rest = strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(rest, "#"); trimmed != rest {
		if trimmed == "" || strings.HasSuffix(trimmed, " ") || strings.HasSuffix(trimmed, "\t") {
			rest = strings.TrimSpace(trimmed)
		}
	}
	return level, rest, true
}

// Fences follows fenced code blocks line by line: checkboxes, headings and
// keywords inside them are code, not notes. The zero value is ready.
type Fences struct{ open string }

// Skip reports whether a line (leading blanks trimmed) opens, closes or lies
// inside a fenced code block.
func (f *Fences) Skip(trimmed string) bool {
	if f.open != "" {
		if strings.HasPrefix(trimmed, f.open) && strings.Trim(trimmed, f.open[:1]+" \t") == "" {
			f.open = ""
		}
		return true
	}
	if open := OpeningFence(trimmed); open != "" {
		f.open = open
		return true
	}
	return false
}

// OpeningFence returns the fence (``` or ~~~, possibly longer) a trimmed
// line opens, or "".
func OpeningFence(trimmed string) string {
	for _, c := range []string{"`", "~"} {
		n := len(trimmed) - len(strings.TrimLeft(trimmed, c))
		if n >= 3 {
			// A backtick fence's info string may not contain backticks.
			if c == "`" && strings.Contains(trimmed[n:], "`") {
				return ""
			}
			return trimmed[:n]
		}
	}
	return ""
}

// Section finds the section a level-N ATX heading titled title (compared
// case-insensitively) opens: the index of its heading line and of the first
// line after the section (the next heading of level N or higher, or
// len(lines)). Headings inside fenced code blocks are code, not structure:
// a "## Project Rules" in an example above the real one is skipped. ok is
// false when there is none. Lines may keep their line endings.
func Section(lines []string, level int, title string) (head, end int, ok bool) {
	head = -1
	var fences Fences
	for i, l := range lines {
		if fences.Skip(strings.TrimSpace(l)) {
			continue
		}
		lv, t, isHeading := Heading(l)
		if !isHeading {
			continue
		}
		if head < 0 {
			if lv == level && strings.EqualFold(t, title) {
				head = i
			}
			continue
		}
		if lv <= level {
			return head, i, true
		}
	}
	return head, len(lines), head >= 0
}

// LintDirective reports whether a line holds nothing but markdownlint
// inline configuration comments, such as
// "<!-- markdownlint-disable-file MD013 -->": an instruction to the linter,
// not text, which parsers and line budgets skip. Like markdownlint, it
// ignores case and blanks around the keyword.
func LintDirective(line string) bool {
	s := strings.TrimSpace(line)
	if s == "" {
		return false
	}
	for s != "" {
		rest, ok := strings.CutPrefix(s, "<!--")
		if !ok {
			return false
		}
		rest = strings.TrimLeft(rest, " \t")
		const keyword = "markdownlint-"
		if len(rest) < len(keyword) || !strings.EqualFold(rest[:len(keyword)], keyword) {
			return false
		}
		end := strings.Index(rest, "-->")
		if end < 0 {
			return false
		}
		s = strings.TrimSpace(rest[end+len("-->"):])
	}
	return true
}
