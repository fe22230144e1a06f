package memory

import (
	"strings"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// IndexFile is the index's name inside memory_dir.
const IndexFile = "MEMORY.md"

// IndexLineRE is the one form of an index line (SPEC §6).
var IndexLineRE = lazyre.New(`^- \[([^\]]+)\]\(([^)]+)\) — (.{1,150})$`)

// IndexEntry is one line of MEMORY.md.
type IndexEntry struct {
	Name        string `json:"name"`
	Path        string `json:"path"` // relative to memory_dir
	Description string `json:"description"`
	Line        int    `json:"line"` // 1-based; 0 for an entry not yet written
}

// Index is a parsed MEMORY.md.
type Index struct {
	Entries []IndexEntry
	// Malformed are the 1-based numbers of list lines that are not index lines.
	Malformed []int
	// Lines counts the file's lines, but for a line of markdownlint inline
	// configuration alone (indexLint), which is for the linter.
	Lines int
}

// ParseIndex reads MEMORY.md leniently: headings, prose and blank lines are
// allowed; list items that do not match IndexLineRE are reported as
// malformed, never dropped. It never panics.
func ParseIndex(text string) Index {
	var ix Index
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return ix
	}
	lines := strings.Split(text, "\n")
	for i, raw := range lines {
		line := strings.TrimSuffix(raw, "\r")
		if !markdown.LintDirective(line) {
			ix.Lines++
		}
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") && !strings.HasPrefix(t, "+ ") {
			continue
		}
		m := IndexLineRE().FindStringSubmatch(line)
		if m == nil {
			ix.Malformed = append(ix.Malformed, i+1)
			continue
		}
		ix.Entries = append(ix.Entries, IndexEntry{Name: markdown.UnescapeText(m[1]), Path: m[2], Description: markdown.UnescapeText(m[3]), Line: i + 1})
	}
	return ix
}

// Has reports whether the index already points at path.
func (ix Index) Has(path string) bool {
	for _, e := range ix.Entries {
		if e.Path == path {
			return true
		}
	}
	return false
}

// FormatIndexLine renders an entry as an index line that always matches
// IndexLineRE: brackets leave the name, parentheses and spaces the path,
// line breaks the description, which is escaped and cut to 150 characters
// (indexDescription; an empty one becomes the name).
func FormatIndexLine(e IndexEntry) string {
	name := strings.NewReplacer("[", "(", "]", ")").Replace(oneLine(strings.ToValidUTF8(e.Name, "")))
	if name == "" {
		name = "memory"
	}
	path := strings.NewReplacer(")", "", "(", "", " ", "-").Replace(oneLine(strings.ToValidUTF8(e.Path, "")))
	if path == "" {
		path = "-"
	}
	desc := oneLine(strings.ToValidUTF8(e.Description, ""))
	if desc == "" {
		desc = name
	}
	// The name is a person's text too (a memory's first words): escaped as
	// the description is, so a "<" in it is no inline HTML.
	return "- [" + markdown.EscapeText(name) + "](" + path + ") — " + indexDescription(desc)
}

// indexDescription is a description as its index line holds it: escaped
// (markdown.EscapeText: a bare URL an autolink, a "<" escaped, so the
// index lints clean; ParseIndex undoes it) and cut, before escaping, until
// the escaped text is at most 150 characters.
func indexDescription(desc string) string {
	for n := 150; ; n-- {
		e := markdown.EscapeText(capRunes(desc, n))
		if utf8.RuneCountInString(e) <= 150 || n <= 1 {
			return e
		}
	}
}

// indexLint is MEMORY.md's first line, markdownlint's inline
// configuration: an index line is one line however long its name, path and
// description (up to 150 characters) are (SPEC §6), so MD013 (line length)
// is off. markdownlint takes the title after it as the first heading
// (MD041).
const indexLint = "<!-- markdownlint-disable-file MD013 -->"

// indexHeader starts a new MEMORY.md; indexHeaderBefore is how scribe
// started one before indexLint.
const (
	indexHeaderBefore = "# Memory\n\nOne line per promoted memory: `- [name](path) — description`.\nWritten by `git scribe compound gate`.\n\n"
	indexHeader       = indexLint + "\n" + indexHeaderBefore
)

// AddToIndex appends index lines for entries whose path is not indexed yet;
// every existing byte stays as it is. An empty text starts a new index; an
// index that still starts with the header scribe wrote before indexLint
// gets that line on top, as a new one has it.
func AddToIndex(text string, entries ...IndexEntry) string {
	ix := ParseIndex(text)
	var add []string
	for _, e := range entries {
		line := FormatIndexLine(e)
		m := IndexLineRE().FindStringSubmatch(line)
		if ix.Has(m[2]) {
			continue
		}
		ix.Entries = append(ix.Entries, IndexEntry{Name: markdown.UnescapeText(m[1]), Path: m[2], Description: markdown.UnescapeText(m[3])})
		add = append(add, line)
	}
	if len(add) == 0 {
		return text
	}
	if strings.TrimSpace(text) == "" {
		text = indexHeader
	}
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
	}
	if strings.HasPrefix(text, strings.ReplaceAll(indexHeaderBefore, "\n", eol)) {
		text = indexLint + eol + text
	}
	if !strings.HasSuffix(text, "\n") {
		text += eol
	}
	return text + strings.Join(add, eol) + eol
}
