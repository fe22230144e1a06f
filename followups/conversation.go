package followups

import (
	"github.com/git-scribe/git-scribe/transcript"
)

// Extraction is a transcript's follow-ups, checked against the durable
// sources.
type Extraction struct {
	Transcript string            `json:"transcript"`
	Format     transcript.Format `json:"format"`
	Stats      transcript.Stats  `json:"stats"`
	// Found is every follow-up the keywords caught; the durable ones carry
	// where they are persisted.
	Found []Candidate `json:"found"`
	// Orphans are the follow-ups no durable source holds.
	Orphans []Candidate `json:"orphans"`
	// Sources are the durable sources the check read (for routing).
	Sources []SourceFile `json:"-"`
}
