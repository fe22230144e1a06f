// Package vault owns the effectful orchestration on refs/scribe/vault,
// scribe's own history: the Vault type, wrap (plan, Wrap, Queue), landing
// the queue of deferred writes (Drain, Landers), ACTIVE-STATUS.md writes,
// the git-ignored working-tree view and the one-time migration of a vault
// kept on the branch (RenderView, Migrate), routing conversation follow-ups
// into project files and the journal, the reads commands show (Bridge,
// Progress), progress ticks (ProgressDone), Sync with a remote, and the
// agent prose hook (ProseWriter, QueueBridgeProse).
//
// It composes the pure packages (notes, followups) with gitops, which it
// writes through for every commit, lock and queued write: it runs no git
// itself, and the only files it writes directly are the working-tree view
// and its bookkeeping, and the follow-up cache, under the git dir. It must never import dispatch, cmd,
// cobra, net/http or an LLM client: where it needs an agent (prose) or a
// person (routing decisions) it declares an interface or a function type
// (ProseWriter, Asker) and cmd plugs one in.
package vault
