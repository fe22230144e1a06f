package gitops

import (
	"context"
	"fmt"
	"strings"
)

// TrailerMode marks scribe's own commits; its presence, not the "progress:"
// subject (people write those too), identifies them.
const TrailerMode = "Scribe-Mode"

// ParseTrailers reads "Key: value" lines from the last paragraph of a message.
func ParseTrailers(msg string) map[string]string {
	msg = strings.TrimRight(msg, "\n")
	paras := strings.Split(msg, "\n\n")
	m := map[string]string{}
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if ok && k != "" && !strings.ContainsAny(k, " \t") {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// IsAncestor reports whether a is an ancestor of b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) bool {
	full := isObjectID(a) && isObjectID(b)
	if full && a == b {
		return true // callers pass commits they resolved: a commit is its own ancestor
	}
	key := a + ".." + b
	if full {
		r.immMu.Lock()
		known, ok := r.ancestry[key]
		r.immMu.Unlock()
		if ok {
			return known
		}
	}
	_, err := r.Git(ctx, "merge-base", "--is-ancestor", a, b)
	yes := err == nil
	if full && (yes || exitCode(err) == 1) { // the ancestry of two commits never changes
		r.immMu.Lock()
		if r.ancestry == nil {
			r.ancestry = map[string]bool{}
		}
		r.ancestry[key] = yes
		r.immMu.Unlock()
	}
	return yes
}

// Reachable returns which of commits are ancestors of head (a commit is
// its own): one `git rev-list COMMITS --not HEAD`, which lists exactly the
// commits reachable from the others but not from head, however many
// commits there are (a long session asked merge-base once per commit).
// Ids git cannot resolve are not reachable.
func (r *Repo) Reachable(ctx context.Context, head string, commits []string) map[string]bool {
	out := make(map[string]bool, len(commits))
	if head == "" || len(commits) == 0 {
		return out
	}
	args := []string{"rev-list"}
	var ids []string
	for _, c := range commits {
		if isObjectID(c) {
			ids = append(ids, c)
		}
	}
	if len(ids) == 0 {
		return out
	}
	args = append(args, ids...)
	args = append(args, "--not", head, "--")
	res, err := r.Git(ctx, args...)
	if err != nil {
		// One id git does not know fails the whole list: ask one by one.
		for _, c := range ids {
			out[c] = r.IsAncestor(ctx, c, head)
		}
		return out
	}
	outside := map[string]bool{}
	for _, l := range strings.Split(string(res), "\n") {
		outside[strings.TrimSpace(l)] = true
	}
	for _, c := range ids {
		out[c] = !outside[c]
	}
	return out
}

// ChangedSince lists which of paths changed in commits since commit (up to
// HEAD). Uncommitted edits are not counted: the files a note cites were often
// uncommitted when it was written.
func (r *Repo) ChangedSince(ctx context.Context, commit string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := append([]string{"diff", "--name-only", "-z", "--no-renames", commit, "HEAD", "--"}, paths...)
	out, err := r.Git(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("compare cited files with %s: %w", commit, err)
	}
	var changed []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			changed = append(changed, p)
		}
	}
	return changed, nil
}

// ResolveCommit returns the full id of rev, or an error naming it.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	out, err := r.Git(ctx, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s is not a commit in this repository", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// OnAnyBranch reports whether a local branch contains commit.
func (r *Repo) OnAnyBranch(ctx context.Context, commit string) bool {
	out, err := r.Git(ctx, "for-each-ref", "--count=1", "--contains", commit, "--format=%(refname)", "refs/heads/")
	return err == nil && strings.TrimSpace(string(out)) != ""
}
