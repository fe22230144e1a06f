package memory

import (
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/transcript"
)

// Turn is one normalized conversation turn: what intake snapshots and the
// analyzers read.
type Turn struct {
	Index int    `json:"index"` // the turn's index in the transcript
	Role  string `json:"role"`  // user | assistant
	Text  string `json:"text"`
}

// Roles of a Turn.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Keywords are the user_correction keywords (configurable, English and
// Korean); a message starting "No," / "Nope" / "아니," counts as well.
type Keywords struct {
	EN, KR []string
}

func (k Keywords) all() []string { return append(slices.Clone(k.EN), k.KR...) }

var leadingNo = lazyre.New(`(?i)^\s*(no|nope|nah)\s*[,.!—-]|^\s*아니(요|오)?\s*[,.!]`)

// IsCorrection reports whether a user message corrects the agent.
func (k Keywords) IsCorrection(text string) bool {
	if leadingNo().MatchString(text) {
		return true
	}
	_, ok := containsFold(text, k.all())
	return ok
}

// clauseSplit separates clauses for picking the instruction out of a
// correction.
var clauseSplit = lazyre.New(`[.!?。！？;:\n]+|\s[—–-]{1,2}\s|,\s*`)

// filler are words that carry no instruction next to a correction keyword.
var filler = toSet(`again still that's thats that it's its you you're youre this is was are wrong incorrect not correct right
no nope nah said told already totally completely just all again sorry hmm ugh`)

// Instruction extracts what a correction asks for: its clauses minus the
// pure reactions ("No.", "That's wrong again", "또 잘못했네"). It returns
// the whole message when nothing is left.
func (k Keywords) Instruction(text string) string {
	var keep []string
	for _, clause := range clauseSplit().Split(text, -1) {
		clause = strings.TrimSpace(clause)
		if clause == "" || k.isReaction(clause) {
			continue
		}
		keep = append(keep, clause)
	}
	if len(keep) == 0 {
		return oneLine(text)
	}
	out := oneLine(strings.Join(keep, ", "))
	if r, size := utf8.DecodeRuneInString(out); unicode.IsLower(r) && !containsHangul(out) {
		out = string(unicode.ToUpper(r)) + out[size:]
	}
	return out
}

// isReaction reports whether a clause only reacts (a keyword or "no" plus
// filler), carrying no instruction.
func (k Keywords) isReaction(clause string) bool {
	low := strings.ToLower(clause)
	hasMarker := leadingNo().MatchString(clause+",") || normalize(clause) == "no"
	if _, ok := containsFold(low, k.all()); ok {
		hasMarker = true
	}
	if !hasMarker {
		return false
	}
	for _, w := range strings.Fields(normalize(clause)) {
		if filler()[w] {
			continue
		}
		if _, isKW := containsFold(w, k.all()); isKW {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); isHangul(r) && utf8.RuneCountInString(w) < 2 {
			continue
		}
		if len(w) < 3 && !isHangul([]rune(w)[0]) {
			continue
		}
		return false
	}
	return true
}

// CorrectionGroup is one correction the user made, maybe several times.
type CorrectionGroup struct {
	Instruction string `json:"instruction"`
	// Turns are the user turns that asked for it, in order.
	Turns []int `json:"turns"`
	// Texts are those turns' texts; Claims the assistant text each corrected.
	Texts  []string `json:"texts"`
	Claims []string `json:"claims"`
}

// sameInstruction is how alike two corrections must be to count as the
// same correction requested again.
func sameInstruction(a, b string) bool {
	o := Compare(Comparable{Content: a}, Comparable{Content: b})
	return o.Lexical >= 0.5 || o.Shape >= 0.55
}

// Corrections groups the user's corrections in turns: each group is one
// instruction and every turn that asked for it.
func (k Keywords) Corrections(turns []Turn) []CorrectionGroup {
	var groups []CorrectionGroup
	lastAssistant := ""
	for _, t := range turns {
		if t.Role == RoleAssistant {
			lastAssistant = t.Text
			continue
		}
		if t.Role != RoleUser || !k.IsCorrection(t.Text) {
			continue
		}
		ins := k.Instruction(t.Text)
		claim := firstSentence(lastAssistant, 200)
		found := false
		for i := range groups {
			if sameInstruction(groups[i].Instruction, ins) {
				groups[i].Turns = append(groups[i].Turns, t.Index)
				groups[i].Texts = append(groups[i].Texts, t.Text)
				groups[i].Claims = append(groups[i].Claims, claim)
				found = true
				break
			}
		}
		if !found {
			groups = append(groups, CorrectionGroup{Instruction: ins, Turns: []int{t.Index}, Texts: []string{t.Text}, Claims: []string{claim}})
		}
	}
	return groups
}

func firstSentence(text string, n int) string {
	for _, s := range sentences(text) {
		return capRunes(oneLine(s), n)
	}
	return ""
}

// Topic is a subject the user raised in several turns.
type Topic struct {
	Term  string `json:"term"`
	Turns []int  `json:"turns"`
	// Sample is the first user message that raised it.
	Sample string `json:"sample"`
}

// Topics returns the terms (words or two-word phrases) that at least min
// distinct user turns mention, most frequent first; a word is left out when
// a phrase containing it covers the same turns.
func Topics(turns []Turn, min int) []Topic {
	byTerm := map[string][]int{}
	sample := map[string]string{}
	for _, t := range turns {
		if t.Role != RoleUser {
			continue
		}
		ws := words(t.Text)
		seen := map[string]bool{}
		add := func(term string) {
			if seen[term] {
				return
			}
			seen[term] = true
			byTerm[term] = append(byTerm[term], t.Index)
			if _, ok := sample[term]; !ok {
				sample[term] = t.Text
			}
		}
		for i, w := range ws {
			add(w)
			if i+1 < len(ws) {
				add(w + " " + ws[i+1])
			}
		}
	}
	var out []Topic
	for term, ts := range byTerm {
		if len(ts) >= min {
			out = append(out, Topic{Term: term, Turns: ts, Sample: sample[term]})
		}
	}
	// Drop a word when a phrase containing it covers the same turns.
	var kept []Topic
	for _, t := range out {
		sub := false
		for _, u := range out {
			if u.Term != t.Term && strings.Contains(" "+u.Term+" ", " "+t.Term+" ") && len(u.Turns) == len(t.Turns) {
				sub = true
				break
			}
		}
		if !sub {
			kept = append(kept, t)
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		if len(kept[i].Turns) != len(kept[j].Turns) {
			return len(kept[i].Turns) > len(kept[j].Turns)
		}
		if a, b := strings.Count(kept[i].Term, " "), strings.Count(kept[j].Term, " "); a != b {
			return a > b
		}
		return kept[i].Term < kept[j].Term
	})
	return kept
}

// TurnsOf normalizes a transcript for intake: the conversation only (what
// people typed and what the agent answered; tool output, injected context
// and subagent turns left out), each turn keeping its transcript index.
func TurnsOf(t *transcript.Transcript) []Turn {
	var out []Turn
	for _, turn := range t.Conversation() {
		out = append(out, Turn{Index: turn.Index, Role: string(turn.Role), Text: turn.Text})
	}
	return out
}
