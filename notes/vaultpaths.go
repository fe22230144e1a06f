package notes

import (
	"strings"
)

// The files of the vault tree on refs/scribe/vault (SPEC section 2).
const (
	VaultJournal      = "journal.md"
	VaultArchive      = "journal-archive.md"
	VaultActiveStatus = "ACTIVE-STATUS.md"
	VaultBridgeDir    = "bridge"
	VaultSessionsDir  = "sessions"
)

// BridgeVaultPath is the vault path of a branch's bridge note
// (refs/heads/feature/x → bridge/feature/x.md); a detached HEAD has
// bridge/HEAD.md (git refuses a branch named HEAD).
func BridgeVaultPath(branchRef string) string {
	name := strings.TrimPrefix(branchRef, "refs/heads/")
	if name == "" {
		name = "HEAD"
	}
	return VaultBridgeDir + "/" + name + ".md"
}

// BranchOfBridgePath is BridgeVaultPath's inverse: the branch name, ok
// false for a path outside bridge/.
func BranchOfBridgePath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, VaultBridgeDir+"/")
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, ".md")
	return name, ok && name != ""
}
