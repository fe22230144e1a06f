package transcript

import (
	"strings"
)

// textMarkers are the speaker labels of a plain-text transcript, matched
// case-insensitively at the start of a line and followed by a colon.
var textMarkers = []struct {
	label string
	role  Role
}{
	{"user", RoleUser},
	{"human", RoleUser},
	{"you", RoleUser},
	{"사용자", RoleUser},
	{"assistant", RoleAssistant},
	{"claude", RoleAssistant},
	{"ai", RoleAssistant},
	{"어시스턴트", RoleAssistant},
}

type textParser struct {
	sawMarker bool
	preamble  []string // lines before the first marker
	nonBlank  int      // non-blank lines in preamble
	cur       *Turn
	curLines  []string
}

func (p *textParser) line(t *Transcript, line []byte, blank bool) {
	s := strings.ToValidUTF8(string(line), "\uFFFD")
	if !blank {
		if role, rest, ok := textMarker(s); ok {
			if !p.sawMarker {
				p.sawMarker = true
				t.Stats.Ignored += p.nonBlank
				p.preamble, p.nonBlank = nil, 0
			}
			p.flush(t)
			p.cur = &Turn{Role: role}
			p.curLines = append(p.curLines[:0], rest)
			return
		}
	}
	if p.cur != nil {
		p.curLines = append(p.curLines, s)
		return
	}
	p.preamble = append(p.preamble, s)
	if !blank {
		p.nonBlank++
	}
}

func (p *textParser) flush(t *Transcript) {
	if p.cur == nil {
		return
	}
	turn := *p.cur
	turn.Text = strings.TrimSpace(strings.Join(p.curLines, "\n"))
	if turn.Text != "" {
		turn.Blocks = []Block{{Kind: KindText, Text: turn.Text}}
	}
	t.Turns = append(t.Turns, turn)
	p.cur, p.curLines = nil, p.curLines[:0]
}

func (p *textParser) finish(t *Transcript) {
	p.flush(t)
	if p.sawMarker || p.nonBlank == 0 {
		return
	}
	text := strings.TrimSpace(strings.Join(p.preamble, "\n"))
	t.Turns = append(t.Turns, Turn{Role: RoleUser, Text: text, Blocks: []Block{{Kind: KindText, Text: text}}})
}

// textMarker recognises a speaker label: optional indentation and markdown
// "#", "*", "_" decoration, the label, optional closing "*"/"_", then ":" or
// "：". rest is the text after the colon.
func textMarker(line string) (role Role, rest string, ok bool) {
	s := strings.TrimLeft(line, " \t#*_")
	for _, m := range textMarkers {
		if len(s) < len(m.label) || !strings.EqualFold(s[:len(m.label)], m.label) {
			continue
		}
		r := strings.TrimLeft(s[len(m.label):], "*_ ")
		switch {
		case strings.HasPrefix(r, ":"):
			r = r[1:]
		case strings.HasPrefix(r, "："):
			r = r[len("："):]
		default:
			continue
		}
		return m.role, strings.TrimSpace(strings.TrimLeft(r, "*_")), true
	}
	return "", "", false
}
