package secrets

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
)

// wordSets are the sets the detector asks: the rules' keywords and each
// allowlist's stopwords.
func wordSets() [][]string {
	b := newBook(defaultRules, defaultAllowlists)
	sets := [][]string{b.keywords.words}
	for _, r := range defaultRules {
		for _, a := range r.allowlists {
			if len(a.stopWords) > 0 {
				sets = append(sets, a.stopWords)
			}
		}
	}
	for _, a := range defaultAllowlists {
		if len(a.stopWords) > 0 {
			sets = append(sets, a.stopWords)
		}
	}
	return sets
}

// sameWords fails t unless the word set and gitleaks' trie over words find
// the same words in s.
func sameWords(t *testing.T, words []string, w *wordSet, trie *ahocorasick.Trie, s string) {
	t.Helper()
	var want []string
	for _, m := range trie.MatchString(s) {
		want = append(want, m.MatchString())
	}
	var got []string
	w.each(s, func(k int) bool { got = append(got, words[k]); return true })
	slices.Sort(want)
	slices.Sort(got)
	if want, got = slices.Compact(want), slices.Compact(got); !slices.Equal(got, want) {
		t.Errorf("%q:\n word set %q\n trie     %q", s[:min(len(s), 200)], got, want)
	}
	if w.any(s) != (trie.MatchFirstString(s) != nil) {
		t.Errorf("%q: any = %v, the trie's first match %v", s[:min(len(s), 200)], w.any(s), trie.MatchFirstString(s))
	}
}

// TestWordSetFindsWhatTheTrieFinds holds the word set to gitleaks' own
// Aho-Corasick tries, on the keywords and stopwords of the rules: over the
// corpus, the tests' texts, and texts made of pieces of the words
// themselves (overlapping words, words inside words, one-byte texts).
func TestWordSetFindsWhatTheTrieFinds(t *testing.T) {
	t.Parallel()
	texts := append(gitleaksTruePositives(t), testTexts()...)
	rng := rand.New(rand.NewPCG(1, 15))
	// The empty word, words of one byte, and words inside and overlapping
	// others, which no rule has today.
	small := []string{"", "a", "ab", "b", "abc", "bc", "c", "cab", "x"}
	for _, words := range append(wordSets(), small) {
		w := newWordSet(words)
		trie := ahocorasick.NewTrieBuilder().AddStrings(words).Build()
		for _, s := range texts {
			sameWords(t, words, w, trie, strings.ToLower(s))
		}
		for range 2000 {
			var b strings.Builder
			for range rng.IntN(8) {
				word := words[rng.IntN(len(words))]
				if word == "" {
					continue
				}
				lo := rng.IntN(len(word))
				hi := lo + rng.IntN(len(word)-lo+1)
				if rng.IntN(2) == 0 {
					lo, hi = 0, len(word)
				}
				b.WriteString(word[lo:hi])
				if rng.IntN(4) == 0 {
					b.WriteByte(byte(rng.IntN(128)))
				}
			}
			sameWords(t, words, w, trie, b.String())
		}
		for c := range 256 {
			sameWords(t, words, w, trie, string([]byte{byte(c)}))
		}
	}
}

// FuzzWordSetMatchesTrie compares the keyword set with gitleaks' trie on
// any text.
func FuzzWordSetMatchesTrie(f *testing.F) {
	for _, s := range testTexts() {
		f.Add(s)
	}
	words := wordSets()[0]
	w := newWordSet(words)
	trie := ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	f.Fuzz(func(t *testing.T, s string) {
		sameWords(t, words, w, trie, strings.ToLower(s))
	})
}
