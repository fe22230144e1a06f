package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Dispatch routing is machine policy, not vault content (seed 002): it comes
// from the user config's `dispatch:` section and SCRIBE_DISPATCH_*
// variables, never from the repository's .scribe.yaml, and the dispatch
// commands' flags override both.

// Runner names a dispatch backend.
const (
	RunnerFake   = "fake"
	RunnerOpenAI = "openai"
	RunnerClaude = "claude"
	RunnerCodex  = "codex"
)

// Runners lists the backends, default first.
func Runners() []string { return []string{RunnerFake, RunnerOpenAI, RunnerClaude, RunnerCodex} }

// Route is one layer of a backend choice; zero fields are unset.
type Route struct {
	Runner      string        `yaml:"runner"`
	Model       string        `yaml:"model"`
	BaseURL     string        `yaml:"base_url"`
	Temperature *float64      `yaml:"temperature"`
	MaxTokens   int           `yaml:"max_tokens"`
	Timeout     time.Duration `yaml:"timeout"`
}

// SkillRoute routes one skill: its own layer plus per-variant overlays,
// consulted only when a contract asks for variants.
type SkillRoute struct {
	Route    `yaml:",inline"`
	Variants []Route `yaml:"variants"`
}

// Dispatch is the `dispatch:` section of the user config.
type Dispatch struct {
	Route `yaml:",inline"`
	// Concurrency caps how many agents run at once.
	Concurrency int `yaml:"concurrency"`
	// MaxOutput caps one agent's output, in bytes.
	MaxOutput int `yaml:"max_output"`
	// APIKeyEnv names the environment variable holding the openai runner's
	// bearer key (the key itself is never read from a file).
	APIKeyEnv string `yaml:"api_key_env"`
	// Skills routes skills by name; the top-level keys are the fallback.
	Skills map[string]SkillRoute `yaml:"skills"`
}

// DispatchEnv is what SCRIBE_DISPATCH_* variables set.
type DispatchEnv struct {
	Route
	Concurrency int
	MaxOutput   int
	APIKeyEnv   string
}

// Dispatch defaults.
const (
	DefaultDispatchTimeout     = 5 * time.Minute
	DefaultDispatchConcurrency = 2
	DefaultDispatchMaxOutput   = 1 << 20
	DefaultAPIKeyEnv           = "SCRIBE_DISPATCH_API_KEY"
)

// DispatchLoaded is the routing configuration with the origin of each value.
// File and Env stay separate layers: a per-skill entry in the file beats the
// file's top-level keys, and the environment beats the whole file.
type DispatchLoaded struct {
	File Dispatch
	Env  DispatchEnv
	// Path is the user config file read ("" when there is none).
	Path string
	// Origins maps dotted keys ("dispatch.runner",
	// "dispatch.skills.body_fill.variants.0.temperature") to where they came from.
	Origins map[string]string
	// Warnings are problems that do not stop a command (a stray variable).
	Warnings []string
}

var dispatchEnvKeys = []string{"RUNNER", "MODEL", "BASE_URL", "TEMPERATURE", "MAX_TOKENS", "TIMEOUT",
	"CONCURRENCY", "MAX_OUTPUT", "API_KEY_ENV", "API_KEY"}

// LoadDispatch reads the user config's `dispatch:` section and the
// SCRIBE_DISPATCH_* variables of env (os.Environ()-style). Unknown keys in
// the section are errors naming them; the API key is never read from a file.
func LoadDispatch(env []string) (*DispatchLoaded, error) {
	l := &DispatchLoaded{Origins: map[string]string{}}
	if p := UserFile(env); p != "" {
		data, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("read config %s: %w", p, err)
		default:
			if err := l.readFile(p, data); err != nil {
				return nil, err
			}
		}
	}
	if err := l.readEnv(env); err != nil {
		return nil, err
	}
	return l, l.validate()
}

func (l *DispatchLoaded) readFile(path string, data []byte) error {
	var top struct {
		Dispatch yaml.Node `yaml:"dispatch"`
	}
	if err := yaml.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("parse config %s: %w (fix the YAML or remove the file)", path, err)
	}
	if top.Dispatch.Kind == 0 || top.Dispatch.Tag == "!!null" {
		return nil
	}
	l.Path = path
	// Decode again strictly, so a misspelt key fails loudly instead of
	// silently routing to the default backend.
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(&top.Dispatch); err != nil {
		return fmt.Errorf("config %s: dispatch: %w", path, err)
	}
	dec := yaml.NewDecoder(&buf)
	dec.KnownFields(true)
	if err := dec.Decode(&l.File); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("config %s: dispatch: %w", path, err)
	}
	var raw map[string]any
	if err := top.Dispatch.Decode(&raw); err == nil {
		flat := map[string]any{}
		flattenAll("dispatch", raw, flat)
		for k := range flat {
			if !strings.HasSuffix(k, ".api_key") {
				l.Origins[k] = path
			}
		}
	}
	return nil
}

// flattenAll is flatten that also walks lists ("variants.0.runner").
func flattenAll(prefix string, v any, out map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flattenAll(prefix+"."+k, e, out)
		}
	case []any:
		for i, e := range x {
			flattenAll(prefix+"."+strconv.Itoa(i), e, out)
		}
	default:
		out[prefix] = v
	}
}

func (l *DispatchLoaded) readEnv(env []string) error {
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		suffix, isOurs := strings.CutPrefix(name, "SCRIBE_DISPATCH_")
		if !ok || !isOurs {
			continue
		}
		if !slices.Contains(dispatchEnvKeys, suffix) {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s is not a dispatch setting (known: SCRIBE_DISPATCH_%s); ignored",
				name, strings.Join(dispatchEnvKeys, ", SCRIBE_DISPATCH_")))
			continue
		}
		key := "dispatch." + strings.ToLower(suffix)
		e := &l.Env
		var err error
		switch suffix {
		case "RUNNER":
			e.Runner = strings.TrimSpace(val)
		case "MODEL":
			e.Model = strings.TrimSpace(val)
		case "BASE_URL":
			e.BaseURL = strings.TrimSpace(val)
		case "TEMPERATURE":
			var t float64
			if t, err = strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
				e.Temperature = &t
			}
		case "MAX_TOKENS":
			e.MaxTokens, err = strconv.Atoi(strings.TrimSpace(val))
		case "TIMEOUT":
			e.Timeout, err = time.ParseDuration(strings.TrimSpace(val))
		case "CONCURRENCY":
			e.Concurrency, err = strconv.Atoi(strings.TrimSpace(val))
		case "MAX_OUTPUT":
			e.MaxOutput, err = strconv.Atoi(strings.TrimSpace(val))
		case "API_KEY_ENV":
			e.APIKeyEnv = strings.TrimSpace(val)
		case "API_KEY":
			continue // the secret itself: read by the openai runner, never recorded
		}
		if err != nil {
			return fmt.Errorf("%s=%q: %w", name, val, err)
		}
		l.Origins[key] = name
	}
	return nil
}

// ValidateRoute checks one layer's values; where names it in errors.
func ValidateRoute(r Route, where string) error {
	if r.Runner != "" && !slices.Contains(Runners(), r.Runner) {
		return fmt.Errorf("%s: unknown runner %q; use one of %s", where, r.Runner, strings.Join(Runners(), ", "))
	}
	if r.BaseURL != "" {
		u, err := url.Parse(r.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: base_url %q is not an http(s) URL like http://127.0.0.1:8080", where, r.BaseURL)
		}
	}
	if t := r.Temperature; t != nil && (math.IsNaN(*t) || *t < 0 || *t > 2) {
		return fmt.Errorf("%s: temperature %v is outside 0–2", where, *t)
	}
	if r.MaxTokens < 0 {
		return fmt.Errorf("%s: max_tokens %d is negative", where, r.MaxTokens)
	}
	if r.Timeout < 0 {
		return fmt.Errorf("%s: timeout %v is negative", where, r.Timeout)
	}
	return nil
}

func (l *DispatchLoaded) validate() error {
	origin := func(key string) string {
		if o := l.Origins[key]; o != "" {
			return o
		}
		return "dispatch"
	}
	if err := ValidateRoute(l.Env.Route, "SCRIBE_DISPATCH_*"); err != nil {
		return err
	}
	if err := ValidateRoute(l.File.Route, origin("dispatch.runner")+": dispatch"); err != nil {
		return err
	}
	for name, s := range l.File.Skills {
		where := fmt.Sprintf("%s: dispatch.skills.%s", l.Path, name)
		if err := ValidateRoute(s.Route, where); err != nil {
			return err
		}
		for i, v := range s.Variants {
			if err := ValidateRoute(v, fmt.Sprintf("%s.variants[%d]", where, i)); err != nil {
				return err
			}
		}
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"concurrency", l.File.Concurrency}, {"concurrency", l.Env.Concurrency}, {"max_output", l.File.MaxOutput}, {"max_output", l.Env.MaxOutput}} {
		if c.n < 0 {
			return fmt.Errorf("dispatch %s %d is negative (set in %s)", c.name, c.n, origin("dispatch."+c.name))
		}
	}
	return nil
}

// Concurrency is the effective agent concurrency cap: env > file > default.
func (l *DispatchLoaded) Concurrency() int {
	return firstPositive(l.Env.Concurrency, l.File.Concurrency, DefaultDispatchConcurrency)
}

// MaxOutput is the effective output cap in bytes: env > file > default.
func (l *DispatchLoaded) MaxOutput() int {
	return firstPositive(l.Env.MaxOutput, l.File.MaxOutput, DefaultDispatchMaxOutput)
}

// APIKeyEnv names the variable holding the openai bearer key.
func (l *DispatchLoaded) APIKeyEnv() string {
	switch {
	case l.Env.APIKeyEnv != "":
		return l.Env.APIKeyEnv
	case l.File.APIKeyEnv != "":
		return l.File.APIKeyEnv
	}
	return DefaultAPIKeyEnv
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

// Setting is one row of `git scribe config`.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
}

// Settings lists the dispatch settings with their origins: the effective
// top-level values (env > user config > default), then every per-skill and
// per-variant value of the user config. Flags, which only the dispatch
// commands take, are shown by `git scribe dispatch plan`.
func (l *DispatchLoaded) Settings() []Setting {
	pick := func(key, env, file, def string) Setting {
		switch {
		case env != "":
			return Setting{key, env, l.Origins[key]}
		case file != "":
			return Setting{key, file, l.Origins[key]}
		}
		return Setting{key, def, string(FromDefault)}
	}
	ftemp := func(t *float64) string {
		if t == nil {
			return ""
		}
		return strconv.FormatFloat(*t, 'f', -1, 64)
	}
	fint := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	fdur := func(d time.Duration) string {
		if d == 0 {
			return ""
		}
		return d.String()
	}
	e, f := l.Env, l.File
	out := []Setting{
		pick("dispatch.runner", e.Runner, f.Runner, RunnerFake),
		pick("dispatch.model", e.Model, f.Model, ""),
		pick("dispatch.base_url", e.BaseURL, f.BaseURL, ""),
		pick("dispatch.temperature", ftemp(e.Temperature), ftemp(f.Temperature), ""),
		pick("dispatch.max_tokens", fint(e.MaxTokens), fint(f.MaxTokens), ""),
		pick("dispatch.timeout", fdur(e.Timeout), fdur(f.Timeout), DefaultDispatchTimeout.String()),
		pick("dispatch.concurrency", fint(e.Concurrency), fint(f.Concurrency), strconv.Itoa(DefaultDispatchConcurrency)),
		pick("dispatch.max_output", fint(e.MaxOutput), fint(f.MaxOutput), strconv.Itoa(DefaultDispatchMaxOutput)),
		pick("dispatch.api_key_env", e.APIKeyEnv, f.APIKeyEnv, DefaultAPIKeyEnv),
	}
	layer := func(prefix string, r Route) {
		for _, kv := range [][2]string{{"runner", r.Runner}, {"model", r.Model}, {"base_url", r.BaseURL},
			{"temperature", ftemp(r.Temperature)}, {"max_tokens", fint(r.MaxTokens)}, {"timeout", fdur(r.Timeout)}} {
			if kv[1] != "" {
				out = append(out, Setting{prefix + "." + kv[0], kv[1], l.Origins[prefix+"."+kv[0]]})
			}
		}
	}
	names := make([]string, 0, len(f.Skills))
	for n := range f.Skills {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		s := f.Skills[n]
		layer("dispatch.skills."+n, s.Route)
		for i, v := range s.Variants {
			layer(fmt.Sprintf("dispatch.skills.%s.variants.%d", n, i), v)
		}
	}
	return out
}

// RepoHasDispatch reports whether the repository's .scribe.yaml has a
// dispatch: section, which is ignored (routing is machine policy).
func RepoHasDispatch(workTree string) bool {
	data, err := os.ReadFile(filepath.Join(workTree, RepoFile))
	if err != nil {
		return false
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil {
		return false
	}
	_, ok := top["dispatch"]
	return ok
}
