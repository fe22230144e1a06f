package check

import (
	"context"
	"fmt"

	"github.com/git-scribe/git-scribe/notes"
)

// journalSize is SCR002: the journal holds at most journal_max entries
// (default 50); older ones belong in the archive.
type journalSize struct{ meta }

func newJournalSize() Rule {
	return journalSize{meta{
		id: "SCR002", name: "journal-size", severity: SeverityError,
		describe: "the journal holds at most journal_max entries (default 50); older entries are moved verbatim to the archive",
	}}
}

func (journalSize) reads() inputs { return readsVault }

func (journalSize) Check(ctx context.Context, in *Input) ([]Finding, error) {
	path, data, ok, err := in.Record(ctx, notes.VaultJournal, in.Config.Paths.Journal)
	if err != nil || !ok {
		return nil, err
	}
	limit := in.Config.JournalMax
	if limit <= 0 {
		limit = notes.DefaultMaxEntries
	}
	text := string(data)
	entries := parseEntries(text)
	if len(entries) <= limit {
		return nil, nil
	}
	extra := len(entries) - limit
	return []Finding{{
		File: path, Line: lineAt(text, entries[0].offset),
		Message: fmt.Sprintf("the journal holds %d entries, more than journal_max (%d)", len(entries), limit),
		Fix: fmt.Sprintf("move the oldest %d entries, byte for byte, to the end of %s (the next git scribe wrap archives them)",
			extra, in.Config.Paths.JournalArchive),
	}}, nil
}
