package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/setup"
	"github.com/git-scribe/git-scribe/vault"
)

func newHookCmd(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "hook",
		Short: "Install, remove or run the post-commit hook",
		Long: `The post-commit hook records every commit in scribe's queue (under the git
dir) in a few milliseconds and returns to git. It never commits and never
moves a branch: your next --amend, reset HEAD~1 or revert HEAD still hits
your own commit. The next git scribe command you wait for — usually
the session's git scribe wrap — writes them into scribe's record as one
"progress:" commit whose journal entry names them, and ticks the progress.md
items they name ("progress: ITEM done" subjects or "Progress: ITEM" trailers).

install puts the hook where git really looks (git rev-parse --git-path hooks,
so core.hooksPath and Husky work), keeping an existing hook and running it
first with its exit status preserved; uninstall restores it byte for byte.`,
	}
	c.AddCommand(
		&cobra.Command{
			Use: "install", Short: "Install the post-commit hook (your existing hook keeps running, first)", Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error {
				msg, err := installHook(c.Context(), f)
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
			Use: "post-commit", Short: "Record the commit just made, for the next scribe command (what the hook runs)", Args: cobra.NoArgs,
			RunE: func(c *cobra.Command, _ []string) error { return runPostCommit(c.Context(), f) },
		},
	)
	return c
}

func installHook(ctx context.Context, f *Factory) (string, error) {
	r, err := f.Repo(ctx)
	if err != nil {
		return "", err
	}
	state, path, err := setup.InstallHook(ctx, r, false)
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(path)
	if setup.HooksOutside(r, dir) {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s is outside this repository (core.hooksPath): the hook records commits of every repository that uses it\n", dir)
	}
	switch state {
	case setup.HookPresent:
		return "post-commit hook already installed in " + dir, nil
	case setup.HookUpdated:
		return "updated scribe's post-commit hook in " + dir, nil
	case setup.HookChained:
		if filepath.Base(path) == "post-commit" && filepath.Base(dir) == ".husky" {
			return fmt.Sprintf("installed the post-commit hook as a marked block in %s (Husky); commit it to share it", path), nil
		}
		return fmt.Sprintf("installed the post-commit hook in %s; your existing hook was kept as post-commit%s and still runs first", dir, setup.OrigSuffix), nil
	}
	return "installed the post-commit hook in " + dir, nil
}

func uninstallHook(ctx context.Context, f *Factory) error {
	r, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	removed, restored, path, err := setup.UninstallHook(ctx, r)
	switch {
	case err != nil:
		return err
	case !removed:
		fmt.Fprintln(f.IO.Out, "scribe's post-commit hook is not installed in "+filepath.Dir(path)+"; nothing to do")
	case restored:
		fmt.Fprintln(f.IO.Out, "removed scribe's post-commit hook and restored your previous hook")
	default:
		fmt.Fprintln(f.IO.Out, "removed scribe's post-commit hook from "+filepath.Dir(path))
	}
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
	rec := vault.RecordFromCommit(ci.SHA, ci.Subject, ci.Body, ci.Files, ci.Added, ci.Deleted)
	if _, err := r.RecordOnce(vault.KindCommit, head.Commit, rec); err != nil {
		return fail(err)
	}
	return nil
}
