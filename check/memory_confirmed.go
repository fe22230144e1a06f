package check

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/memory"
)

// memoryConfirmed is SCR013: scribe writes memory records — promoted
// memories, the rejection history, MEMORY.md, trap records — only after a
// person's yes (SPEC principle 4), and its commits say so with a
// "Scribe-Confirmed: yes" (or "mcp-elicitation") trailer. People's own
// commits are theirs.
type memoryConfirmed struct{ meta }

func newMemoryConfirmed() Rule {
	return memoryConfirmed{meta{
		id: "SCR013", name: "memory-confirmed", severity: SeverityError,
		describe: "a scribe commit that changes memory_dir or a trap record carries \"Scribe-Confirmed: yes\" (people's own commits are not checked)",
	}}
}

func (memoryConfirmed) reads() inputs { return readsScribeLog }

func (memoryConfirmed) Check(ctx context.Context, in *Input) ([]Finding, error) {
	p := in.Config.Paths
	memDir := strings.TrimSuffix(p.MemoryDir, "/")
	trapDir := strings.TrimSuffix(p.TrapDir, "/")
	// Files wrap owns may share the trap directory; they are not traps.
	notTraps := map[string]bool{p.BridgeNote: true, p.Journal: true, p.JournalArchive: true, p.ActiveStatus: true, p.Progress: true}
	commits, err := in.scribeCommits(ctx)
	if err != nil {
		return nil, err
	}
	var found []Finding
	for _, c := range commits {
		trailers := gitops.ParseTrailers(c.Message)
		if len(c.Parents) > 1 || trailers[gitops.TrailerMode] == "" {
			continue // merges and people's commits
		}
		if memory.ConfirmedValue(trailers[TrailerConfirmed]) {
			continue
		}
		var touched []string
		for _, fp := range c.Files {
			switch f := fp.Path; {
			case strings.HasPrefix(f, memDir+"/"):
				touched = append(touched, f)
			case path.Dir(f) == trapDir && strings.HasSuffix(f, ".md") && !notTraps[f]:
				touched = append(touched, f)
			}
		}
		if len(touched) == 0 {
			continue
		}
		found = append(found, Finding{File: touched[0], Commit: c.SHA,
			Message: fmt.Sprintf("scribe commit %s (%q) wrote %s without a person's confirmation (no %s: yes trailer)",
				short(c.SHA), shorten(subject(c.Message), 72), strings.Join(touched, ", "), TrailerConfirmed),
			Fix: fmt.Sprintf("review what %s wrote; memory is written only through git scribe compound gate / trap propose after an explicit yes — revert it, or keep it in a commit of your own", short(c.SHA))})
	}
	return found, nil
}
