package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// hookMarker identifies scribe's post-commit hook.
const hookMarker = "# git-scribe post-commit hook"

// origSuffix is where an existing hook is kept while scribe's chains it.
const origSuffix = ".scribe-orig"

// postCommitScript records the commit in shell: one git process and two file
// operations, because starting the Go binary alone costs more than the hook's
// budget (docs/BENCHMARKS.md). It records the sha; subject, files, stats and
// progress items are read from the immutable commit when the record lands.
// The link(2) of a complete temp file makes the record atomic and exclusive,
// so the same commit can never be recorded twice.
const postCommitScript = `#!/bin/sh
` + hookMarker + `
# Records each commit for the next ` + "`git scribe wrap`" + `; never commits, never moves a
# branch, never fails your commit. Installed by ` + "`git scribe hook install`" + `;
# ` + "`git scribe hook uninstall`" + ` restores the hook that was here before.
scribe_status=0
if [ -x "$0` + origSuffix + `" ]; then
	"$0` + origSuffix + `" "$@"
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
	scribe_final="$scribe_q/k-commit-$3.json"
	[ ! -e "$scribe_final" ] || return 0
	mkdir -p "$scribe_q" || { scribe_fail "$2" "$3" "cannot create $scribe_q"; return 0; }
	scribe_tmp="$scribe_q/.tmp-$$-$3"
	if printf '{"id":"0-commit-%s","kind":"commit","payload":{"sha":"%s"}}\n' "$3" "$3" >"$scribe_tmp"; then
		ln "$scribe_tmp" "$scribe_final" 2>/dev/null
	else
		scribe_fail "$2" "$3" "cannot write $scribe_tmp"
	fi
	rm -f "$scribe_tmp"
	return 0
}
scribe_fail() {
	printf '%s post-commit: could not record %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" "$3" >>"$1/scribe/failures.log" 2>/dev/null
}
scribe_record "$@" 2>/dev/null
exit $scribe_status
`

func newHookCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook",
		Short: "Install, remove or run the post-commit hook",
		Long: `The post-commit hook records every commit in scribe's queue (under the git
dir) in a few milliseconds and returns to git. It never commits and never
moves a branch: your next --amend, reset HEAD~1 or revert HEAD still hits
your own commit. The next synchronous command — usually the session's
git scribe wrap — lands the records as one "progress:" commit whose journal
entry names them, and ticks progress items named by "progress: ITEM done"
subjects or "Progress: ITEM" trailers.

install puts the hook where git really looks (git rev-parse --git-path hooks,
so core.hooksPath and Husky work), keeping an existing hook and running it
first with its exit status preserved; uninstall restores it byte for byte.`,
	}
	c.AddCommand(
		&cobra.Command{
			Use: "install", Short: "Install the post-commit hook (chains an existing one)", Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error {
				msg, err := installHook(c.Context(), f, false)
				if err == nil {
					fmt.Fprintln(f.IO.Out, msg)
				}
				return err
			},
		},
		&cobra.Command{
			Use: "uninstall", Short: "Remove scribe's hook and restore the previous one", Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error { return uninstallHook(c.Context(), f) },
		},
		&cobra.Command{
			Use: "post-commit", Short: "Record HEAD's commit in the queue (what the hook does)", Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error { return runPostCommit(c.Context(), f) },
		},
	)
	return c
}

// installHook writes the hook; with dryRun it only says what it would do.
func installHook(ctx context.Context, f *Factory, dryRun bool) (string, error) {
	r, err := f.Repo(ctx)
	if err != nil {
		return "", err
	}
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "post-commit")
	cur, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(cur, []byte(postCommitScript)):
		return "post-commit hook already installed in " + dir, nil
	case err == nil && bytes.Contains(cur, []byte(hookMarker)):
		if dryRun {
			return "would update scribe's post-commit hook in " + dir, nil
		}
		if err := gitops.WriteFileAtomic(path, []byte(postCommitScript)); err != nil {
			return "", err
		}
		return "updated scribe's post-commit hook in " + dir, nil
	case err == nil:
		orig := path + origSuffix
		if _, err := os.Lstat(orig); err == nil {
			return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s and %s both exist; move one away, then run git scribe hook install again", path, orig)}
		}
		if dryRun {
			return fmt.Sprintf("would keep the existing hook as %s and chain it from scribe's hook", orig), nil
		}
		if err := os.Rename(path, orig); err != nil {
			return "", fmt.Errorf("keep existing hook: %w", err)
		}
		if err := writeHook(path); err != nil {
			os.Rename(orig, path)
			return "", err
		}
		return fmt.Sprintf("installed the post-commit hook in %s; your existing hook was kept as %s and still runs first", dir, filepath.Base(orig)), nil
	case errors.Is(err, fs.ErrNotExist):
		if dryRun {
			return "would install the post-commit hook in " + dir, nil
		}
		if err := writeHook(path); err != nil {
			return "", err
		}
		return "installed the post-commit hook in " + dir, nil
	default:
		return "", fmt.Errorf("read %s: %w", path, err)
	}
}

func writeHook(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create hooks directory: %w", err)
	}
	if err := gitops.WriteFileAtomic(path, []byte(postCommitScript)); err != nil {
		return err
	}
	return os.Chmod(path, 0o755)
}

func uninstallHook(ctx context.Context, f *Factory) error {
	r, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "post-commit")
	cur, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !bytes.Contains(cur, []byte(hookMarker))) {
		fmt.Fprintln(f.IO.Out, "scribe's post-commit hook is not installed in "+dir+"; nothing to do")
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	orig := path + origSuffix
	if _, err := os.Lstat(orig); err == nil {
		if err := os.Rename(orig, path); err != nil {
			return fmt.Errorf("restore %s: %w", orig, err)
		}
		fmt.Fprintln(f.IO.Out, "removed scribe's post-commit hook and restored your previous hook")
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	fmt.Fprintln(f.IO.Out, "removed scribe's post-commit hook from "+dir)
	return nil
}

// runPostCommit records HEAD with its details. It never fails the commit:
// problems go to the failure log that git scribe status shows.
func runPostCommit(ctx context.Context, f *Factory) error {
	if f.Active() {
		return nil
	}
	r, err := f.Repo(ctx)
	if err != nil {
		return nil
	}
	if why := r.Busy(); why != "" && !strings.Contains(why, "index.lock") {
		return nil // rebase, merge, cherry-pick, am: not a session's commit
	}
	fail := func(e error) error {
		line := fmt.Sprintf("%s post-commit: %v\n", time.Now().UTC().Format(time.RFC3339), e)
		if fh, err := os.OpenFile(filepath.Join(r.ScribeDir(), "failures.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			fh.WriteString(line)
			fh.Close()
		}
		fmt.Fprint(f.IO.ErrOut, "git-scribe: "+line)
		return nil
	}
	head, err := r.Head(ctx)
	if err != nil || head.Commit == "" {
		return fail(fmt.Errorf("resolve HEAD: %v", err))
	}
	infos, err := r.CommitInfos(ctx, []string{head.Commit})
	if err != nil {
		return fail(err)
	}
	ci := infos[head.Commit]
	rec := notes.RecordFromCommit(ci.SHA, ci.Subject, ci.Body, ci.Files, ci.Added, ci.Deleted)
	if _, err := r.RecordOnce(notes.KindCommit, head.Commit, rec); err != nil {
		return fail(err)
	}
	return nil
}
