package check

import (
	"strings"

	"github.com/git-scribe/git-scribe/notes"
)

// jentry is one journal entry as the append-only rules compare it.
type jentry struct {
	// key is the entry's raw text without trailing white space: appending
	// after an entry adds a blank line to its raw text, which is not an edit.
	key string
	raw string
	// offset is where the entry starts in the text it was parsed from.
	offset int
}

// entryKey normalises an entry's raw text for comparison.
func entryKey(raw string) string { return strings.TrimRight(raw, " \t\r\n") }

// parseEntries splits text into entries with their byte offsets.
func parseEntries(text string) []jentry {
	j := notes.ParseJournal(text)
	out := make([]jentry, len(j.Entries))
	off := len(j.Preamble)
	for i, e := range j.Entries {
		out[i] = jentry{key: entryKey(e.Raw), raw: e.Raw, offset: off}
		off += len(e.Raw)
	}
	return out
}

// isEntryHeading reports whether line (without its "\n") starts a journal
// entry, exactly as notes.ParseJournal decides it.
func isEntryHeading(line string) bool {
	if !strings.HasPrefix(line, "## ") {
		return false
	}
	j := notes.ParseJournal(line)
	return len(j.Entries) == 1 && j.Preamble == ""
}

// entryStamp is the timestamp text of an entry's heading line
// ("## <stamp> — <summary>"); entries that were edited keep it.
func entryStamp(raw string) string {
	line, _, _ := strings.Cut(raw, "\n")
	line = strings.TrimSuffix(strings.TrimPrefix(line, "## "), "\r")
	best := len(line)
	for _, sep := range []string{" — ", " – ", " - "} {
		if i := strings.Index(line, sep); i >= 0 && i < best {
			best = i
		}
	}
	return strings.TrimSpace(line[:best])
}

// entryTitle is an entry's heading line for messages.
func entryTitle(raw string) string {
	line, _, _ := strings.Cut(raw, "\n")
	return shorten(strings.TrimSuffix(line, "\r"), 120)
}

// headingBefore returns the start of the last entry heading line that
// begins strictly before pos, or 0 when there is none.
func headingBefore(text string, pos int) int {
	end := pos
	for end > 0 {
		i := strings.LastIndex(text[:end], "\n## ")
		start := i + 1
		if i < 0 {
			if strings.HasPrefix(text, "## ") && end > 0 {
				start = 0
			} else {
				return 0
			}
		}
		if start >= pos {
			end = i
			continue
		}
		lineEnd := strings.IndexByte(text[start:], '\n')
		line := text[start:]
		if lineEnd >= 0 {
			line = text[start : start+lineEnd]
		}
		if isEntryHeading(line) {
			return start
		}
		if start == 0 {
			return 0
		}
		end = i
	}
	return 0
}

// commonPrefix returns the length of the common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	if a[:n] == b[:n] { // one is a prefix of the other; O(1) for shared memory
		return n
	}
	const chunk = 256
	i := 0
	for i+chunk <= n && a[i:i+chunk] == b[i:i+chunk] {
		i += chunk
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// unchangedCut returns an offset before which old and new hold the same
// entries byte for byte: the start of the last entry heading that lies
// wholly inside their common prefix (0 when there is none).
func unchangedCut(oldText, newText string) int {
	p := commonPrefix(oldText, newText)
	if p == len(oldText) && p == len(newText) {
		return p
	}
	// The line holding the first difference may differ in both; a heading
	// line that ends before it is identical in both texts.
	lineStart := strings.LastIndexByte(oldText[:p], '\n') + 1
	return headingBefore(oldText, lineStart)
}

// lineAt returns the 1-based line number of byte offset off in text.
func lineAt(text string, off int) int {
	return strings.Count(text[:off], "\n") + 1
}
