package dispatch

import (
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/config"
)

// RunnerAvailable says why a route's backend cannot run here, or nil: a CLI
// runner needs its executable on the PATH of env, the openai runner a base
// URL. It runs nothing and opens no connection, so plan stays side-effect free.
func RunnerAvailable(rt Route, env []string) error {
	cli := map[string][2]string{
		config.RunnerClaude: {"claude", "the Claude Code CLI (npm install -g @anthropic-ai/claude-code)"},
		config.RunnerCodex:  {"codex", "the Codex CLI (npm install -g @openai/codex)"},
	}
	switch rt.Runner {
	case "", config.RunnerFake:
		return nil
	case config.RunnerOpenAI:
		if rt.BaseURL == "" {
			return fmt.Errorf("runner openai has no base_url (--base-url, SCRIBE_DISPATCH_BASE_URL or dispatch.base_url)")
		}
		return nil
	}
	c, ok := cli[rt.Runner]
	if !ok {
		return fmt.Errorf("unknown runner %q; use one of %s", rt.Runner, strings.Join(config.Runners(), ", "))
	}
	if _, err := lookPath(c[0], env); err != nil {
		return fmt.Errorf("runner %s needs %s: no %q on PATH; install it or route the skill to another runner (--runner, dispatch: in the user config)", rt.Runner, c[1], c[0])
	}
	return nil
}
