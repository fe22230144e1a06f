package memory

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// RulesHeading is the CLAUDE.md section project rules go under.
const RulesHeading = "Project Rules"

// CleanRule is the form a rule is written in: one line, without a list
// marker, at most 300 characters.
func CleanRule(rule string) string {
	rule = oneLine(rule)
	for _, p := range []string{"- ", "* ", "+ "} {
		rule = strings.TrimPrefix(rule, p)
	}
	return capRunes(strings.TrimSpace(rule), 300)
}

// RulesSection finds the "## Project Rules" section of CLAUDE.md's lines:
// the index of its heading line and of the first line after it. It is the
// one finder memory and check share (markdown.Section: headings in fenced
// code are skipped). ok is false when there is none.
func RulesSection(lines []string) (head, end int, ok bool) {
	return markdown.Section(lines, 2, RulesHeading)
}

// Rules lists the rules under "## Project Rules": its bullet items, each
// read back whole (markdown.Unwrap: a rule scribe wrapped at 80 columns,
// or a person's wrapped by hand, is one rule) and unescaped
// (markdown.UnescapeItem), so a rule reads exactly as it was added.
// Bullets in fenced code are examples, not rules.
func Rules(claudeMD string) []string {
	lines := strings.Split(claudeMD, "\n")
	head, end, ok := RulesSection(lines)
	if !ok {
		return nil
	}
	section := make([]string, 0, end-head-1)
	for _, l := range lines[head+1 : end] {
		section = append(section, strings.TrimSuffix(l, "\r"))
	}
	var out []string
	var fences markdown.Fences
	for _, l := range markdown.Unwrap(section) {
		t := strings.TrimSpace(l)
		if fences.Skip(t) {
			continue
		}
		for _, p := range []string{"- ", "* ", "+ "} {
			if rest, ok := strings.CutPrefix(t, p); ok {
				out = append(out, markdown.UnescapeItem(strings.TrimSpace(rest)))
				break
			}
		}
	}
	return out
}

// HasRule reports whether CLAUDE.md already states rule (compared
// normalized).
func HasRule(claudeMD, rule string) bool {
	want := normalize(CleanRule(rule))
	for _, r := range Rules(claudeMD) {
		if normalize(r) == want {
			return true
		}
	}
	return false
}

// NewInstructions is what an instructions file (CLAUDE.md, AGENTS.md)
// scribe creates from scratch starts with: an H1 naming the file, as
// markdownlint (MD041) and Claude Code's own /init want.
func NewInstructions(p string) string {
	return "# " + path.Base(p) + "\n\n"
}

// AddRule returns CLAUDE.md with "- rule" appended to its "## Project
// Rules" section (after the section's last non-blank line), creating the
// section at the end when it is missing. Every other byte stays as it was.
// The item is markdown that lints clean: escaped (markdown.EscapeItem: a
// bare URL an autolink, a "<" escaped, a "# …" rule no heading) and
// wrapped at 80 columns, its continuation lines indented under its text;
// Rules reads it back as rule.
// changed is false when the rule is already there.
func AddRule(claudeMD, rule string) (out string, changed bool) {
	rule = CleanRule(rule)
	if rule == "" || HasRule(claudeMD, rule) {
		return claudeMD, false
	}
	eol := "\n"
	if strings.Contains(claudeMD, "\r\n") {
		eol = "\r\n"
	}
	itemLines := ruleItem(rule)
	item := strings.Join(itemLines, eol)
	lines := strings.Split(claudeMD, "\n")
	head, end, ok := RulesSection(lines)
	if !ok {
		var b strings.Builder
		b.WriteString(claudeMD)
		switch {
		case claudeMD == "":
		case strings.HasSuffix(claudeMD, eol+eol) || claudeMD == eol:
		case strings.HasSuffix(claudeMD, "\n"):
			b.WriteString(eol)
		default:
			b.WriteString(eol + eol)
		}
		b.WriteString("## " + RulesHeading + eol + eol + item + eol)
		return b.String(), true
	}
	last := head
	for i := head + 1; i < end; i++ {
		if strings.TrimSpace(lines[i]) != "" {
			last = i
		}
	}
	if last == len(lines)-1 {
		// The section's last line ends the file without a newline.
		if last == head {
			return claudeMD + eol + eol + item + eol, true
		}
		return claudeMD + eol + item + eol, true
	}
	cr := strings.TrimSuffix(eol, "\n")
	var insert []string
	if last == head {
		insert = append(insert, cr) // a blank line after the heading
	}
	for _, l := range itemLines {
		insert = append(insert, l+cr)
	}
	next := append(append(append([]string{}, lines[:last+1]...), insert...), lines[last+1:]...)
	return strings.Join(next, "\n"), true
}

// ruleItem is the list item AddRule writes for a rule (CleanRule's form),
// line by line: "- " and the rule, escaped and wrapped at markdown.Width
// columns, continuation lines indented by two spaces.
func ruleItem(rule string) []string {
	return markdown.Wrap(markdown.EscapeItem(rule), markdown.Width, "- ", "  ")
}

// RuleSignal is a project rule found in a transcript.
type RuleSignal struct {
	Rule string `json:"rule"`
	// Kind is "direct" (a statement) or "repeated_correction".
	Kind  string `json:"kind"`
	Turns []int  `json:"turns"`
	Count int    `json:"count"`
	Quote string `json:"quote"`
}

// Signal kinds.
const (
	SignalDirect     = "direct"
	SignalCorrection = "repeated_correction"
)

var (
	directEN      = lazyre.New(`(?i)\b(?:in|for|across) this (?:project|repo|repository|codebase|code base)\b\s*[,:]?\s*(?:,\s*)?(.+)`)
	directENAfter = lazyre.New(`(?i)\b((?:we\s+)?(?:always|never)\b.+?)\s+(?:in|for|across) this (?:project|repo|repository|codebase)\b`)
	directKR      = lazyre.New(`이\s*(?:프로젝트|저장소|레포|리포|코드베이스)(?:에서|에선)?(?:는|도)?\s*[,:]?\s*(.+)`)
	krImperative  = lazyre.New(`(해|해요|해라|해줘|해 줘|하세요|합니다|한다|할 것|써|써요|써라|쓴다|씁니다|마|마라|말 것|말자|하자|지킨다|돼|된다|안 된다|안 돼)[.!。]?$`)
)

// DirectRule extracts a direct project-rule statement from a user message
// ("in this project always X", "이 프로젝트에서는 항상 X"); "" when there is
// none.
func DirectRule(text string) string {
	for _, s := range sentences(text) {
		var rule string
		if m := directENAfter().FindStringSubmatch(s); m != nil {
			rule = m[1]
		} else if m := directEN().FindStringSubmatch(s); m != nil {
			rule = m[1]
		} else if m := directKR().FindStringSubmatch(s); m != nil {
			rule = m[1]
			if polarity(rule) == 0 && !krImperative().MatchString(strings.TrimSpace(rule)) {
				continue
			}
		} else {
			continue
		}
		rule = strings.TrimSpace(strings.TrimLeft(rule, ",: "))
		if polarity(rule) == 0 && !strings.HasPrefix(strings.ToLower(rule), "we ") && !containsHangul(rule) {
			continue
		}
		rule = strings.TrimRight(rule, " ")
		if r, size := utf8.DecodeRuneInString(rule); unicode.IsLower(r) && !containsHangul(rule) {
			rule = string(unicode.ToUpper(r)) + rule[size:]
		}
		if !strings.HasSuffix(rule, ".") && !strings.HasSuffix(rule, "!") && !strings.HasSuffix(rule, "。") && !containsHangul(rule) {
			rule += "."
		}
		return CleanRule(rule)
	}
	return ""
}

func containsHangul(s string) bool {
	for _, r := range s {
		if isHangul(r) {
			return true
		}
	}
	return false
}

// DetectRules finds project-rule signals in a conversation: direct
// statements, and the same correction requested in two or more user turns.
// Each rule is reported once (a later mention adds its turn).
func DetectRules(turns []Turn, k Keywords) []RuleSignal {
	var out []RuleSignal
	add := func(sig RuleSignal) {
		for i := range out {
			if normalize(out[i].Rule) == normalize(sig.Rule) || sameInstruction(out[i].Rule, sig.Rule) {
				out[i].Turns = append(out[i].Turns, sig.Turns...)
				out[i].Count = len(out[i].Turns)
				return
			}
		}
		out = append(out, sig)
	}
	for _, t := range turns {
		if t.Role != RoleUser {
			continue
		}
		if r := DirectRule(t.Text); r != "" {
			add(RuleSignal{Rule: r, Kind: SignalDirect, Turns: []int{t.Index}, Count: 1, Quote: capRunes(oneLine(t.Text), 200)})
		}
	}
	for _, g := range k.Corrections(turns) {
		if len(g.Turns) < 2 {
			continue
		}
		rule := g.Instruction
		if !containsHangul(rule) && !strings.HasSuffix(rule, ".") && !strings.HasSuffix(rule, "!") {
			rule += "."
		}
		add(RuleSignal{Rule: CleanRule(rule), Kind: SignalCorrection, Turns: g.Turns, Count: len(g.Turns), Quote: capRunes(oneLine(g.Texts[len(g.Texts)-1]), 200)})
	}
	return out
}
