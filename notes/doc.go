// Package notes owns scribe's pure formats: the bridge note handed to the
// next session (and its three-way merge), the append-only journal and its
// archive (Append, MergeJournal), witness verdict lines, progress.md
// checkboxes (ParseProgress, Match, Tick), the wrap dispatch table (Modes,
// Dispatch, Situation), a wrap's input as dispatch artifacts or an agent
// hook's JSON give it, the acceptance check on an agent's bridge prose, the
// names of the files in the vault tree (VaultJournal, BridgeVaultPath, …),
// and the text helpers the other packages share.
//
// Everything here is text in, text out: functions take the current
// contents of a file and return the new contents, and parsers never fail on
// hand-edited input (they are lenient and never panic). They touch no file,
// no git and no clock. Reading and writing vault files is package vault's
// job.
//
// The package must never import gitops or config (nor anything that does),
// dispatch, cmd, cobra, net/http or an LLM client. It enforces two
// invariants of the product by construction: witness isolation (a bridge
// note carries at most a compact PASS|WARN|BLOCK marker, never findings, and
// AcceptBridgeProse rejects agent prose that carries them) and the
// append-only journal (Append never changes the bytes of an existing entry;
// archiving moves entries verbatim). Secret redaction is not done by the
// formats: text is redacted before it reaches them.
package notes
