package vault

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/followups"
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

// The regenerations' cache lives in scribe's state dir, never the work
// tree; a new process reads it and says the same, and one that is damaged
// or another build's is not used. A read-only vault writes none.
func TestFollowupCacheFile(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"projects/api/todos.md":    "## Next Session\n\n- migrate the cache layer\n- fix `getUser` in v1.2\n",
		"projects/api/PROGRESS.md": "## Next Session\n\n- Migrate the cache layr\n- [x] fix getuser in v1.2\n",
	}
	v := asVault(t, files, nil)
	ctx := context.Background()
	ro := &Vault{Repo: v.Repo, Config: v.Config, ReadOnly: true}
	if _, err := ro.ActiveStatus(ctx); err != nil {
		t.Fatal(err)
	}
	path := v.followupCachePath()
	if !strings.HasPrefix(path, filepath.Join(v.Repo.CommonDir, "scribe", "followups")+string(filepath.Separator)) {
		t.Fatalf("cache at %s, not in scribe's state dir", path)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a read-only vault wrote its cache: %v", err)
	}
	first, err := v.RegenerateActiveStatus(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(first.Dashboard.Audit.Merges); n != 2 {
		t.Fatalf("%d merges, want a near-duplicate and a resolution: %+v", n, first.Dashboard.Audit.Merges)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no cache after a regeneration: %v", err)
	}
	if out, _ := exec.Command("git", "-C", v.Repo.WorkTree, "status", "--porcelain", "--untracked-files=all").Output(); strings.Contains(string(out), "cache") {
		t.Errorf("the cache shows in the work tree:\n%s", out)
	}
	for name, data := range map[string][]byte{"as written": b, "damaged": append(b[:len(b)-5:len(b)-5], "xxxxx"...), "another build's": nil} {
		if data != nil {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fresh := &Vault{Repo: v.Repo, Config: v.Config}
		if name == "another build's" {
			fresh.followups = followups.DecodeCache(b, "another build")
		}
		d, err := fresh.ActiveStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fresh.renderActiveStatus(d), first.Text; got != want {
			t.Errorf("%s cache: the dashboard reads\n%s\nwant\n%s", name, got, want)
		}
		if got, _ := json.Marshal(d.Audit.Merges); string(got) != mustJSON(t, first.Dashboard.Audit.Merges) {
			t.Errorf("%s cache: merges %s, want %s", name, got, mustJSON(t, first.Dashboard.Audit.Merges))
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
