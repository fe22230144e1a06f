package notes

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// A Stop renders its session's record every turn, and yaml.Marshal of a
// long session's record was the costliest thing a Stop did in-process:
// ~2.5 ms at 100 commits (its reflection, events and allocations), beside a
// `git status` of 30 ms that the Stop has to stay within 2× of. The record
// has three fixed shapes (Session, SessionCommit, SessionFollowup), so
// renderSession writes them directly, byte for byte what yaml.Marshal
// writes: each string takes the style yaml.v3 gives it (plain, single-
// or double-quoted) when yamlScalar can tell that style for certain, and
// yaml.v3 itself renders any other (yamlScalarSlow). FuzzSessionRender
// holds the two renders equal.

// renderSession is yaml.Marshal(s) for the record's fixed shapes; ok is
// false when a string needs yaml.v3 to place it (yamlOther).
func renderSession(s Session) (out []byte, ok bool) {
	w := yamlWriter{b: make([]byte, 0, 512+len(s.Commits)*160)}
	w.str("id", s.ID, false)
	w.str("agent", s.Agent, true)
	w.str("status", string(s.Status), false)
	w.str("branch", s.Branch, true)
	w.str("start_head", s.StartHead, true)
	w.str("head", s.Head, true)
	w.time("started", s.Started, false)
	w.time("updated", s.Updated, false)
	w.time("ended", s.Ended, true)
	w.str("end_reason", s.EndReason, true)
	w.int("stops", int64(s.Stops), false)
	w.str("transcript", s.Transcript, true)
	w.str("format", s.Format, true)
	w.int("offset", s.Offset, false)
	w.int("skipped_lines", int64(s.SkippedLines), true)
	if len(s.Commits) > 0 {
		w.key("commits")
		for _, c := range s.Commits {
			w.item("sha", c.SHA)
			w.str("subject", c.Subject, false)
			w.str("patch_id", c.PatchID, true)
			if len(c.Files) > 0 {
				w.key("files")
				w.list("        - ", c.Files)
			}
			w.int("added", int64(c.Added), true)
			w.int("deleted", int64(c.Deleted), true)
		}
		w.indent = ""
	}
	w.strings("files", s.Files)
	w.strings("tests", s.Tests)
	w.strings("summaries", s.Summaries)
	if len(s.Followups) > 0 {
		w.key("followups")
		for _, f := range s.Followups {
			w.item("text", f.Text)
			w.str("project", f.Project, true)
			w.str("quote", f.Quote, true)
			w.str("status", string(f.Status), false)
		}
		w.indent = ""
	}
	w.strings("memory_signals", s.Signals)
	w.str("journal_entry", s.Entry, true)
	return w.b, !w.other
}

// yamlWriter appends block-style YAML; indent prefixes the keys of the
// mapping being written (a list item's after its first). other is set by
// a string only yaml.v3 can place (yamlOther).
type yamlWriter struct {
	b      []byte
	indent string
	other  bool
}

func (w *yamlWriter) key(k string) {
	w.b = append(w.b, w.indent...)
	w.b = append(w.b, k...)
	w.b = append(w.b, ':', '\n')
}

func (w *yamlWriter) str(k, v string, omitEmpty bool) {
	if omitEmpty && v == "" {
		return
	}
	w.b = append(w.b, w.indent...)
	w.strAfterKey(k, v)
}

// item starts an item of a top-level list of mappings with its first
// key, the keys after it indented under it.
func (w *yamlWriter) item(k, v string) {
	w.b = append(w.b, "    - "...)
	w.indent = "      "
	w.strAfterKey(k, v)
}

// strAfterKey writes k: v where the line's indentation is already written.
func (w *yamlWriter) strAfterKey(k, v string) {
	w.b = append(w.b, k...)
	w.b = append(w.b, ':', ' ')
	w.scalar(v)
	w.b = append(w.b, '\n')
}

func (w *yamlWriter) int(k string, v int64, omitEmpty bool) {
	if omitEmpty && v == 0 {
		return
	}
	w.b = append(w.b, w.indent...)
	w.b = append(w.b, k...)
	w.b = append(w.b, ':', ' ')
	w.b = strconv.AppendInt(w.b, v, 10)
	w.b = append(w.b, '\n')
}

// time writes t as yaml.v3 does: RFC 3339 with nanoseconds, plain.
func (w *yamlWriter) time(k string, t time.Time, omitEmpty bool) {
	if omitEmpty && t.IsZero() {
		return
	}
	w.b = append(w.b, w.indent...)
	w.b = append(w.b, k...)
	w.b = append(w.b, ':', ' ')
	w.b = t.AppendFormat(w.b, time.RFC3339Nano)
	w.b = append(w.b, '\n')
}

// strings writes a top-level list of strings, omitted when empty.
func (w *yamlWriter) strings(k string, vs []string) {
	if len(vs) == 0 {
		return
	}
	w.key(k)
	w.list("    - ", vs)
}

func (w *yamlWriter) list(dash string, vs []string) {
	for _, v := range vs {
		w.b = append(w.b, dash...)
		w.scalar(v)
		w.b = append(w.b, '\n')
	}
}

// scalar appends s as yaml.v3 renders a string in block context.
func (w *yamlWriter) scalar(s string) {
	switch yamlScalar(s) {
	case yamlPlain:
		w.b = append(w.b, s...)
	case yamlSingleQuoted:
		w.b = append(w.b, '\'')
		for {
			i := strings.IndexByte(s, '\'')
			if i < 0 {
				break
			}
			w.b = append(w.b, s[:i+1]...)
			w.b = append(w.b, '\'')
			s = s[i+1:]
		}
		w.b = append(w.b, s...)
		w.b = append(w.b, '\'')
	case yamlEmpty:
		w.b = append(w.b, `""`...)
	case yamlUnsure:
		out, ok := yamlScalarSlow(s)
		w.b = append(w.b, out...)
		w.other = w.other || !ok
	default:
		w.other = true
	}
}

// yamlScalarSlow is s as yaml.v3 renders it: a root scalar takes the
// style a mapping's value does (block context, not a key). ok is false for
// a rendering over more than one line, whose indentation depends on where
// it stands.
func yamlScalarSlow(s string) (string, bool) {
	out, err := yaml.Marshal(s)
	if err != nil {
		return "", false
	}
	r := strings.TrimSuffix(string(out), "\n")
	return r, !strings.Contains(r, "\n")
}

type yamlStyle int

const (
	yamlPlain yamlStyle = iota
	yamlSingleQuoted
	yamlEmpty
	// yamlUnsure: s is one line of printable characters that might read
	// back as a number or a timestamp; yaml.v3 renders it.
	yamlUnsure
	// yamlOther: s holds a character that takes yaml.v3's double quotes
	// and escapes, or a line break (a literal block, indented by where it
	// stands); yaml.v3 renders the whole record.
	yamlOther
)

// yamlScalar is the style yaml.v3 gives s as a block mapping's value or
// list item, when it is certain.
// It follows yaml.v3's encoder (stringv: a string that would read back as
// another type is double-quoted) and its emitter
// (yaml_emitter_analyze_scalar and select_scalar_style: plain unless an
// indicator or a leading or trailing space forbids it, then single-quoted
// unless a character forbids that).
func yamlScalar(s string) yamlStyle {
	if s == "" {
		return yamlEmpty
	}
	block := len(s) >= 3 && (s[:3] == "---" || s[:3] == "...")
	switch s[0] {
	case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		block = true
	case '?', ':', '-':
		block = block || len(s) == 1 || s[1] == ' '
	}
	if s[len(s)-1] == ' ' {
		block = true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20 || c == 0x7f:
				return yamlOther // a tab, a line break, a control character
			case c == ':' && i > 0 && (i+1 == len(s) || s[i+1] == ' '):
				block = true
			case c == '#' && i > 0 && s[i-1] == ' ':
				block = true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !yamlPrintable(r) || n == 1 {
			return yamlOther
		}
		i += n
	}
	if !readsAsString(s) {
		return yamlUnsure
	}
	if block {
		return yamlSingleQuoted
	}
	return yamlPlain
}

// yamlPrintable is a non-ASCII rune yaml.v3 writes as it is (is_printable,
// and not a line break or a byte-order mark): U+00A0 to U+D7FF but the
// line and paragraph separators, and U+E000 to U+FFFD but U+FEFF. It
// escapes the rest, runes beyond U+FFFF among them.
func yamlPrintable(r rune) bool {
	switch {
	case r == 0x2028 || r == 0x2029 || r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD:
		return true
	}
	return false
}

// readsAsString reports that s, written plain, certainly reads back as a
// string (yaml.v3's resolve gives !!str, and it is not a YAML 1.1 boolean
// or base-60 float, which yaml.v3 quotes too). False when unsure: besides
// the words resolve looks up, only a string starting with a sign, a digit or a dot can read as a number or a
// timestamp, and one of those does not when it holds a character none of
// them can (any but digits, "_+-.: ", the exponent's, prefixes' and
// timestamps' letters, and hex digits when there is an x for a 0x).
func readsAsString(s string) bool {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "~", "null", "Null", "NULL", "<<",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
		"y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return false
	}
	if c := s[0]; c != '+' && c != '-' && c != '.' && (c < '0' || c > '9') {
		return true
	}
	hex := strings.ContainsAny(s, "xX")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', strings.IndexByte("_+-.: eEtTzZbBoOxX", c) >= 0:
		case hex && strings.IndexByte("acdfACDF", c) >= 0:
		default:
			return true
		}
	}
	return false
}
