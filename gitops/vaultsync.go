package gitops

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// SyncLock is the lock a sync holds, locally and on the remote.
const SyncLock = "sync"

// RemoteVaultRef is where remote's refs/scribe/vault is tracked locally.
func RemoteVaultRef(remote string) string { return RemoteScribePrefix + remote + "/vault" }

// FetchScribe fetches remote's refs/scribe/* into
// refs/scribe/remotes/<remote>/ (never over a local ref) and returns the
// remote's vault tip, "" when the remote has no vault yet. Nothing but
// scribe refs is fetched.
func (r *Repo) FetchScribe(ctx context.Context, remote string) (string, error) {
	if err := r.fetch(ctx, remote, ScribeFetchRefspec(remote)); err != nil {
		return "", err
	}
	return r.resolveRef(ctx, RemoteVaultRef(remote))
}

// RemoteHasScribe reports whether remote has any refs/scribe/* ref.
func (r *Repo) RemoteHasScribe(ctx context.Context, remote string) (bool, error) {
	out, err := r.Git(ctx, "ls-remote", remote, ScribeRefPrefix+"*")
	if err != nil {
		return false, &UnreachableError{Remote: remote, Err: err}
	}
	return strings.TrimSpace(string(out)) != "", nil
}

// PushVault publishes local commit as remote's refs/scribe/vault, only
// while the remote's vault is still expect ("" = must not exist yet): the
// remote's compare-and-swap (--force-with-lease). It pushes that one ref
// and never a branch. A lost race is a *RejectedError.
func (r *Repo) PushVault(ctx context.Context, remote, commit, expect string) error {
	_, err := r.push(ctx, remote, "--force-with-lease="+VaultRef+":"+expect, remote, commit+":"+VaultRef)
	if err != nil {
		return err
	}
	// Track what the remote now holds, as a fetch would have.
	r.Git(ctx, "update-ref", "-m", "scribe: pushed vault", RemoteVaultRef(remote), commit)
	return nil
}

// MergeBase returns the best common ancestor of a and b, "" when none.
func (r *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	out, err := r.Git(ctx, "merge-base", a, b)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", fmt.Errorf("merge-base %s %s: %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// SetVault moves refs/scribe/vault from old ("" = absent) to commit by
// compare-and-swap (a fast-forward to a fetched vault).
func (r *Repo) SetVault(ctx context.Context, commit, old string) error {
	if _, err := r.Git(ctx, "update-ref", "-m", "scribe: vault fast-forward", VaultRef, commit, old); err != nil {
		return fmt.Errorf("move %s to %s: %w", VaultRef, shortOID(commit), err)
	}
	return nil
}

func shortOID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// IsRejected reports a push the remote refused (a lost lease).
func IsRejected(err error) bool {
	var re *RejectedError
	return errors.As(err, &re)
}
