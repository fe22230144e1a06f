package check

import (
	"context"
	"fmt"

	"github.com/git-scribe/git-scribe/secrets"
)

// noSecrets is SCR008: no secret reaches a vault file (SPEC principle 10).
// Every vault file is scanned with the same gitleaks rules scribe redacts
// with before it writes.
type noSecrets struct{ meta }

func newNoSecrets() Rule {
	return noSecrets{meta{
		id: "SCR008", name: "no-secrets", severity: SeverityError,
		describe: "no secret (gitleaks' default rules) in the journal, archive, bridge note, progress.md, ACTIVE-STATUS.md, trap records or memory files",
	}}
}

func (noSecrets) Check(ctx context.Context, in *Input) ([]Finding, error) {
	files, err := in.vaultFiles()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, ok, err := in.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !ok || len(data) == 0 {
			continue
		}
		_, found := secrets.Redact(string(data))
		for _, s := range found {
			out = append(out, Finding{
				File: f, Line: s.Line,
				Message: fmt.Sprintf("possible secret (gitleaks rule %s) in %s", s.RuleID, f),
				Fix:     "remove it from the file and rotate it: once committed, treat it as leaked (scribe redacts what it writes; this came in another way)",
			})
		}
	}
	return out, nil
}
