package config

import (
	"os"
	"path/filepath"
	"strings"
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
	// SCRIBE_JOURNAL_MAX is set but empty: unset, not an error.
	env := []string{"XDG_CONFIG_HOME=" + home, "SCRIBE_BRIDGE_TOKENS=600", "SCRIBE_LOCK_TIMEOUT=5s", "SCRIBE_DISPATCH_RUNNER=x", "SCRIBE_JOURNAL_MAX="}
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

// TestUnknownKeysWarn: a key no setting has, in .scribe.yaml or the user
// config, is named in a warning with its file; known keys, empty sections
// and the dispatch: section (read strictly by LoadDispatch) are not.
func TestUnknownKeysWarn(t *testing.T) {
	t.Parallel()
	wt := t.TempDir()
	home := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(wt, RepoFile), "journal_max: 20\nsync:\n  remote_lok: true\nfollowups:\npathz:\n  journal: x.md\n")
	user := filepath.Join(home, "git-scribe", "config.yaml")
	write(user, "lock_timeot: 5s\ndispatch:\n  runner: fake\n")
	l, err := Load(wt, []string{"XDG_CONFIG_HOME=" + home})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(l.Warnings, "\n")
	for _, want := range []string{
		filepath.Join(wt, RepoFile) + `: unknown setting "sync.remote_lok" is ignored (did you mean sync.remote_lock?)`,
		filepath.Join(wt, RepoFile) + `: unknown setting "pathz.journal"`,
		user + `: unknown setting "lock_timeot" is ignored (did you mean lock_timeout?)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if len(l.Warnings) != 3 {
		t.Errorf("want 3 warnings, got %d:\n%s", len(l.Warnings), got)
	}
	if l.JournalMax != 20 {
		t.Errorf("journal_max = %d; a warning must not stop known keys", l.JournalMax)
	}
}

// TestCollidingPathsRejected: two scribe files at one path (or one a
// directory, or one inside the other) are refused with both settings named.
func TestCollidingPathsRejected(t *testing.T) {
	t.Parallel()
	tests := []struct{ yaml, want string }{
		{"paths:\n  journal: ACTIVE-STATUS.md\n", `paths.journal ("ACTIVE-STATUS.md", from .scribe.yaml) and paths.active_status ("ACTIVE-STATUS.md", from default) are the same file`},
		{"paths:\n  progress: ./docs/../CLAUDE.md\n", `paths.progress ("CLAUDE.md"`},
		{"paths:\n  bridge_note: Progress.MD\n", `paths.bridge_note ("Progress.MD"`},
		{"paths:\n  journal: .claude/sonmat\n", `paths.journal (".claude/sonmat", from .scribe.yaml) collide`},
		{"paths:\n  journal: notes.md\n  bridge_note: notes.md/bridge.md\n", `the first lies inside the second, which is a file`},
	}
	for _, tt := range tests {
		wt := t.TempDir()
		if err := os.WriteFile(filepath.Join(wt, RepoFile), []byte(tt.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(wt, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "change one of them") {
			t.Errorf("Load(%q) = %v, want an error containing %q", tt.yaml, err, tt.want)
		}
	}
	if _, err := Load(t.TempDir(), nil); err != nil {
		t.Errorf("the defaults collide: %v", err)
	}
}
