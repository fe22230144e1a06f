package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
)

// followupTags is SCR011: every follow-up in a journal entry's "### Next"
// names its project as "(project) item", so ACTIVE-STATUS can route it;
// an untagged one is tracked nowhere.
type followupTags struct{ meta }

func newFollowupTags() Rule {
	return followupTags{meta{
		id: "SCR011", name: "followup-tags", severity: SeverityWarning,
		describe: "journal \"### Next\" follow-ups start with a \"(project)\" tag",
	}}
}

var projectTag = lazyre.New(`^\([^()\s][^()]*\)\s+\S`)

func (followupTags) Check(ctx context.Context, in *Input) ([]Finding, error) {
	path, data, ok, err := in.Record(ctx, notes.VaultJournal, in.Config.Paths.Journal)
	if err != nil || !ok {
		return nil, err
	}
	var out []Finding
	inNext := false
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSuffix(raw, "\r")
		if level, title, _ := markdown.Heading(line); level > 0 {
			inNext = level >= 3 && strings.EqualFold(title, "next")
			continue
		}
		if !inNext {
			continue
		}
		t := strings.TrimSpace(line)
		if len(t) < 2 || !strings.ContainsRune("-*+", rune(t[0])) || (t[1] != ' ' && t[1] != '\t') {
			continue
		}
		item := strings.TrimSpace(t[2:])
		item = strings.TrimPrefix(strings.TrimPrefix(item, "[ ] "), "[x] ")
		if item == "" || projectTag().MatchString(item) {
			continue
		}
		out = append(out, Finding{File: path, Line: i + 1,
			Message: fmt.Sprintf("follow-up %q has no (project) tag, so nothing tracks it", shorten(item, 80)),
			Fix:     "the entry is append-only: record it again, tagged, in the next entry (git scribe wrap --next \"(project) item\")"})
	}
	return out, nil
}
