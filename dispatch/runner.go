package dispatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/config"
)

// Runner is one agent backend: a prompt in, the agent's text out.
type Runner interface {
	Generate(ctx context.Context, prompt string) (string, error)
}

// Usage is what a backend reported about one run; zero when it reported
// nothing.
type Usage struct {
	InputTokens  int     `json:"input_tokens,omitempty"`
	OutputTokens int     `json:"output_tokens,omitempty"`
	TotalTokens  int     `json:"total_tokens,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	// Model is the model the backend says answered, when it says.
	Model string `json:"model,omitempty"`
}

// UsageRunner is a Runner that also reports usage; the dispatcher prefers
// it, for the per-pass ledger.
type UsageRunner interface {
	Runner
	GenerateUsage(ctx context.Context, prompt string) (string, Usage, error)
}

// Errors a run can end with.
var (
	// ErrOutputTooLarge means the agent's output passed the output cap.
	ErrOutputTooLarge = errors.New("agent output exceeds the output cap")
	// ErrTimeout means the run passed its timeout.
	ErrTimeout = errors.New("agent run timed out")
	// ErrEmptyOutput means the agent replied with nothing.
	ErrEmptyOutput = errors.New("agent replied with no text")
)

// Limits bound one run.
type Limits struct {
	Timeout   time.Duration
	MaxOutput int
}

// NewRunner builds the backend a resolved route names. env is the
// environment children inherit and API keys are read from
// (os.Environ()-style); workDir is where CLI agents run; scratch is a
// directory under the git dir for files a CLI writes (codex's -o).
func NewRunner(rt Route, env []string, workDir, scratch string) (Runner, error) {
	switch rt.Runner {
	case "", config.RunnerFake:
		return Fake{Model: rt.Model}, nil
	case config.RunnerOpenAI:
		if rt.BaseURL == "" {
			return nil, fmt.Errorf("runner openai needs a base_url (--base-url, SCRIBE_DISPATCH_BASE_URL or dispatch.base_url), e.g. http://127.0.0.1:8080")
		}
		return &OpenAI{BaseURL: rt.BaseURL, Model: rt.Model, Temperature: rt.Temperature, MaxTokens: rt.MaxTokens,
			APIKey: getenv(env, rt.APIKeyEnv), MaxOutput: rt.MaxOutput}, nil
	case config.RunnerClaude:
		return &Claude{Model: rt.Model, Env: env, Dir: workDir, MaxOutput: rt.MaxOutput}, nil
	case config.RunnerCodex:
		return &Codex{Model: rt.Model, Env: env, Dir: workDir, Scratch: scratch, MaxOutput: rt.MaxOutput}, nil
	}
	return nil, fmt.Errorf("unknown runner %q; use one of %s", rt.Runner, strings.Join(config.Runners(), ", "))
}

// generate runs r within the limits and returns its text and usage. The
// timeout and output cap are enforced here whatever the backend does.
func generate(ctx context.Context, r Runner, prompt string, lim Limits) (string, Usage, error) {
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, lim.Timeout, ErrTimeout)
		defer cancel()
	}
	var (
		out string
		u   Usage
		err error
	)
	if ur, ok := r.(UsageRunner); ok {
		out, u, err = ur.GenerateUsage(ctx, prompt)
	} else {
		out, err = r.Generate(ctx, prompt)
	}
	if err != nil {
		if errors.Is(context.Cause(ctx), ErrTimeout) {
			if !errors.Is(err, ErrTimeout) {
				err = fmt.Errorf("%w: %w", ErrTimeout, err)
			}
			err = fmt.Errorf("after %s (raise it with --timeout or dispatch.timeout): %w", lim.Timeout, err)
		}
		return "", u, err
	}
	if lim.MaxOutput > 0 && len(out) > lim.MaxOutput {
		return "", u, fmt.Errorf("%w (%d bytes, cap %d; raise dispatch.max_output)", ErrOutputTooLarge, len(out), lim.MaxOutput)
	}
	if strings.TrimSpace(out) == "" {
		return "", u, ErrEmptyOutput
	}
	return out, u, nil
}

func getenv(env []string, key string) string {
	if key == "" {
		return ""
	}
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}
