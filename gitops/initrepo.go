package gitops

import (
	"context"
	"fmt"
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
