package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeUser(t *testing.T, text string) []string {
	t.Helper()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "git-scribe"), 0o755)
	os.WriteFile(filepath.Join(home, "git-scribe", "config.yaml"), []byte(text), 0o644)
	return []string{"XDG_CONFIG_HOME=" + home}
}

func TestLoadDispatch(t *testing.T) {
	t.Parallel()
	env := writeUser(t, "journal_max: 9\ndispatch:\n  runner: claude\n  timeout: 2m\n  api_key_env: MY_KEY\n  skills:\n    body_fill:\n      runner: openai\n      base_url: http://127.0.0.1:8080\n      variants:\n        - {temperature: 0.7}\n")
	env = append(env, "SCRIBE_DISPATCH_MODEL=m", "SCRIBE_DISPATCH_API_KEY=sk-never-shown", "SCRIBE_DISPATCH_CONCURRENCY=3", "SCRIBE_DISPATCH_BOGUS=1")
	l, err := LoadDispatch(env)
	if err != nil {
		t.Fatal(err)
	}
	if l.File.Runner != "claude" || l.File.Timeout.Minutes() != 2 || l.Env.Model != "m" || l.Concurrency() != 3 || l.APIKeyEnv() != "MY_KEY" {
		t.Fatalf("%+v", l)
	}
	if s := l.File.Skills["body_fill"]; s.Runner != "openai" || len(s.Variants) != 1 || *s.Variants[0].Temperature != 0.7 {
		t.Fatalf("skills: %+v", l.File.Skills)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "SCRIBE_DISPATCH_BOGUS") {
		t.Fatalf("warnings %q", l.Warnings)
	}
	got := map[string]Setting{}
	for _, s := range l.Settings() {
		got[s.Key] = s
		if strings.Contains(s.Value, "sk-never") || strings.Contains(s.Key, "api_key.") {
			t.Fatalf("the API key shows: %+v", s)
		}
	}
	for key, want := range map[string]Setting{
		"dispatch.runner":                                  {"dispatch.runner", "claude", l.Path},
		"dispatch.model":                                   {"dispatch.model", "m", "SCRIBE_DISPATCH_MODEL"},
		"dispatch.concurrency":                             {"dispatch.concurrency", "3", "SCRIBE_DISPATCH_CONCURRENCY"},
		"dispatch.max_output":                              {"dispatch.max_output", "1048576", "default"},
		"dispatch.skills.body_fill.base_url":               {"dispatch.skills.body_fill.base_url", "http://127.0.0.1:8080", l.Path},
		"dispatch.skills.body_fill.variants.0.temperature": {"dispatch.skills.body_fill.variants.0.temperature", "0.7", l.Path},
	} {
		if got[key] != want {
			t.Errorf("%s = %+v, want %+v", key, got[key], want)
		}
	}
	// The main loader ignores the dispatch section (it is read here).
	if c, err := Load("", env); err != nil || c.JournalMax != 9 {
		t.Fatalf("Load: %v", err)
	}
}

func TestLoadDispatchErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, env, want string }{
		{"misspelt key", "dispatch:\n  skills:\n    body_fill:\n      runer: openai\n", "", "field runer not found"},
		{"unknown runner", "dispatch:\n  runner: gpt\n", "", `unknown runner "gpt"`},
		{"bad url", "dispatch:\n  skills:\n    x:\n      base_url: localhost:8080\n", "", "not an http(s) URL"},
		{"bad temperature", "dispatch:\n  skills:\n    x:\n      variants:\n        - {temperature: 3}\n", "", "variants[0]: temperature 3 is outside 0–2"},
		{"bad env number", "", "SCRIBE_DISPATCH_TIMEOUT=soon", "SCRIBE_DISPATCH_TIMEOUT"},
		{"bad env runner", "", "SCRIBE_DISPATCH_RUNNER=x", "unknown runner"},
		{"negative concurrency", "dispatch:\n  concurrency: -1\n", "", "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := writeUser(t, tt.file)
			if tt.env != "" {
				env = append(env, tt.env)
			}
			if _, err := LoadDispatch(env); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if l, err := LoadDispatch(writeUser(t, "dispatch:\n")); err != nil || l.Path != "" {
		t.Fatalf("an empty section: %v", err)
	}
}
