package similarity

import (
	"cmp"
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
	var ed editScratch
	return ed.levenshtein(a, b, limit)
}

// editScratch holds levenshtein's two rows, reused across calls.
type editScratch struct{ prev, cur []int }

func (ed *editScratch) levenshtein(a, b []rune, limit int) int {
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
	if cap(ed.prev) < len(a)+1 {
		ed.prev, ed.cur = make([]int, len(a)+1), make([]int, len(a)+1)
	}
	prev, cur := ed.prev[:len(a)+1], ed.cur[:len(a)+1]
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

// posting is one indexed occurrence of a gram.
type posting struct {
	id  int32
	pos int32
}

// gramTable is every text's padded q-grams, each as its gram's rank in the
// global order (rarest first: document frequency, then hash) and its
// position, packed as rank<<32 | pos: one sort per text then groups a
// text's occurrences by distinct gram, rarest first, positions ascending.
type gramTable struct {
	keys  []uint64 // text i's occurrences are keys[off[i]:off[i+1]]
	off   []int32
	ranks int // distinct grams
}

func rankOf(key uint64) uint32 { return uint32(key >> 32) }
func posOf(key uint64) int32   { return int32(uint32(key)) }

// newGramTable hashes and ranks the grams of texts. Grams are told apart
// by their hash, as they always were: a collision merges two grams, which
// can add candidates but never lose a pair.
func newGramTable(texts [][]rune) gramTable {
	n := len(texts)
	off := make([]int32, n+1)
	total := 0
	for i, t := range texts {
		total += len(t) + gramQ - 1
		off[i+1] = int32(total)
	}
	ids := make(map[uint64]int32, total/2)
	gid := make([]int32, total)
	var hashes []uint64
	var df, last []int32
	for i, t := range texts {
		o := off[i]
		for p := range len(t) + gramQ - 1 {
			h := gramHash(t, p)
			id, ok := ids[h]
			if !ok {
				id = int32(len(hashes))
				ids[h] = id
				hashes = append(hashes, h)
				df = append(df, 0)
				last = append(last, -1)
			}
			gid[int(o)+p] = id
			if last[id] != int32(i) {
				last[id] = int32(i)
				df[id]++
			}
		}
	}
	// The global order: document frequency, then hash.
	byRank := make([]int32, len(hashes))
	for i := range byRank {
		byRank[i] = int32(i)
	}
	slices.SortFunc(byRank, func(a, b int32) int {
		if df[a] != df[b] {
			return int(df[a] - df[b])
		}
		return cmp.Compare(hashes[a], hashes[b])
	})
	rank := last // reused: every id's rank
	for r, id := range byRank {
		rank[id] = int32(r)
	}
	keys := make([]uint64, total)
	for i := range n {
		o, e := off[i], off[i+1]
		for p := o; p < e; p++ {
			keys[p] = uint64(rank[gid[p]])<<32 | uint64(p-o)
		}
		slices.Sort(keys[o:e])
	}
	return gramTable{keys: keys, off: off, ranks: len(hashes)}
}

// gramHash is the FNV-1a hash over the runes of the padded q-gram at
// position p of t (padding, rune 0, before and after: it never occurs in a
// normalised text).
func gramHash(t []rune, p int) uint64 {
	g := uint64(14695981039346656037)
	for i := p - (gramQ - 1); i <= p; i++ {
		var r rune
		if i >= 0 && i < len(t) {
			r = t[i]
		}
		g = (g ^ uint64(r)) * 1099511628211
	}
	return g
}

// prefixEnds returns where, in a text's keys, the prefixes for k and for
// kIndex edits end (k ≤ kIndex): the shortest runs of its rarest distinct
// grams that so many edits cannot all destroy; -1 when that many edits can
// destroy every gram. hits is scratch.
func prefixEnds(keys []uint64, k, kIndex int, hits []int32) (endK, endIndex int, _ []int32) {
	endK, endIndex = -1, -1
	hits = hits[:0]
	for s := 0; s < len(keys); {
		e := s + 1
		for e < len(keys) && rankOf(keys[e]) == rankOf(keys[s]) {
			e++
		}
		for _, key := range keys[s:e] {
			pos := posOf(key)
			at, _ := slices.BinarySearch(hits, pos)
			hits = slices.Insert(hits, at, pos)
		}
		// Greedy stabbing: an edit at the last character of the leftmost
		// unstabbed gram destroys every gram starting within q−1 before it.
		edits, covered := 0, int32(-1)
		for _, pos := range hits {
			if pos > covered {
				edits++
				covered = pos + gramQ - 1
			}
		}
		if edits > k && endK < 0 {
			endK = e
		}
		if edits > kIndex {
			return endK, e, hits
		}
		s = e
	}
	return -1, -1, hits
}

// Pairs calls fn(i, j), i < j, for every pair of texts at or above theta,
// once each, in a deterministic order. compatible, when not nil, skips pairs
// before the count filter and the edit distance.
func (x *Index) Pairs(compatible func(i, j int) bool, fn func(i, j int)) {
	n := len(x.Texts)
	if n < 2 {
		return
	}
	gt := newGramTable(x.Texts)
	textKeys := func(i int) []uint64 { return gt.keys[gt.off[i]:gt.off[i+1]] }

	// Shortest first (a counting sort: stable, as the order of equals is
	// the order pairs are reported in).
	maxLen := 0
	for _, t := range x.Texts {
		maxLen = max(maxLen, len(t))
	}
	byLen := make([]int32, maxLen+2)
	for _, t := range x.Texts {
		byLen[len(t)+1]++
	}
	for l := 1; l < len(byLen); l++ {
		byLen[l] += byLen[l-1]
	}
	order := make([]int, n)
	for i, t := range x.Texts {
		order[byLen[len(t)]] = i
		byLen[len(t)]++
	}

	index := make([][]posting, gt.ranks)
	seen := make([]int32, n) // the last probe that reached each text, +1
	var cands []int32
	var hits []int32
	var ed editScratch
	var wild []int
	isWild := make([]bool, n)
	for step, id := range order {
		t := x.Texts[id]
		keys := textKeys(id)
		// Partners already indexed are no longer than t: at most k edits.
		k := maxEdits(len(t), x.Theta)
		// As a partner of longer texts (up to len/theta runes) t may need
		// a longer prefix.
		kIndex := maxEdits(int(math.Floor(float64(len(t))/x.Theta+1e-9)), x.Theta)
		var probeEnd, indexEnd int
		probeEnd, indexEnd, hits = prefixEnds(keys, k, kIndex, hits)
		if indexEnd < 0 {
			// No shared gram is guaranteed: compare with everything.
			isWild[id] = true
			wild = append(wild, id)
			continue
		}
		// Probe: a shared gram must also sit within k positions (k edits
		// shift a gram by at most k). One lookup per distinct gram: the
		// prefix holds a text's rarest grams, so their posting lists are
		// short, and the position filter reads them whole faster than a
		// lookup per position bucket would.
		cands = cands[:0]
		mark := int32(step) + 1
		for _, key := range keys[:probeEnd] {
			pos := posOf(key)
			for _, p := range index[rankOf(key)] {
				if abs(int(pos-p.pos)) > k {
					continue
				}
				if seen[p.id] != mark {
					seen[p.id] = mark
					// Length filter: y is no longer than t.
					if len(t)-len(x.Texts[p.id]) <= k {
						cands = append(cands, p.id)
					}
				}
			}
		}
		for _, key := range keys[:indexEnd] {
			r := rankOf(key)
			index[r] = append(index[r], posting{id: int32(id), pos: posOf(key)})
		}
		alpha := len(keys) - gramQ*k
		for _, y := range cands {
			a, b := min(id, int(y)), max(id, int(y))
			if compatible != nil && !compatible(a, b) {
				continue
			}
			if !sortedOverlap(keys, textKeys(int(y)), alpha) {
				continue // count filter
			}
			x.verify(id, int(y), nil, fn, &ed)
		}
	}
	// Wild texts against every other text (each unordered pair once).
	for _, w := range wild {
		for other := 0; other < n; other++ {
			if other == w || (isWild[other] && other < w) {
				continue
			}
			x.verify(w, other, compatible, fn, &ed)
		}
	}
}

// PairsWith calls fn(i, j), i < j, for every pair at or above Theta with
// at least one text in probe, once each, comparing each probe with every
// other text (the length filter, then the banded edit distance): for a few
// probes among many texts, cheaper than building the index. The order is
// deterministic (by probe, then by the other text), not Pairs' order.
func (x *Index) PairsWith(probe []int, compatible func(i, j int) bool, fn func(i, j int)) {
	done := make([]bool, len(x.Texts))
	var ed editScratch
	for _, p := range probe {
		if done[p] {
			continue
		}
		done[p] = true
		for other := range x.Texts {
			if !done[other] {
				x.verify(p, other, compatible, fn, &ed)
			}
		}
	}
}

// sortedOverlap reports whether two texts' keys share at least need grams,
// with multiplicity (keys are sorted by rank); it gives up as soon as what
// is left cannot reach need.
func sortedOverlap(a, b []uint64, need int) bool {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		if n+min(len(a)-i, len(b)-j) < need {
			return false
		}
		ra, rb := rankOf(a[i]), rankOf(b[j])
		switch {
		case ra == rb:
			n++
			i++
			j++
		case ra < rb:
			i++
		default:
			j++
		}
	}
	return n >= need
}

func (x *Index) verify(a, b int, compatible func(i, j int) bool, fn func(i, j int), ed *editScratch) {
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
	if d := ed.levenshtein(ta, tb, k); d <= k && (m == 0 || 1-float64(d)/float64(m) >= x.Theta-1e-9) {
		fn(a, b)
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
