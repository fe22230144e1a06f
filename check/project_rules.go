package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/memory"
)

// projectRules is SCR005: scribe writes CLAUDE.md's "## Project Rules" only
// after a person confirmed (SPEC principle 4), and says so with a
// "Scribe-Confirmed: yes" (or "mcp-elicitation") trailer. Changes made in
// people's own commits are theirs to make.
type projectRules struct{ meta }

// TrailerConfirmed marks a scribe commit that wrote what a person confirmed.
const TrailerConfirmed = "Scribe-Confirmed"

// projectRulesHeading is the section scribe appends project rules to.
const projectRulesHeading = memory.RulesHeading

func newProjectRules() Rule {
	return projectRules{meta{
		id: "SCR005", name: "project-rules-confirmed", severity: SeverityError,
		describe: "a scribe commit that changes CLAUDE.md's \"## Project Rules\" carries \"Scribe-Confirmed: yes\" (people's own commits are not checked)",
	}}
}

func (projectRules) reads() inputs { return readsScribeLog }

func (projectRules) Check(ctx context.Context, in *Input) ([]Finding, error) {
	path := in.Config.Paths.ClaudeMD
	commits, err := in.scribeCommits(ctx)
	if err != nil {
		return nil, err
	}
	var out []Finding
	current, _, err := in.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, c := range commits {
		f, changed := c.File(path)
		trailers := gitops.ParseTrailers(c.Message)
		if _, scribe := trailers[gitops.TrailerMode]; !changed || !scribe || len(c.Parents) > 1 {
			continue
		}
		if memory.ConfirmedValue(trailers[TrailerConfirmed]) {
			continue
		}
		oldText, newText := f.sides()
		if rulesSection(oldText) == rulesSection(newText) {
			continue
		}
		line := sectionLine(string(current))
		out = append(out, Finding{
			File: path, Line: line, Commit: c.SHA,
			Message: fmt.Sprintf("scribe commit %s (%q) changed the %q section without a person's confirmation (no %s: yes trailer)",
				short(c.SHA), shorten(subject(c.Message), 72), "## "+projectRulesHeading, TrailerConfirmed),
			Fix: fmt.Sprintf("review the rules %s added; project rules are written only through git scribe rule after an explicit yes — revert it, or confirm it in a commit of your own", short(c.SHA)),
		})
	}
	return out, nil
}

// rulesSection returns the "## Project Rules" section of a CLAUDE.md: from
// its heading up to the next heading of level 1 or 2; "" when absent. It is
// found exactly as memory finds it (memory.RulesSection), so a fenced
// example of the heading never hides the real section.
func rulesSection(text string) string {
	lines := strings.SplitAfter(text, "\n")
	head, end, ok := memory.RulesSection(lines)
	if !ok {
		return ""
	}
	return strings.Join(lines[head:end], "")
}

// sectionLine is the 1-based line of the Project Rules heading, or 0.
func sectionLine(text string) int {
	head, _, ok := memory.RulesSection(strings.Split(text, "\n"))
	if !ok {
		return 0
	}
	return head + 1
}
