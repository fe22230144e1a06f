package skills

import (
	"fmt"
	"slices"
	"strings"
)

// UnknownVarError names a $var the template uses that the caller did not
// supply.
type UnknownVarError struct {
	Name  string
	Line  int
	Known []string
}

func (e *UnknownVarError) Error() string {
	known := "none"
	if len(e.Known) > 0 {
		known = "$" + strings.Join(e.Known, ", $")
	}
	return fmt.Sprintf("line %d: unknown variable $%s (known: %s); write $$ for a literal dollar sign", e.Line, e.Name, known)
}

// Render substitutes $vars in tmpl the way Python's string.Template does,
// so prose braces stay safe:
//
//	$name, ${name}   the value of name ([A-Za-z_][A-Za-z0-9_]*)
//	$$               a literal "$"
//	{ } and { x }    left alone
//
// A "$" followed by anything else ("$5", a lone "$" at the end) is kept
// literally. A name not in vars, and a "${" without a valid name and "}",
// are errors naming the line: a contract never reaches an agent with a hole
// in it.
func Render(tmpl string, vars map[string]string) (string, error) {
	var b strings.Builder
	b.Grow(len(tmpl))
	line := 1
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		if c != '$' {
			if c == '\n' {
				line++
			}
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(tmpl) {
			b.WriteByte('$')
			i++
			continue
		}
		switch n := tmpl[i+1]; {
		case n == '$':
			b.WriteByte('$')
			i += 2
		case n == '{':
			end := strings.IndexByte(tmpl[i+2:], '}')
			if end < 0 || !isIdent(tmpl[i+2:i+2+end]) {
				return "", fmt.Errorf("line %d: malformed placeholder %q: use ${name} or $$ for a literal dollar sign", line, snippet(tmpl[i:]))
			}
			name := tmpl[i+2 : i+2+end]
			v, ok := vars[name]
			if !ok {
				return "", &UnknownVarError{Name: name, Line: line, Known: sortedKeys(vars)}
			}
			b.WriteString(v)
			i += 3 + end
		case isIdentStart(n):
			j := i + 2
			for j < len(tmpl) && isIdentChar(tmpl[j]) {
				j++
			}
			name := tmpl[i+1 : j]
			v, ok := vars[name]
			if !ok {
				return "", &UnknownVarError{Name: name, Line: line, Known: sortedKeys(vars)}
			}
			b.WriteString(v)
			i = j
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), nil
}

// Vars lists the distinct variable names tmpl uses, in first-use order.
func Vars(tmpl string) []string {
	var out []string
	for i := 0; i+1 < len(tmpl); i++ {
		if tmpl[i] != '$' {
			continue
		}
		switch n := tmpl[i+1]; {
		case n == '$':
			i++
		case n == '{':
			if end := strings.IndexByte(tmpl[i+2:], '}'); end >= 0 && isIdent(tmpl[i+2:i+2+end]) {
				if name := tmpl[i+2 : i+2+end]; !slices.Contains(out, name) {
					out = append(out, name)
				}
				i += 2 + end
			}
		case isIdentStart(n):
			j := i + 2
			for j < len(tmpl) && isIdentChar(tmpl[j]) {
				j++
			}
			if name := tmpl[i+1 : j]; !slices.Contains(out, name) {
				out = append(out, name)
			}
			i = j - 1
		}
	}
	return out
}

// Escape makes s render as itself: every "$" becomes "$$".
func Escape(s string) string { return strings.ReplaceAll(s, "$", "$$") }

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || c >= '0' && c <= '9' }

func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func snippet(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 24 {
		s = s[:24] + "…"
	}
	return s
}
