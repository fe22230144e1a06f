package gitops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/internal/gittest"
)

// The contract suite runs every write against a throw-away repository built
// with the real git CLI and checks it with the real git CLI (STYLE.md, Tests 2).
//
// Cross-process behaviour (ref locks, concurrent commits, RecordOnce) is
// tested with real processes: the test binary re-executes itself with
// helperEnv set, and TestMain turns into that helper's main.

const helperEnv = "GITOPS_TEST_HELPER"

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(runHelper(h))
	}
	// A fuzz worker or nested run inherits the parent's isolated env.
	code := gittest.Run(m, "gitops-test-home-")
	cleanupFixtures()
	os.Exit(code)
}

// testRepo is a throw-away repository driven with the real git CLI; Dir is
// its real (symlink-free) work tree path.
type testRepo struct {
	*gittest.Repo
}

// repoAt is the repository whose work tree is dir.
func repoAt(t testing.TB, dir string) *testRepo {
	return &testRepo{&gittest.Repo{T: t, Dir: dir}}
}

// newEmptyRepo runs `git init` in a fresh temp dir (unborn main).
func newEmptyRepo(t testing.TB) *testRepo {
	t.Helper()
	return &testRepo{gittest.Init(t)}
}

// newRepo is a repository with one commit containing README.md.
func newRepo(t testing.TB) *testRepo {
	t.Helper()
	tr := newEmptyRepo(t)
	tr.Commit("initial", map[string]string{"README.md": "# test\n"})
	return tr
}

// open discovers the repository with gitops.
func (tr *testRepo) open() *Repo {
	tr.T.Helper()
	r, err := Discover(context.Background(), tr.Dir)
	if err != nil {
		tr.T.Fatalf("Discover(%s): %v", tr.Dir, err)
	}
	return r
}

// fsck runs `git fsck --strict`; dangling objects are fine, errors are not.
func (tr *testRepo) fsck() {
	tr.T.Helper()
	out, err := tr.GitErr("fsck", "--strict", "--no-progress")
	if err != nil {
		tr.T.Fatalf("git fsck --strict failed: %v\n%s", err, out)
	}
}

// snapshot is everything about the user's work that a scribe commit must
// leave alone, as the real git CLI reports it.
type snapshot struct {
	status      string // git status --porcelain=v2 --untracked-files=all
	cached      string // git diff --cached --binary
	unstaged    string // git diff --binary
	lsFilesMeta string // git ls-files --stage (mode, object, stage, path)
}

func (tr *testRepo) snapshot() snapshot {
	tr.T.Helper()
	return snapshot{
		status:      tr.Git("status", "--porcelain=v2", "--untracked-files=all"),
		cached:      tr.Git("diff", "--cached", "--binary"),
		unstaged:    tr.Git("diff", "--binary"),
		lsFilesMeta: tr.Git("ls-files", "--stage"),
	}
}

// withoutPaths drops lines mentioning any of paths.
func withoutPaths(s string, paths ...string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		drop := false
		for _, p := range paths {
			if strings.Contains(line, p) {
				drop = true
			}
		}
		if !drop {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// lockRefs lists refs under refs/scribe/locks/.
func (tr *testRepo) lockRefs() string {
	tr.T.Helper()
	return tr.GitTrim("for-each-ref", "--format=%(refname) %(objectname)", LockRefPrefix)
}

// helperCmd builds a re-exec of this test binary running helper h.
func helperCmd(t testing.TB, h string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+h)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runHelpers starts n helper processes at once (released together through a
// start file) and returns each one's error and combined output.
func runHelpers(t *testing.T, n int, h string, env func(i int) []string) ([]error, []string) {
	t.Helper()
	gate := filepath.Join(t.TempDir(), "go")
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = helperCmd(t, h, append(env(i), "GITOPS_GATE="+gate, fmt.Sprintf("GITOPS_ID=%d", i))...)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout = outs[i]
		cmds[i].Stderr = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	// Release every process at once so they really contend.
	time.Sleep(50 * time.Millisecond)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errs := make([]error, n)
	texts := make([]string, n)
	for i, c := range cmds {
		errs[i] = c.Wait()
		texts[i] = outs[i].String()
	}
	return errs, texts
}
