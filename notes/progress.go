package notes

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// ProgressFile is the file name error messages use for progress.md.
const ProgressFile = "progress.md"

// Item is one checkbox of progress.md.
type Item struct {
	Line    int    // 0-based line index in the file
	Text    string // item text without its trailing "(done …)" annotation
	Done    bool
	Heading string // text of the nearest heading above the item, "" if none
	Indent  string // the white space before the list marker
}

var (
	checkboxLine   = lazyre.New(`^([ \t]*)([-*+])([ \t]+)\[([ xX])\]([ \t]+)(.*)$`)
	DoneAnnotation = lazyre.New(`(?i)\s*\(done\b[^()]*\)\s*$`)
)

// checkbox is a checkbox line split into the parts Tick rebuilds.
type checkbox struct {
	indent, marker, gap string // before "["
	mark                string // " ", "x" or "X"
	space               string // between "]" and the text
	text                string // without the "(done …)" annotation
}

// parseCheckbox reads a checkbox line (without its "\r").
func parseCheckbox(line string) (checkbox, bool) {
	m := checkboxLine().FindStringSubmatch(line)
	if m == nil {
		return checkbox{}, false
	}
	text := strings.TrimSpace(DoneAnnotation().ReplaceAllString(m[6], ""))
	if text == "" {
		return checkbox{}, false
	}
	return checkbox{indent: m[1], marker: m[2], gap: m[3], mark: m[4], space: m[5], text: text}, true
}

// ParseProgress lists the checkboxes of progress.md: lines "- [ ] X",
// "* [ ] X", "+ [ ] X", "- [x] X" or "- [X] X" at any indent, outside fenced
// code blocks, in file order. Lines may end in CRLF.
func ParseProgress(text string) []Item {
	var items []Item
	var fences markdown.Fences
	heading := ""
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimLeft(line, " \t")
		if fences.Skip(trimmed) {
			continue
		}
		if _, h, ok := markdown.Heading(line); ok {
			heading = h
			continue
		}
		if cb, ok := parseCheckbox(line); ok {
			items = append(items, Item{
				Line:    i,
				Text:    cb.text,
				Done:    cb.mark != " ",
				Heading: heading,
				Indent:  cb.indent,
			})
		}
	}
	return items
}

// openingFence returns the fence (``` or ~~~, three or more) a line opens.

// AmbiguousError is returned by Match when a query matches several items.
type AmbiguousError struct {
	Query      string
	Candidates []string // the matching items' texts, in file order
	Lines      []int    // their 0-based line indexes
}

func (e *AmbiguousError) Error() string {
	if allSame(e.Candidates) {
		lines := make([]string, len(e.Lines))
		for i, l := range e.Lines {
			lines[i] = fmt.Sprint(l + 1)
		}
		return fmt.Sprintf("%s has %d identical items %q (lines %s); make their texts distinct, then name one",
			ProgressFile, len(e.Candidates), e.Candidates[0], strings.Join(lines, ", "))
	}
	return fmt.Sprintf("%s has %d items matching %q: %s; name one exactly",
		ProgressFile, len(e.Candidates), e.Query, quoteList(e.Candidates, 0))
}

// NotFoundError is returned by Match when no item matches a query.
type NotFoundError struct {
	Query string
	Open  []string // texts of the open items, in file order
}

func (e *NotFoundError) Error() string {
	what := fmt.Sprintf("no item matching %q", e.Query)
	if strings.TrimSpace(e.Query) == "" {
		what = "no item named (the name is empty)"
	}
	if len(e.Open) == 0 {
		return fmt.Sprintf("%s has %s and no open items; add the item to %s first", ProgressFile, what, ProgressFile)
	}
	return fmt.Sprintf("%s has %s; open items: %s; name one of them", ProgressFile, what, quoteList(e.Open, 10))
}

// quoteList quotes items, comma-joined; limit > 0 shows at most that many.
func quoteList(items []string, limit int) string {
	shown := items
	if limit > 0 && len(items) > limit {
		shown = items[:limit]
	}
	q := make([]string, len(shown))
	for i, s := range shown {
		q[i] = fmt.Sprintf("%q", s)
	}
	out := strings.Join(q, ", ")
	if len(shown) < len(items) {
		out += fmt.Sprintf(" and %d more", len(items)-len(shown))
	}
	return out
}

func allSame(list []string) bool {
	for _, s := range list {
		if s != list[0] {
			return false
		}
	}
	return len(list) > 1
}

// Match resolves a query to one item, open or done. It tries in turn: exact
// text, then case-insensitive equality, then the items that contain the query
// case-insensitively as a prefix or anywhere else (runs of white space count
// as one space in the case-insensitive steps). The first step with any match
// decides: one match is returned, several give an *AmbiguousError. A unique
// prefix does not win over other items containing the query ("parser" is
// ambiguous between "parser docs" and "Phase 1 parser"): ticking the wrong
// box is worse than asking. No match at all gives a *NotFoundError listing
// the open items.
func Match(items []Item, query string) (Item, error) {
	q := strings.TrimSpace(query)
	notFound := func() error {
		nf := &NotFoundError{Query: query}
		for _, it := range items {
			if !it.Done {
				nf.Open = append(nf.Open, it.Text)
			}
		}
		return nf
	}
	if q == "" {
		return Item{}, notFound()
	}
	fold := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	fq := fold(q)
	steps := []func(Item) bool{
		func(it Item) bool { return it.Text == q },
		func(it Item) bool { return fold(it.Text) == fq },
		func(it Item) bool { return strings.Contains(fold(it.Text), fq) },
	}
	for _, match := range steps {
		var found []Item
		for _, it := range items {
			if match(it) {
				found = append(found, it)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		amb := &AmbiguousError{Query: query}
		for _, it := range found {
			amb.Candidates = append(amb.Candidates, it.Text)
			amb.Lines = append(amb.Lines, it.Line)
		}
		return Item{}, amb
	}
	return Item{}, notFound()
}

// Tick checks the box of it and stamps the time:
// "- [ ] ITEM" becomes "- [x] ITEM (done <timestamp>)" on line it.Line. No
// other byte of text changes (a CRLF line keeps its "\r"); on the ticked
// line, white space after the item text and a stale "(done …)" annotation
// are replaced by the new annotation. An item already done, or an it that no
// longer describes that line (text edited since ParseProgress), leaves text
// unchanged and reports changed=false.
func Tick(text string, it Item, at time.Time) (out string, changed bool) {
	if it.Done || it.Line < 0 {
		return text, false
	}
	start := 0
	for n := 0; n < it.Line; n++ {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return text, false
		}
		start += i + 1
	}
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	line := text[start:end]
	cr := ""
	if strings.HasSuffix(line, "\r") {
		line, cr = line[:len(line)-1], "\r"
	}
	cb, ok := parseCheckbox(line)
	if !ok || cb.mark != " " || cb.text != it.Text || !isItemLine(text, it.Line) {
		return text, false
	}
	ticked := cb.indent + cb.marker + cb.gap + "[x]" + cb.space + cb.text + " (done " + FormatTime(at) + ")" + cr
	return text[:start] + ticked + text[end:], true
}

// isItemLine reports whether ParseProgress lists a checkbox at line, i.e.
// the line is not inside a fenced code block.
func isItemLine(text string, line int) bool {
	for _, it := range ParseProgress(text) {
		if it.Line == line {
			return true
		}
	}
	return false
}
