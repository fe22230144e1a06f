// Package config loads git-scribe's settings: built-in defaults, the repo's
// .scribe.yaml, the user's $XDG_CONFIG_HOME/git-scribe/config.yaml, SCRIBE_*
// environment variables and flags, in rising precedence, remembering where
// each value came from. It never writes and never touches git.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// RepoFile is the repository's configuration file.
const RepoFile = ".scribe.yaml"

// Paths is the vault layout (SPEC §2); every path is repo-relative.
type Paths struct {
	BridgeNote     string `yaml:"bridge_note"`
	Journal        string `yaml:"journal"`
	JournalArchive string `yaml:"journal_archive"`
	Progress       string `yaml:"progress"`
	ActiveStatus   string `yaml:"active_status"`
	ClaudeMD       string `yaml:"claude_md"`
	TrapDir        string `yaml:"trap_dir"`
	MemoryDir      string `yaml:"memory_dir"`
}

// Config is the effective configuration.
type Config struct {
	Paths Paths `yaml:"paths"`
	// JournalMax is how many entries the journal keeps before archiving.
	JournalMax int `yaml:"journal_max"`
	// BridgeTokens is the token budget of `git scribe bridge`.
	BridgeTokens int `yaml:"bridge_tokens"`
	// Timezone names the zone timestamps are written in ("Local" by default).
	Timezone string `yaml:"timezone"`
	// LockTimeout bounds how long a command waits for a scribe lock.
	LockTimeout time.Duration `yaml:"lock_timeout"`
	// Project is the project tag for a single-project repository (default: the repository's directory name).
	Project string `yaml:"project"`
}

// Defaults returns the built-in configuration.
func Defaults() Config {
	return Config{
		Paths: Paths{
			BridgeNote:     ".claude/sonmat/bridge-note.md",
			Journal:        ".claude/sonmat/journal.md",
			JournalArchive: ".claude/sonmat/journal-archive.md",
			Progress:       "progress.md",
			ActiveStatus:   "ACTIVE-STATUS.md",
			ClaudeMD:       "CLAUDE.md",
			TrapDir:        ".claude/sonmat",
			MemoryDir:      ".claude/memory",
		},
		JournalMax:   50,
		BridgeTokens: 1500,
		Timezone:     "Local",
		LockTimeout:  30 * time.Second,
	}
}

// Source says where a value came from.
type Source string

// Value sources, lowest precedence first.
const (
	FromDefault Source = "default"
	FromRepo    Source = RepoFile
	FromUser    Source = "user config"
	FromEnv     Source = "env"
	FromFlag    Source = "flag"
)

// Loaded is the configuration plus the origin of every key.
type Loaded struct {
	Config
	Origins map[string]string // dotted key → "default", ".scribe.yaml", "<path>", "SCRIBE_X"
}

// Load merges defaults, the repo file, the user file and the environment.
// workTree may be empty (no repository). env is os.Environ()-style.
func Load(workTree string, env []string) (*Loaded, error) {
	l := &Loaded{Config: Defaults(), Origins: map[string]string{}}
	for _, k := range keys(reflect.TypeOf(Config{}), "") {
		l.Origins[k] = string(FromDefault)
	}
	if workTree != "" {
		if err := l.mergeFile(filepath.Join(workTree, RepoFile), RepoFile); err != nil {
			return nil, err
		}
	}
	if p := UserFile(env); p != "" {
		if err := l.mergeFile(p, p); err != nil {
			return nil, err
		}
	}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "SCRIBE_") || strings.HasPrefix(name, "SCRIBE_DISPATCH_") {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(name, "SCRIBE_"))
		key = strings.Replace(key, "paths_", "paths.", 1)
		if _, known := l.Origins[key]; !known {
			continue
		}
		if err := l.Set(key, val, name); err != nil {
			return nil, err
		}
	}
	return l, l.validate()
}

// UserFile is $XDG_CONFIG_HOME/git-scribe/config.yaml (or ~/.config/…).
func UserFile(env []string) string {
	get := func(k string) string {
		for _, kv := range env {
			if n, v, ok := strings.Cut(kv, "="); ok && n == k {
				return v
			}
		}
		return ""
	}
	if x := get("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git-scribe", "config.yaml")
	}
	if h := get("HOME"); h != "" {
		return filepath.Join(h, ".config", "git-scribe", "config.yaml")
	}
	return ""
}

func (l *Loaded) mergeFile(path, origin string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("parse config %s: %w (fix the YAML or remove the file)", path, err)
	}
	flat := map[string]any{}
	flatten("", raw, flat)
	names := make([]string, 0, len(flat))
	for k := range flat {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if _, known := l.Origins[k]; !known {
			continue // other features' sections (dispatch:, followups:, …) are read by their owners
		}
		if err := l.Set(k, fmt.Sprint(flat[k]), origin); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	return nil
}

func flatten(prefix string, in map[string]any, out map[string]any) {
	for k, v := range in {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if m, ok := v.(map[string]any); ok {
			flatten(key, m, out)
			continue
		}
		out[key] = v
	}
}

// Set assigns one dotted key from text, recording its origin.
func (l *Loaded) Set(key, val, origin string) error {
	f, ok := field(reflect.ValueOf(&l.Config).Elem(), key)
	if !ok {
		return fmt.Errorf("unknown setting %q", key)
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(val)
	case reflect.Int:
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("%s: want a whole number, got %q", key, val)
		}
		f.SetInt(int64(n))
	case reflect.Int64: // time.Duration
		d, err := time.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("%s: want a duration like 30s, got %q", key, val)
		}
		f.SetInt(int64(d))
	}
	l.Origins[key] = origin
	return nil
}

func field(v reflect.Value, key string) (reflect.Value, bool) {
	head, rest, nested := strings.Cut(key, ".")
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		if strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0] != head {
			continue
		}
		if nested {
			return field(v.Field(i), rest)
		}
		return v.Field(i), true
	}
	return reflect.Value{}, false
}

func keys(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
		if prefix != "" {
			name = prefix + "." + name
		}
		if t.Field(i).Type.Kind() == reflect.Struct && t.Field(i).Type != reflect.TypeOf(time.Time{}) {
			out = append(out, keys(t.Field(i).Type, name)...)
			continue
		}
		out = append(out, name)
	}
	return out
}

// Keys lists every setting in a stable order.
func Keys() []string { return keys(reflect.TypeOf(Config{}), "") }

// Get renders one setting's value as text.
func (l *Loaded) Get(key string) string {
	f, ok := field(reflect.ValueOf(&l.Config).Elem(), key)
	if !ok {
		return ""
	}
	if f.Type() == reflect.TypeOf(time.Duration(0)) {
		return time.Duration(f.Int()).String()
	}
	return fmt.Sprint(f.Interface())
}

// Location is the configured time zone.
func (c Config) Location() *time.Location {
	if c.Timezone == "" || c.Timezone == "Local" {
		return time.Local
	}
	if loc, err := time.LoadLocation(c.Timezone); err == nil {
		return loc
	}
	return time.Local
}

func (l *Loaded) validate() error {
	if l.JournalMax < 1 {
		return fmt.Errorf("journal_max must be at least 1 (set in %s)", l.Origins["journal_max"])
	}
	if l.Timezone != "" && l.Timezone != "Local" {
		if _, err := time.LoadLocation(l.Timezone); err != nil {
			return fmt.Errorf("timezone %q (from %s): %w", l.Timezone, l.Origins["timezone"], err)
		}
	}
	return nil
}
