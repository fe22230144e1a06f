package dispatch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
)

// userConfig is a user config with a routing map like the seed's.
const userConfig = `journal_max: 40
dispatch:
  runner: claude
  model: sonnet
  timeout: 10m
  skills:
    body_fill:
      runner: openai
      base_url: http://127.0.0.1:8080
      model: gemma-3-27b
      variants:
        - {temperature: 0.7}
        - {temperature: 1.1}
        - {runner: claude}
    review_voice:
      model: opus
`

func loadRouting(t *testing.T, file string, env []string) *config.DispatchLoaded {
	t.Helper()
	home := t.TempDir()
	if file != "" {
		os.MkdirAll(filepath.Join(home, "git-scribe"), 0o755)
		os.WriteFile(filepath.Join(home, "git-scribe", "config.yaml"), []byte(file), 0o644)
	}
	l, err := config.LoadDispatch(append([]string{"XDG_CONFIG_HOME=" + home}, env...))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRoutingPrecedence pins flags > SCRIBE_DISPATCH_* > skills.<skill>
// (and its variant overlay) > top-level keys > default, and that switching
// runner drops the lower layers' model and base_url.
func TestRoutingPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		env     []string
		flags   Flags
		skill   string
		variant int
		want    string // Route.Describe()
		origin  string // where the runner came from
	}{
		{"nothing configured: fake", "", nil, Flags{}, "body_fill", 0, "fake", "default"},
		{"top-level keys", userConfig, nil, Flags{}, "review_canon", 0, "claude sonnet", "FILE"},
		{"skills map beats top-level", userConfig, nil, Flags{}, "body_fill", 0, "openai gemma-3-27b @ http://127.0.0.1:8080", "FILE"},
		{"skill entry without runner keeps the fallback runner", userConfig, nil, Flags{}, "review_voice", 0, "claude opus", "FILE"},
		{"variant overlay adds temperature", userConfig, nil, Flags{}, "body_fill", 2, "openai gemma-3-27b @ http://127.0.0.1:8080 t=1.1", "FILE"},
		{"variant overlay switches runner, drops model and base_url", userConfig, nil, Flags{}, "body_fill", 3, "claude", "FILE"},
		{"variant past the list rides the skill route", userConfig, nil, Flags{}, "body_fill", 4, "openai gemma-3-27b @ http://127.0.0.1:8080", "FILE"},
		{"overlays only for variants", userConfig, nil, Flags{}, "review_canon", 2, "claude sonnet", "FILE"},
		{"env beats the file", userConfig, []string{"SCRIBE_DISPATCH_RUNNER=codex"}, Flags{}, "body_fill", 0, "codex", "SCRIBE_DISPATCH_RUNNER"},
		{"env model beats skill model", userConfig, []string{"SCRIBE_DISPATCH_MODEL=qwen"}, Flags{}, "body_fill", 0, "openai qwen @ http://127.0.0.1:8080", "FILE"},
		{"flag pins the runner for every skill", userConfig, []string{"SCRIBE_DISPATCH_RUNNER=codex"}, Flags{Runner: "fake"}, "body_fill", 3, "fake", "flag --runner"},
		{"flag runner equal to the file's keeps its model", userConfig, nil, Flags{Runner: "openai"}, "body_fill", 0, "openai gemma-3-27b @ http://127.0.0.1:8080", "flag --runner"},
		{"flags together", userConfig, nil, Flags{Runner: "openai", BaseURL: "http://h:9", Model: "m"}, "review_canon", 0, "openai m @ http://h:9", "flag --runner"},
		{"env only", "", []string{"SCRIBE_DISPATCH_RUNNER=openai", "SCRIBE_DISPATCH_BASE_URL=http://e:1", "SCRIBE_DISPATCH_TEMPERATURE=0.2"}, Flags{}, "x", 0, "openai @ http://e:1 t=0.2", "SCRIBE_DISPATCH_RUNNER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := loadRouting(t, tt.file, tt.env)
			rt := NewRouting(l, tt.flags).Route(tt.skill, tt.variant)
			if got := rt.Describe(); got != tt.want {
				t.Fatalf("route %q, want %q", got, tt.want)
			}
			origin := tt.origin
			if origin == "FILE" {
				origin = l.Path
			}
			if rt.Origins["runner"] != origin {
				t.Fatalf("runner origin %q, want %q", rt.Origins["runner"], origin)
			}
		})
	}
}

func TestRoutingLimits(t *testing.T) {
	t.Parallel()
	l := loadRouting(t, userConfig, []string{"SCRIBE_DISPATCH_CONCURRENCY=4", "SCRIBE_DISPATCH_MAX_OUTPUT=1000"})
	r := NewRouting(l, Flags{})
	if r.Concurrency() != 4 {
		t.Fatalf("concurrency %d", r.Concurrency())
	}
	rt := r.Route("review_canon", 0)
	if rt.Timeout != 10*time.Minute || rt.MaxOutput != 1000 || rt.APIKeyEnv != config.DefaultAPIKeyEnv {
		t.Fatalf("limits %+v", rt)
	}
	r = NewRouting(l, Flags{Concurrency: 1, Timeout: time.Second})
	if r.Concurrency() != 1 || r.Route("x", 0).Timeout != time.Second || r.Route("x", 0).Origins["timeout"] != "flag --timeout" {
		t.Fatal("flags do not win")
	}
	if !r.Routed("body_fill") || r.Routed("bridge") {
		t.Fatal("Routed")
	}
	if def := NewRouting(nil, Flags{}); def.Concurrency() != config.DefaultDispatchConcurrency || def.Route("x", 0).Timeout != config.DefaultDispatchTimeout {
		t.Fatal("defaults")
	}
}
