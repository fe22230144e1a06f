package dispatch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
)

// fixture is the contact test's vault.
const fixture = "../testdata/vaults/fertile-flames"

// gitRun runs git in dir with an isolated configuration.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "LC_ALL=C")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// vaultRepo copies a fixture vault into a new repository with one commit.
func vaultRepo(t *testing.T, src string) *gitops.Repo {
	t.Helper()
	dir := t.TempDir()
	if src != "" {
		copyTree(t, src, dir)
	}
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "config", "user.name", "Ada")
	gitRun(t, dir, "config", "user.email", "ada@example.com")
	gitRun(t, dir, "config", "commit.gpgSign", "false")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "--allow-empty", "-m", "vault")
	r, err := gitops.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, r *gitops.Repo, rel, text string) {
	t.Helper()
	p := filepath.Join(r.WorkTree, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitAll(t *testing.T, r *gitops.Repo, msg string) {
	t.Helper()
	gitRun(t, r.WorkTree, "add", "-A")
	gitRun(t, r.WorkTree, "commit", "-q", "-m", msg)
}

// checksums maps every work-tree file (outside .git) to its sha256.
func checksums(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		s := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(s[:])
		return nil
	})
	return out
}

func testConfig() config.Config {
	c := config.Defaults()
	c.Timezone = "UTC"
	c.LockTimeout = 10 * time.Second
	return c
}

var fixedNow = func() time.Time { return time.Date(2026, 7, 12, 9, 30, 0, 0, time.UTC) }

// stub is a scripted Runner that records its prompts and routes.
type stub struct {
	mu      sync.Mutex
	prompts []string
	routes  []Route
	reply   func(prompt string, rt Route) (string, error)
	delay   time.Duration
	active  atomic.Int32
	maxSeen atomic.Int32
}

type stubRunner struct {
	s  *stub
	rt Route
}

func (r stubRunner) Generate(ctx context.Context, prompt string) (string, error) {
	s := r.s
	n := s.active.Add(1)
	defer s.active.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	s.prompts = append(s.prompts, prompt)
	s.routes = append(s.routes, r.rt)
	s.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if s.reply != nil {
		return s.reply(prompt, r.rt)
	}
	return Fake{}.Generate(ctx, prompt)
}

func (s *stub) newRunner(rt Route) (Runner, error) { return stubRunner{s: s, rt: rt}, nil }

func (s *stub) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}

func newDispatcher(r *gitops.Repo, routing *Routing, s *stub, redact func(string) string) *Dispatcher {
	o := Options{Repo: r, Config: testConfig(), Routing: routing, Now: fixedNow, Redact: redact, Env: os.Environ()}
	if s != nil {
		o.NewRunner = s.newRunner
	}
	return New(o)
}
