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
// HTTP client.
package gitops
