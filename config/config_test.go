package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLoadPrecedence(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	home := t.TempDir()
	os.WriteFile(filepath.Join(repo, RepoFile), []byte("journal_max: 7\npaths:\n  journal: notes/j.md\ntimezone: Asia/Seoul\ndispatch:\n  runner: fake\n"), 0o644)
	os.MkdirAll(filepath.Join(home, "git-scribe"), 0o755)
	os.WriteFile(filepath.Join(home, "git-scribe", "config.yaml"), []byte("journal_max: 9\nbridge_tokens: 800\n"), 0o644)
	env := []string{"XDG_CONFIG_HOME=" + home, "SCRIBE_BRIDGE_TOKENS=600", "SCRIBE_LOCK_TIMEOUT=5s", "SCRIBE_DISPATCH_RUNNER=x"}
	l, err := Load(repo, env)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct{ key, val, origin string }{
		{"journal_max", "9", filepath.Join(home, "git-scribe", "config.yaml")},
		{"paths.journal", "notes/j.md", RepoFile},
		{"bridge_tokens", "600", "SCRIBE_BRIDGE_TOKENS"},
		{"lock_timeout", "5s", "SCRIBE_LOCK_TIMEOUT"},
		{"paths.progress", "progress.md", "default"},
		{"timezone", "Asia/Seoul", RepoFile},
	}
	for _, c := range checks {
		if got := l.Get(c.key); got != c.val {
			t.Errorf("%s = %q, want %q", c.key, got, c.val)
		}
		if got := l.Origins[c.key]; got != c.origin {
			t.Errorf("origin of %s = %q, want %q", c.key, got, c.origin)
		}
	}
	if l.LockTimeout != 5*time.Second {
		t.Errorf("LockTimeout = %v", l.LockTimeout)
	}
	if l.Location().String() != "Asia/Seoul" {
		t.Errorf("Location = %v", l.Location())
	}
	if err := l.Set("journal_max", "3", "flag --journal-max"); err != nil || l.JournalMax != 3 || l.Origins["journal_max"] != "flag --journal-max" {
		t.Errorf("Set from a flag: %v %d %q", err, l.JournalMax, l.Origins["journal_max"])
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file string }{
		{"bad yaml", "journal_max: [\n"},
		{"bad number", "journal_max: lots\n"},
		{"zero max", "journal_max: 0\n"},
		{"bad zone", "timezone: Mars/Olympus\n"},
		{"bad duration", "lock_timeout: soon\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			repo := t.TempDir()
			os.WriteFile(filepath.Join(repo, RepoFile), []byte(tt.file), 0o644)
			if _, err := Load(repo, nil); err == nil {
				t.Fatal("want an error naming the problem")
			}
		})
	}
}

func TestKeysCoverEveryField(t *testing.T) {
	t.Parallel()
	l, err := Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys() {
		if l.Origins[k] != "default" {
			t.Errorf("%s has origin %q, want default", k, l.Origins[k])
		}
	}
	if len(Keys()) < 12 {
		t.Errorf("Keys() = %v: missing nested paths?", Keys())
	}
}
