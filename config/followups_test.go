package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestFollowupsConfig(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	os.WriteFile(filepath.Join(repo, RepoFile), []byte("followups:\n  cap: 7\n  similarity: 0.9\n  keywords_en: [next time, \"TODO:\"]\n  todos: [work/*/todo.md]\n"), 0o644)
	l, err := Load(repo, []string{"SCRIBE_FOLLOWUPS_KEYWORDS_KR=다음에,후속"})
	if err != nil {
		t.Fatal(err)
	}
	f := l.Followups
	if f.Cap != 7 || f.Similarity != 0.9 || !slices.Equal(f.KeywordsEN, []string{"next time", "TODO:"}) ||
		!slices.Equal(f.Todos, []string{"work/*/todo.md"}) || !slices.Equal(f.KeywordsKR, []string{"다음에", "후속"}) {
		t.Errorf("followups = %+v", f)
	}
	if l.Origins["followups.keywords_kr"] != "SCRIBE_FOLLOWUPS_KEYWORDS_KR" || l.Origins["followups.cap"] != RepoFile || l.Origins["followups.section"] != "default" {
		t.Errorf("origins: %v", l.Origins)
	}
	for _, bad := range []string{"followups:\n  cap: 0\n", "followups:\n  similarity: 1.5\n", "followups:\n  similarity: high\n"} {
		os.WriteFile(filepath.Join(repo, RepoFile), []byte(bad), 0o644)
		if _, err := Load(repo, nil); err == nil {
			t.Errorf("Load accepted %q", bad)
		}
	}
}
