package followups

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/sentence"
	"github.com/git-scribe/git-scribe/internal/similarity"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/transcript"
)

// Keywords mark a follow-up in a conversation (SPEC §5). English keywords
// match case-insensitively at word boundaries (with a short inflection:
// "defer" matches "deferred"); Korean ones match anywhere, since particles
// attach to the word ("다음 세션에").
type Keywords struct {
	EN []string
	KR []string
}

// DefaultKeywords are SPEC §5's keywords.
func DefaultKeywords() Keywords {
	return Keywords{
		EN: []string{"next session", "follow-up", "follow up", "TODO:", "come back to", "defer", "later"},
		KR: []string{"다음 세션", "후속", "나중에", "미루", "다음에"},
	}
}

// Candidate is a follow-up someone said in a conversation.
type Candidate struct {
	// N numbers the orphans of one extraction from 1: the number a person
	// answers the prompt with and a decision file may name (0 once found
	// durable).
	N       int    `json:"n,omitempty"`
	Text    string `json:"text"`
	Project string `json:"project,omitempty"`
	Keyword string `json:"keyword"`
	Turn    int    `json:"turn"` // the transcript turn's index
	Role    string `json:"role"`
	// Quote is the sentence it was said in.
	Quote string `json:"quote"`
	// Durable is where it is already persisted; nil for an orphan.
	Durable *SourceRef `json:"durable,omitempty"`
}

// maxCandidates bounds one extraction: a transcript that trips the
// keywords more often than this is mostly noise.
const maxCandidates = 100

var (
	// enFillers start a sentence without saying what to do.
	enFillers = []string{
		"we should", "we need to", "we'll need to", "we will need to", "we have to", "we can", "we could",
		"we'll", "we will", "we'd", "i'll", "i will", "i should", "i need to", "i can", "i'd", "you can", "you could",
		"let's", "lets", "let us", "need to", "should", "must", "please", "remember to", "don't forget to",
		"going to", "gonna", "is to", "are to", "maybe", "probably", "also", "then", "and", "so", "but",
		"in the", "for the", "at the", "on the", "to the", "in", "for", "at", "on", "to", "until", "till", "by",
		"a", "the", "do", "work on", "we", "i", "you",
	}
	// enTrailers end a sentence without saying what to do.
	enTrailers = []string{
		"in the", "for the", "at the", "on the", "to the", "until the", "till the", "by the", "in a", "for a",
		"in", "for", "at", "on", "to", "until", "till", "by", "then", "as a", "as", "with", "and", "or",
	}
	// krParticles attach to a Korean keyword or to the word before one.
	krParticles = []string{"에서는", "에서", "에는", "에도", "으로", "까지", "에", "엔", "로", "은", "는", "도", "을", "를", "이", "가"}
)

// ExtractFollowups finds follow-ups in a conversation: in each turn's text
// (code blocks and quoted lines left out), every sentence that is not a
// question and holds a keyword yields the sentence with the keyword and
// filler words ("we should", "let's", Korean particles) taken out; a
// keyword alone on a line ("Next session:") yields the list items that
// follow it. Near-duplicates (Similarity at or above theta) are kept once.
func ExtractFollowups(turns []transcript.Turn, kw Keywords, theta float64) []Candidate {
	if theta <= 0 || theta > 1 {
		theta = DefaultSimilarity
	}
	m := newKeywordMatcher(kw)
	var out []Candidate
	var norms [][]rune
	var idents []identifierSet
	add := func(c Candidate) {
		if len(out) >= maxCandidates {
			return
		}
		c.Text = strings.TrimSpace(c.Text)
		if t, rest, ok := cutTag(c.Text); ok {
			c.Project, c.Text = t, strings.TrimSpace(rest)
		}
		c.Text = notes.CapRunes(notes.SingleLine(c.Text), maxFollowupRunes)
		c.Quote = notes.CapRunes(notes.SingleLine(c.Quote), maxFollowupRunes)
		n := NormalizeFollowup(c.Text)
		if len(n) < 2 {
			return
		}
		ident := newIdentifierSet(c.Text)
		for i, o := range norms {
			if similarity.Ratio(o, n) >= theta && idents[i].agrees(ident) {
				return
			}
		}
		norms = append(norms, n)
		idents = append(idents, ident)
		c.N = len(out) + 1
		out = append(out, c)
	}
	for _, turn := range turns {
		lines := proseLines(turn.Text)
		for i := 0; i < len(lines); i++ {
			line := lines[i]
			body := line
			if _, box, text, ok := listItem(line); ok {
				if box == boxClosed {
					continue // done already
				}
				body = text
			} else if _, text, ok := markdown.Heading(line); ok {
				body = text
			}
			for _, sentence := range sentence.Split(body) {
				if strings.HasSuffix(strings.TrimSpace(sentence), "?") || strings.HasSuffix(strings.TrimSpace(sentence), "？") {
					continue
				}
				kwd, start, end, ok := m.find(sentence)
				if !ok {
					continue
				}
				item := followupText(sentence, start, end, m)
				if item == "" {
					// "Next session:" heading a list: its items are the follow-ups.
					for j := i + 1; j < len(lines); j++ {
						_, box, text, ok := listItem(lines[j])
						if !ok {
							break
						}
						if box != boxClosed {
							add(Candidate{Text: text, Keyword: kwd, Turn: turn.Index, Role: string(turn.Role), Quote: strings.TrimSpace(line) + " " + strings.TrimSpace(text)})
						}
						i = j
					}
					continue
				}
				add(Candidate{Text: item, Keyword: kwd, Turn: turn.Index, Role: string(turn.Role), Quote: sentence})
			}
		}
	}
	return out
}

// proseLines are a turn's lines outside fenced code blocks, without quoted
// ("> ") lines and blank lines.
func proseLines(text string) []string {
	var out []string
	var fences markdown.Fences
	for _, line := range notes.SplitLines(text) {
		trimmed := strings.TrimLeft(line, " \t")
		if fences.Skip(trimmed) {
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, ">") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// keywordMatcher finds the first keyword in a sentence.
type keywordMatcher struct {
	en   []string // lower case
	kr   []string
	name map[string]string // lower case → as configured
}

func newKeywordMatcher(kw Keywords) *keywordMatcher {
	m := &keywordMatcher{name: map[string]string{}}
	for _, k := range kw.EN {
		if l := strings.ToLower(strings.TrimSpace(k)); l != "" {
			m.en = append(m.en, l)
			m.name[l] = strings.TrimSpace(k)
		}
	}
	for _, k := range kw.KR {
		if k = strings.TrimSpace(k); k != "" {
			m.kr = append(m.kr, k)
		}
	}
	return m
}

// enSuffixes are the inflections an English keyword may carry.
var enSuffixes = []string{"ring", "red", "ing", "ed", "s", "d"}

// find returns the earliest (then longest) keyword in s and its byte span
// in s, the inflection included.
func (m *keywordMatcher) find(s string) (kw string, start, end int, ok bool) {
	lower := strings.ToLower(s)
	if len(lower) != len(s) {
		// Case folding changed byte lengths (rare scripts): search s as is.
		lower = s
	}
	start = -1
	consider := func(k string, i, j int) {
		if start < 0 || i < start || (i == start && j > end) {
			kw, start, end = k, i, j
		}
	}
	for _, k := range m.en {
		for off := 0; off < len(lower); {
			i := strings.Index(lower[off:], k)
			if i < 0 {
				break
			}
			i += off
			j := i + len(k)
			off = i + 1
			if i > 0 && isWordRune(lastRune(lower[:i])) && isWordRune(firstRune(k)) {
				continue
			}
			if j < len(lower) && isWordRune(firstRune(lower[j:])) && isWordRune(lastRune(k)) {
				suffixed := false
				for _, suf := range enSuffixes {
					if strings.HasPrefix(lower[j:], suf) && (j+len(suf) == len(lower) || !isWordRune(firstRune(lower[j+len(suf):]))) {
						j += len(suf)
						suffixed = true
						break
					}
				}
				if !suffixed {
					continue
				}
			}
			consider(m.name[k], i, j)
			break
		}
	}
	for _, k := range m.kr {
		if i := strings.Index(s, k); i >= 0 {
			consider(k, i, i+len(k))
		}
	}
	return kw, start, end, start >= 0
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// followupText is the sentence with its keyword span and the filler around
// it taken out; "" when nothing but filler is left.
func followupText(sentence string, start, end int, m *keywordMatcher) string {
	before := strings.TrimSpace(sentence[:start])
	after := strings.TrimSpace(sentence[end:])
	after = trimKRParticle(after, true)
	before = trimEdgePunct(before)
	after = trimEdgePunct(after)
	// "follow-up item: X", "후속 작업: X": the label before the colon goes.
	if k := strings.Index(after, ":"); k > 0 && len(strings.Fields(after[:k])) == 1 {
		after = trimEdgePunct(after[k+1:])
	}
	// Another keyword left over ("… later, next session") goes too.
	for range 3 {
		if _, s, e, ok := m.find(after); ok && (s == 0 || e == len(after)) {
			after = trimEdgePunct(strings.TrimSpace(after[:s] + " " + after[e:]))
			continue
		}
		break
	}
	var text string
	switch {
	case trimFillers(before) == "":
		text = after
	case after == "":
		text = before
	case isHangul(firstRune(sentence[start:end])):
		text = before + " " + after // Korean markers are adverbs: drop them
	default:
		// An English keyword mid-sentence is part of what to do ("come
		// back to the parser", "defer the rewrite"): keep it.
		text = before + " " + sentence[start:end] + " " + after
	}
	text = trimFillers(text)
	text = trimEdgePunct(text)
	if len(NormalizeFollowup(text)) < 2 {
		return ""
	}
	return text
}

// trimKRParticle drops a Korean particle at the start (after a keyword)
// or the end (before one) of s.
func trimKRParticle(s string, atStart bool) string {
	for _, p := range krParticles {
		if atStart {
			if rest, ok := strings.CutPrefix(s, p); ok && (rest == "" || !isHangul(firstRune(rest))) {
				return strings.TrimSpace(rest)
			}
		} else if rest, ok := strings.CutSuffix(s, p); ok && rest != "" && isHangul(lastRune(rest)) && utf8.RuneCountInString(rest) >= 2 {
			return rest
		}
	}
	return s
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// trimEdgePunct drops punctuation and dashes at both ends.
func trimEdgePunct(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (unicode.IsPunct(r) && r != '(' && r != ')' && r != '`' && r != '"') || r == '—' || r == '–'
	})
}

// trimFillers drops filler words at the start and end of s, repeatedly.
func trimFillers(s string) string {
	for changed := true; changed; {
		changed = false
		s = trimEdgePunct(s)
		lower := strings.ToLower(s)
		for _, f := range enFillers {
			if strings.HasPrefix(lower, f+" ") {
				s, changed = s[len(f)+1:], true
				break
			}
		}
		lower = strings.ToLower(s)
		for _, t := range enTrailers {
			if strings.HasSuffix(lower, " "+t) {
				s, changed = s[:len(s)-len(t)-1], true
				break
			}
		}
		if t := trimKRParticle(s, false); t != s && strings.ContainsRune(s, ' ') {
			// Only a particle on a word of its own phrase ("로그 정리는"),
			// never the last syllable of a one-word item.
			s, changed = t, true
		}
	}
	return strings.TrimSpace(s)
}

// MarkDurable sets Durable on every candidate already in a durable source:
// a mention, open or resolved, at or above the similarity threshold (see
// Similarity) naming the same things (see Identifiers). Matching is
// deliberately no looser than that: a follow-up
// wrongly taken as persisted is lost without a word, while one wrongly
// taken as an orphan only costs a person a Skip. Candidates of a different
// project than a mention do not match it. It returns the orphans.
func MarkDurable(cands []Candidate, mentions []Followup, theta float64) []Candidate {
	if theta <= 0 || theta > 1 {
		theta = DefaultSimilarity
	}
	texts := make([][]rune, 0, len(mentions)+len(cands))
	for _, f := range mentions {
		texts = append(texts, NormalizeFollowup(f.Text))
	}
	// A candidate is compared as a source's item is read: its tag split
	// off, capped at maxFollowupRunes. A --next longer than the cap is
	// journaled whole but read back capped; compared whole (its words and
	// identifiers past the cap), it looked lost.
	candTexts := make([]string, len(cands))
	candTags := make([]string, len(cands))
	for i, c := range cands {
		candTexts[i], candTags[i] = cleanFollowup(c.Text)
		texts = append(texts, NormalizeFollowup(candTexts[i]))
	}
	nm := len(mentions)
	projectOf := func(i int) string {
		if i < nm {
			return strings.ToLower(mentions[i].Project)
		}
		if p := cands[i-nm].Project; p != "" {
			return strings.ToLower(p)
		}
		return strings.ToLower(candTags[i-nm]) // a "(project) …" tag in the text
	}
	compatible := func(i, j int) bool {
		if (i < nm) == (j < nm) {
			return false // a pair must be one mention and one candidate
		}
		a, b := projectOf(i), projectOf(j)
		return a == "" || b == "" || a == b
	}
	match := func(ci, mi int) {
		c := &cands[ci]
		if c.Durable == nil {
			f := mentions[mi]
			c.Durable = &SourceRef{Kind: f.Kind, Path: f.Path, Line: f.Line, Time: f.Time}
			if c.Project == "" {
				c.Project = f.Project
			}
		}
	}
	identOf := func(i int) identifierSet {
		if i < nm {
			return newIdentifierSet(mentions[i].Text)
		}
		return newIdentifierSet(candTexts[i-nm])
	}
	idx := &similarity.Index{Theta: theta, Texts: texts}
	idx.Pairs(compatible, func(i, j int) {
		// "/posts" said in the conversation is not the "/users" a todos.md
		// holds: taken as persisted, it would be lost without a word.
		if identOf(i).agrees(identOf(j)) {
			match(j-nm, i) // i < j: i is the mention
		}
	})
	var orphans []Candidate
	for _, c := range cands {
		if c.Durable == nil {
			orphans = append(orphans, c)
		}
	}
	return orphans
}
