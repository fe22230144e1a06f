package gitops

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Remote operations run the git CLI (fetch, push, ls-remote) so that every
// transport git knows works — file paths, git://, ssh, smart HTTP — and so
// do the user's credential helpers, proxies and insteadOf rules; go-git's
// transports would bypass all of that (and pull net/http into the engine).

// Scribe ref namespaces.
const (
	// ScribeRefPrefix is the root of every scribe ref.
	ScribeRefPrefix = "refs/scribe/"
	// RemoteScribePrefix is where a remote's scribe refs are tracked:
	// refs/scribe/remotes/<remote>/<rest> mirrors <remote>'s refs/scribe/<rest>.
	// It is outside refs/remotes/ on purpose: refs/remotes/<remote>/scribe/…
	// collides with a remote branch named "scribe" (git cannot have both
	// refs/remotes/origin/scribe and refs/remotes/origin/scribe/locks/x), and
	// that would make the user's plain `git fetch` fail.
	RemoteScribePrefix = "refs/scribe/remotes/"
)

// ScribeFetchRefspec is the fetch refspec that tracks remote's scribe refs
// (init writes it into remote.<name>.fetch; sync passes it explicitly).
func ScribeFetchRefspec(remote string) string {
	return "+" + ScribeRefPrefix + "*:" + RemoteScribePrefix + remote + "/*"
}

// ErrRemoteUnreachable means git could not talk to a remote at all: no
// network, no such path, refused credentials.
var ErrRemoteUnreachable = errors.New("remote unreachable")

// UnreachableError is a remote operation that never reached the remote.
type UnreachableError struct {
	Remote string
	Err    error
}

func (e *UnreachableError) Error() string {
	msg := e.Err.Error()
	var ge *GitError
	if errors.As(e.Err, &ge) {
		msg = oneLineStderr(ge.Stderr)
	}
	return fmt.Sprintf("cannot reach remote %s: %s", e.Remote, msg)
}

func (e *UnreachableError) Unwrap() []error { return []error{ErrRemoteUnreachable, e.Err} }

// oneLineStderr joins git's stderr lines into one, dropping the blank ones
// and git's generic "Please make sure you have the correct access rights"
// epilogue.
func oneLineStderr(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"fatal: ", "error: "} {
			l = strings.TrimPrefix(l, p)
		}
		if l == "" || strings.HasPrefix(l, "Please make sure") || l == "and the repository exists." {
			continue
		}
		parts = append(parts, l)
	}
	return strings.Join(parts, "; ")
}

// HasRemote reports whether name is a configured remote.
func (r *Repo) HasRemote(ctx context.Context, name string) (bool, error) {
	out, err := r.Git(ctx, "remote")
	if err != nil {
		return false, fmt.Errorf("list remotes: %w", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) == name {
			return true, nil
		}
	}
	return false, nil
}

// configValue reads one git config value ("" when unset).
func (r *Repo) configValue(ctx context.Context, key string) (string, error) {
	out, err := r.Git(ctx, "config", "--get", key)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// DefaultRemote is the remote scribe talks to when none is named: the
// current branch's upstream remote, else origin, else the only remote.
func (r *Repo) DefaultRemote(ctx context.Context) (string, error) {
	if head, err := r.Head(ctx); err == nil && head.Ref != "" {
		if rem, _ := r.configValue(ctx, "branch."+strings.TrimPrefix(head.Ref, "refs/heads/")+".remote"); rem != "" && rem != "." {
			return rem, nil
		}
	}
	out, err := r.Git(ctx, "remote")
	if err != nil {
		return "", fmt.Errorf("list remotes: %w", err)
	}
	names := strings.Fields(string(out))
	for _, n := range names {
		if n == "origin" {
			return n, nil
		}
	}
	if len(names) == 1 {
		return names[0], nil
	}
	if len(names) == 0 {
		return "", fmt.Errorf("this repository has no remote; add one with `git remote add origin URL`")
	}
	return "", fmt.Errorf("several remotes (%s) and none is the branch's upstream or origin; name one (sync.remote in .scribe.yaml or --remote)", strings.Join(names, ", "))
}

// pushResult is git push --porcelain's per-ref report.
type pushResult struct {
	// Rejected maps a destination ref to git's reason ("stale info",
	// "non-fast-forward", "fetch first", "atomic push failed", …).
	Rejected map[string]string
	// Updated lists destination refs the remote changed.
	Updated []string
}

// RejectedError is a push the remote (or git's lease check) refused.
type RejectedError struct {
	Remote string
	Refs   map[string]string
}

func (e *RejectedError) Error() string {
	var parts []string
	for ref, why := range e.Refs {
		parts = append(parts, ref+" ("+why+")")
	}
	return fmt.Sprintf("%s refused the push of %s", e.Remote, strings.Join(parts, ", "))
}

// push runs `git push --porcelain` with args (options, remote, refspecs). A
// failure with per-ref "!" lines is a *RejectedError; one without any ref
// line never reached the remote and is an *UnreachableError.
func (r *Repo) push(ctx context.Context, remote string, args ...string) (pushResult, error) {
	res := pushResult{Rejected: map[string]string{}}
	full := append([]string{"push", "--porcelain"}, args...)
	out, err := r.gitIn(ctx, runOpts{network: true}, full...)
	sawRef := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || len(f[0]) != 1 {
			continue
		}
		_, dst, _ := strings.Cut(f[1], ":")
		sawRef = true
		switch f[0] {
		case "!":
			res.Rejected[dst] = strings.Trim(strings.TrimPrefix(strings.TrimSpace(f[2]), "[rejected] "), "()[] ")
		case "=":
		default:
			res.Updated = append(res.Updated, dst)
		}
	}
	if err == nil {
		return res, nil
	}
	if len(res.Rejected) > 0 {
		return res, &RejectedError{Remote: remote, Refs: res.Rejected}
	}
	if !sawRef {
		return res, &UnreachableError{Remote: remote, Err: err}
	}
	return res, fmt.Errorf("push to %s: %w", remote, err)
}

// fetch runs `git fetch` for explicit refspecs. Errors that never reached
// the remote are *UnreachableError.
func (r *Repo) fetch(ctx context.Context, remote string, refspecs ...string) error {
	args := append([]string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--prune", remote}, refspecs...)
	_, err := r.gitIn(ctx, runOpts{network: true}, args...)
	if err == nil {
		return nil
	}
	var ge *GitError
	if errors.As(err, &ge) && (strings.Contains(ge.Stderr, "couldn't find remote ref") || strings.Contains(ge.Stderr, "cannot lock ref")) {
		return fmt.Errorf("fetch from %s: %w", remote, err)
	}
	return &UnreachableError{Remote: remote, Err: err}
}

// refValues lists refs under prefix with their values.
func (r *Repo) refValues(ctx context.Context, prefix string) (map[string]string, error) {
	out, err := r.Git(ctx, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if ref, oid, ok := strings.Cut(line, " "); ok {
			refs[ref] = oid
		}
	}
	return refs, nil
}

// EnsureScribeFetchRefspec adds ScribeFetchRefspec(remote) to
// remote.<remote>.fetch unless it (or the refspec of earlier versions,
// which `git scribe init` replaces) is there; added reports a change.
func (r *Repo) EnsureScribeFetchRefspec(ctx context.Context, remote string) (bool, error) {
	key := "remote." + remote + ".fetch"
	out, err := r.Git(ctx, "config", "--get-all", key)
	if err != nil && exitCode(err) != 1 {
		return false, fmt.Errorf("read %s: %w", key, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == ScribeFetchRefspec(remote) || l == "+refs/scribe/*:refs/remotes/"+remote+"/scribe/*" {
			return false, nil
		}
	}
	if _, err := r.Git(ctx, "config", "--add", key, ScribeFetchRefspec(remote)); err != nil {
		return false, fmt.Errorf("add the scribe fetch refspec to %s: %w", key, err)
	}
	return true, nil
}
