// Package gitops is the only package that talks to git: repository discovery,
// reads (changed files, diffstats, blobs, history), the scribe commit
// transaction, ref locks under refs/scribe/locks/, and the durable queue of
// deferred writes under $GIT_COMMON_DIR/scribe/.
//
// Every write goes through git's own plumbing (hash-object, a temporary index,
// write-tree, commit-tree, update-ref compare-and-swap). go-git is used only for
// in-process object reads where it measured faster, with plumbing as the
// fallback when go-git cannot open the repository. gitops must never touch the
// user's index entries, worktree files or refs other than the scribe-owned paths
// and refs it was asked to write, and never imports dispatch, cmd, cobra or an
// HTTP client. A scribe-owned path outside a sparse checkout is written into
// the index alone, skip-worktree kept (sparse.go): a branch write never
// materialises what the person's checkout leaves out.
//
// Remote operations (remote.go, remotelock.go, sync.go) run the git CLI, so
// every transport and credential helper git knows works. Sync is the one
// place that moves the user's branch past their own commits, and only as
// `git pull --rebase` would, when asked: local commits are replayed in the
// object store (replay.go), and the branch and work tree move afterwards by
// compare-and-swap and git's two-tree checkout, which refuses before touching
// any file with uncommitted edits.
package gitops
