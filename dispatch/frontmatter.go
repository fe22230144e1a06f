package dispatch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrNoFrontmatter means a note does not start with a "---" block.
var ErrNoFrontmatter = errors.New("no frontmatter")

// Frontmatter is a note's parsed YAML header.
type Frontmatter map[string]any

// SplitFrontmatter splits a note into its frontmatter block (without the
// "---" fences) and its body. A leading BOM and CRLF line ends are
// accepted; the block ends at a line "---" or "...". ok is false when the
// note does not start with a fence or the block is never closed (then body
// is the whole text).
func SplitFrontmatter(text string) (block, body string, ok bool) {
	t := strings.TrimPrefix(text, "\uFEFF")
	first, rest, found := strings.Cut(t, "\n")
	if !found || strings.TrimRight(first, "\r") != "---" {
		return "", text, false
	}
	for off := 0; off <= len(rest); {
		end := strings.IndexByte(rest[off:], '\n')
		line, next := rest[off:], len(rest)
		if end >= 0 {
			line, next = rest[off:off+end], off+end+1
		}
		if l := strings.TrimRight(line, "\r"); l == "---" || l == "..." {
			return rest[:off], rest[next:], true
		}
		if end < 0 {
			break
		}
		off = next
	}
	return "", text, false
}

// ParseFrontmatter parses a note's frontmatter; ErrNoFrontmatter when it has
// none, an error naming the YAML problem when it is malformed.
func ParseFrontmatter(text string) (Frontmatter, string, error) {
	block, body, ok := SplitFrontmatter(text)
	if !ok {
		return nil, text, ErrNoFrontmatter
	}
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		return nil, body, fmt.Errorf("malformed frontmatter: %w", err)
	}
	if fm == nil {
		fm = map[string]any{}
	}
	return fm, body, nil
}

// String returns a scalar field as text ("" when absent or not a scalar).
func (f Frontmatter) String(key string) string {
	switch v := f[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case int, int64, float64, bool:
		return fmt.Sprint(v)
	}
	return ""
}

// Int returns an integer field; ok is false when it is absent.
func (f Frontmatter) Int(key string) (int, bool, error) {
	switch v := f[key].(type) {
	case nil:
		return 0, false, nil
	case int:
		return v, true, nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, true, fmt.Errorf("%s: want a whole number, got %q", key, v)
		}
		return n, true, nil
	default:
		return 0, true, fmt.Errorf("%s: want a whole number, got %v", key, v)
	}
}

// List returns a list field as text items; a scalar is a one-item list
// (comma-separated items are split). ok is false when it is absent.
func (f Frontmatter) List(key string) ([]string, bool) {
	v, present := f[key]
	if !present {
		return nil, false
	}
	var out []string
	switch x := v.(type) {
	case nil:
	case []any:
		for _, e := range x {
			if s := strings.TrimSpace(fmt.Sprint(e)); s != "" && e != nil {
				out = append(out, s)
			}
		}
	case string:
		for _, p := range strings.Split(x, ",") {
			if s := strings.TrimSpace(p); s != "" {
				out = append(out, s)
			}
		}
	default:
		out = append(out, fmt.Sprint(x))
	}
	return out, true
}

// Bool reads yes/true/1 style booleans.
func (f Frontmatter) Bool(key string) bool {
	switch v := f[key].(type) {
	case bool:
		return v
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "yes", "true", "y", "1":
			return true
		}
	case int:
		return v != 0
	}
	return false
}

// wikiTarget turns "[[path/to/note|alias]]", "[[note]]" or a plain path
// into the path or name it points at.
func wikiTarget(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[[") && strings.HasSuffix(s, "]]") {
		s = s[2 : len(s)-2]
		if i := strings.IndexAny(s, "|#"); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

// wikiLink is the Obsidian link to a repo-relative markdown path.
func wikiLink(rel string) string { return "[[" + strings.TrimSuffix(rel, ".md") + "]]" }
