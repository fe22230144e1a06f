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
	// Dispatch (SPEC §7): contract notes, frozen context packs, the output
	// dirs of landed drafts and reviews (reviews/<lane>/), the ratify inbox
	// and the repository's skill overrides.
	Contracts    string `yaml:"contracts"`
	ContextPacks string `yaml:"context_packs"`
	Drafts       string `yaml:"drafts"`
	Reviews      string `yaml:"reviews"`
	Inbox        string `yaml:"inbox"`
	Skills       string `yaml:"skills"`
}

// Config is the effective configuration.
type Config struct {
	Paths Paths `yaml:"paths"`
	// View renders the vault's files (refs/scribe/vault) into the work tree
	// at Paths' bridge note, journal, archive and ACTIVE-STATUS, as
	// git-ignored files; false turns the view off (SPEC principle 2).
	View bool `yaml:"view"`
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
	// TemplateSet picks dispatch's default review lanes: fiction (canon,
	// voice) or gamedev (canon, voice, mechanics).
	TemplateSet string `yaml:"template_set"`
	// Memory configures project rules, traps and the compound promotion gate.
	Memory Memory `yaml:"memory"`
	// Followups configures follow-up sources, conversation extraction and
	// the ACTIVE-STATUS dashboard.
	Followups Followups `yaml:"followups"`
	// Sync configures `git scribe sync` and remote locks.
	Sync Sync `yaml:"sync"`
	// Sessions configures the per-session record agent hooks keep
	// (SPEC principle 12).
	Sessions Sessions `yaml:"sessions"`
}

// Sessions configures agent sessions (SPEC principle 12).
type Sessions struct {
	// Idle is how long a session record may go without a Stop before the
	// next scribe command treats the session as over and journals it.
	Idle time.Duration `yaml:"idle"`
	// MaxLine is the most one transcript line may cost, in bytes: a longer
	// line is skipped (and counted), never read into memory.
	MaxLine int `yaml:"max_line"`
}

// Sync configures how the vault travels through a git remote (SPEC §4).
type Sync struct {
	// Remote is the remote sync and remote locks use (default: the
	// branch's upstream remote, else origin).
	Remote string `yaml:"remote"`
	// Branch is the vault branch (default: the current branch).
	Branch string `yaml:"branch"`
	// RemoteLock makes every scribe write also take its lock on the remote
	// (like --remote-lock), so machines sharing the remote serialise.
	RemoteLock bool `yaml:"remote_lock"`
	// NetworkTimeout bounds each remote operation a remote lock runs (one
	// push or fetch); past it git and its transport are stopped and the
	// write is queued.
	NetworkTimeout time.Duration `yaml:"network_timeout"`
}

// Followups configures where durable follow-ups are read, how
// ACTIVE-STATUS.md is built from them and which words mark a follow-up in a
// conversation (SPEC §5). Patterns are repo-relative globs ("*" matches
// within one path segment); the first "*" segment names the project, the
// second (actives) the task. Lists are comma-separated in the environment.
type Followups struct {
	// Actives are per-task files whose open checkboxes are follow-ups.
	Actives []string `yaml:"actives"`
	// Todos and Progress are files whose Section holds follow-ups; patterns
	// without "*" are the single-project repository's own files.
	Todos    []string `yaml:"todos"`
	Progress []string `yaml:"progress"`
	// Section is the heading whose items are follow-ups ("Next Session").
	Section string `yaml:"section"`
	// Cap is how many follow-ups ACTIVE-STATUS.md shows.
	Cap int `yaml:"cap"`
	// Similarity is the edit-distance ratio at or above which two
	// follow-ups are the same item (0 < s <= 1).
	Similarity float64 `yaml:"similarity"`
	// KeywordsEN and KeywordsKR mark follow-ups in a conversation.
	KeywordsEN []string `yaml:"keywords_en"`
	KeywordsKR []string `yaml:"keywords_kr"`
}

// Memory configures project rules, novel traps and the compound promotion
// gate (SPEC §6). Lists are comma-separated in the environment.
type Memory struct {
	// UniversalDir holds universal trap records, outside the repository
	// ("~" is the user's home); the only place scribe writes outside it.
	UniversalDir string `yaml:"universal_dir"`
	// FeedbackRepo is the OWNER/REPO `trap propose --submit` files issues
	// against; empty disables submitting.
	FeedbackRepo string `yaml:"feedback_repo"`
	// CorrectionsEN and CorrectionsKR are the user_correction keywords.
	CorrectionsEN []string `yaml:"corrections_en"`
	CorrectionsKR []string `yaml:"corrections_kr"`
	// Global opts into global memory: every promoted record is tagged with
	// the project_id it came from.
	Global bool `yaml:"global"`
	// Window is how many recent turns intake keeps.
	Window int `yaml:"window"`
	// IndexMaxLines is the MEMORY.md size past which the gate suggests a clean-up.
	IndexMaxLines int `yaml:"index_max_lines"`
	// DisableAfter consecutive rejections disable a detector for DisableFor.
	DisableAfter int           `yaml:"disable_after"`
	DisableFor   time.Duration `yaml:"disable_for"`
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
			Contracts:      "control/contracts",
			ContextPacks:   "control/context-packs",
			Drafts:         "body/drafts",
			Reviews:        "reviews",
			Inbox:          "control/inbox.md",
			Skills:         ".agents/skills",
		},
		View:         true,
		JournalMax:   50,
		BridgeTokens: 1500,
		Timezone:     "Local",
		LockTimeout:  30 * time.Second,
		TemplateSet:  "fiction",
		Sync:         Sync{NetworkTimeout: 10 * time.Second},
		Memory: Memory{
			UniversalDir:  "~/.claude/sonmat/memory",
			CorrectionsEN: []string{"wrong", "incorrect", "not correct", "not right", "not what i asked", "i told you", "i said", "that's not it"},
			CorrectionsKR: []string{"틀렸", "틀린", "잘못", "아니야", "아니라", "그게 아니", "말고", "하지 말라"},
			Window:        50,
			IndexMaxLines: 200,
			DisableAfter:  3,
			DisableFor:    7 * 24 * time.Hour,
		},
		Sessions: Sessions{Idle: 2 * time.Hour, MaxLine: 1 << 20},
		Followups: Followups{
			Actives:    []string{"projects/*/actives/*/todos.md"},
			Todos:      []string{"projects/*/todos.md", "todos.md"},
			Progress:   []string{"projects/*/PROGRESS.md", "progress.md"},
			Section:    "Next Session",
			Cap:        15,
			Similarity: 0.85,
			KeywordsEN: []string{"next session", "follow-up", "follow up", "TODO:", "come back to", "defer", "later"},
			KeywordsKR: []string{"다음 세션", "후속", "나중에", "미루", "다음에"},
		},
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
	// Warnings name what was read but not used (unknown keys), once each.
	Warnings []string
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
		// Set but empty is unset (`SCRIBE_X= git scribe …` clears it).
		if !ok || val == "" || !strings.HasPrefix(name, "SCRIBE_") || strings.HasPrefix(name, "SCRIBE_DISPATCH_") {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(name, "SCRIBE_"))
		key = strings.Replace(key, "paths_", "paths.", 1)
		if rest, ok := strings.CutPrefix(key, "memory_"); ok {
			key = "memory." + rest
		}
		if rest, ok := strings.CutPrefix(key, "sync_"); ok {
			key = "sync." + rest
		}
		if rest, ok := strings.CutPrefix(key, "followups_"); ok {
			key = "followups." + rest
		}
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
			if !l.isSection(k) && !ownedElsewhere(k) {
				hint := "git scribe config lists the known ones"
				if near := l.nearestKey(k); near != "" {
					hint = "did you mean " + near + "?"
				}
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s: unknown setting %q is ignored (%s)", path, k, hint))
			}
			continue
		}
		val := fmt.Sprint(flat[k])
		if list, ok := flat[k].([]any); ok {
			parts := make([]string, len(list))
			for i, x := range list {
				parts[i] = fmt.Sprint(x)
			}
			val = strings.Join(parts, ",")
		}
		if err := l.Set(k, val, origin); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	return nil
}

// ownedElsewhere reports whether a key belongs to a section another loader
// reads (and checks) itself: dispatch: is LoadDispatch's.
func ownedElsewhere(key string) bool {
	return key == "dispatch" || strings.HasPrefix(key, "dispatch.")
}

// nearestKey is the known setting closest to a misspelt key (at most two
// edits away), or "".
func (l *Loaded) nearestKey(key string) string {
	best, bestD := "", 3
	for k := range l.Origins {
		if d := editDistance(key, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if bestD > 2 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// isSection reports whether key names a section of known settings (an empty
// "sync:" flattens to "sync").
func (l *Loaded) isSection(key string) bool {
	for k := range l.Origins {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
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
	case reflect.Float64:
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("%s: want a number like 0.85, got %q", key, val)
		}
		f.SetFloat(x)
	case reflect.Bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("%s: want true or false, got %q", key, val)
		}
		f.SetBool(b)
	case reflect.Slice: // []string, comma-separated
		var list []string
		for _, part := range strings.Split(val, ",") {
			if part = strings.TrimSpace(part); part != "" {
				list = append(list, part)
			}
		}
		f.Set(reflect.ValueOf(list))
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
	if list, ok := f.Interface().([]string); ok {
		return strings.Join(list, ",")
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
	if l.Followups.Cap < 1 {
		return fmt.Errorf("followups.cap must be at least 1 (set in %s)", l.Origins["followups.cap"])
	}
	if l.Followups.Similarity <= 0 || l.Followups.Similarity > 1 {
		return fmt.Errorf("followups.similarity must be above 0 and at most 1, like 0.85 (set in %s)", l.Origins["followups.similarity"])
	}
	if err := l.Paths.collision(l.Origins); err != nil {
		return err
	}
	if l.Sync.NetworkTimeout <= 0 {
		return fmt.Errorf("sync.network_timeout must be above 0, like 10s (set in %s)", l.Origins["sync.network_timeout"])
	}
	if l.Timezone != "" && l.Timezone != "Local" {
		if _, err := time.LoadLocation(l.Timezone); err != nil {
			return fmt.Errorf("timezone %q (from %s): %w", l.Timezone, l.Origins["timezone"], err)
		}
	}
	return nil
}
