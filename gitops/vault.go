package gitops

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// VaultRef is where scribe keeps its own record (SPEC section 2): bridge
// notes per branch, the journal and its archive, ACTIVE-STATUS, session
// records. A history of its own, never checked out, never merged into a
// branch.
const VaultRef = "refs/scribe/vault"

// VaultTip returns the commit refs/scribe/vault points at, "" when the
// vault has no commit yet.
func (r *Repo) VaultTip(ctx context.Context) (string, error) {
	return r.resolveRef(ctx, VaultRef)
}

// VaultCommit is one commit of the vault's history.
type VaultCommit struct {
	SHA     string
	Subject string
	// Date is the committer date, ISO 8601 (%cI).
	Date     string
	Trailers map[string]string
}

// VaultLog returns up to n commits of the vault's history from tip, newest
// first: a walk bounded by commits, never by matches.
func (r *Repo) VaultLog(ctx context.Context, tip string, n int) ([]VaultCommit, error) {
	if tip == "" {
		return nil, nil
	}
	if isObjectID(tip) {
		// The history from a commit id never changes: read once (a prefetch
		// and its use share one read), from the loose commits or git.
		v, err := r.immutable(fmt.Sprintf("VaultLog\x00%s\x00%d", tip, n), func() (any, error) {
			if cs, ok := r.vaultLogLoose(tip, n); ok {
				return cs, nil
			}
			return r.vaultLog(ctx, r.Git, tip, n)
		})
		if err != nil {
			return nil, err
		}
		return slices.Clone(v.([]VaultCommit)), nil
	}
	return r.vaultLog(ctx, r.Git, tip, n)
}

// vaultLog is VaultLog through git.
func (r *Repo) vaultLog(ctx context.Context, run func(context.Context, ...string) ([]byte, error), tip string, n int) ([]VaultCommit, error) {
	out, err := run(ctx, "log", fmt.Sprintf("--max-count=%d", n), "--format=%H%x00%s%x00%cI%x00%B%x1e", tip)
	if err != nil {
		return nil, fmt.Errorf("read the vault history: %w", err)
	}
	var cs []VaultCommit
	for _, rec := range strings.Split(string(out), "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		f := strings.SplitN(rec, "\x00", 4)
		if len(f) != 4 {
			continue
		}
		cs = append(cs, VaultCommit{SHA: f[0], Subject: f[1], Date: f[2], Trailers: ParseTrailers(f[3])})
	}
	return cs, nil
}

// ListFiles returns the paths of the blobs under dir ("" for all) in a
// commit's tree.
func (r *Repo) ListFiles(ctx context.Context, commit, dir string) ([]string, error) {
	if commit == "" {
		return nil, nil
	}
	all := []string{"ls-tree", "-r", "-z", "--name-only", commit}
	args := all
	if dir != "" {
		args = append(all[:len(all):len(all)], "--", strings.TrimSuffix(dir, "/")+"/")
	}
	run := r.Git
	if isObjectID(commit) {
		// A commit's tree never changes: listed once (a prefetch and its use
		// share one listing), from the loose objects or git.
		v, err := r.immutable("ListFiles\x00"+commit+"\x00"+dir, func() (any, error) {
			if files, ok := r.listLoose(commit, dir); ok {
				return files, nil
			}
			return r.listFilesGit(ctx, r.gitImmutable, all, args, dir)
		})
		if err != nil {
			return nil, err
		}
		return slices.Clone(v.([]string)), nil
	}
	return r.listFilesGit(ctx, run, all, args, dir)
}

// listFilesGit is ListFiles through git: args list dir, all the whole
// tree (a listing of all already made is filtered instead).
func (r *Repo) listFilesGit(ctx context.Context, run func(context.Context, ...string) ([]byte, error), all, args []string, dir string) ([]string, error) {
	if isObjectID(all[len(all)-1]) {
		if whole, ok := r.cached(all); ok && dir != "" {
			// The whole tree was listed already: filter it.
			prefix := strings.TrimSuffix(dir, "/") + "/"
			var files []string
			for _, p := range strings.Split(string(whole), "\x00") {
				if strings.HasPrefix(p, prefix) {
					files = append(files, p)
				}
			}
			return files, nil
		}
	}
	out, err := run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", dir, all[len(all)-1], err)
	}
	var files []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			files = append(files, p)
		}
	}
	return files, nil
}
