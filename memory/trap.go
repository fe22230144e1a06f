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

// AbstractTrap turns the raw incident into a record in general form: every
// field passes the Abstractor.
func AbstractTrap(in TrapInput, a Abstractor) Trap {
	t := Trap{
		Title:     oneLine(a.Abstract(in.Title)),
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
func (t Trap) Render() string {
	var b strings.Builder
	// A blank line after each heading (markdownlint MD022).
	fmt.Fprintf(&b, "# Trap: %s\n\n## Pattern\n\n%s\n\n## Lesson\n\n%s\n\n## Applies to\n\n%s\n",
		markdown.EscapeText(oneLine(t.Title)), trapSection(t.Pattern), trapSection(t.Lesson), trapSection(t.AppliesTo))
	fmt.Fprintf(&b, "\n<!-- scribe: flavor=%s scope=%s -->\n", t.Flavor, t.Scope)
	return b.String()
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
	var buf []string
	flush := func() {
		if cur != nil {
			*cur = markdown.ReadText(strings.Join(buf, "\n"))
		}
		buf = nil
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := trapMetaRE().FindStringSubmatch(line); m != nil {
			t.Flavor, t.Scope = m[1], m[2]
			continue
		}
		level, title, _ := markdown.Heading(line)
		switch {
		case level == 1 && strings.HasPrefix(title, "Trap:"):
			flush()
			cur = nil
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
		if cur != nil {
			buf = append(buf, line)
		}
	}
	flush()
	ok := seen["title"] && seen["pattern"] && seen["lesson"] && seen["applies"] && t.Title != "" && t.Pattern != ""
	return t, ok
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
