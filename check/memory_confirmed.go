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

func (memoryConfirmed) Check(ctx context.Context, in *Input) ([]Finding, error) {
	rng := in.RevRange()
	if rng == "" {
		return nil, nil
	}
	p := in.Config.Paths
	memDir := strings.TrimSuffix(p.MemoryDir, "/")
	trapDir := strings.TrimSuffix(p.TrapDir, "/")
	// Files wrap owns may share the trap directory; they are not traps.
	notTraps := map[string]bool{p.BridgeNote: true, p.Journal: true, p.JournalArchive: true, p.ActiveStatus: true, p.Progress: true}
	args := append([]string{"log", "-z", "--name-only"}, logSafety()...)
	args = append(args, "--format=%x1e%H %P%x1f%B%x1f", "--grep=^"+gitops.TrailerMode+": ", rng, "--", memDir, trapDir)
	out, err := in.Repo.Git(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s and %s: %w", memDir, trapDir, err)
	}
	var found []Finding
	for _, rec := range strings.Split(string(out), "\x1e") {
		header, rest, ok := strings.Cut(rec, "\x1f")
		if !ok {
			continue
		}
		ids := strings.Fields(header)
		body, files, _ := strings.Cut(rest, "\x1f")
		trailers := gitops.ParseTrailers(body)
		if len(ids) == 0 || len(ids) > 2 || trailers[gitops.TrailerMode] == "" {
			continue // merges and people's commits
		}
		if memory.ConfirmedValue(trailers[TrailerConfirmed]) {
			continue
		}
		var touched []string
		for _, f := range strings.FieldsFunc(files, func(r rune) bool { return r == 0 || r == '\n' }) {
			switch {
			case strings.HasPrefix(f, memDir+"/"):
				touched = append(touched, f)
			case path.Dir(f) == trapDir && strings.HasSuffix(f, ".md") && !notTraps[f]:
				touched = append(touched, f)
			}
		}
		if len(touched) == 0 {
			continue
		}
		found = append(found, Finding{File: touched[0], Commit: ids[0],
			Message: fmt.Sprintf("scribe commit %s (%q) wrote %s without a person's confirmation (no %s: yes trailer)",
				short(ids[0]), shorten(subject(body), 72), strings.Join(touched, ", "), TrailerConfirmed),
			Fix: fmt.Sprintf("review what %s wrote; memory is written only through git scribe compound gate / trap propose after an explicit yes — revert it, or keep it in a commit of your own", short(ids[0]))})
	}
	return found, nil
}
