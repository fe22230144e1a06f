package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-scribe/git-scribe/cmd"
)

// TestMain registers this test binary as the git-scribe command: testscript
// puts it on PATH, so scripts run `exec git scribe …` through git's own
// dispatch, exactly as a user does.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-scribe": func() {
			os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// gitEnv is the isolated git environment every script runs in (STYLE.md,
// Tests 3): no system or user config other than $HOME/.gitconfig written by
// setup, fixed identities and dates, C locale, UTC.
var gitEnv = map[string]string{
	"GIT_CONFIG_NOSYSTEM": "1",
	"GIT_TERMINAL_PROMPT": "0",
	"GIT_AUTHOR_NAME":     "Ada Author",
	"GIT_AUTHOR_EMAIL":    "ada@example.com",
	"GIT_COMMITTER_NAME":  "Cy Committer",
	"GIT_COMMITTER_EMAIL": "cy@example.com",
	"GIT_AUTHOR_DATE":     "2026-01-02T03:04:05+00:00",
	"GIT_COMMITTER_DATE":  "2026-01-02T03:04:05+00:00",
	"LC_ALL":              "C",
	"LANG":                "C",
	"TZ":                  "UTC",
	"NO_COLOR":            "1",
	"GIT_PAGER":           "cat",
	"PAGER":               "cat",
	"GIT_EDITOR":          "true",
	"GIT_MERGE_AUTOEDIT":  "no",
}

// passEnv names the variables the snapshot helpers hand to the git they run.
var passEnv = []string{"PATH", "HOME", "XDG_CONFIG_HOME", "TMPDIR"}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "scripts"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition:           gitProgramCondition,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			cfg := filepath.Join(home, ".config")
			if err := os.MkdirAll(cfg, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", cfg)
			for k, v := range gitEnv {
				env.Setenv(k, v)
			}
			// testscript starts from a minimal environment; make sure no
			// scribe or git-location variable leaks in regardless, so every
			// script sees a scribe that is not already running.
			vars := env.Vars[:0]
			for _, kv := range env.Vars {
				k, _, _ := strings.Cut(kv, "=")
				switch {
				case k == "GIT_SCRIBE_ACTIVE", k == "GIT_DIR", k == "GIT_WORK_TREE", k == "GIT_INDEX_FILE",
					k == "GIT_COMMON_DIR", k == "GIT_CONFIG_GLOBAL", strings.HasPrefix(k, "SCRIBE_"):
					continue
				}
				vars = append(vars, kv)
			}
			env.Vars = vars
			gitconfig := "[init]\n\tdefaultBranch = main\n" +
				"[user]\n\tname = Ada Author\n\temail = ada@example.com\n" +
				"[core]\n\tpager = cat\n\tautocrlf = false\n" +
				"[advice]\n\tdetachedHead = false\n" +
				"[merge]\n\tconflictStyle = merge\n" +
				"[commit]\n\tgpgSign = false\n"
			return os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"snapshot":  cmdSnapshot,
			"unchanged": cmdUnchanged,
			"exits":     cmdExits,
			"jsonfield": cmdJSONField,
			"openaisrv": cmdOpenAIServer,
			"gitdaemon": cmdGitDaemon,
			"githttp":   cmdGitHTTP,
			"killloop":  cmdKillLoop,
		},
	})
}

// cmdSnapshot records the user's work in the current repository as NAME:
//
//	snapshot NAME
//
// It stores `git status --porcelain=v2`, `git diff --cached`, `git diff`
// and the bytes of every untracked file, so that `unchanged NAME` can pin
// SPEC principle 3 (the branch is the person's: never touch what is not scribe's) byte for byte.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshot NAME")
	}
	snap := userWork(ts)
	path := snapPath(ts, args[0])
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	ts.Check(os.WriteFile(path, []byte(snap), 0o644))
}

// cmdUnchanged compares the user's work now with snapshot NAME:
//
//	unchanged NAME
//	! unchanged NAME
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: unchanged NAME")
	}
	before, err := os.ReadFile(snapPath(ts, args[0]))
	ts.Check(err)
	now := userWork(ts)
	same := string(before) == now
	switch {
	case same && neg:
		ts.Fatalf("user work unexpectedly unchanged since snapshot %s", args[0])
	case !same && !neg:
		ts.Logf("before:\n%s", before)
		ts.Logf("now:\n%s", now)
		ts.Fatalf("user work changed since snapshot %s", args[0])
	}
}

// cmdExits runs a program like exec and checks its exact exit status, which
// `! exec` cannot (SPEC §3: 1 findings/refused, 2 usage or environment):
//
//	exits N program [args...]
//
// stdout and stderr are kept for the following stdout/stderr checks.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdJSONField parses the previous command's stdout as one JSON value
// (failing on anything else, trailing garbage included) and replaces stdout
// with the value at a dot-separated path of object keys and array indexes:
// strings raw, anything else as indented JSON. "." selects the whole
// document. With !, the path must not exist (stdout must still be JSON).
//
//	jsonfield hookSpecificOutput.additionalContext
//	stdout 'Bridge Note'
//	! jsonfield queue.0
func cmdJSONField(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] jsonfield PATH")
	}
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		ts.Fatalf("stdout is not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		ts.Fatalf("stdout has data after the JSON value")
	}
	v, ok := jsonLookup(v, args[0])
	switch {
	case !ok && neg:
		return
	case !ok:
		ts.Fatalf("JSON has nothing at %s", args[0])
	case neg:
		ts.Fatalf("JSON unexpectedly has a value at %s", args[0])
	}
	if str, isStr := v.(string); isStr {
		fmt.Fprint(ts.Stdout(), str)
		return
	}
	out, err := json.MarshalIndent(v, "", "  ")
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s\n", out)
}

func jsonLookup(v any, path string) (any, bool) {
	if path == "." {
		return v, true
	}
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[key]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// snapPath keeps snapshots outside every repository the script builds.
func snapPath(ts *testscript.TestScript, name string) string {
	return filepath.Join(ts.Getenv("WORK"), ".snapshots", name)
}

func userWork(ts *testscript.TestScript) string {
	// Everything runs from the top level so that the snapshot does not
	// depend on the directory the script is in.
	top := strings.TrimSpace(runGit(ts, ts.MkAbs("."), "rev-parse", "--show-toplevel"))
	var b strings.Builder
	section := func(name string, out string) {
		fmt.Fprintf(&b, "=== %s\n%s", name, out)
	}
	section("status --porcelain=v2", runGit(ts, top, "status", "--porcelain=v2", "--untracked-files=all"))
	section("diff --cached", runGit(ts, top, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff"))
	section("diff", runGit(ts, top, "diff", "--binary", "--no-color", "--no-ext-diff"))
	untracked := strings.Split(strings.TrimSuffix(
		runGit(ts, top, "ls-files", "-z", "--others", "--exclude-standard"), "\x00"), "\x00")
	sort.Strings(untracked)
	for _, p := range untracked {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(top, p))
		ts.Check(err)
		section("untracked "+p, fmt.Sprintf("%q\n", data))
	}
	return b.String()
}

func runGit(ts *testscript.TestScript, dir string, args ...string) string {
	c := exec.Command("git", args...)
	c.Dir = dir
	env := []string{}
	for _, k := range passEnv {
		env = append(env, k+"="+ts.Getenv(k))
	}
	for k := range gitEnv {
		env = append(env, k+"="+ts.Getenv(k))
	}
	c.Env = env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// gitProgramCondition answers [readonlymount] (unshare can bind-mount
// read-only), [tmpfsmount] (unshare can mount a small tmpfs to fill),
// [adversarial] (GIT_SCRIBE_ADVERSARIAL is set:
// the slow fault loops run), [bashcompletion] (bash with bash-completion),
// and [gitdaemon] and [githttp]: whether git's
// git-daemon and git-http-backend programs are installed (some distributions
// package them apart from git), so the scripts that serve a remote skip
// cleanly where they are not.
func gitProgramCondition(cond string) (bool, error) {
	if cond == "adversarial" {
		return os.Getenv(adversarialEnv) != "", nil
	}
	if cond == "readonlymount" {
		// A read-only bind mount in a user namespace (unshare -rm), to give
		// a script a git dir it cannot write, even as root.
		return exec.Command("unshare", "-rm", "sh", "-c", "mount --bind -o ro / / 2>/dev/null || mount --bind -o ro /tmp /tmp").Run() == nil, nil
	}
	if cond == "tmpfsmount" {
		// A small tmpfs in a user and mount namespace (unshare -rm), to
		// give a script a disk it can fill.
		return tmpfsMountWorks(), nil
	}
	if cond == "bashcompletion" {
		// bash with the bash-completion package, which git's completion needs.
		_, err := exec.LookPath("bash")
		_, err2 := os.Stat("/usr/share/bash-completion/bash_completion")
		return err == nil && err2 == nil, nil
	}
	prog := map[string]string{"gitdaemon": "git-daemon", "githttp": "git-http-backend"}[cond]
	if prog == "" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return false, nil
	}
	_, err = os.Stat(filepath.Join(strings.TrimSpace(string(out)), prog))
	return err == nil, nil
}

// tmpfsMountWorks reports whether a tmpfs can be mounted in a user and
// mount namespace here (the [tmpfsmount] condition).
func tmpfsMountWorks() bool {
	dir, err := os.MkdirTemp("", "tmpfs-probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	return exec.Command("unshare", "-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run() == nil
}
