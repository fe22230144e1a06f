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
)

// The contract suite runs every write against a throw-away repository built
// with the real git CLI and checks it with the real git CLI (STYLE.md, Tests 2).
//
// Cross-process behaviour (ref locks, concurrent commits, RecordOnce) is
// tested with real processes: the test binary re-executes itself with
// helperEnv set, and TestMain turns into that helper's main.

const helperEnv = "GITOPS_TEST_HELPER"

// isolatedEnv is the git environment every test (and every helper process)
// runs in: no system config, a private HOME, fixed identities, C locale.
var isolatedEnv = map[string]string{
	"GIT_CONFIG_NOSYSTEM": "1",
	"GIT_TERMINAL_PROMPT": "0",
	"GIT_AUTHOR_NAME":     "Ada Author",
	"GIT_AUTHOR_EMAIL":    "ada@example.com",
	"GIT_COMMITTER_NAME":  "Cy Committer",
	"GIT_COMMITTER_EMAIL": "cy@example.com",
	"GIT_EDITOR":          "true",
	"GIT_MERGE_AUTOEDIT":  "no",
	"GIT_PAGER":           "cat",
	"LC_ALL":              "C",
	"LANG":                "C",
	"TZ":                  "UTC",
}

// envToClear would make git look somewhere other than the test repository.
var envToClear = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
	"GIT_SCRIBE_ACTIVE", "GIT_TRACE", "XDG_CONFIG_HOME", "GIT_PREFIX",
}

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(runHelper(h))
	}
	if os.Getenv("GITOPS_TEST_HOME") == "" {
		home, err := os.MkdirTemp("", "gitops-test-home-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := isolate(home); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		code := m.Run()
		cleanupFixtures()
		os.RemoveAll(home)
		os.Exit(code)
	}
	// A fuzz worker or nested run: the parent already isolated the env.
	code := m.Run()
	cleanupFixtures()
	os.Exit(code)
}

// isolate points HOME at home, writes a minimal global config and sets the
// isolated env for this process and every child it starts.
func isolate(home string) error {
	for _, k := range envToClear {
		os.Unsetenv(k)
	}
	for k, v := range isolatedEnv {
		os.Setenv(k, v)
	}
	os.Setenv("HOME", home)
	os.Setenv("GITOPS_TEST_HOME", home)
	// Never let discovery walk up into a repository that happens to
	// contain the temp dir.
	if tmp, err := filepath.EvalSymlinks(os.TempDir()); err == nil {
		os.Setenv("GIT_CEILING_DIRECTORIES", tmp)
	}
	cfg := `[init]
	defaultBranch = main
[user]
	name = Ada Author
	email = ada@example.com
[commit]
	gpgsign = false
[core]
	autocrlf = false
[advice]
	detachedHead = false
[protocol "file"]
	allow = always
`
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o644)
}

// testRepo is a throw-away repository driven with the real git CLI.
type testRepo struct {
	t   testing.TB
	dir string // real (symlink-free) path of the work tree
}

// newEmptyRepo runs `git init` in a fresh temp dir (unborn main).
func newEmptyRepo(t testing.TB) *testRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := &testRepo{t: t, dir: real}
	tr.git("init", "-q")
	return tr
}

// newRepo is a repository with one commit containing README.md.
func newRepo(t testing.TB) *testRepo {
	t.Helper()
	tr := newEmptyRepo(t)
	tr.write("README.md", "# test\n")
	tr.git("add", "README.md")
	tr.git("commit", "-q", "-m", "initial")
	return tr
}

func (tr *testRepo) path(rel string) string { return filepath.Join(tr.dir, filepath.FromSlash(rel)) }

// gitIn runs git in dir; a failure fails the test.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitInErr(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitInErr(dir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}

func (tr *testRepo) git(args ...string) string {
	tr.t.Helper()
	return gitIn(tr.t, tr.dir, args...)
}

// gitTrim is git with surrounding whitespace trimmed.
func (tr *testRepo) gitTrim(args ...string) string {
	tr.t.Helper()
	return strings.TrimSpace(tr.git(args...))
}

// gitMayFail runs git and returns its combined output and error.
func (tr *testRepo) gitMayFail(args ...string) (string, error) {
	return gitInErr(tr.dir, nil, args...)
}

func (tr *testRepo) gitStdin(stdin []byte, args ...string) string {
	tr.t.Helper()
	out, err := gitInErr(tr.dir, stdin, args...)
	if err != nil {
		tr.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (tr *testRepo) write(rel, content string) {
	tr.t.Helper()
	p := tr.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *testRepo) read(rel string) string {
	tr.t.Helper()
	b, err := os.ReadFile(tr.path(rel))
	if err != nil {
		tr.t.Fatal(err)
	}
	return string(b)
}

// commitFiles writes files, stages them and commits.
func (tr *testRepo) commitFiles(msg string, files map[string]string) string {
	tr.t.Helper()
	for p, c := range files {
		tr.write(p, c)
		tr.git("--literal-pathspecs", "add", "--", p)
	}
	tr.git("commit", "-q", "-m", msg)
	return tr.head()
}

func (tr *testRepo) head() string {
	tr.t.Helper()
	return tr.gitTrim("rev-parse", "HEAD")
}

// open discovers the repository with gitops.
func (tr *testRepo) open() *Repo {
	tr.t.Helper()
	r, err := Discover(context.Background(), tr.dir)
	if err != nil {
		tr.t.Fatalf("Discover(%s): %v", tr.dir, err)
	}
	return r
}

// fsck runs `git fsck --strict`; dangling objects are fine, errors are not.
func (tr *testRepo) fsck() {
	tr.t.Helper()
	out, err := tr.gitMayFail("fsck", "--strict", "--no-progress")
	if err != nil {
		tr.t.Fatalf("git fsck --strict failed: %v\n%s", err, out)
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
	tr.t.Helper()
	return snapshot{
		status:      tr.git("status", "--porcelain=v2", "--untracked-files=all"),
		cached:      tr.git("diff", "--cached", "--binary"),
		unstaged:    tr.git("diff", "--binary"),
		lsFilesMeta: tr.git("ls-files", "--stage"),
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
	tr.t.Helper()
	return tr.gitTrim("for-each-ref", "--format=%(refname) %(objectname)", LockRefPrefix)
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
