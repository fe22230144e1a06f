package followups

import (
	"github.com/git-scribe/git-scribe/internal/similarity"
	"unicode"
)

// DefaultSimilarity is the follow-up similarity at or above which two items
// are the same follow-up.
const DefaultSimilarity = 0.85

// Similarity is how alike two follow-ups read, from 0 (nothing in common) to
// 1 (the same after normalisation):
//
//	1 − Levenshtein(a′, b′) / max(|a′|, |b′|)
//
// where a′ and b′ are the normalised texts (see NormalizeFollowup) and
// lengths and edits count runes. It is the ratio people mean by "85%
// similar" (difflib's and fuzzywuzzy's ratio are close relatives).
//
// Why this measure: follow-ups are short imperative lines, and the
// duplicates that matter are copies of one line with small edits — a
// project tag, case, punctuation, a checkbox, a typo, a word added or
// dropped ("migrate the cache" / "Migrate the cache layer" is 0.74, kept
// apart; "migrate the cache layer" / "migrate the cache-layer." is 1.0).
// A word-set measure is too coarse on five-word lines (one word of five
// differing is 0.67 Jaccard), and one over character shingles is blind to
// order. An edit ratio also bounds the distance for a given threshold,
// which is what lets similarity.Index find every pair at or above it without
// comparing all pairs. Runes, not bytes, so Korean is measured per
// syllable.
//
// Similar is not yet the same: "Add pagination to /users endpoint" and
// "… /posts endpoint" are 0.88. Two follow-ups are one (Duplicates) only
// when they also name the same things (SameIdentifiers), a veto applied to
// the pairs the index finds.
func Similarity(a, b string) float64 {
	return similarity.Ratio(NormalizeFollowup(a), NormalizeFollowup(b))
}

// NormalizeFollowup is the form follow-ups are compared in: a leading
// "(project)" tag, checkbox, bullet and trailing "(done …)" annotation
// removed, lower case, every run of characters other than letters and
// digits (any script) collapsed to one space.
func NormalizeFollowup(s string) []rune {
	s = followupBody(s)
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && len(out) > 0 {
				out = append(out, ' ')
			}
			space = false
			out = append(out, unicode.ToLower(r))
			continue
		}
		space = true
	}
	return out
}
