// Package gittest owns the throw-away git repositories that tests build:
// the isolated git environment of a test binary (Run, called from TestMain)
// and Repo, a temporary repository driven with the real git CLI only, never
// through the code under test, so a test's fixture cannot share a bug with
// what it checks.
//
// Only _test.go files import gittest. It must not import gitops (or any
// package of this module): gitops's own tests use it.
package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HomeEnv names the variable that holds the isolated HOME. A process that
// inherits it (a fuzz worker, a test binary re-executed as a helper) is
// already isolated.
const HomeEnv = "GITTEST_HOME"

// Env is the git environment every test, and every process a test starts,
// runs in: no system config, fixed identities, no editor or pager, C
// locale, UTC.
var Env = map[string]string{
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

// EnvToClear would make git look somewhere other than the test repository,
// or change what it records.
var EnvToClear = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE",
	"GIT_SCRIBE_ACTIVE", "GIT_TRACE", "XDG_CONFIG_HOME", "GIT_PREFIX",
}

// GlobalConfig is the $HOME/.gitconfig of the isolated environment.
const GlobalConfig = `[init]
	defaultBranch = main
[user]
	name = Ada Author
	email = ada@example.com
[commit]
	gpgSign = false
[core]
	autocrlf = false
[merge]
	conflictStyle = merge
[advice]
	detachedHead = false
[protocol "file"]
	allow = always
`

// Isolate points HOME at home, writes GlobalConfig there and sets the
// isolated environment for this process and every child it starts.
func Isolate(home string) error {
	for _, k := range EnvToClear {
		os.Unsetenv(k)
	}
	for k, v := range Env {
		os.Setenv(k, v)
	}
	os.Setenv("HOME", home)
	os.Setenv(HomeEnv, home)
	// Never let discovery walk up into a repository that happens to
	// contain the temp dir.
	if tmp, err := filepath.EvalSymlinks(os.TempDir()); err == nil {
		os.Setenv("GIT_CEILING_DIRECTORIES", tmp)
	}
	return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(GlobalConfig), 0o644)
}

// Run is the body of a TestMain: it isolates git in a throw-away HOME
// (a temp dir named with prefix), runs the tests and removes the HOME,
// returning the exit code for os.Exit. A process that inherited an
// isolated environment (HomeEnv is set) keeps it and only runs the tests.
func Run(m *testing.M, prefix string) int {
	if os.Getenv(HomeEnv) != "" {
		return m.Run()
	}
	home, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := Isolate(home); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// Home is the isolated HOME of this test process ("" before Run); fixtures
// shared by benchmarks may live under it and go with it.
func Home() string { return os.Getenv(HomeEnv) }

// GitIn runs git in dir and returns its stdout; a failure fails the test.
func GitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := GitInErr(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitInErr runs git in dir with stdin (nil for none). It returns stdout,
// or stdout and stderr together when git fails.
func GitInErr(dir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}

// Repo is a throw-away repository driven with the real git CLI. Every
// helper that can fail fails T.
type Repo struct {
	T   testing.TB
	Dir string // the work tree
}

// Init runs `git init` in a fresh temp dir (an unborn main); Dir is
// symlink-free.
func Init(t testing.TB) *Repo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &Repo{T: t, Dir: real}
	r.Git("init", "-q")
	return r
}

// Path is the absolute path of the slash-separated rel in the work tree.
func (r *Repo) Path(rel string) string { return filepath.Join(r.Dir, filepath.FromSlash(rel)) }

// Git runs git in the work tree and returns its stdout.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	return GitIn(r.T, r.Dir, args...)
}

// GitTrim is Git with surrounding whitespace trimmed.
func (r *Repo) GitTrim(args ...string) string {
	r.T.Helper()
	return strings.TrimSpace(r.Git(args...))
}

// GitErr runs git and returns its output (stdout, and stderr on failure)
// and error, for commands expected to fail.
func (r *Repo) GitErr(args ...string) (string, error) {
	return GitInErr(r.Dir, nil, args...)
}

// GitStdin runs git with stdin and returns its stdout.
func (r *Repo) GitStdin(stdin []byte, args ...string) string {
	r.T.Helper()
	out, err := GitInErr(r.Dir, stdin, args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Write writes content to rel, creating its directories.
func (r *Repo) Write(rel, content string) {
	r.T.Helper()
	p := r.Path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// Read returns the content of rel.
func (r *Repo) Read(rel string) string {
	r.T.Helper()
	b, err := os.ReadFile(r.Path(rel))
	if err != nil {
		r.T.Fatal(err)
	}
	return string(b)
}

// Exists reports whether rel exists in the work tree.
func (r *Repo) Exists(rel string) bool {
	_, err := os.Stat(r.Path(rel))
	return err == nil
}

// Commit writes files, stages exactly those paths and commits them with
// msg, leaving every other change in the work tree alone. It returns the
// new commit id.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.T.Helper()
	for p, c := range files {
		r.Write(p, c)
		r.Git("--literal-pathspecs", "add", "--", p)
	}
	r.Git("commit", "-q", "-m", msg)
	return r.Head()
}

// Head is the commit id HEAD names.
func (r *Repo) Head() string {
	r.T.Helper()
	return r.GitTrim("rev-parse", "HEAD")
}
