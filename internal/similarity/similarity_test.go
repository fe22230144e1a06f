package similarity

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func naiveLevenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j-1]+c, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

func randomText(r *rand.Rand, alphabet []rune, maxLen int) []rune {
	n := r.IntN(maxLen + 1)
	out := make([]rune, n)
	for i := range out {
		out[i] = alphabet[r.IntN(len(alphabet))]
	}
	return out
}

func mutate(r *rand.Rand, t []rune, alphabet []rune, edits int) []rune {
	out := slices.Clone(t)
	for range edits {
		switch op := r.IntN(3); {
		case op == 0 || len(out) == 0:
			i := r.IntN(len(out) + 1)
			out = slices.Insert(out, i, alphabet[r.IntN(len(alphabet))])
		case op == 1:
			i := r.IntN(len(out))
			out = slices.Delete(out, i, i+1)
		default:
			out[r.IntN(len(out))] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return out
}

func TestLevenshteinBanded(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abc 로그")
	var ed editScratch // reused, as the index reuses it: stale rows must not matter
	for range 3000 {
		a := randomText(r, alphabet, 12)
		b := mutate(r, a, alphabet, r.IntN(5))
		want := naiveLevenshtein(a, b)
		for limit := 0; limit <= 8; limit++ {
			got := levenshtein(a, b, limit)
			if (want <= limit && got != want) || (want > limit && got != limit+1) {
				t.Fatalf("levenshtein(%q, %q, %d) = %d, true distance %d", string(a), string(b), limit, got, want)
			}
			if reused := ed.levenshtein(a, b, limit); reused != got {
				t.Fatalf("levenshtein(%q, %q, %d) with reused rows = %d, fresh %d", string(a), string(b), limit, reused, got)
			}
		}
	}
}

// The blocking index is exact: it finds the same pairs as comparing all.
func TestSimIndexMatchesBruteForce(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("abcde fg로그정리")
	for _, theta := range []float64{0.85, 0.7, 0.5, 1} {
		for round := range 20 {
			var texts [][]rune
			for range 60 {
				if len(texts) > 0 && r.IntN(2) == 0 {
					texts = append(texts, mutate(r, texts[r.IntN(len(texts))], alphabet, r.IntN(4)))
				} else {
					texts = append(texts, randomText(r, alphabet, 30))
				}
			}
			want := map[[2]int]bool{}
			for i := range texts {
				for j := i + 1; j < len(texts); j++ {
					if Ratio(texts[i], texts[j]) >= theta-1e-9 {
						want[[2]int{i, j}] = true
					}
				}
			}
			got := map[[2]int]bool{}
			idx := &Index{Theta: theta, Texts: texts}
			idx.Pairs(nil, func(i, j int) {
				if got[[2]int{i, j}] {
					t.Errorf("pair %d,%d reported twice", i, j)
				}
				got[[2]int{i, j}] = true
			})
			for p := range want {
				if !got[p] {
					t.Fatalf("theta %.2f round %d: missed %q ~ %q (%.3f)", theta, round, string(texts[p[0]]), string(texts[p[1]]), Ratio(texts[p[0]], texts[p[1]]))
				}
			}
			for p := range got {
				if !want[p] {
					t.Fatalf("theta %.2f: false pair %q ~ %q", theta, string(texts[p[0]]), string(texts[p[1]]))
				}
			}
		}
	}
}

// pairsOrderDigest hashes the sequence of pairs Pairs reports on random
// texts, with and without a compatible filter: the order is part of the
// contract (MarkDurable keeps the first mention a candidate pairs with).
func pairsOrderDigest(t *testing.T) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []rune("abcde fg로그정리")
	h := sha256.New()
	for _, theta := range []float64{0.85, 0.7, 0.5, 1} {
		for range 30 {
			var texts [][]rune
			for range 80 {
				if len(texts) > 0 && r.IntN(2) == 0 {
					texts = append(texts, mutate(r, texts[r.IntN(len(texts))], alphabet, r.IntN(4)))
				} else {
					texts = append(texts, randomText(r, alphabet, 40))
				}
			}
			for _, compatible := range []func(i, j int) bool{nil, func(i, j int) bool { return (i+j)%3 != 0 }} {
				(&Index{Theta: theta, Texts: texts}).Pairs(compatible, func(i, j int) { fmt.Fprintf(h, "%d,%d;", i, j) })
				h.Write([]byte{'\n'})
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestPairsOrder pins the order Pairs reports pairs in to the order of the
// first index (6a4edf1): a faster index must report the same sequence.
func TestPairsOrder(t *testing.T) {
	t.Parallel()
	if got, want := pairsOrderDigest(t), "52eaba137e8798ff5885d158b33e852a21239915dd6a40ad2529adfbe32af067"; got != want {
		t.Errorf("pairs order digest %s, want %s", got, want)
	}
}
