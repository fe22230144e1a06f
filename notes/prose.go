package notes

import (
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

var (
	// findingLine is a bridge note line that talks about the witness or
	// carries a verdict with detail: findings, which belong in the journal.
	findingLine = lazyre.New(`(?i)^(?:[-*+]\s+)?(?:\*\*)?(?:witness\b|(?:PASS|WARN|BLOCK)\b\W*\S)`)
	witnessOnly = lazyre.New(`^Witness: (PASS|WARN|BLOCK)$`)
)

// AcceptBridgeProse checks an agent's bridge note against the deterministic
// draft and returns the note to write, or why it is rejected. Witness
// isolation is enforced here, on the agent's output: a note that talks
// about the witness, carries a verdict with detail, repeats a witness
// finding or changes the verdict is rejected whole. What is kept from the
// agent is the sections' bullets; the title, time, urgent line, witness
// marker, commit and cites stay the draft's.
func AcceptBridgeProse(text string, draft BridgeNote, findings []string) (BridgeNote, string) {
	note, err := ParseBridgeNote(text)
	if err != nil {
		return draft, "the reply is not a bridge note"
	}
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if witnessOnly().MatchString(line) {
			if m := witnessOnly().FindStringSubmatch(line); m[1] != CanonicalVerdict(draft.Witness) {
				return draft, "it changes the witness verdict"
			}
			continue
		}
		if findingLine().MatchString(line) {
			return draft, fmt.Sprintf("it carries witness findings (%q); findings belong in the journal only", Truncate(line, 80))
		}
	}
	// Findings are plain text; the note is markdown, where a URL may be an
	// autolink and a "<" escaped (markdown.EscapeText).
	lower, plain := strings.ToLower(text), strings.ToLower(markdown.UnescapeText(text))
	for _, f := range findings {
		if f = strings.ToLower(f); strings.Contains(lower, f) || strings.Contains(plain, f) {
			return draft, "it repeats a witness finding; findings belong in the journal only"
		}
	}
	if w := CanonicalVerdict(note.Witness); w != "" && w != CanonicalVerdict(draft.Witness) {
		return draft, "it changes the witness verdict"
	}
	if len(note.Context)+len(note.CarryForward) == 0 && len(draft.Context)+len(draft.CarryForward) > 0 {
		return draft, "it drops every context and carry-forward item"
	}
	out := draft
	out.Context, out.CarryForward, out.OpenQuestions = note.Context, note.CarryForward, note.OpenQuestions
	if len(note.Traps) > 0 || len(draft.Traps) == 0 {
		out.Traps = note.Traps
	}
	return out, ""
}
