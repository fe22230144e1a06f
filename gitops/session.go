package gitops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PatchIDs returns `git patch-id --stable` of each commit (sha → patch id):
// a commit rewritten by rebase or amend with the same change keeps its
// patch id. Commits without a diff (merges, empty commits) or gone from the
// object store are left out.
func (r *Repo) PatchIDs(ctx context.Context, shas []string) (map[string]string, error) {
	out := map[string]string{}
	if len(shas) == 0 {
		return out, nil
	}
	args := append([]string{"-c", "core.quotePath=false", "show", "--no-color", "--no-ext-diff", "--no-textconv",
		"--format=commit %H"}, shas...)
	patch, err := r.Git(ctx, args...)
	if err != nil {
		// One unknown object fails the whole show: ask one by one.
		for _, s := range shas {
			if p, e := r.Git(ctx, "show", "--no-color", "--no-ext-diff", "--no-textconv", "--format=commit %H", s); e == nil {
				patch = append(patch, p...)
			}
		}
	}
	if len(patch) == 0 {
		return out, nil
	}
	ids, err := r.gitIn(ctx, runOpts{stdin: patch}, "patch-id", "--stable")
	if err != nil {
		return out, fmt.Errorf("patch ids: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(ids)), "\n") {
		if pid, sha, ok := strings.Cut(line, " "); ok {
			out[sha] = pid
		}
	}
	return out, nil
}

// SetUp reports whether git-scribe was set up in this repository: a
// .scribe.yaml at the work tree's root, scribe's vault ref, or scribe's
// post-commit hook. A repository with none of them (a dependency checkout an
// agent cd'd into) is left alone by every --hook command.
func (r *Repo) SetUp(ctx context.Context) bool {
	if _, err := os.Stat(filepath.Join(r.WorkTree, ".scribe.yaml")); err == nil {
		return true
	}
	if tip, err := r.VaultTip(ctx); err == nil && tip != "" {
		return true
	}
	if dir, err := r.HooksDir(ctx); err == nil {
		if b, err := os.ReadFile(filepath.Join(dir, "post-commit")); err == nil &&
			(strings.Contains(string(b), "git-scribe") || strings.Contains(string(b), "git scribe")) {
			return true
		}
	}
	return false
}
