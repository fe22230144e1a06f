package gitops

import (
	"context"
	"strings"
)

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
