// Package notes owns the text formats of scribe's vault notes: the bridge
// note handed to the next session, the append-only journal and its archive,
// witness verdict lines, and progress.md checkboxes.
//
// Everything here is pure text in, text out: functions take the current
// contents of a file and return the new contents, and parsers never fail on
// hand-edited input (they are lenient and never panic). Reading and writing
// files, committing, locking and queueing belong to gitops; choosing what to
// write belongs to the commands that call this package.
//
// The package must never touch the filesystem, git, the network or an agent:
// it does not import gitops, dispatch, cmd, cobra, net/http or any LLM client.
// It enforces two invariants of the product by construction: witness
// isolation (a bridge note carries at most a compact PASS|WARN|BLOCK marker,
// never findings) and the append-only journal (Append never changes the bytes
// of an existing entry; archiving moves entries verbatim). Secret redaction
// is not done here: text must be redacted before it reaches this package.
package notes
