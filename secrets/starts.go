package secrets

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Many of gitleaks' rules open with a short run of almost anything before a
// keyword they cannot match without: generic-api-key is
// `(?i)[\w.-]{0,50}?(?:access|auth|…|token)…`, and 150 rules share
// its shape with their own keyword. Go's regexp has no literal prefix to
// skip to in such an expression and steps its automaton over every byte of
// the text, ~0.4 µs a byte for generic-api-key: most of a check's scan of a
// vault. A start plan says where the matches can start instead — no more
// than a bounded number of bytes before an occurrence of the keyword — so
// the search jumps from keyword to keyword. The matches are the same
// (TestStartsMatchRegexp, FuzzStarts): a match begins at most before bytes
// ahead of a keyword occurrence, so none begins in a stretch the plan skips,
// and the opening run holds no assertion that could see the skip.

// startPlan is where a rule's matches can start: at most before bytes ahead
// of an occurrence of one of lits.
type startPlan struct {
	lits   []keyword
	before int
	// run, when the opening is one repeated class (generic-api-key's
	// [\w.-]{0,50}?), is that class: a match starts within the run of at
	// most runes of its characters that ends at a keyword, a tighter
	// bound than before bytes.
	run   []rune // the class's ranges, as syntax.Regexp.Rune holds them
	runes int
	// then, when what follows the keyword is bounded runs of classes and
	// then an item that cannot match nothing, is that: an occurrence no
	// match could go on from is not searched from (a keyword in prose,
	// with no assignment after it, costs no scan of the text beyond).
	then *approach
	// unsafe are the non-ASCII runes that case folding maps to a letter of
	// a case-insensitive keyword (K, U+212A, for k): a text holding one is
	// searched whole, since the plan looks for keywords byte by byte.
	unsafe string
}

// keyword is one literal form of a rule's keyword: s in lower case, as
// written in orig; fold[i] says byte i matches either ASCII case.
type keyword struct {
	s, orig string
	fold    []bool
}

// maxKeywords bounds the literal forms a plan expands a keyword into.
const maxKeywords = 64

// planStarts returns the start plan of expr, or nil when it has no bounded
// opening before a keyword: its matches may start anywhere.
func planStarts(expr string) *startPlan {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	items := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		items = re.Sub
	}
	before := 0
	for i, it := range items {
		if lits, ok := literals(it); ok && !hasEmpty(lits) {
			p := &startPlan{lits: lits, before: before, unsafe: unsafeFolds(lits), then: planApproach(items[i+1:])}
			if o := items[0]; i == 1 && o.Op == syntax.OpRepeat && o.Sub[0].Op == syntax.OpCharClass {
				p.run, p.runes = o.Sub[0].Rune, o.Max
			}
			return p
		}
		w, ok := maxBytes(it)
		if !ok {
			return nil
		}
		before += w
	}
	return nil
}

// hasEmpty reports whether some form is empty (the item can match nothing,
// so it anchors nothing).
func hasEmpty(lits []keyword) bool {
	for _, l := range lits {
		if l.s == "" {
			return true
		}
	}
	return false
}

// literals expands re into the finite set of ASCII strings it matches, or
// reports false when that set is not small and finite.
func literals(re *syntax.Regexp) ([]keyword, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []keyword{{}}, true
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		k := keyword{}
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return nil, false
			}
			b := byte(r)
			k.s += string(lower(b))
			k.orig += string(b)
			k.fold = append(k.fold, fold && isLetter(b))
		}
		return []keyword{k}, true
	case syntax.OpCharClass:
		var out []keyword
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if r >= utf8.RuneSelf || len(out) == maxKeywords {
					return nil, false
				}
				b := byte(r)
				out = append(out, keyword{s: string(lower(b)), orig: string(b), fold: []bool{false}})
			}
		}
		return out, true
	case syntax.OpCapture:
		return literals(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := literals(re.Sub[0])
		return append(sub, keyword{}), ok && len(sub) < maxKeywords
	case syntax.OpAlternate:
		var out []keyword
		for _, s := range re.Sub {
			sub, ok := literals(s)
			if !ok || len(out)+len(sub) > maxKeywords {
				return nil, false
			}
			out = append(out, sub...)
		}
		return out, true
	case syntax.OpConcat:
		out := []keyword{{}}
		for _, s := range re.Sub {
			sub, ok := literals(s)
			if !ok || len(out)*len(sub) > maxKeywords {
				return nil, false
			}
			next := make([]keyword, 0, len(out)*len(sub))
			for _, a := range out {
				for _, b := range sub {
					next = append(next, keyword{s: a.s + b.s, orig: a.orig + b.orig, fold: append(append([]bool{}, a.fold...), b.fold...)})
				}
			}
			out = next
		}
		return out, true
	}
	return nil, false
}

// maxBytes is the most bytes re can match, or false when that is unbounded
// or re asserts something of the text around it (a word boundary, a line
// start): an opening with an assertion cannot be skipped.
func maxBytes(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return 0, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			w := utf8.RuneLen(r)
			if re.Flags&syntax.FoldCase != 0 {
				for _, f := range folds(r) {
					w = max(w, utf8.RuneLen(f))
				}
			}
			n += w
		}
		return n, true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0, true
		}
		return utf8.RuneLen(min(re.Rune[len(re.Rune)-1], unicode.MaxRune)), true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxBytes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Max < 0 {
			return 0, false
		}
		w, ok := maxBytes(re.Sub[0])
		return w * re.Max, ok
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			w, ok := maxBytes(s)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				n += w
			} else {
				n = max(n, w)
			}
		}
		return n, true
	}
	return 0, false
}

// unsafeFolds is the non-ASCII runes that fold to a letter of a
// case-insensitive keyword.
func unsafeFolds(lits []keyword) string {
	var b strings.Builder
	seen := map[rune]bool{}
	for _, l := range lits {
		for i := 0; i < len(l.s); i++ {
			if !l.fold[i] {
				continue
			}
			for _, f := range folds(rune(l.s[i])) {
				if f >= utf8.RuneSelf && !seen[f] {
					seen[f] = true
					b.WriteRune(f)
				}
			}
		}
	}
	return b.String()
}

// folds is the other runes case folding maps r to (k: K and U+212A).
func folds(r rune) []rune {
	var out []rune
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// inRanges reports whether r is in the ranges rs (pairs lo, hi; in any
// order, as a class's own ranges or several classes' together).
func inRanges(rs []rune, r rune) bool {
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] <= r && r <= rs[i+1] {
			return true
		}
	}
	return false
}

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// lowerASCII is s with its ASCII letters in lower case, byte for byte.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lower(b[j])
			}
			return string(b)
		}
	}
	return s
}

// findAll is re.FindAllStringIndex(text, -1) for an expression whose start
// plan is p; low is lowerASCII(text).
func (p *startPlan) findAll(re *regexp.Regexp, text, low string) [][]int {
	if p == nil || (p.unsafe != "" && strings.ContainsAny(text, p.unsafe)) {
		return re.FindAllStringIndex(text, -1)
	}
	next := make([]int, len(p.lits)) // each form's next occurrence at or after pos (-1: none left)
	for i := range p.lits {
		next[i] = p.occurrence(i, text, low, 0)
	}
	var out [][]int
	for pos := 0; pos < len(text); {
		k := -1
		for i := range p.lits {
			if next[i] >= 0 && next[i] < pos {
				next[i] = p.occurrence(i, text, low, pos)
			}
			if next[i] >= 0 && (k < 0 || next[i] < k) {
				k = next[i]
			}
		}
		if k < 0 {
			break
		}
		lo := max(pos, k-p.before)
		if p.run != nil {
			lo = k
			for n := 0; n < p.runes && lo > pos; n++ {
				r, w := utf8.DecodeLastRuneInString(text[:lo])
				if !inRanges(p.run, r) {
					break
				}
				lo -= w
			}
			lo = max(lo, pos)
		}
		m := re.FindStringIndex(text[lo:])
		if m == nil {
			break
		}
		out = append(out, []int{lo + m[0], lo + m[1]})
		if m[1] == m[0] {
			pos = lo + m[1] + 1 // a plan's matches hold a keyword: never empty
		} else {
			pos = lo + m[1]
		}
	}
	return out
}

// occurrence is the first occurrence of keyword form i in text at or after
// from that a match could go on from, or -1.
func (p *startPlan) occurrence(i int, text, low string, from int) int {
	k := &p.lits[i]
	for {
		at := k.index(text, low, from)
		if at < 0 || p.then == nil || p.then.viable(text, at+len(k.s)) {
			return at
		}
		from = at + 1
	}
}

// approach is what a match holds right after its keyword: runs of
// characters (each of a class, between min and max of them), then an item
// that begins with a character of first.
type approach struct {
	runs  []classRun
	first []rune // the item's possible first characters, as ranges
}

type classRun struct {
	class    []rune
	min, max int
}

// maxApproach bounds the characters an approach's runs may take.
const maxApproach = 256

// planApproach is the approach of the items after a keyword, or nil when
// they do not have that shape.
func planApproach(items []*syntax.Regexp) *approach {
	a := &approach{}
	total := 0
	for _, it := range items {
		if class, lo, hi, ok := classRepeat(it); ok && lo == 0 {
			if total += hi; total > maxApproach {
				return nil
			}
			a.runs = append(a.runs, classRun{class, lo, hi})
			continue
		}
		if first, ok := firstRunes(it); ok {
			a.first = first
			return a
		}
		return nil
	}
	return nil
}

// classRepeat reports re as a run of one class: a class or a one-rune
// literal, repeated between lo and hi times.
func classRepeat(re *syntax.Regexp) (class []rune, lo, hi int, ok bool) {
	switch re.Op {
	case syntax.OpCapture:
		return classRepeat(re.Sub[0])
	case syntax.OpCharClass:
		return re.Rune, 1, 1, true
	case syntax.OpLiteral:
		if len(re.Rune) == 1 {
			return runeClass(re.Rune[0], re.Flags&syntax.FoldCase != 0), 1, 1, true
		}
	case syntax.OpQuest, syntax.OpRepeat:
		class, l, h, ok := classRepeat(re.Sub[0])
		if !ok || l != 1 || h != 1 {
			return nil, 0, 0, false
		}
		if re.Op == syntax.OpQuest {
			return class, 0, 1, true
		}
		if re.Max >= 0 {
			return class, re.Min, re.Max, true
		}
	}
	return nil, 0, 0, false
}

// firstRunes is the characters a match of re can begin with, as ranges,
// for an re that cannot match nothing; ok is false otherwise.
func firstRunes(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpCapture:
		return firstRunes(re.Sub[0])
	case syntax.OpCharClass:
		return re.Rune, len(re.Rune) > 0
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, false
		}
		return runeClass(re.Rune[0], re.Flags&syntax.FoldCase != 0), true
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil, false
		}
		return firstRunes(re.Sub[0])
	case syntax.OpPlus:
		return firstRunes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		return firstRunes(re.Sub[0])
	case syntax.OpAlternate:
		var all []rune
		for _, sub := range re.Sub {
			f, ok := firstRunes(sub)
			if !ok {
				return nil, false
			}
			all = append(all, f...)
		}
		return all, true
	}
	return nil, false
}

// runeClass is the class of r alone, or of r and its case-folded forms.
func runeClass(r rune, fold bool) []rune {
	rs := []rune{r, r}
	if fold {
		for _, f := range folds(r) {
			rs = append(rs, f, f)
		}
	}
	return rs
}

// viable reports whether a match could go on from a keyword that ends at
// end: some way through the runs leaves a first character of the item
// after them.
func (a *approach) viable(text string, end int) bool {
	at := []int{end}
	for _, run := range a.runs {
		var next []int
		for _, p := range at {
			for n := 0; ; n++ {
				if n >= run.min && !slices.Contains(next, p) {
					next = append(next, p)
				}
				if n == run.max || p >= len(text) {
					break
				}
				r, w := utf8.DecodeRuneInString(text[p:])
				if !inRanges(run.class, r) {
					break
				}
				p += w
			}
		}
		at = next
	}
	for _, p := range at {
		if p < len(text) {
			if r, _ := utf8.DecodeRuneInString(text[p:]); inRanges(a.first, r) {
				return true
			}
		}
	}
	return false
}

// index is the first occurrence of k in text at or after from, or -1.
func (k *keyword) index(text, low string, from int) int {
	for from <= len(text)-len(k.s) {
		i := strings.Index(low[from:], k.s)
		if i < 0 {
			return -1
		}
		at := from + i
		if k.exact(text[at : at+len(k.s)]) {
			return at
		}
		from = at + 1
	}
	return -1
}

// exact reports whether s, which is k.s in lower case, has k's case
// where k is case-sensitive.
func (k *keyword) exact(s string) bool {
	for i := 0; i < len(s); i++ {
		if !k.fold[i] && s[i] != k.orig[i] {
			return false
		}
	}
	return true
}
