// Package dispatch is the only part of git-scribe that talks to agents. It
// owns the runners (fake, openai, claude, codex) behind one Generate
// interface, the routing of skills to runners (flags > SCRIBE_DISPATCH_* >
// the user config's dispatch: section), the vault model (cards, contracts,
// frozen context packs, derived state computed from files only), and the
// plan / run / watch loop that lands drafts and reviews.
//
// Hard lines it keeps, whatever an agent replies:
//
//   - It never ratifies: no write to the inbox, a tick or a "## Ratified
//     facts" ledger (watch only invokes the engine's own `ratify --mine`).
//   - It never edits: artifacts are new files under the drafts dir and
//     reviews/<lane>/, with frontmatter it writes itself (the agent supplies
//     only the body); an existing file is never rewritten.
//   - It never iterates on itself: one dispatch per card per state;
//     idempotency is artifact existence, so a second run dispatches nothing.
//   - Agents read frozen packs only, and each artifact's pack_sha is the
//     sha256 of the pack bytes actually read, verified before landing.
//
// Every write goes through gitops' commit transaction, one commit per pass;
// agent output is scanned for secrets before it lands. Child processes get
// GIT_SCRIBE_ACTIVE=1, run in their own process group and are killed with it
// on cancel; API keys come from the environment only and are never logged.
package dispatch
