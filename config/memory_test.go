package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestMemorySettings(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	os.WriteFile(filepath.Join(repo, RepoFile), []byte("memory:\n  corrections_en: [nope, \"that's off\"]\n  global: true\n  disable_for: 48h\n  feedback_repo: acme/feedback\n"), 0o644)
	l, err := Load(repo, []string{"SCRIBE_MEMORY_CORRECTIONS_KR=아냐, 틀림", "SCRIBE_PATHS_MEMORY_DIR=notes/memory", "SCRIBE_MEMORY_WINDOW=20"})
	if err != nil {
		t.Fatal(err)
	}
	m := l.Memory
	if !reflect.DeepEqual(m.CorrectionsEN, []string{"nope", "that's off"}) || !reflect.DeepEqual(m.CorrectionsKR, []string{"아냐", "틀림"}) {
		t.Errorf("keyword lists: %q %q", m.CorrectionsEN, m.CorrectionsKR)
	}
	if !m.Global || m.DisableFor != 48*time.Hour || m.FeedbackRepo != "acme/feedback" || m.Window != 20 || m.DisableAfter != 3 {
		t.Errorf("memory settings %+v", m)
	}
	if l.Paths.MemoryDir != "notes/memory" || l.Origins["paths.memory_dir"] != "SCRIBE_PATHS_MEMORY_DIR" {
		t.Errorf("paths.memory_dir = %q from %q", l.Paths.MemoryDir, l.Origins["paths.memory_dir"])
	}
	if got := l.Get("memory.corrections_en"); got != "nope,that's off" || l.Origins["memory.corrections_en"] != RepoFile {
		t.Errorf("Get = %q from %q", got, l.Origins["memory.corrections_en"])
	}
	os.WriteFile(filepath.Join(repo, RepoFile), []byte("memory:\n  global: perhaps\n"), 0o644)
	if _, err := Load(repo, nil); err == nil {
		t.Error("a non-boolean global loaded")
	}
}
