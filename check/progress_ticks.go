package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/notes"
)

// progressTicks is SCR004: in progress.md scribe only ticks boxes. Every
// scribe commit ("progress:" subject and a Scribe-Mode trailer) may change
// "- [ ] X" into "- [x] X (done <timestamp>)" and nothing else.
type progressTicks struct{ meta }

func newProgressTicks() Rule {
	return progressTicks{meta{
		id: "SCR004", name: "progress-ticks-only", severity: SeverityError,
		describe: "scribe's progress: commits change progress.md only by ticking boxes: \"- [ ] X\" becomes \"- [x] X (done <timestamp>)\"",
	}}
}

var doneStamp = lazyre.New(`\(done [^()]+\)\s*$`)

func (progressTicks) reads() inputs { return readsScribeLog }

func (progressTicks) Check(ctx context.Context, in *Input) ([]Finding, error) {
	path := in.Config.Paths.Progress
	commits, err := in.scribeCommits(ctx)
	if err != nil {
		return nil, err
	}
	current, _, err := in.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, c := range commits {
		f, changed := c.File(path)
		if !changed || !isScribeCommit(c.Message) || len(c.Parents) > 1 {
			continue
		}
		bad, line := "", 0
		switch {
		case f.OldAbsent && !f.NewAbsent:
			bad, line = "created "+path+" (scribe never creates it; a person writes the plan)", 1
		case f.NewAbsent && !f.OldAbsent:
			bad = "deleted " + path
		default:
			for _, h := range changes(f.Hunks) {
				if why := tickOnly(h); why != "" {
					bad, line = why, h.NewStart
					if added := firstAdded(h); added != "" {
						if l := findLine(string(current), added); l > 0 {
							line = l
						}
					}
					break
				}
			}
		}
		if bad == "" {
			continue
		}
		if line < 1 {
			line = 1
		}
		out = append(out, Finding{
			File: path, Line: line, Commit: c.SHA,
			Message: fmt.Sprintf("scribe commit %s (%q) changed %s beyond ticking boxes: %s", short(c.SHA), shorten(subject(c.Message), 72), path, bad),
			Fix:     fmt.Sprintf("scribe only ticks boxes: revert the other changes of %s to %s (a person edits the plan in a commit of their own)", short(c.SHA), path),
		})
	}
	return out, nil
}

// isScribeCommit reports whether a commit message is scribe's own: a
// "progress:" subject and the Scribe-Mode trailer.
func isScribeCommit(msg string) bool {
	if !strings.HasPrefix(msg, "progress:") {
		return false
	}
	_, ok := gitops.ParseTrailers(msg)[gitops.TrailerMode]
	return ok
}

// subject is a commit message's first line.
func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	return s
}

// changes is the zero-context hunks of a whole-file diff.
func changes(hunks []hunk) []hunk {
	var out []hunk
	for _, h := range hunks {
		out = append(out, h.changes()...)
	}
	return out
}

// tickOnly checks one zero-context hunk: its removed lines must be open
// boxes and its added lines the same boxes ticked, pairwise. It returns
// what is wrong, or "".
func tickOnly(h hunk) string {
	var removed, added []string
	for _, l := range h.Lines {
		switch l[0] {
		case '-':
			removed = append(removed, strings.TrimSuffix(l[1:], "\r"))
		case '+':
			added = append(added, strings.TrimSuffix(l[1:], "\r"))
		}
	}
	if len(removed) != len(added) {
		if len(added) > len(removed) {
			return fmt.Sprintf("added %q", shorten(added[len(removed)], 80))
		}
		return fmt.Sprintf("removed %q", shorten(removed[len(added)], 80))
	}
	for i := range removed {
		if !isTick(removed[i], added[i]) {
			return fmt.Sprintf("%q became %q", shorten(removed[i], 60), shorten(added[i], 60))
		}
	}
	return ""
}

// isTick reports whether after is before with its box ticked and a
// "(done …)" annotation: the only edit scribe makes to progress.md.
func isTick(before, after string) bool {
	b, a := notes.ParseProgress(before), notes.ParseProgress(after)
	if len(b) != 1 || len(a) != 1 || b[0].Done || !a[0].Done || a[0].Text != b[0].Text {
		return false
	}
	bi, ai := strings.Index(before, "["), strings.Index(after, "[")
	return before[:bi] == after[:ai] && strings.HasPrefix(after[ai:], "[x]") && doneStamp().MatchString(after)
}

func firstAdded(h hunk) string {
	for _, l := range h.Lines {
		if l[0] == '+' {
			return strings.TrimSuffix(l[1:], "\r")
		}
	}
	return ""
}

// findLine returns the 1-based line of text equal to line, or 0.
func findLine(text, line string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.TrimSuffix(l, "\r") == line {
			return i + 1
		}
	}
	return 0
}
