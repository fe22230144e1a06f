package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-scribe/git-scribe/gitops"
)

// HookMarker identifies scribe's post-commit hook.
const HookMarker = "# git-scribe post-commit hook"

// OrigSuffix is where an existing hook is kept while scribe's chains it.
const OrigSuffix = ".scribe-orig"

// PostCommitScript records the commit in shell with one git process and no
// other program, because starting the Go binary alone costs more than the
// hook's budget (docs/BENCHMARKS.md). It records the sha; subject, files,
// stats and progress items are read from the immutable commit when the record
// lands. The record is created with noclobber — atomic and exclusive — so the
// same commit can never be recorded twice; its file name is the record, so a
// crash mid-write loses nothing.
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
scribe_record() {
	[ -z "$GIT_SCRIBE_ACTIVE" ] || return 0
	scribe_out=$(git rev-parse --path-format=absolute --git-dir --git-common-dir HEAD 2>/dev/null) || return 0
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
	# noclobber: creating the file is atomic and fails if the commit is
	# already recorded; the file name alone is the record.
	set -C
	printf '{"kind":"commit","payload":{"sha":"%s"}}\n' "$3" >"$scribe_q/k-commit-$3.json" 2>/dev/null
	set +C
	return 0
}
scribe_fail() {
	printf '%s post-commit: could not record %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" "$3" >>"$1/scribe/failures.log" 2>/dev/null
}
scribe_record "$@" 2>/dev/null
exit $scribe_status
`

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
