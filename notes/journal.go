package notes

import (
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/markdown"
)

// Journal defaults.
const (
	// DefaultMaxEntries is how many entries the journal keeps before Append
	// moves the oldest to the archive.
	DefaultMaxEntries = 50
	// DefaultJournalPreamble starts a journal created from nothing.
	DefaultJournalPreamble = JournalLintDirective + "\n# Journal\n\n"
	// DefaultArchivePreamble starts an archive created from nothing.
	DefaultArchivePreamble = JournalLintDirective + "\n# Journal Archive\n\n"
)

// JournalLintDirective is the first line of the journal and of its
// archive: markdownlint's inline configuration, once per file, for what the
// entry format demands. An entry's heading and each of its fields are one
// line however long (the parser and check's SCR001 read entries line by
// line), so MD013 (line length) is off; every entry may have its own
// "### Done" and "### Next", and two entries of the same second and summary
// have the same heading, so MD024 (duplicate headings) is off. markdownlint
// takes the title after a leading comment as the first heading (MD041).
// Parsers skip the line: it is part of the preamble, never of an entry.
const JournalLintDirective = "<!-- markdownlint-disable-file MD013 MD024 -->"

// Journal entry results.
const (
	ResultShipped  = "shipped"
	ResultPartial  = "partial"
	ResultReverted = "reverted"
)

// noSummary stands in for an empty summary, so that the heading still reads
// as an entry heading after an editor strips trailing space.
const noSummary = "(no summary)"

// Entry is one journal entry. Render writes it as
//
//	## <timestamp> — <summary>
//
//	- Scope: …
//	- Result: shipped|partial|reverted
//	- Notable: …
//	- Tests: …
//	- Witness: PASS (iter1)
//	- Witness: WARN (iter2) — findings in full
//	- Commits: abc1234, def5678
//	- Mode: bridge+journal+progress
//
//	### Done
//
//	- item
//
//	### Next
//
//	- (project) item
//
//	<!-- scribe:entry <id> -->
//
// Empty fields and empty subsections are left out. Every field is one line.
// The text is escaped (markdown.EscapeText, and EscapeItem for the
// subsections' bullets): a bare URL becomes an autolink, a "<" that would
// open inline HTML is escaped and a "# …" bullet is no heading, so an
// entry lints clean (MD033, MD034) whatever a person or an agent wrote;
// the parser undoes it, so the fields read back as they were given.
// Headings and lists stand between blank lines (markdownlint's MD022 and
// MD032, and CommonMark renderers that would otherwise fold a list into the
// paragraph above it). Entries written before that have no blank lines; the
// parser reads both, and they are never rewritten (principle 9).
type Entry struct {
	Time    time.Time
	Summary string
	Scope   string
	Result  string // shipped, partial or reverted
	Notable string
	Tests   string // optional
	Witness []WitnessEvent
	Commits []string // the commits the entry covers
	Modes   string   // optional "- Mode: …" line
	Done    []string // optional "### Done" bullets
	Next    []string // optional "### Next" bullets, e.g. "(project) item"
	// ID, when set, is rendered as the entry's last line, an HTML comment
	// (invisible in rendered markdown). Its uniqueness keeps entries whole
	// when parallel branches' appends meet in a merge=union merge: git's
	// merge shares identical trailing lines of the two sides, so without it
	// the first entry loses a "- Mode: …" line the second also ends with.
	ID string
	// Raw is set by ParseJournal: the entry's exact original text, from its
	// heading up to the next entry's heading (or the end of the file).
	Raw string
}

// Journal is a parsed journal or archive file.
type Journal struct {
	Preamble string // text before the first entry, e.g. DefaultJournalPreamble
	Entries  []Entry
}

// Render writes the entry in the journal format, ending with "\n".
func (e Entry) Render() string {
	var b strings.Builder
	summary := SingleLine(e.Summary)
	if summary == "" {
		summary = noSummary
	}
	b.WriteString("## " + FormatTime(e.Time) + " — " + markdown.EscapeText(summary) + "\n")
	// block starts a block (a list, a heading, the id comment) with the
	// blank line that separates it from the one before.
	block := func() { b.WriteString("\n") }
	fields := false
	field := func(key, value string) {
		if v := SingleLine(value); v != "" {
			if !fields {
				block()
				fields = true
			}
			b.WriteString("- " + key + ": " + markdown.EscapeText(v) + "\n")
		}
	}
	field("Scope", e.Scope)
	field("Result", e.Result)
	field("Notable", e.Notable)
	field("Tests", e.Tests)
	for _, w := range e.Witness {
		field("Witness", w.String())
	}
	var commits []string
	for _, c := range e.Commits {
		if c = cleanCommit(c); c != "" {
			commits = append(commits, c)
		}
	}
	field("Commits", strings.Join(commits, ", "))
	field("Mode", e.Modes)
	list := func(heading string, items []string) {
		var kept []string
		for _, it := range items {
			if s := SingleLine(it); s != "" {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			return
		}
		block()
		b.WriteString(heading + "\n")
		block()
		for _, s := range kept {
			b.WriteString("- " + markdown.EscapeItem(s) + "\n")
		}
	}
	list("### Done", e.Done)
	list("### Next", e.Next)
	if id := entryIDClean(e.ID); id != "" {
		block()
		b.WriteString(entryIDPrefix + id + entryIDSuffix + "\n")
	}
	return b.String()
}

const (
	entryIDPrefix = "<!-- scribe:entry "
	entryIDSuffix = " -->"
)

// entryIDClean keeps IDs to characters that cannot end the comment.
func entryIDClean(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return -1
	}, id)
}

// cleanCommit makes a commit id one token: no white space, commas or backticks.
func cleanCommit(c string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || r == '`' {
			return -1
		}
		return r
	}, strings.ReplaceAll(SingleLine(c), " ", ""))
}

// ParseJournal splits a journal (or archive) into its preamble and entries.
// It never fails: an entry starts at each line of the form
// "## <time> — <summary>" (a spaced em dash, en dash or hyphen separates the
// two; the first one wins) and runs to the next such line. Entry fields are
// read leniently; an unreadable time reads as the zero time. Render of the
// result gives back text byte for byte.
func ParseJournal(text string) Journal {
	var starts []int
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if end >= 0 {
			next = off + end + 1
		}
		if _, _, ok := EntryHeading(text[off:next]); ok {
			starts = append(starts, off)
		}
		off = next
	}
	if len(starts) == 0 {
		return Journal{Preamble: text}
	}
	j := Journal{Preamble: text[:starts[0]], Entries: make([]Entry, 0, len(starts))}
	for i, s := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		j.Entries = append(j.Entries, parseEntry(text[s:end]))
	}
	return j
}

// EntryHeading splits an entry heading line into its time and summary text.
func EntryHeading(line string) (when, summary string, ok bool) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	rest, ok := strings.CutPrefix(line, "## ")
	if !ok {
		return "", "", false
	}
	best, width := -1, 0
	for _, sep := range []string{" — ", " – ", " - "} {
		if i := strings.Index(rest, sep); i >= 0 && (best < 0 || i < best) {
			best, width = i, len(sep)
		}
	}
	if best < 0 {
		// "## <time> —" with the summary (and its space) missing.
		if t, ok := strings.CutSuffix(rest, " —"); ok {
			best, width = len(t), len(rest)-len(t)
		}
	}
	if best < 0 || strings.TrimSpace(rest[:best]) == "" {
		return "", "", false
	}
	return strings.TrimSpace(rest[:best]), strings.TrimSpace(rest[best+width:]), true
}

// parseEntry reads the fields of one entry's raw text.
func parseEntry(raw string) Entry {
	e := Entry{Raw: raw}
	lines := SplitLines(raw)
	if len(lines) == 0 {
		return e
	}
	when, summary, _ := EntryHeading(lines[0])
	e.Time, _ = ParseTime(when) // unreadable: zero time, never fatal
	e.Summary = markdown.UnescapeText(SingleLine(summary))
	var sub *[]string // the ### subsection being read, if any
	for _, line := range lines[1:] {
		trimmed := strings.TrimSpace(line)
		if id, ok := strings.CutPrefix(trimmed, entryIDPrefix); ok && strings.HasSuffix(id, entryIDSuffix) {
			e.ID = strings.TrimSuffix(id, entryIDSuffix)
			continue
		}
		if level, heading, ok := markdown.Heading(line); ok && level >= 3 {
			switch strings.ToLower(heading) {
			case "done":
				sub = &e.Done
			case "next":
				sub = &e.Next
			default:
				sub = nil
			}
			continue
		}
		item, ok := bulletText(trimmed)
		if !ok {
			continue
		}
		if sub != nil {
			if s := markdown.UnescapeItem(SingleLine(item)); s != "" {
				*sub = append(*sub, s)
			}
			continue
		}
		key, value, ok := strings.Cut(item, ":")
		if !ok {
			continue
		}
		value = markdown.UnescapeText(SingleLine(value))
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "scope":
			e.Scope = value
		case "result":
			e.Result = value
		case "notable":
			e.Notable = value
		case "tests":
			e.Tests = value
		case "witness":
			e.Witness = append(e.Witness, parseWitnessLine(value)...)
		case "commits", "commit":
			for _, c := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' }) {
				if c = strings.Trim(c, "`"); c != "" {
					e.Commits = append(e.Commits, c)
				}
			}
		case "mode", "modes":
			e.Modes = value
		}
	}
	return e
}

// Render writes the journal back: the preamble, then each entry's Raw text,
// or its Render when Raw is empty. For a parsed journal it is byte-exact.
func (j Journal) Render() string {
	var b strings.Builder
	b.WriteString(j.Preamble)
	for _, e := range j.Entries {
		if e.Raw != "" {
			b.WriteString(e.Raw)
		} else {
			b.WriteString(e.Render())
		}
	}
	return b.String()
}

// Append adds e to the end of journal and, when the journal then holds more
// than maxEntries entries (<= 0 means DefaultMaxEntries), moves the oldest
// to the end of archive so that maxEntries remain. It returns the new journal and
// archive texts.
//
// Append is append-only: it never changes a byte of an existing entry. The
// one thing it adds before the new entry is line terminators: a final
// newline when the file lacks one, then a blank line separating entries.
// Those terminators become the tail of the previous entry's raw text. The new
// entry uses the file's line ending (CRLF when the file's first line ends in
// CRLF). An empty (or all white space) journal starts with
// DefaultJournalPreamble, an empty archive with DefaultArchivePreamble; a
// journal (or an archive Append writes to) from before JournalLintDirective
// gets that line on top, in its preamble, so no entry moves or changes.
// Moved entries are appended to the archive byte for byte, oldest first
// (the last without the blank line Append had put after it).
// Callers check HasCommit first: Append itself does not deduplicate.
func Append(journal, archive string, e Entry, maxEntries int) (newJournal, newArchive string) {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	eol := DetectEOL(journal)
	if strings.TrimSpace(journal) == "" {
		journal = strings.ReplaceAll(DefaultJournalPreamble, "\n", eol)
	}
	journal = withLintDirective(journal, eol)
	journal = WithBlankLineEnd(journal, eol) + strings.ReplaceAll(e.Render(), "\n", eol)
	j := ParseJournal(journal)
	if len(j.Entries) <= maxEntries {
		return journal, archive
	}
	moved := j.Entries[:len(j.Entries)-maxEntries]
	j.Entries = j.Entries[len(j.Entries)-maxEntries:]

	aeol := eol
	if strings.Contains(archive, "\n") {
		aeol = DetectEOL(archive)
	}
	if strings.TrimSpace(archive) == "" {
		archive = strings.ReplaceAll(DefaultArchivePreamble, "\n", aeol)
	}
	archive = withLintDirective(archive, aeol)
	var b strings.Builder
	b.WriteString(WithBlankLineEnd(archive, aeol))
	for i, m := range moved {
		raw := m.Raw
		if i == len(moved)-1 {
			// The blank line that separated it from the next entry is
			// Append's terminator, not the entry's: the archive ends with
			// one newline, as a markdown file should (MD012, MD047).
			raw = trimBlankLinesEnd(raw)
		}
		b.WriteString(raw)
	}
	return j.Render(), b.String()
}

// hasLintDirective reports whether a journal's (or archive's) preamble
// holds JournalLintDirective.
func hasLintDirective(text string) bool {
	for off := 0; off < len(text); {
		next := len(text)
		if i := strings.IndexByte(text[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		line := text[off:next]
		if _, _, ok := EntryHeading(line); ok {
			return false
		}
		if strings.TrimSpace(strings.TrimPrefix(line, "\uFEFF")) == JournalLintDirective {
			return true
		}
		off = next
	}
	return false
}

// withLintDirective returns a journal (or archive) with JournalLintDirective
// in its preamble: unchanged when it has it, else with the line put first
// (after a byte order mark), ending in eol. No entry's bytes change.
func withLintDirective(text, eol string) string {
	if hasLintDirective(text) {
		return text
	}
	rest, bom := strings.CutPrefix(text, "\uFEFF")
	if bom {
		return "\uFEFF" + JournalLintDirective + eol + rest
	}
	return JournalLintDirective + eol + text
}

// trimBlankLinesEnd removes the blank lines ending s, keeping the line
// terminator of its last non-blank line.
func trimBlankLinesEnd(s string) string {
	for {
		body, ok := strings.CutSuffix(s, "\n")
		if !ok {
			return s
		}
		body = strings.TrimSuffix(body, "\r")
		i := strings.LastIndexByte(body, '\n')
		if i < 0 || strings.TrimSpace(body[i+1:]) != "" {
			return s
		}
		s = body[:i+1]
	}
}

// HasCommit reports whether an entry of j names the commit sha. Ids match
// when one is a prefix of the other and both have at least 7 characters, so
// an entry naming "abc1234" matches the full id and the other way round. It
// is how scribe knows a commit is already journaled (check the archive too).
func HasCommit(j Journal, sha string) bool {
	sha = strings.ToLower(strings.TrimSpace(sha))
	if len(sha) < 7 {
		return false
	}
	for _, e := range j.Entries {
		for _, c := range e.Commits {
			c = strings.ToLower(c)
			if len(c) >= 7 && (strings.HasPrefix(c, sha) || strings.HasPrefix(sha, c)) {
				return true
			}
		}
	}
	return false
}
