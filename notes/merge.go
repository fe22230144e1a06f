package notes

import (
	"sort"
	"strings"
)

// MergeJournal merges two branches' versions of an append-only journal (or
// archive) entry by entry: ours is kept byte for byte, less the entries
// theirs archived since base, and the entries theirs added since base are
// appended in their order; when theirs has JournalLintDirective, so has
// the result. Entries are identified by
// their id line, else by their text. Git's own union merge works line by
// line and interleaves two entries that share lines (every "- Result:
// shipped"); this never does.
func MergeJournal(base, ours, theirs string) string {
	key := func(e Entry) string {
		if e.ID != "" {
			return "id:" + e.ID
		}
		return "raw:" + strings.TrimSpace(e.Raw)
	}
	seen := map[string]bool{}
	for _, text := range []string{base, ours} {
		for _, e := range ParseJournal(text).Entries {
			seen[key(e)] = true
		}
	}
	// An entry theirs dropped since base was archived there (the journal is
	// otherwise append-only): drop it here too, or it would stand in both
	// the journal and, after the archive's merge, the archive.
	inTheirs := map[string]bool{}
	for _, e := range ParseJournal(theirs).Entries {
		inTheirs[key(e)] = true
	}
	archived := map[string]bool{}
	for _, e := range ParseJournal(base).Entries {
		if !inTheirs[key(e)] {
			archived[key(e)] = true
		}
	}
	out := ours
	if len(archived) > 0 {
		j := ParseJournal(ours)
		kept := j.Entries[:0]
		for _, e := range j.Entries {
			if !archived[key(e)] {
				kept = append(kept, e)
			}
		}
		j.Entries = kept
		out = j.Render()
	}
	if strings.TrimSpace(out) == "" {
		out = ParseJournal(theirs).Preamble
	} else if hasLintDirective(theirs) {
		// Theirs was written since JournalLintDirective and ours before:
		// the merge is the newer format.
		out = withLintDirective(out, DetectEOL(out))
	}
	for _, e := range ParseJournal(theirs).Entries {
		if seen[key(e)] {
			continue
		}
		seen[key(e)] = true
		raw := e.Raw
		if raw == "" {
			raw = e.Render()
		}
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" && !strings.HasSuffix(out, "\n\n") && !strings.HasSuffix(out, "\n\n\n") {
			out += "\n"
		}
		out += raw
	}
	return out
}

// MergeJournalInTime is MergeJournal with the merged entries in time order
// (SPEC section 4: a sync unions two vaults' journals "in time order"), each
// entry's text kept byte for byte and entries of the same time in the order
// MergeJournal gives (ours first). Each entry keeps the blank line that
// separates it from the next.
func MergeJournalInTime(base, ours, theirs string) string {
	j := ParseJournal(MergeJournal(base, ours, theirs))
	if len(j.Entries) < 2 {
		return j.Render()
	}
	sort.SliceStable(j.Entries, func(a, b int) bool { return j.Entries[a].Time.Before(j.Entries[b].Time) })
	for i := range j.Entries {
		raw := j.Entries[i].Raw
		if raw == "" {
			raw = j.Entries[i].Render()
		}
		raw = strings.TrimRight(raw, "\n") + "\n"
		if i < len(j.Entries)-1 {
			raw += "\n"
		}
		j.Entries[i].Raw = raw
	}
	return j.Render()
}
