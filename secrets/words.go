package secrets

import "strings"

// wordSet finds which of a set of words occur in a text, as the
// Aho-Corasick tries gitleaks asks do (its keyword prefilter, an
// allowlist's stopwords). Those tries hold a 2 KB table a state: building
// one for the rules' ~250 keywords cost ~3 ms, a process's fixed cost before
// its first redaction, and for generic-api-key's ~1,450 stopwords more. An
// index of the words by their first two bytes is built in microseconds and
// finds the same words (TestWordSetFindsWhatTheTrieFinds).
type wordSet struct {
	words []string
	// pairs has a bit set for the first two bytes of each word of two
	// bytes or more; byPair lists those words by them.
	pairs  [1 << 16 / 64]uint64
	byPair map[uint16][]int
	// single lists the words of one byte, by it.
	single map[byte][]int
}

// newWordSet indexes words. An empty word is never found (nor is it by
// gitleaks' tries).
func newWordSet(words []string) *wordSet {
	w := &wordSet{words: words, byPair: map[uint16][]int{}}
	for i, word := range words {
		switch len(word) {
		case 0:
		case 1:
			if w.single == nil {
				w.single = map[byte][]int{}
			}
			w.single[word[0]] = append(w.single[word[0]], i)
		default:
			p := pair(word, 0)
			w.pairs[p/64] |= 1 << (p % 64)
			w.byPair[p] = append(w.byPair[p], i)
		}
	}
	return w
}

func pair(s string, i int) uint16 { return uint16(s[i])<<8 | uint16(s[i+1]) }

// each calls found with the position in words of each word that occurs in
// s, once or more; it stops when found returns false.
func (w *wordSet) each(s string, found func(word int) bool) {
	for i := 0; i < len(s); i++ {
		if w.single != nil {
			for _, k := range w.single[s[i]] {
				if !found(k) {
					return
				}
			}
		}
		if i+1 == len(s) {
			break
		}
		if p := pair(s, i); w.pairs[p/64]&(1<<(p%64)) != 0 {
			for _, k := range w.byPair[p] {
				if strings.HasPrefix(s[i:], w.words[k]) && !found(k) {
					return
				}
			}
		}
	}
}

// any reports whether some word occurs in s.
func (w *wordSet) any(s string) bool {
	hit := false
	w.each(s, func(int) bool { hit = true; return false })
	return hit
}
