package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
)

// HookMarker identifies scribe's post-commit hook.
const HookMarker = "# git-scribe post-commit hook"

// OrigSuffix is where an existing hook is kept while scribe's chains it.
const OrigSuffix = ".scribe-orig"

// recorder is the shell that records a commit: no program at all, because
// starting the Go binary alone costs more than the hook's budget, and even
// `tail` cost ~1.3 ms of it
// (docs/BENCHMARKS.md). In a plain repository (a .git directory where git
// runs the hook: the work tree's top) the dirs and HEAD's commit are read
// with the shell's own read, from HEAD and the branch's loose ref (a commit
// has just written it); anywhere else — a linked worktree, a packed or
// reftable ref, GIT_DIR set — one git rev-parse says them. It records the
// sha; subject, files, stats and progress items are read from the immutable
// commit when the record lands. The record is created with noclobber —
// atomic and exclusive — so the same commit can never be recorded twice;
// its file name is the record, so a torn write loses nothing. Commits made by a rebase, am, or a merge or
// cherry-pick are not a session's own and are skipped. One concluded by a
// plain git commit after a conflict shows only in HEAD's reflog; it is
// recorded, and the records' readers drop it (gitops.NotOwnCommits).
const recorder = `scribe_record() {
	[ -z "$GIT_SCRIBE_ACTIVE" ] || return 0
	command -v git-scribe >/dev/null 2>&1 || return 0
	scribe_out=
	if [ -z "$GIT_DIR$GIT_COMMON_DIR$GIT_WORK_TREE" ] && [ -d .git ] && [ ! -e .git/commondir ] && [ -f .git/HEAD ]; then
		IFS= read -r scribe_h <.git/HEAD
		case $scribe_h in
		"ref: refs/heads/"*) [ ! -f ".git/${scribe_h#ref: }" ] || IFS= read -r scribe_h <".git/${scribe_h#ref: }" ;;
		esac
		case $scribe_h in
		*[!0-9a-f]*) ;;
		*) [ ${#scribe_h} -ne 40 ] && [ ${#scribe_h} -ne 64 ] || scribe_out="$PWD/.git
$PWD/.git
$scribe_h" ;;
		esac
	fi
	[ -n "$scribe_out" ] || scribe_out=$(git rev-parse --path-format=absolute --git-dir --git-common-dir HEAD 2>/dev/null) || return 0
	scribe_ifs=$IFS
	IFS='
'
	set -f
	set -- $scribe_out
	set +f
	IFS=$scribe_ifs
	[ $# -eq 3 ] || return 0
	for scribe_f in rebase-merge rebase-apply MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD; do
		[ ! -e "$1/$scribe_f" ] || return 0
	done
	scribe_q="$2/scribe/queue"
	[ -d "$scribe_q" ] || mkdir -p "$scribe_q" || { scribe_fail "$2" "$3" "cannot create $scribe_q"; return 0; }
	set -C
	printf '{"kind":"commit","payload":{"sha":"%s"}}\n' "$3" >"$scribe_q/k-commit-$3.json" 2>/dev/null
	set +C
	return 0
}
scribe_fail() {
	printf '%s post-commit: could not record %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" "$3" >>"$1/scribe/failures.log" 2>/dev/null
}
`

// PostCommitScript is scribe's post-commit hook: it runs the hook it
// replaced first (exit status preserved for git), then records the commit.
const PostCommitScript = `#!/bin/sh
` + HookMarker + `
# Records each commit for the next ` + "`git scribe wrap`" + `; never commits, never moves a
# branch, never fails your commit. Installed by ` + "`git scribe hook install`" + `;
# ` + "`git scribe hook uninstall`" + ` restores the hook that was here before.
scribe_status=0
if [ -x "$0` + OrigSuffix + `" ]; then
	"$0` + OrigSuffix + `" "$@"
	scribe_status=$?
fi
` + recorder + `scribe_record 2>/dev/null
exit $scribe_status
`

// Husky (v9) keeps generated stubs in .husky/_ (core.hooksPath) that find
// the user's hook by their own file name and are rewritten by every npm
// install, so there scribe adds a marked block to the user's .husky/post-commit
// (a tracked file: committing it shares the recorder, which does nothing on a
// machine without git-scribe).
const (
	huskyBegin = "# >>> git-scribe post-commit (git scribe hook uninstall removes this block)"
	huskyEnd   = "# <<< git-scribe post-commit"
	huskyBlock = huskyBegin + "\n" + recorder + "scribe_record 2>/dev/null || true\n" + huskyEnd + "\n"
)

// huskyHook returns the user's hook file when dir is Husky's stub directory.
func huskyHook(dir string) (string, bool) {
	if filepath.Base(dir) != "_" {
		return "", false
	}
	if _, err := os.Stat(filepath.Join(dir, "h")); err != nil {
		return "", false
	}
	return filepath.Join(filepath.Dir(dir), "post-commit"), true
}

// HooksOutside reports a hooks directory outside the repository (a global
// core.hooksPath): a hook there records commits of every repository using it.
func HooksOutside(r *gitops.Repo, dir string) bool {
	inside := func(root string) bool {
		rel, err := filepath.Rel(root, dir)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	return !inside(r.WorkTree) && !inside(r.CommonDir) && !inside(r.GitDir)
}

// HookState says what InstallHook found or would do.
type HookState int

// Hook install outcomes.
const (
	HookInstalled HookState = iota // newly written
	HookChained                    // written, existing hook kept and chained
	HookUpdated                    // an older scribe hook replaced
	HookPresent                    // already installed, nothing to do
)

// InstallHook installs the post-commit hook where git really looks for it
// (core.hooksPath, Husky), keeping an existing hook as <hook>.scribe-orig and
// running it first. With dryRun nothing is written.
func InstallHook(ctx context.Context, r *gitops.Repo, dryRun bool) (HookState, string, error) {
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return 0, "", err
	}
	if user, ok := huskyHook(dir); ok {
		return installHusky(r, user, dryRun)
	}
	path := filepath.Join(dir, "post-commit")
	cur, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(cur, []byte(PostCommitScript)):
		return HookPresent, path, nil
	case err == nil && bytes.Contains(cur, []byte(HookMarker)):
		if dryRun {
			return HookUpdated, path, nil
		}
		return HookUpdated, path, writeHook(path)
	case err == nil:
		orig := path + OrigSuffix
		if _, err := os.Lstat(orig); err == nil {
			return 0, path, fmt.Errorf("%s and %s both exist; move one away, then install again", path, orig)
		}
		if dryRun {
			return HookChained, path, nil
		}
		if err := os.Rename(path, orig); err != nil {
			return 0, path, fmt.Errorf("keep existing hook: %w", err)
		}
		if err := writeHook(path); err != nil {
			os.Rename(orig, path)
			return 0, path, err
		}
		return HookChained, path, nil
	case errors.Is(err, fs.ErrNotExist):
		if dryRun {
			return HookInstalled, path, nil
		}
		return HookInstalled, path, writeHook(path)
	default:
		return 0, path, fmt.Errorf("read %s: %w", path, err)
	}
}

func writeHook(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create hooks directory: %w", err)
	}
	if err := gitops.WriteFileAtomic(path, []byte(PostCommitScript)); err != nil {
		return err
	}
	return os.Chmod(path, 0o755)
}

// UninstallHook removes scribe's hook and puts back the one it chained,
// byte for byte. It reports whether anything was removed.
func UninstallHook(ctx context.Context, r *gitops.Repo) (removed, restored bool, path string, err error) {
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return false, false, "", err
	}
	if user, ok := huskyHook(dir); ok {
		removed, err := uninstallHusky(r, user)
		return removed, removed, user, err
	}
	path = filepath.Join(dir, "post-commit")
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !bytes.Contains(cur, []byte(HookMarker))) {
		return false, false, path, nil
	}
	if err != nil {
		return false, false, path, fmt.Errorf("read %s: %w", path, err)
	}
	orig := path + OrigSuffix
	if _, err := os.Lstat(orig); err == nil {
		if err := os.Rename(orig, path); err != nil {
			return false, false, path, fmt.Errorf("restore %s: %w", orig, err)
		}
		return true, true, path, nil
	}
	if err := os.Remove(path); err != nil {
		return false, false, path, fmt.Errorf("remove %s: %w", path, err)
	}
	return true, false, path, nil
}

// huskySaved is where the user's .husky/post-commit is kept byte for byte
// (under the git dir) so uninstall can restore it exactly.
func huskySaved(r *gitops.Repo) string { return filepath.Join(r.ScribeDir(), "husky-post-commit.orig") }

func installHusky(r *gitops.Repo, user string, dryRun bool) (HookState, string, error) {
	cur, err := os.ReadFile(user)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, user, fmt.Errorf("read %s: %w", user, err)
	}
	if bytes.Contains(cur, []byte(huskyBegin)) {
		return HookPresent, user, nil
	}
	if dryRun {
		return HookChained, user, nil
	}
	next := append([]byte{}, cur...)
	if len(next) > 0 && !bytes.HasSuffix(next, []byte("\n")) {
		next = append(next, '\n')
	}
	next = append(next, huskyBlock...)
	if err := os.MkdirAll(r.ScribeDir(), 0o755); err != nil {
		return 0, user, err
	}
	saved := huskySaved(r)
	if exists {
		err = gitops.WriteFileAtomic(saved, cur)
	} else {
		err = gitops.WriteFileAtomic(saved+".absent", nil)
	}
	if err != nil {
		return 0, user, fmt.Errorf("keep a copy of %s: %w", user, err)
	}
	if err := gitops.WriteFileAtomic(user, next); err != nil {
		return 0, user, err
	}
	if !exists {
		os.Chmod(user, 0o755)
		return HookInstalled, user, nil
	}
	return HookChained, user, nil
}

func uninstallHusky(r *gitops.Repo, user string) (bool, error) {
	cur, err := os.ReadFile(user)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !bytes.Contains(cur, []byte(huskyBegin))) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", user, err)
	}
	saved := huskySaved(r)
	defer os.Remove(saved)
	defer os.Remove(saved + ".absent")
	if orig, err := os.ReadFile(saved); err == nil {
		if want := append(ensureNL(orig), huskyBlock...); bytes.Equal(cur, want) {
			return true, gitops.WriteFileAtomic(user, orig)
		}
	}
	if _, err := os.Stat(saved + ".absent"); err == nil && bytes.Equal(cur, []byte(huskyBlock)) {
		return true, os.Remove(user)
	}
	// Edited since: take out exactly our block and keep everything else.
	i := bytes.Index(cur, []byte(huskyBegin))
	j := bytes.Index(cur[i:], []byte(huskyEnd+"\n"))
	if j < 0 {
		return false, fmt.Errorf("%s has scribe's block start but not its end; remove the block by hand", user)
	}
	out := append(append([]byte{}, cur[:i]...), cur[i+j+len(huskyEnd)+1:]...)
	return true, gitops.WriteFileAtomic(user, out)
}

func ensureNL(b []byte) []byte {
	out := append([]byte{}, b...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}
