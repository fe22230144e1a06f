package followups

import (
	"slices"
	"strings"
	"unicode"
)

// Identifiers are the identifier-like words of a follow-up, read from its
// text before normalisation (which turns "foo.go" into "foo go" and
// "/users" into "users"): the words that name one thing, so that two
// follow-ups naming different things are different follow-ups however
// alike the rest of their lines read ("Add pagination to /users endpoint"
// and "… /posts endpoint" are 0.86 similar). A word is an identifier when,
// with the punctuation around it trimmed, it
//
//   - holds a digit: numbers, versions, issues ("3", "v1.2", "#123", "s3");
//   - holds one of / \ _ # @ $ = : or a dot inside it: paths, endpoints,
//     file and package names, snake_case, mentions ("/users", "foo.go",
//     "user_id", "@ana", "pkg.Func");
//   - starts with a dash: a flag ("--dry-run");
//   - is CamelCase: an upper-case letter after its first with a lower-case
//     one somewhere ("getUser", "HTTPServer", "GitHub");
//
// and every word inside `backticks` is one. Plain words, hyphenated words
// ("cache-layer") and all-capital words ("README", "ASAP") are not. The
// result is lower case, sorted and without repeats: a change of case is
// not another identifier.
func Identifiers(s string) []string {
	ids, _ := followupWords(s, false)
	return ids
}

// followupWords splits a follow-up's body (tag, checkbox, bullet and done
// note cut off, as NormalizeFollowup does) into its words, lower case with
// the punctuation around them trimmed and backticks dropped, and returns
// the identifiers among them (see Identifiers) and, when withWords is set,
// every word; each sorted and without repeats.
func followupWords(s string, withWords bool) (ids, words []string) {
	s = followupBody(s)
	add := func(w string, code bool) {
		w = trimWord(w)
		if w == "" || !strings.ContainsFunc(w, isAlnum) {
			return
		}
		id := code || isIdentifier(w)
		if !id && !withWords {
			return
		}
		lw := strings.ToLower(w)
		if withWords {
			words = append(words, lw)
		}
		if id {
			ids = append(ids, lw)
		}
	}
	// Backticks alternate: odd-numbered spans are code. An unclosed one
	// makes the rest code, as markdown renderers do not — but a stray
	// backtick is rare and only ever keeps two items apart.
	for i, span := range strings.Split(s, "`") {
		for _, w := range strings.Fields(span) {
			add(w, i%2 == 1)
		}
	}
	slices.Sort(ids)
	slices.Sort(words)
	return slices.Compact(ids), slices.Compact(words)
}

// followupBody is a follow-up's text without its leading bullet,
// checkbox and "(project)" tag and without a "(done …)" note.
func followupBody(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "-*+ \t")
	if rest, ok := cutCheckbox(s); ok {
		s = rest
	}
	if _, rest, ok := cutTag(s); ok {
		s = rest
	}
	return dropDoneNote(s)
}

// trimWord trims the punctuation a word carries in prose: quotes and
// brackets around it, a sentence's full stop, comma or colon after it.
// A leading slash, dot, dash, hash, at or dollar belongs to the word.
func trimWord(w string) string {
	w = strings.TrimLeft(w, "\"'([{<“‘«")
	return strings.TrimRight(w, ".,;:!?\"')]}>”’»…/")
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isIdentifier reports whether a trimmed word names one thing (see
// Identifiers).
func isIdentifier(w string) bool {
	if strings.HasPrefix(w, "-") || strings.ContainsAny(w, `/\_#@$=:.`) || strings.ContainsFunc(w, unicode.IsDigit) {
		return true // trimWord left only a leading or inner dot
	}
	if !strings.ContainsFunc(w, unicode.IsLower) {
		return false
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// strongIdentifiers are the identifiers that are identifiers whatever
// their case and wherever they stand — a digit, a / \ _ # @ $ = : or inner
// dot, a leading dash — as opposed to CamelCase words and words in
// backticks. Two follow-ups that agree (see identifierSet.agrees) have the
// same strong identifiers: each one's is a word of the other, and the
// same word is strong there too. ids is sorted, and so is the result.
func strongIdentifiers(ids []string) []string {
	var out []string
	for _, w := range ids {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, `/\_#@$=:.`) || strings.ContainsFunc(w, unicode.IsDigit) {
			out = append(out, w)
		}
	}
	return out
}

// identifierSet is what the identifier check of two follow-ups compares:
// a follow-up's identifiers, and its text for the rare check that needs
// every word of it.
type identifierSet struct {
	text string
	ids  []string
}

func newIdentifierSet(s string) identifierSet {
	return identifierSet{text: s, ids: Identifiers(s)}
}

// agrees reports whether two follow-ups name the same things: each one's
// identifiers are words of the other. Comparing with the other's words,
// not only its identifiers, keeps a change of case a duplicate ("fix
// getUser" and "fix getuser").
func (a identifierSet) agrees(b identifierSet) bool {
	if slices.Equal(a.ids, b.ids) {
		return true // most pairs: none on either side
	}
	_, aw := followupWords(a.text, true)
	_, bw := followupWords(b.text, true)
	return containsAll(bw, a.ids) && containsAll(aw, b.ids)
}

// containsAll reports whether the sorted list has every element of want.
func containsAll(sorted, want []string) bool {
	for _, w := range want {
		if _, ok := slices.BinarySearch(sorted, w); !ok {
			return false
		}
	}
	return true
}

// SameIdentifiers reports whether two follow-ups name the same things (see
// Identifiers): a pair at or above the similarity threshold is one
// follow-up only when they do.
func SameIdentifiers(a, b string) bool {
	return newIdentifierSet(a).agrees(newIdentifierSet(b))
}

// Duplicates reports whether two follow-ups are one: Similarity at or
// above theta and the same identifiers.
func Duplicates(a, b string, theta float64) bool {
	return Similarity(a, b) >= theta && SameIdentifiers(a, b)
}
