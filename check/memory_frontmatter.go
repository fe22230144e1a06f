package check

import (
	"context"
	"path"
	"strings"

	"github.com/git-scribe/git-scribe/memory"
)

// memoryFrontmatter is SCR012: every promoted memory's frontmatter follows
// the schema agents and the gate rely on (SPEC §6): name, description,
// type, candidate_id, promoted_at, evaluator_score, source_turn, the fields
// of its type, a project_id in global-memory mode, and the directory its
// type routes to.
type memoryFrontmatter struct{ meta }

func newMemoryFrontmatter() Rule {
	return memoryFrontmatter{meta{
		id: "SCR012", name: "memory-frontmatter", severity: SeverityError,
		describe: "memory records carry the frontmatter schema (name, description, type, candidate_id, promoted_at, evaluator_score, source_turn + type fields) and sit in their type's directory",
	}}
}

func (memoryFrontmatter) Check(_ context.Context, in *Input) ([]Finding, error) {
	records, err := in.memoryRecords()
	if err != nil {
		return nil, err
	}
	dir := strings.TrimSuffix(in.Config.Paths.MemoryDir, "/")
	var out []Finding
	for _, r := range records {
		data, ok, err := in.ReadFile(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		kind, _, _ := strings.Cut(strings.TrimPrefix(r, dir+"/"), "/")
		for _, why := range memory.SchemaErrors(data, kind, in.Config.Memory.Global) {
			out = append(out, Finding{File: r, Line: 1, Message: path.Base(r) + ": " + why,
				Fix: "fix the frontmatter (see git scribe compound --help), or promote the memory again through git scribe compound gate"})
		}
	}
	return out, nil
}
