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

// NoSecretsID is the id of the rule that scans vault files for secrets.
const NoSecretsID = "SCR008"

func newNoSecrets() Rule {
	return noSecrets{meta{
		id: NoSecretsID, name: "no-secrets", severity: SeverityError,
		describe: "no secret (API keys, tokens, private keys: the rules of the gitleaks scanner) in the journal, archive, bridge note, progress.md, ACTIVE-STATUS.md, trap records or memory files",
	}}
}

func (noSecrets) reads() inputs { return readsVault }

func (noSecrets) rangeFree() {}

func (noSecrets) warm() { secrets.Warm() }

func (noSecrets) Check(ctx context.Context, in *Input) ([]Finding, error) {
	files, err := in.vaultFiles()
	if err != nil {
		return nil, err
	}
	texts := map[string][]byte{}
	for _, f := range files {
		data, ok, err := in.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if ok {
			texts[f] = data
		}
	}
	if in.Vault != "" {
		t, err := in.vaultTree(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range t.paths {
			files = append(files, VaultPrefix+p)
			texts[VaultPrefix+p] = t.files[p]
		}
	}
	var out []Finding
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data := texts[f]
		if len(data) == 0 {
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
