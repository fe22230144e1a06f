package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
)

// TestMain isolates git: no system or user configuration, a throw-away
// HOME, fixed identities.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "memory-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_SCRIBE_ACTIVE", "XDG_CONFIG_HOME"} {
		os.Unsetenv(k)
	}
	for k, v := range map[string]string{
		"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "TZ": "UTC",
		"GIT_AUTHOR_NAME": "Ada Author", "GIT_AUTHOR_EMAIL": "ada@example.com",
		"GIT_COMMITTER_NAME": "Cy Committer", "GIT_COMMITTER_EMAIL": "cy@example.com",
	} {
		os.Setenv(k, v)
	}
	gitconfig := "[init]\n\tdefaultBranch = main\n[core]\n\tautocrlf = false\n[commit]\n\tgpgSign = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// testStore is a Store over a throw-away repository with one commit.
type testStore struct {
	*Store
	t   *testing.T
	dir string
	now time.Time
}

func newTestStore(t *testing.T) *testStore {
	t.Helper()
	dir := t.TempDir()
	ts := &testStore{t: t, dir: dir, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	ts.git("init", "-q")
	ts.write("README.md", "# demo\n")
	ts.git("add", "-A")
	ts.git("commit", "-q", "-m", "initial")
	repo, err := gitops.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Timezone = "UTC"
	ts.Store = &Store{Repo: repo, Config: cfg, ProjectID: "demo", UniversalDir: filepath.Join(t.TempDir(), "universal"),
		Now: func() time.Time { return ts.now },
		Redact: func(s string) string {
			return strings.ReplaceAll(s, "ghp_secretsecretsecretsecretsecretsecret", "[REDACTED:github-pat]")
		}}
	return ts
}

func (ts *testStore) git(args ...string) string {
	ts.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = ts.dir
	out, err := c.CombinedOutput()
	if err != nil {
		ts.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (ts *testStore) write(rel, content string) {
	ts.t.Helper()
	p := filepath.Join(ts.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		ts.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		ts.t.Fatal(err)
	}
}

func (ts *testStore) read(rel string) string {
	ts.t.Helper()
	b, err := os.ReadFile(filepath.Join(ts.dir, filepath.FromSlash(rel)))
	if err != nil {
		ts.t.Fatal(err)
	}
	return string(b)
}

func (ts *testStore) exists(rel string) bool {
	_, err := os.Stat(filepath.Join(ts.dir, filepath.FromSlash(rel)))
	return err == nil
}

// userWork is the state of the user's work SPEC principle 2 protects.
func (ts *testStore) userWork() string {
	return ts.git("status", "--porcelain=v2", "--untracked-files=all") + "\n" + ts.git("diff", "--cached") + "\n" + ts.git("diff")
}

func (ts *testStore) commits() int {
	var n int
	fmt.Sscan(ts.git("rev-list", "--count", "HEAD"), &n)
	return n
}

// scriptedAsker answers the gate from a script: y, n, "" (Enter), s, or
// "e:<text>"; running out of answers is ErrNoAnswer.
type scriptedAsker struct {
	answers []string
	asked   []string
	notices []string
}

func (a *scriptedAsker) Ask(_ context.Context, c Candidate, pos, total int) (Action, string, error) {
	a.asked = append(a.asked, c.ID)
	if len(a.answers) == 0 {
		return "", "", ErrNoAnswer
	}
	ans := a.answers[0]
	a.answers = a.answers[1:]
	switch {
	case ans == "y":
		return ActionApproved, "", nil
	case ans == "s":
		return ActionSkipped, "", nil
	case strings.HasPrefix(ans, "e:"):
		return ActionEditedApproved, strings.TrimPrefix(ans, "e:"), nil
	}
	return ActionRejected, "", nil
}

func (a *scriptedAsker) Notice(msg string) { a.notices = append(a.notices, msg) }

// fixedAnalyzer proposes fixed candidates, or fails.
type fixedAnalyzer struct {
	det  string
	out  []Candidate
	fail bool
}

func (f fixedAnalyzer) Detector() string { return f.det }

func (f fixedAnalyzer) Analyze(_ context.Context, s Snapshot) ([]Candidate, error) {
	if f.fail {
		return nil, fmt.Errorf("%s exploded", f.det)
	}
	var out []Candidate
	for _, c := range f.out {
		c.ID = CandidateID(c.Type, c.Content)
		c.Detector = f.det
		c.Trigger = s.Trigger
		out = append(out, c)
	}
	return out, nil
}

func cand(typ, name, content string) Candidate {
	return Candidate{Type: typ, Name: name, Description: name, Content: content}
}
