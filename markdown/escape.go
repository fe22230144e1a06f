package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// EscapeText returns s, a line of a person's or an agent's text, as
// markdown inline text that shows s and that markdownlint's default rules
// accept (MD033 no inline HTML, MD034 no bare URL):
//
//   - a bare http:// or https:// URL becomes an autolink, <https://…>; so
//     does a bare e-mail address an autolink can hold (<ada@example.com>);
//   - a "<" that could open inline HTML, a comment or an autolink is
//     escaped, "\<";
//   - the "." of a bare "www." address and the "@" of an e-mail address no
//     autolink can hold are escaped ("www\.example.com"): without a scheme
//     there is no autolink for them;
//   - a run of backslashes right before any of those is doubled, so that a
//     person's own "\<" survives.
//
// Code spans are left as they are: there the text is shown verbatim.
// UnescapeText(EscapeText(s)) == s for every s.
func EscapeText(s string) string {
	if !strings.ContainsAny(s, "<@\\") && !containsFold(s, "http") && !containsFold(s, "www") {
		return s
	}
	return outsideCode(s, len(s)+8, escapeSegment)
}

// outsideCode is s with seg writing each part outside its code spans and
// the code spans copied as they are.
func outsideCode(s string, grow int, seg func(b *strings.Builder, s string, lo, hi int)) string {
	var b strings.Builder
	b.Grow(grow)
	lo := 0
	for _, sp := range codeSpans(s) {
		seg(&b, s, lo, sp[0])
		b.WriteString(s[sp[0]:sp[1]])
		lo = sp[1]
	}
	seg(&b, s, lo, len(s))
	return b.String()
}

// UnescapeText reads markdown inline text back to the text it shows, as far
// as EscapeText writes it: the autolinks of bare URLs and e-mail addresses
// lose their brackets, "\<", "\@" and a "www\." lose the backslash, and a
// run of backslashes before them is halved. Other markdown (emphasis, other
// backslash escapes, code spans) is left as it is.
func UnescapeText(s string) string {
	if !strings.ContainsAny(s, "<\\") {
		return s
	}
	return outsideCode(s, len(s), unescapeSegment)
}

func escapeSegment(b *strings.Builder, s string, lo, hi int) {
	for i := lo; i < hi; {
		switch c := s[i]; {
		case c == '\\':
			j := i
			for j < hi && s[j] == '\\' {
				j++
			}
			b.WriteString(s[i:j])
			if j < hi && (s[j] == '<' || s[j] == '@' || autolinkEnd(s, j, hi) > 0) {
				b.WriteString(s[i:j]) // doubled: the next character is escaped or bracketed
			}
			i = j
		case c == '<':
			if i+1 < hi && opensTag(s[i+1]) {
				b.WriteByte('\\')
			}
			b.WriteByte('<')
			i++
		case c == '@':
			if bareEmailAt(s, lo, i, hi) {
				b.WriteByte('\\')
			}
			b.WriteByte('@')
			i++
		default:
			if end := autolinkEnd(s, i, hi); end > 0 {
				b.WriteByte('<')
				b.WriteString(s[i:end])
				b.WriteByte('>')
				i = end
				continue
			}
			if dot, ok := wwwDot(s, lo, i, hi); ok {
				// "www", the backslashes a person put before the dot
				// (doubled), then the dot, escaped when it would make an
				// address markdownlint flags.
				b.WriteString(s[i : i+3])
				b.WriteString(s[i+3 : dot])
				b.WriteString(s[i+3 : dot])
				if dot == i+3 && dot+1 < hi && domainChar(s[dot+1]) {
					b.WriteByte('\\')
				}
				b.WriteByte('.')
				i = dot + 1
				continue
			}
			b.WriteByte(c)
			i++
		}
	}
}

func unescapeSegment(b *strings.Builder, s string, lo, hi int) {
	for i := lo; i < hi; {
		switch c := s[i]; {
		case c == '\\':
			j := i
			for j < hi && s[j] == '\\' {
				j++
			}
			n := j - i
			if j < hi && (s[j] == '<' || s[j] == '@') {
				b.WriteString(s[i : i+n/2])
				if n%2 == 1 {
					b.WriteByte(s[j]) // an escaped "<" or "@"
					j++
				}
			} else {
				b.WriteString(s[i:j])
			}
			i = j
		case c == '<':
			if end := strings.IndexByte(s[i+1:hi], '>'); end > 0 && autolinkEnd(s[i+1:i+1+end], 0, end) == end {
				b.WriteString(s[i+1 : i+1+end])
				i += end + 2
				continue
			}
			b.WriteByte('<')
			i++
		default:
			if dot, ok := wwwDot(s, lo, i, hi); ok {
				n := dot - (i + 3)
				b.WriteString(s[i : i+3])
				b.WriteString(s[i+3 : i+3+n/2])
				b.WriteByte('.')
				i = dot + 1
				continue
			}
			b.WriteByte(c)
			i++
		}
	}
}

// codeSpans lists the code spans of s as [start, end) byte ranges: a run of
// backticks (not after a backslash) up to the next run of the same length.
func codeSpans(s string) [][2]int {
	if !strings.Contains(s, "`") {
		return nil
	}
	var out [][2]int
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if i > 0 && s[i-1] == '\\' {
			i = j
			continue
		}
		closed := -1
		for k := j; k < len(s); {
			if s[k] != '`' {
				k++
				continue
			}
			m := k
			for m < len(s) && s[m] == '`' {
				m++
			}
			if m-k == j-i {
				closed = m
				break
			}
			k = m
		}
		if closed < 0 {
			i = j
			continue
		}
		out = append(out, [2]int{i, closed})
		i = closed
	}
	return out
}

// opensTag reports whether "<" followed by c could open inline HTML, a
// comment, a processing instruction or an autolink.
func opensTag(c byte) bool {
	return c < utf8.RuneSelf && (isAlnum(c) || strings.IndexByte("/!?._+-", c) >= 0)
}

// autolinkEnd returns the end of the bare URL (http:// or https://) or
// e-mail address an autolink can hold that starts at s[i], or 0. A URL runs
// to white space, a control character, "<", ">", a backslash or a
// backtick, without the trailing punctuation GFM leaves out of a link
// (?!.,:*_~'"; and an unbalanced ")" or "]").
func autolinkEnd(s string, i, hi int) int {
	if end := urlEnd(s, i, hi); end > 0 {
		return end
	}
	return emailEnd(s, i, hi)
}

func urlEnd(s string, i, hi int) int {
	rest := s[i:hi]
	n := 0
	switch {
	case hasPrefixFold(rest, "https://"):
		n = len("https://")
	case hasPrefixFold(rest, "http://"):
		n = len("http://")
	default:
		return 0
	}
	if n >= len(rest) || !(isAlnum(rest[n]) || rest[n] >= utf8.RuneSelf) {
		return 0
	}
	end := n
	for end < len(rest) {
		r, size := utf8.DecodeRuneInString(rest[end:])
		if r < 0x20 || r == 0x7f || unicode.IsSpace(r) || r == '<' || r == '>' || r == '\\' || r == '`' {
			break
		}
		end += size
	}
	for end > n {
		c := rest[end-1]
		switch {
		case strings.IndexByte("?!.,:*_~'\";", c) >= 0:
		case c == ')' && strings.Count(rest[:end], "(") < strings.Count(rest[:end], ")"):
		case c == ']' && strings.Count(rest[:end], "[") < strings.Count(rest[:end], "]"):
		default:
			return i + end
		}
		end--
	}
	return 0
}

// emailEnd returns the end of an e-mail address starting at s[i] that a
// CommonMark autolink can hold (GFM's local part; domain labels of letters,
// digits and inner hyphens, at least two), or 0. i must start the local
// part where GFM sees one (emailMayFollow).
func emailEnd(s string, i, hi int) int {
	if i > 0 && !emailMayFollow(s[i-1]) {
		return 0
	}
	at := i
	for at < hi && localChar(s[at]) {
		at++
	}
	if at == i || at >= hi || s[at] != '@' {
		return 0
	}
	end := domainEnd(s, at+1, hi)
	if end < 0 {
		return 0
	}
	labels := strings.Split(s[at+1:end], ".")
	if len(labels) < 2 {
		return 0
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' || strings.Contains(l, "_") {
			return 0
		}
	}
	return end
}

// domainEnd returns the end of the run of domain characters starting at
// s[i], without trailing dots; -1 when there is none.
func domainEnd(s string, i, hi int) int {
	end := i
	for end < hi && (domainChar(s[end]) || s[end] == '.') {
		end++
	}
	for end > i && s[end-1] == '.' {
		end--
	}
	if end == i {
		return -1
	}
	return end
}

// bareEmailAt reports whether the "@" at s[at] joins a local part and a
// dotted domain that GFM could read as an e-mail address, though no
// autolink holds it (an underscore in the domain, say).
func bareEmailAt(s string, lo, at, hi int) bool {
	start := at
	for start > lo && localChar(s[start-1]) {
		start--
	}
	if start == at || start > 0 && !emailMayFollow(s[start-1]) {
		return false
	}
	end := domainEnd(s, at+1, hi)
	return end > 0 && strings.Contains(s[at+1:end], ".")
}

// wwwDot reports whether s[i:] starts a "www" (after the start, white space
// or one of "*_~(", as GFM wants) followed by backslashes and a dot, and
// returns the dot's index.
func wwwDot(s string, lo, i, hi int) (int, bool) {
	if i+3 >= hi || !hasPrefixFold(s[i:hi], "www") {
		return 0, false
	}
	if i > 0 {
		if p := s[i-1]; strings.IndexByte(" \t\r\n*_~(", p) < 0 {
			return 0, false
		}
	}
	j := i + 3
	for j < hi && s[j] == '\\' {
		j++
	}
	if j >= hi || s[j] != '.' {
		return 0, false
	}
	return j, true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// emailMayFollow reports whether GFM reads an e-mail address right after
// c: not after its own characters, nor after "/" or ":", so that
// "postgres://user:pass@db.example.com" is no address (and the secret
// redactor still sees the connection string whole).
func emailMayFollow(c byte) bool { return !localChar(c) && c != '/' && c != ':' }

func localChar(c byte) bool {
	return isAlnum(c) || c == '.' || c == '+' || c == '_' || c == '-'
}

func domainChar(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if (s[i]|0x20) == sub[0] && hasPrefixFold(s[i:], sub) {
			return true
		}
	}
	return false
}

// EscapeItem is EscapeText for text that starts a list item's content (a
// follow-up, a rule, a bridge note bullet): it also escapes a start that
// would make the item hold another block, a heading ("\# …"), a quote, a
// nested list ("\- …", "1\. …"), a fence, a table row or a rule, so the
// item is the text and nothing else. As elsewhere, backslashes a person
// put there are doubled. UnescapeItem(EscapeItem(s)) == s for every s.
func EscapeItem(s string) string {
	e := EscapeText(s)
	k := len(e) - len(strings.TrimLeft(e, `\`))
	if k < len(e) && strings.IndexByte(itemStarters, e[k]) >= 0 && blockStart(e[k:]) {
		return e[:k] + e[:k] + `\` + e[k:]
	}
	if d, dot, ok := orderedStart(e); ok {
		return e[:d] + e[d:dot] + e[d:dot] + `\` + e[dot:]
	}
	return e
}

// UnescapeItem reads a list item's content back as EscapeItem wrote it.
func UnescapeItem(s string) string {
	m := len(s) - len(strings.TrimLeft(s, `\`))
	if m > 0 && m < len(s) && strings.IndexByte(itemStarters, s[m]) >= 0 && blockStart(s[m:]) {
		s = s[:m/2] + s[m:]
	} else if d, dot, ok := orderedStart(s); ok {
		s = s[:d] + s[d:d+(dot-d)/2] + s[dot:]
	}
	return UnescapeText(s)
}

// itemStarters are the first characters of the blocks EscapeItem escapes
// with a backslash in front (an ordered list's marker is escaped at its
// "." or ")").
const itemStarters = "#>|-+*=_~`"

// orderedStart reports whether s starts like an ordered list item: 1–9
// digits, backslashes, "." or ")", then a blank or the end. It returns
// where the backslashes start and where the "." is.
func orderedStart(s string) (digits, dot int, ok bool) {
	for digits < len(s) && digits < 10 && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 0 || digits > 9 {
		return 0, 0, false
	}
	dot = digits
	for dot < len(s) && s[dot] == '\\' {
		dot++
	}
	if dot >= len(s) || (s[dot] != '.' && s[dot] != ')') || (dot+1 < len(s) && s[dot+1] != ' ' && s[dot+1] != '\t') {
		return 0, 0, false
	}
	return digits, dot, true
}
