package check

import (
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/memory"
)

func memRecord(typ, extra string) string {
	return "---\nname: n\ndescription: d\ntype: " + typ + "\ncandidate_id: 0123456789ab\npromoted_at: \"2026-01-02T03:04:05+00:00\"\nevaluator_score: 0\nsource_turn: 2\n" + extra + "---\n# n\n\nbody\n"
}

func TestMemoryFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, text string
		global           bool
		want             []string
	}{
		{"valid tacit", ".claude/memory/tacit/a.md", memRecord("tacit", ""), false, nil},
		{"valid correction", ".claude/memory/corrections/a.md", memRecord("correction", "user_correction: u\nprevention: p\n"), false, nil},
		{"rejection history is not checked", ".claude/memory/corrections/_rejected/x.md", "no frontmatter\n", false, nil},
		{"no frontmatter", ".claude/memory/tacit/a.md", "# a\n", false, []string{"no frontmatter"}},
		{"missing type fields", ".claude/memory/preferences/a.md", memRecord("preference", ""), false, []string{"missing scope"}},
		{"wrong directory", ".claude/memory/preferences/a.md", memRecord("tacit", ""), false, []string{"belongs in tacit/"}},
		{"global needs project_id", ".claude/memory/tacit/a.md", memRecord("tacit", ""), true, []string{"project_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			tr.Write(tt.file, tt.text)
			cfg := config.Defaults()
			cfg.Memory.Global = tt.global
			got := run(t, newMemoryFrontmatter(), tr.inputWith(cfg, ""))
			if len(got) != len(tt.want) {
				t.Fatalf("got %s, want %q", describe(got), tt.want)
			}
			for i, w := range tt.want {
				if got[i].File != tt.file || got[i].Severity != "" && got[i].Severity != SeverityError || !strings.Contains(got[i].Message, w) {
					t.Errorf("finding %d: %s, want %q", i, describe(got[i:i+1]), w)
				}
			}
		})
	}
}

func TestMemoryConfirmed(t *testing.T) {
	t.Parallel()
	rec := memRecord("tacit", "")
	t.Run("confirmed scribe commits, people's commits, wrap's files", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("progress: memory +1 -0 (compound)\n\nScribe-Mode: compound\nScribe-Confirmed: yes", map[string]string{".claude/memory/tacit/a.md": rec})
		tr.commit("progress: trap recorded: x\n\nScribe-Mode: trap\nScribe-Confirmed: yes", map[string]string{".claude/sonmat/x.md": "# Trap: x\n"})
		tr.commit("docs: my own memory", map[string]string{".claude/memory/tacit/b.md": rec})
		tr.commit(scribeMsg("wrap"), map[string]string{journalPath: "journal\n", ".claude/sonmat/bridge-note.md": "# Bridge Note\n"})
		if got := run(t, newMemoryConfirmed(), tr.input("")); len(got) != 0 {
			t.Fatalf("want no finding, got %s", describe(got))
		}
	})
	t.Run("unconfirmed memory and trap writes", func(t *testing.T) {
		t.Parallel()
		tr := newRepo(t)
		tr.commit("initial", map[string]string{"README.md": "x\n"})
		bad := tr.commit("progress: memory +1 -0 (compound)\n\n"+gitops.TrailerMode+": compound", map[string]string{".claude/memory/tacit/a.md": rec, ".claude/memory/MEMORY.md": "# Memory\n"})
		badTrap := tr.commit(scribeMsg("trap"), map[string]string{".claude/sonmat/frozen-clock.md": "# Trap: x\n"})
		got := run(t, newMemoryConfirmed(), tr.input(""))
		if len(got) != 2 || got[0].Commit != badTrap || got[1].Commit != bad || got[1].File != ".claude/memory/MEMORY.md" ||
			!strings.Contains(got[1].Message, "Scribe-Confirmed") {
			t.Fatalf("want both unconfirmed commits, got %s", describe(got))
		}
		if got := run(t, newMemoryConfirmed(), tr.input(bad)); len(got) != 1 || got[0].Commit != badTrap {
			t.Fatalf("--since: got %s", describe(got))
		}
	})
}

func TestPendingMemoryWrites(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.commit("initial", map[string]string{"README.md": "x\n"})
	in := tr.input("")
	st := &memory.Store{Repo: in.Repo, Config: in.Config}
	tr.Write(".git/index.lock", "")
	if res, err := st.AddRule(t.Context(), "Always run go vet."); err != nil || res.Status != "queued" {
		t.Fatalf("%+v %v", res, err)
	}
	got := run(t, newQueuedWrites(), in)
	if len(got) != 1 || !strings.Contains(got[0].Message, "1 confirmed memory write") {
		t.Fatalf("got %s", describe(got))
	}
}
