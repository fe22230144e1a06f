// Package notes owns scribe's vault notes: the bridge note handed to the next
// session, the append-only journal and its archive, witness verdict lines,
// progress.md checkboxes, the follow-up dashboard ACTIVE-STATUS.md (rebuilt
// from durable sources only, never from itself), conversation follow-ups and
// their routing, and the wrap that writes them.
//
// The formats (bridge.go, journal.go, witness.go, progress.go, text.go,
// followups.go, similarity.go, extract.go) are
// pure text in, text out: functions take the current contents of a file and
// return the new contents, and parsers never fail on hand-edited input (they
// are lenient and never panic). They touch no file, no git and no clock.
// Reading vault files and writing them (commits, locks, the queue of
// deferred writes) is the Vault type's job, which writes only through gitops.
//
// The package must never import dispatch, cmd, cobra, net/http or an LLM
// client: where it needs prose from an agent it declares an interface. It
// enforces two invariants of the product by construction: witness isolation
// (a bridge note carries at most a compact PASS|WARN|BLOCK marker, never
// findings) and the append-only journal (Append never changes the bytes of
// an existing entry; archiving moves entries verbatim). Secret redaction is
// not done by the formats: text is redacted before it reaches them.
package notes
