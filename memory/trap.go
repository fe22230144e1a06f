package memory

import (
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// Trap scopes.
const (
	ScopeUniversal = "universal"
	// ScopeProject (shared with preferences) is "project".
)

// Trap flavors: how the trap was discovered.
const (
	FlavorVerificationFailure = "verification_failure"
	FlavorSpecGap             = "spec_gap"
)

// Trap is a novel trap (seed 000, "Novel Trap Recording"): a verification
// failure pattern existing discipline did not anticipate.
type Trap struct {
	Title string `json:"title"`
	// Pattern: what went wrong and why it was not caught.
	Pattern string `json:"pattern"`
	// Lesson: what to do differently — the catch-signal.
	Lesson string `json:"lesson"`
	// AppliesTo: when it is likely to recur — the context.
	AppliesTo string `json:"applies_to"`
	Scope     string `json:"scope"`
	Flavor    string `json:"flavor"`
}

// TrapInput is what guard hands over: the raw incident.
type TrapInput struct {
	Title, Pattern, Context, CatchSignal, Scope, Flavor string
}

// ValidateTrapInput reports a missing or unknown field.
func ValidateTrapInput(in TrapInput) error {
	for _, f := range []struct{ flag, val string }{{"--title", in.Title}, {"--pattern", in.Pattern}, {"--context", in.Context}, {"--catch-signal", in.CatchSignal}} {
		if strings.TrimSpace(f.val) == "" {
			return fmt.Errorf("%s is required: a trap records its title, pattern, context and catch-signal", f.flag)
		}
	}
	if in.Scope != "" && in.Scope != ScopeProject && in.Scope != ScopeUniversal {
		return fmt.Errorf("--scope %q: use project or universal", in.Scope)
	}
	if in.Flavor != "" && in.Flavor != FlavorVerificationFailure && in.Flavor != FlavorSpecGap {
		return fmt.Errorf("--flavor %q: use verification_failure or spec_gap", in.Flavor)
	}
	return nil
}

// titleWithoutStop drops the punctuation a title may end in (a sentence's
// full stop): the title is the record's heading, and markdownlint's MD026
// refuses a heading that ends in it.
func titleWithoutStop(t string) string {
	return strings.TrimRight(t, ".,;:!。，；：！ ")
}

// AbstractTrap turns the raw incident into a record in general form: every
// field passes the Abstractor.
func AbstractTrap(in TrapInput, a Abstractor) Trap {
	t := Trap{
		Title:     titleWithoutStop(oneLine(a.Abstract(in.Title))),
		Pattern:   markdown.CanonicalText(a.Abstract(in.Pattern)),
		Lesson:    markdown.CanonicalText(a.Abstract(in.CatchSignal)),
		AppliesTo: markdown.CanonicalText(a.Abstract(in.Context)),
		Scope:     in.Scope,
		Flavor:    in.Flavor,
	}
	if t.Scope == "" {
		t.Scope = ScopeProject
	}
	if t.Flavor == "" {
		t.Flavor = FlavorVerificationFailure
	}
	return t
}

// Render writes the seed's record format. A record is a person's file, so
// it lints clean without any markdownlint configuration: the title and
// sections are escaped (markdown.EscapeText: a bare URL an autolink, a "<"
// escaped) and the sections' prose is wrapped at 80 columns
// (markdown.FormatText). ParseTrap reads it back: ParseTrap(t.Render())
// gives t for a Trap whose sections are in markdown.CanonicalText form, as
// AbstractTrap and ParseTrap make them.
//
// A heading cannot wrap (MD013 measures it too), so a title too long for
// "# Trap: " and 80 columns is cut at a word boundary in the heading, with
// "…", and the whole title follows as the record's first paragraph
// (escaped and wrapped, markdown.EscapeItem and markdown.Wrap), where
// ParseTrap takes it from.
func (t Trap) Render() string {
	var b strings.Builder
	title := oneLine(t.Title)
	head, capped := trapHeading(title)
	b.WriteString("# " + trapPrefix + head + "\n\n")
	if capped {
		b.WriteString(strings.Join(markdown.Wrap(markdown.EscapeItem(title), markdown.Width, "", ""), "\n") + "\n\n")
	}
	// A blank line after each heading (markdownlint MD022).
	fmt.Fprintf(&b, "## Pattern\n\n%s\n\n## Lesson\n\n%s\n\n## Applies to\n\n%s\n",
		trapSection(t.Pattern), trapSection(t.Lesson), trapSection(t.AppliesTo))
	fmt.Fprintf(&b, "\n<!-- scribe: flavor=%s scope=%s -->\n", t.Flavor, t.Scope)
	return b.String()
}

// trapPrefix starts a record's heading, after the "# ".
const trapPrefix = "Trap: "

// trapHeading is a title as the record's heading shows it, escaped
// (markdown.EscapeText): whole when "# Trap: " and it fit in
// markdown.Width columns, else cut after the last word that fits, with
// "…" (capped is true). A first word too long alone is cut where it must.
func trapHeading(title string) (head string, capped bool) {
	room := markdown.Width - markdown.Columns("# "+trapPrefix)
	if e := markdown.EscapeText(title); markdown.Columns(e) <= room {
		return e, false
	}
	room -= markdown.Columns("…")
	fits := func(s string) bool { return markdown.Columns(markdown.EscapeText(s)) <= room }
	cut := ""
	for _, w := range strings.Fields(title) {
		next := w
		if cut != "" {
			next = cut + " " + w
		}
		if !fits(next) {
			break
		}
		cut = next
	}
	if cut == "" { // one long word (a URL, say): cut inside it
		r := []rune(title)
		n := 0
		for n < len(r) && fits(string(r[:n+1])) {
			n++
		}
		cut = string(r[:n])
	}
	return markdown.EscapeText(strings.TrimRight(cut, " ,;:")) + "…", true
}

// trapSection is a section's text as the record holds it.
func trapSection(text string) string {
	return markdown.FormatText(markdown.CanonicalText(text), markdown.Width)
}

var trapMetaRE = lazyre.New(`^\s*<!--\s*scribe:\s*flavor=(\S+)\s+scope=(\S+)\s*-->`)

// ParseTrap reads a record back (after a person edited it); ok is false
// when the title or a section is missing. A section's wrapped lines are
// joined and its escapes undone (markdown.ReadText), so a record scribe
// wrote reads exactly as the Trap it was rendered from.
func ParseTrap(text string) (Trap, bool) {
	var t Trap
	var cur *string
	var buf, intro []string
	flush := func() {
		if cur != nil {
			*cur = markdown.ReadText(strings.Join(buf, "\n"))
		}
		buf = nil
	}
	inIntro := false // between the title heading and the first section
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := trapMetaRE().FindStringSubmatch(line); m != nil {
			t.Flavor, t.Scope = m[1], m[2]
			continue
		}
		level, title, _ := markdown.Heading(line)
		if level > 0 {
			inIntro = false
		}
		switch {
		case level == 1 && strings.HasPrefix(title, "Trap:"):
			flush()
			cur, inIntro, intro = nil, true, nil
			t.Title = markdown.UnescapeText(strings.TrimSpace(strings.TrimPrefix(title, "Trap:")))
			seen["title"] = true
			continue
		case level == 2 && strings.EqualFold(title, "Pattern"):
			flush()
			cur, seen["pattern"] = &t.Pattern, true
			continue
		case level == 2 && strings.EqualFold(title, "Lesson"):
			flush()
			cur, seen["lesson"] = &t.Lesson, true
			continue
		case level == 2 && strings.EqualFold(title, "Applies to"):
			flush()
			cur, seen["applies"] = &t.AppliesTo, true
			continue
		}
		if inIntro {
			intro = append(intro, line)
		}
		if cur != nil {
			buf = append(buf, line)
		}
	}
	flush()
	t.Title = fullTitle(t.Title, intro)
	ok := seen["title"] && seen["pattern"] && seen["lesson"] && seen["applies"] && t.Title != "" && t.Pattern != ""
	return t, ok
}

// fullTitle is the title a record holds: its heading's, or, when the
// heading's ends with "…" (Render cut it), the paragraph right under the
// heading that starts with it (Render's whole title; a person's text there
// that does not is not the title).
func fullTitle(head string, intro []string) string {
	cut, capped := strings.CutSuffix(head, "…")
	if !capped {
		return head
	}
	for _, l := range markdown.Unwrap(intro) {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if whole := markdown.UnescapeItem(l); strings.HasPrefix(whole, cut) {
			return whole
		}
		break
	}
	return head
}

// Slug is the record's file-name stem.
func (t Trap) Slug() string {
	if s := Slug(t.Title); s != "" {
		return s
	}
	return "trap-" + hashID(t.Title)[:8]
}

// FileName is the record's file name in its directory: <slug>.md for a
// project trap, trap_<slug>.md for a universal one.
func (t Trap) FileName(suffix string) string {
	stem := t.Slug()
	if suffix != "" {
		stem += "-" + suffix
	}
	if t.Scope == ScopeUniversal {
		return "trap_" + stem + ".md"
	}
	return stem + ".md"
}

// Issue is the GitHub issue a trap is shared as: exactly what is sent.
type Issue struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// IssueFor is the feedback issue of a trap (seed 000): its title and the
// abstracted pattern — no conversation content, no personal data.
func IssueFor(t Trap) Issue {
	via := "verification failure"
	if t.Flavor == FlavorSpecGap {
		via = "spec gap"
	}
	return Issue{
		Title: "Trap: " + oneLine(t.Title),
		Body:  "Pattern: " + strings.TrimSpace(t.Pattern) + "\n\nDiscovered via: " + via + "\n",
	}
}

// Render shows the issue exactly as it will be sent.
func (is Issue) Render() string {
	return "Title: " + is.Title + "\n" + is.Body
}

// ParseIssue reads an edited issue back: the first "Title: " line is the
// title, everything after it the body.
func ParseIssue(text string) (Issue, bool) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	first, rest, _ := strings.Cut(text, "\n")
	title, ok := strings.CutPrefix(strings.TrimSpace(first), "Title:")
	title = strings.TrimSpace(title)
	if !ok || title == "" || strings.TrimSpace(rest) == "" {
		return Issue{}, false
	}
	return Issue{Title: title, Body: strings.TrimLeft(rest, "\n")}, true
}
