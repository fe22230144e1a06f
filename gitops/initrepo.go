package gitops

import (
	"context"
	"fmt"
	"strings"
)

// InitRepo creates a new repository in dir (which must exist) on branch
// main with a local identity, for throw-away repositories such as the demo's,
// and discovers it. git init is the git binary's job: go-git's init does not
// write the same default config.
func InitRepo(ctx context.Context, dir, name, email string) (*Repo, error) {
	if _, err := git(ctx, dir, runOpts{}, "init", "-q", "-b", "main"); err != nil {
		return nil, fmt.Errorf("create repository in %s: %w", dir, err)
	}
	for _, kv := range [][2]string{{"user.name", name}, {"user.email", email}, {"commit.gpgSign", "false"}} {
		if _, err := git(ctx, dir, runOpts{}, "config", kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("configure repository in %s: %w", dir, err)
		}
	}
	return Discover(ctx, dir)
}

// ColorConfig is git's colour setting for scribe's output, as git decides
// its own: color.scribe, else color.ui ("auto", "always", "never", "true",
// "false"), or "" when neither is set. It reads the repository's config when
// dir is inside one, else the user's.
func ColorConfig(ctx context.Context, dir string) string {
	out, err := git(ctx, dir, runOpts{}, "config", "--get-regexp", `^color\.(scribe|ui)$`)
	if err != nil {
		return ""
	}
	ui := ""
	for _, line := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch k {
		case "color.scribe":
			return v
		case "color.ui":
			ui = v
		}
	}
	return ui
}
