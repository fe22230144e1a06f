package memory

import (
	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// Overlap is how much a candidate overlaps another memory, on five
// dimensions, each between 0 and 1:
//
//   - Lexical: Jaccard similarity of the content-word sets (English stop
//     words dropped, Korean particles stripped): the same vocabulary.
//   - Shape: cosine similarity of the character-trigram profiles of the
//     normalized content: language-agnostic, so it catches Korean inflection,
//     typos and word order the word sets miss.
//   - Title: Jaccard similarity of the name-word sets: the same subject line.
//   - Kind: 1 for the same memory type (and, for preferences, the same
//     scope), 0.5 for related types (correction↔preference, tacit↔pattern),
//     0 otherwise.
//   - Polarity: 1 when both are instructions of the same polarity (both "do /
//     always" or both "don't / never"), 0.5 when neither is an instruction,
//     0 when the polarities differ. It keeps a reversal ("never use tabs"
//     after "always use tabs") from being merged away as a duplicate.
//
// Score = 0.30·Lexical + 0.30·Shape + 0.15·Title + 0.10·Kind + 0.15·Polarity.
// Band: High ≥ 0.70, Moderate ≥ 0.40, Low below; "unknown" when the existing
// memory could not be read. A score ≥ DuplicateScore is a duplicate.
type Overlap struct {
	Lexical  float64 `json:"lexical"`
	Shape    float64 `json:"shape"`
	Title    float64 `json:"title"`
	Kind     float64 `json:"kind"`
	Polarity float64 `json:"polarity"`
}

// Weights of the five dimensions; they sum to 1.
const (
	weightLexical  = 0.30
	weightShape    = 0.30
	weightTitle    = 0.15
	weightKind     = 0.10
	weightPolarity = 0.15
)

// Thresholds of the overlap score.
const (
	// DuplicateScore and above: the same memory (dropped, or merged in a batch).
	DuplicateScore = 0.85
	highScore      = 0.70
	moderateScore  = 0.40
)

// Score is the weighted sum of the five dimensions.
func (o Overlap) Score() float64 {
	return weightLexical*o.Lexical + weightShape*o.Shape + weightTitle*o.Title + weightKind*o.Kind + weightPolarity*o.Polarity
}

// Band names the score's band.
func Band(score float64) string {
	switch {
	case score >= highScore:
		return BandHigh
	case score >= moderateScore:
		return BandModerate
	}
	return BandLow
}

// Comparable is what the overlap score reads of a memory or candidate.
type Comparable struct {
	Name, Content, Type, Scope string
}

// comparable is what the overlap score reads of a candidate: a recurring
// topic is compared by its topic, not by the sentence around it.
func (c Candidate) comparable() Comparable {
	content := c.Content
	if c.Type == TypePattern && c.Topic != "" {
		content = c.Topic
	}
	return Comparable{Name: c.Name, Content: content, Type: c.Type, Scope: c.Scope}
}

// Compare computes the five dimensions for a and b.
func Compare(a, b Comparable) Overlap {
	return Overlap{
		Lexical:  jaccard(wordSet(a.Content), wordSet(b.Content)),
		Shape:    cosine(trigrams(a.Content), trigrams(b.Content)),
		Title:    jaccard(wordSet(a.Name), wordSet(b.Name)),
		Kind:     kindSimilarity(a, b),
		Polarity: polaritySimilarity(polarity(a.Content), polarity(b.Content)),
	}
}

func kindSimilarity(a, b Comparable) float64 {
	if a.Type == b.Type {
		if a.Type == TypePreference && a.Scope != b.Scope {
			return 0.5
		}
		return 1
	}
	related := map[[2]string]bool{
		{TypeCorrection, TypePreference}: true, {TypePreference, TypeCorrection}: true,
		{TypeTacit, TypePattern}: true, {TypePattern, TypeTacit}: true,
	}
	if related[[2]string{a.Type, b.Type}] {
		return 0.5
	}
	return 0
}

var (
	negativeDirective = lazyre.New(`(?i)\b(never|don't|do not|dont|avoid|stop|no longer|must not|mustn't|shouldn't|should not)\b|하지\s*마|하지\s*말|금지|절대|않도록|쓰지\s*마|말\s*것`)
	positiveDirective = lazyre.New(`(?i)\b(always|must|should|prefer|use|make sure|remember to|be sure to)\b|항상|반드시|무조건|꼭|사용해|써\s*줘|하세요|할\s*것`)
)

// polarity is -1 for a prohibition, +1 for a prescription, 0 otherwise.
func polarity(s string) int {
	switch {
	case negativeDirective().MatchString(s):
		return -1
	case positiveDirective().MatchString(s):
		return 1
	}
	return 0
}

func polaritySimilarity(a, b int) float64 {
	switch {
	case a == 0 && b == 0:
		return 0.5
	case a == b:
		return 1
	}
	return 0
}
