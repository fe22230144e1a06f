package dispatch

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/config"
)

// Flags are the dispatch commands' routing flags; zero values are unset.
type Flags struct {
	Runner      string
	Model       string
	BaseURL     string
	Timeout     time.Duration
	Concurrency int
}

// Route is a resolved backend choice for one skill (and variant), with the
// origin of each value.
type Route struct {
	Runner      string        `json:"runner"`
	Model       string        `json:"model,omitempty"`
	BaseURL     string        `json:"base_url,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Timeout     time.Duration `json:"-"`
	MaxOutput   int           `json:"-"`
	APIKeyEnv   string        `json:"-"`
	// Origins maps runner, model, base_url, temperature, max_tokens and
	// timeout to where their values came from.
	Origins map[string]string `json:"origins"`
}

// Key identifies routes that share one backend instance.
func (r Route) Key() string {
	t := ""
	if r.Temperature != nil {
		t = strconv.FormatFloat(*r.Temperature, 'f', -1, 64)
	}
	return fmt.Sprintf("%s|%s|%s|%s|%d", r.Runner, r.Model, r.BaseURL, t, r.MaxTokens)
}

// Describe is the route in one line, e.g. "openai gemma-3 @ http://…".
func (r Route) Describe() string {
	s := r.Runner
	if r.Model != "" {
		s += " " + r.Model
	}
	if r.BaseURL != "" {
		s += " @ " + r.BaseURL
	}
	if r.Temperature != nil {
		s += " t=" + strconv.FormatFloat(*r.Temperature, 'f', -1, 64)
	}
	return s
}

// Routing resolves which backend runs a skill.
//
// Layers, lowest first: built-in default (fake) → the user config's
// top-level dispatch keys → its skills.<skill> entry → the variant's overlay
// (skills.<skill>.variants[N-1], only for variant fills; variants past the
// list's end ride the plain skill route) → SCRIBE_DISPATCH_* → flags. Each
// key is taken from the highest layer that sets it, with one rule: a layer
// that switches to another runner drops the model and base_url of the layers
// below (they were meant for the other backend). So `--runner claude` pins
// claude for the whole pass, every skill and variant included, and no local
// model name is sent to it.
type Routing struct {
	loaded *config.DispatchLoaded
	flags  Flags
}

// NewRouting combines the loaded routing config with the flags.
func NewRouting(l *config.DispatchLoaded, f Flags) *Routing {
	if l == nil {
		l = &config.DispatchLoaded{Origins: map[string]string{}}
	}
	return &Routing{loaded: l, flags: f}
}

// Loaded is the configuration the routing was built from.
func (r *Routing) Loaded() *config.DispatchLoaded { return r.loaded }

// Concurrency is the agent concurrency cap: flag > env > config > default.
func (r *Routing) Concurrency() int {
	if r.flags.Concurrency > 0 {
		return r.flags.Concurrency
	}
	return r.loaded.Concurrency()
}

// Routed reports whether the user config or environment routes skill
// explicitly (a skills.<skill> entry), which the engine's prose hooks
// require before calling an agent.
func (r *Routing) Routed(skill string) bool {
	_, ok := r.loaded.File.Skills[skill]
	return ok
}

// Route resolves skill's backend; variant is 1-based for variant fills, 0
// otherwise.
func (r *Routing) Route(skill string, variant int) Route {
	rt := Route{Runner: config.RunnerFake, Timeout: config.DefaultDispatchTimeout, Origins: map[string]string{
		"runner": string(config.FromDefault), "timeout": string(config.FromDefault)}}
	l := r.loaded
	apply := func(layer config.Route, origin func(key string) string) {
		if layer.Runner != "" {
			if layer.Runner != rt.Runner {
				rt.Model, rt.BaseURL = "", ""
				delete(rt.Origins, "model")
				delete(rt.Origins, "base_url")
			}
			rt.Runner, rt.Origins["runner"] = layer.Runner, origin("runner")
		}
		if layer.Model != "" {
			rt.Model, rt.Origins["model"] = layer.Model, origin("model")
		}
		if layer.BaseURL != "" {
			rt.BaseURL, rt.Origins["base_url"] = layer.BaseURL, origin("base_url")
		}
		if layer.Temperature != nil {
			t := *layer.Temperature
			rt.Temperature, rt.Origins["temperature"] = &t, origin("temperature")
		}
		if layer.MaxTokens > 0 {
			rt.MaxTokens, rt.Origins["max_tokens"] = layer.MaxTokens, origin("max_tokens")
		}
		if layer.Timeout > 0 {
			rt.Timeout, rt.Origins["timeout"] = layer.Timeout, origin("timeout")
		}
	}
	fileOrigin := func(prefix string) func(string) string {
		return func(key string) string {
			if o := l.Origins[prefix+"."+key]; o != "" {
				return o
			}
			return l.Path
		}
	}
	apply(l.File.Route, fileOrigin("dispatch"))
	if s, ok := l.File.Skills[skill]; ok {
		apply(s.Route, fileOrigin("dispatch.skills."+skill))
		if variant > 0 && variant <= len(s.Variants) {
			apply(s.Variants[variant-1], fileOrigin(fmt.Sprintf("dispatch.skills.%s.variants.%d", skill, variant-1)))
		}
	}
	apply(l.Env.Route, func(key string) string { return l.Origins["dispatch."+key] })
	f := r.flags
	apply(config.Route{Runner: f.Runner, Model: f.Model, BaseURL: f.BaseURL, Timeout: f.Timeout},
		func(key string) string { return "flag --" + strings.ReplaceAll(key, "_", "-") })
	rt.MaxOutput = l.MaxOutput()
	rt.APIKeyEnv = l.APIKeyEnv()
	return rt
}
