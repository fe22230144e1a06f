package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/gittest"
)

// TestMain isolates git: no system or user configuration, a throw-away
// HOME, fixed identities.
func TestMain(m *testing.M) {
	os.Exit(gittest.Run(m, "memory-test-home-"))
}

// gitRepo is gittest.Repo under a name that does not hide Store.Repo.
type gitRepo = gittest.Repo

// testStore is a Store over a throw-away repository with one commit.
type testStore struct {
	*Store
	*gitRepo
	now time.Time
}

func newTestStore(t *testing.T) *testStore {
	t.Helper()
	ts := &testStore{gitRepo: gittest.Init(t), now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	ts.Commit("initial", map[string]string{"README.md": "# demo\n"})
	repo, err := gitops.Discover(context.Background(), ts.Dir)
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

// userWork is the state of the user's work SPEC principle 2 protects.
func (ts *testStore) userWork() string {
	return ts.GitTrim("status", "--porcelain=v2", "--untracked-files=all") + "\n" + ts.GitTrim("diff", "--cached") + "\n" + ts.GitTrim("diff")
}

func (ts *testStore) commits() int {
	var n int
	fmt.Sscan(ts.GitTrim("rev-list", "--count", "HEAD"), &n)
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
