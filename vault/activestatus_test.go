package vault

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/secrets"
)

// asVault is a repository with files, committed, as a Vault.
func asVault(t *testing.T, files map[string]string, cfg func(*config.Config)) *Vault {
	t.Helper()
	dir := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "A"}, {"config", "user.email", "a@example.com"}, {"add", "-A"}, {"commit", "-q", "-m", "vault"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := gitops.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	c := config.Defaults()
	if cfg != nil {
		cfg(&c)
	}
	return &Vault{Repo: repo, Config: c}
}

// The dashboard is never its own source, whatever the patterns say, and a
// line only it holds does not survive regeneration.
func TestActiveStatusIsNeverASource(t *testing.T) {
	t.Parallel()
	v := asVault(t, map[string]string{
		"ACTIVE-STATUS.md": "# Active Status\n\n## Next Session\n\n- (x) stale dashboard-only line\n",
		"notes.md":         "## Next Session\n\n- real follow-up\n",
	}, func(c *config.Config) { c.Followups.Todos = []string{"*.md"} })
	rep, err := v.RegenerateActiveStatus(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != "committed" || strings.Contains(rep.Text, "stale") || !strings.Contains(rep.Text, "real follow-up — notes.md") {
		t.Errorf("status %s:\n%s", rep.Status, rep.Text)
	}
	for _, s := range rep.Dashboard.Audit.Sources {
		if s.Files != 1 {
			t.Errorf("sources %+v: ACTIVE-STATUS.md was read", rep.Dashboard.Audit.Sources)
		}
	}
	again, err := v.RegenerateActiveStatus(context.Background(), false)
	if err != nil || again.Status != "unchanged" {
		t.Errorf("second run: %s %v", again.Status, err)
	}
}

// A single-project repository tags with its directory name unless the
// project is configured.
func TestDefaultProject(t *testing.T) {
	t.Parallel()
	v := asVault(t, map[string]string{"todos.md": "## Next Session\n- a\n"}, nil)
	srcs, _, err := v.FollowupSources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.DefaultProject(srcs); got != filepath.Base(v.Repo.WorkTree) {
		t.Errorf("DefaultProject = %q", got)
	}
	v.Config.Project = "demo"
	if got := v.DefaultProject(srcs); got != "demo" {
		t.Errorf("configured DefaultProject = %q", got)
	}
	multi := asVault(t, map[string]string{"projects/api/todos.md": "## Next Session\n- a\n"}, nil)
	srcs, _, _ = multi.FollowupSources(context.Background(), nil)
	if got := multi.DefaultProject(srcs); got != "" || srcs[0].Project != "api" {
		t.Errorf("multi-project DefaultProject = %q, source project %q", got, srcs[0].Project)
	}
}

// A secret in a follow-up source never reaches the dashboard, though the
// dashboard escapes its text for markdown (a URL an autolink, an e-mail
// address too): the follow-ups are redacted as plain text first.
func TestActiveStatusRedactsBeforeEscaping(t *testing.T) {
	t.Parallel()
	v := asVault(t, map[string]string{"todos.md": "## Next Session\n\n" +
		"- rotate postgres://admin:s3cr3tP4ssw0rd@db.example.com:5432/app\n" +
		"- revoke https://admin:s3cr3tP4ssw0rd@git.example.com/x <now>\n"}, nil)
	v.Redact = func(s string) string { r, _ := secrets.Redact(s); return r }
	rep, err := v.RegenerateActiveStatus(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep.Text, "s3cr3tP4ssw0rd") || !strings.Contains(rep.Text, "[REDACTED:") || !strings.Contains(rep.Text, `\<now>`) {
		t.Errorf("a secret reached the dashboard, or its text was not escaped:\n%s", rep.Text)
	}
}
