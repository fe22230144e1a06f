package similarity

import (
	"math"
	"slices"
)

// Ratio is how alike two texts are, from 0 (nothing in common) to 1 (the
// same): 1 − Levenshtein(a, b) / max(|a|, |b|), lengths and edits counted
// in runes.
func Ratio(a, b []rune) float64 {
	m := max(len(a), len(b))
	if m == 0 {
		return 1
	}
	return 1 - float64(levenshtein(a, b, m))/float64(m)
}

// maxEdits is the largest edit distance two texts, the longer of length m,
// may have and still reach similarity theta.
func maxEdits(m int, theta float64) int {
	return int(math.Floor((1-theta)*float64(m) + 1e-9))
}

// levenshtein returns the edit distance of a and b, or limit+1 as soon as
// it is certain to exceed limit (a banded computation: O(limit·len)).
func levenshtein(a, b []rune, limit int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > limit {
		return limit + 1
	}
	if len(a) == 0 {
		return len(b)
	}
	const inf = math.MaxInt32
	prev := make([]int, len(a)+1)
	cur := make([]int, len(a)+1)
	for i := range prev {
		prev[i] = i
		if i > limit {
			prev[i] = inf
		}
	}
	for j := 1; j <= len(b); j++ {
		lo, hi := max(1, j-limit), min(len(a), j+limit)
		if j <= limit {
			cur[0] = j
		} else {
			cur[0] = inf
		}
		if lo > 1 {
			cur[lo-1] = inf
		}
		best := cur[0]
		for i := lo; i <= hi; i++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := prev[i-1]
			if v != inf {
				v += cost
			}
			if prev[i] != inf && prev[i]+1 < v {
				v = prev[i] + 1
			}
			if cur[i-1] != inf && cur[i-1]+1 < v {
				v = cur[i-1] + 1
			}
			cur[i] = v
			best = min(best, v)
		}
		if hi < len(a) {
			cur[hi+1] = inf
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	if d := prev[len(a)]; d <= limit {
		return d
	}
	return limit + 1
}

// gramQ is the q of the q-grams Index blocks on: 4 measured best on
// English follow-ups (3-grams are common enough to make the posting lists
// of 50,000 items 2.5 times longer).
const gramQ = 4

// Index finds every pair of texts whose Ratio is at least Theta
// without comparing all pairs. It is exact, not a heuristic: it applies the
// filters of the edit-distance similarity joins (Ed-Join, Xiao, Wang and
// Lin, VLDB 2008) to padded q-grams, and a pair is reported only after its
// edit distance is computed.
//
//   - Prefix filter: each text's distinct grams are ordered rarest-first in
//     one global order, and its prefix is the shortest run of them that k
//     edits cannot all destroy (an edit destroys the q grams over one
//     character, so the fewest edits destroying a set of grams is a greedy
//     interval stabbing). Two texts within k edits share a gram of their
//     prefixes: whichever prefix ends first in the global order, one of its
//     grams survives into the other text, where it lies within the other's
//     prefix. Only prefixes are indexed and probed; being made of rare
//     grams, they keep the posting lists short.
//   - Position filter: a surviving gram moves by at most k positions, so a
//     probe keeps only the postings within k of its gram.
//   - Length filter: lengths differing by more than k cannot be within k.
//   - Count filter (the q-gram lemma): texts within k edits share at least
//     n − q·k of the longer one's n grams, counted with multiplicity.
//
// Survivors get a banded edit distance, O(k·n). Measured in
// docs/BENCHMARKS.md.
type Index struct {
	Theta float64
	Texts [][]rune
}

// gramAt is one padded q-gram (hashed) of a text at a position.
type gramAt struct {
	h   uint64
	pos int32
}

// distinctGram is one distinct gram of a text: its hash, document
// frequency, and its occurrences as a range of the text's grams sorted by
// hash.
type distinctGram struct {
	h          uint64
	df         int32
	start, end int32
}

// posting is one indexed occurrence of a gram.
type posting struct {
	id  int32
	pos int32
}

// Pairs calls fn(i, j), i < j, for every pair of texts at or above theta,
// once each, in a deterministic order. compatible, when not nil, skips pairs
// before the count filter and the edit distance.
func (x *Index) Pairs(compatible func(i, j int) bool, fn func(i, j int)) {
	n := len(x.Texts)
	if n < 2 {
		return
	}
	// Each text's grams sorted by hash (for the count filter: a merge counts
	// the multiset intersection) and grouped into distinct grams.
	grams := make([][]gramAt, n)
	multi := make([][]uint64, n)
	df := map[uint64]int32{}
	for i, t := range x.Texts {
		gs := qgrams(t)
		slices.SortFunc(gs, func(a, b gramAt) int {
			if a.h != b.h {
				if a.h < b.h {
					return -1
				}
				return 1
			}
			return int(a.pos - b.pos)
		})
		ms := make([]uint64, len(gs))
		for j, g := range gs {
			ms[j] = g.h
			if j == 0 || gs[j-1].h != g.h {
				df[g.h]++
			}
		}
		grams[i], multi[i] = gs, ms
	}
	// Distinct grams rarest first, in one global order (df, then hash).
	distinct := make([][]distinctGram, n)
	for i, gs := range grams {
		var ds []distinctGram
		for j := 0; j < len(gs); {
			e := j
			for e < len(gs) && gs[e].h == gs[j].h {
				e++
			}
			ds = append(ds, distinctGram{h: gs[j].h, df: df[gs[j].h], start: int32(j), end: int32(e)})
			j = e
		}
		slices.SortFunc(ds, func(a, b distinctGram) int {
			if a.df != b.df {
				return int(a.df - b.df)
			}
			if a.h < b.h {
				return -1
			}
			if a.h > b.h {
				return 1
			}
			return 0
		})
		distinct[i] = ds
	}
	df = nil

	// prefixLen is how many of a text's rarest grams k edits cannot all
	// destroy; -1 when k edits can destroy every gram.
	var hit []bool
	prefixLen := func(i, k int) int {
		size := len(x.Texts[i]) + 2*(gramQ-1)
		if cap(hit) < size {
			hit = make([]bool, size)
		}
		hit = hit[:size]
		clear(hit)
		for m, d := range distinct[i] {
			for _, g := range grams[i][d.start:d.end] {
				hit[g.pos] = true
			}
			// Greedy stabbing: an edit at the last character of the
			// leftmost unstabbed gram destroys every gram starting within
			// q−1 before it.
			edits := 0
			for p := 0; p < size; p++ {
				if hit[p] {
					edits++
					p += gramQ - 1
				}
			}
			if edits > k {
				return m + 1
			}
		}
		return -1
	}

	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(x.Texts[a]) - len(x.Texts[b]) })
	lengths := make([]int32, n)
	for i, t := range x.Texts {
		lengths[i] = int32(len(t))
	}
	index := map[uint64][]posting{}
	seen := make([]int32, n) // the last probe that reached each text, +1
	var cands []int32
	var wild []int
	isWild := make([]bool, n)
	for step, id := range order {
		t := x.Texts[id]
		// Partners already indexed are no longer than t: at most k edits.
		k := maxEdits(len(t), x.Theta)
		// As a partner of longer texts (up to len/theta runes) t may need
		// a longer prefix.
		kIndex := maxEdits(int(math.Floor(float64(len(t))/x.Theta+1e-9)), x.Theta)
		if prefixLen(id, kIndex) < 0 {
			// No shared gram is guaranteed: compare with everything.
			isWild[id] = true
			wild = append(wild, id)
			continue
		}
		// Probe: a shared gram must also sit within k positions (k edits
		// shift a gram by at most k).
		cands = cands[:0]
		mark := int32(step) + 1
		for _, d := range distinct[id][:prefixLen(id, k)] {
			// One lookup per distinct gram: the prefix holds a text's
			// rarest grams, so their posting lists are short, and the
			// position filter below reads them whole faster than a lookup
			// per position bucket would.
			list := index[d.h]
			for _, g := range grams[id][d.start:d.end] {
				for _, p := range list {
					if abs(int(g.pos-p.pos)) > k {
						continue
					}
					if seen[p.id] != mark {
						seen[p.id] = mark
						// Length filter: y is no longer than t.
						if len(t)-int(lengths[p.id]) <= k {
							cands = append(cands, p.id)
						}
					}
				}
			}
		}
		indexLen := prefixLen(id, kIndex)
		for _, d := range distinct[id][:indexLen] {
			list := index[d.h]
			for _, g := range grams[id][d.start:d.end] {
				list = append(list, posting{id: int32(id), pos: g.pos})
			}
			index[d.h] = list
		}
		alpha := len(multi[id]) - gramQ*k
		for _, y := range cands {
			a, b := min(id, int(y)), max(id, int(y))
			if compatible != nil && !compatible(a, b) {
				continue
			}
			if !sortedOverlap(multi[id], multi[y], alpha) {
				continue // count filter
			}
			x.verify(id, int(y), nil, fn)
		}
	}
	// Wild texts against every other text (each unordered pair once).
	for _, w := range wild {
		for other := 0; other < n; other++ {
			if other == w || (isWild[other] && other < w) {
				continue
			}
			x.verify(w, other, compatible, fn)
		}
	}
}

// sortedOverlap reports whether two sorted lists share at least need
// elements, with multiplicity; it gives up as soon as what is left cannot
// reach need.
func sortedOverlap(a, b []uint64, need int) bool {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		if n+min(len(a)-i, len(b)-j) < need {
			return false
		}
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n >= need
}

func (x *Index) verify(a, b int, compatible func(i, j int) bool, fn func(i, j int)) {
	if a > b {
		a, b = b, a
	}
	ta, tb := x.Texts[a], x.Texts[b]
	m := max(len(ta), len(tb))
	k := maxEdits(m, x.Theta)
	if abs(len(ta)-len(tb)) > k {
		return
	}
	if compatible != nil && !compatible(a, b) {
		return
	}
	if d := levenshtein(ta, tb, k); d <= k && (m == 0 || 1-float64(d)/float64(m) >= x.Theta-1e-9) {
		fn(a, b)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// qgrams returns the padded q-grams of t, hashed, with their positions: a
// text of n runes has n+q−1 of them (the padding rune, 0, never occurs in a
// normalised text). The hash is FNV-1a over the runes: a collision merges
// two grams, which can add candidates but never lose a pair.
func qgrams(t []rune) []gramAt {
	padded := make([]rune, 0, len(t)+2*(gramQ-1))
	for i := 0; i < gramQ-1; i++ {
		padded = append(padded, 0)
	}
	padded = append(padded, t...)
	for i := 0; i < gramQ-1; i++ {
		padded = append(padded, 0)
	}
	out := make([]gramAt, 0, len(padded)-gramQ+1)
	for i := 0; i+gramQ <= len(padded); i++ {
		g := uint64(14695981039346656037)
		for _, r := range padded[i : i+gramQ] {
			g = (g ^ uint64(r)) * 1099511628211
		}
		out = append(out, gramAt{h: g, pos: int32(i)})
	}
	return out
}
