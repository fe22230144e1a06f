package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/gitops"
)

// DemoOptions are demo's flags.
type DemoOptions struct {
	IO *IOStreams
	// Dir is where the throw-away repository is made; empty: a new
	// directory under the system's temporary directory.
	Dir string
}

func newDemoCmd(f *Factory) *cobra.Command {
	o := &DemoOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "demo",
		Short: "Run a small session in a throw-away repository and show what scribe keeps",
		Long: `Demo makes a throw-away repository in a temporary directory and runs one small
coding session in it, the way you would: it writes a plan, edits three files,
commits one change and leaves the rest uncommitted, then runs

  git scribe wrap --hint … --tests … --next …   end of the session
  git scribe bridge                             what the next session reads first

and shows the commits scribe made and that your uncommitted work was left
exactly as it was. No LLM and no network are used; your own repositories are
not touched. The repository is kept so you can look around; the last line
says where it is.`,
		Example: `  git scribe demo
  git scribe demo --dir /tmp/scribe-demo`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runDemo(c.Context(), f, o) },
	}
	c.Flags().StringVar(&o.Dir, "dir", "", "make the repository in `DIR` (new or empty) instead of a temporary directory")
	return c
}

// demoFiles is the session's work: the committed state after the first
// commit, then the user's uncommitted edits.
var (
	demoPlan = "# Plan\n\n- [ ] Streaming parser\n- [ ] Paging\n"
	demoBase = map[string]string{
		"api.go":    "package demo\n\n// Fetch returns every record at once.\nfunc Fetch() []string { return nil }\n",
		"parser.go": "package demo\n\n// Parse reads the whole input into memory.\nfunc Parse(b []byte) []string { return nil }\n",
	}
	demoCommitted = map[string]string{
		"parser.go":      "package demo\n\nimport \"io\"\n\n// Parse streams its input.\nfunc Parse(r io.Reader) []string { return nil }\n",
		"parser_test.go": "package demo\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {}\n",
		"api.go":         "package demo\n\n// Fetch returns the records a page at a time.\nfunc Fetch(page int) []string { return nil }\n",
	}
	demoUncommitted = map[string]string{
		"api.go":   "package demo\n\n// Fetch returns the records a page at a time.\nfunc Fetch(page, size int) []string { return nil }\n",
		"NOTES.md": "# Scratch\n\nPaging: cursor or offset?\n",
	}
)

func runDemo(ctx context.Context, f *Factory, o *DemoOptions) error {
	dir, err := demoDir(o.Dir)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	out := o.IO.Out
	say := func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }
	step := func(cmdline string) { fmt.Fprintf(out, "\n%s\n", o.IO.Bold("$ "+cmdline)) }

	say("git-scribe demo: a throw-away repository in %s", dir)
	r, err := gitops.InitRepo(ctx, dir, "Scribe Demo", "demo@git-scribe.invalid")
	if err != nil {
		return err
	}
	git := func(args ...string) (string, error) {
		b, err := r.Git(ctx, args...)
		return string(b), err
	}
	write := func(files map[string]string) error {
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				return fmt.Errorf("write %s: %w", name, err)
			}
		}
		return nil
	}

	// The repository before the session: a plan and two files.
	if err := write(demoBase); err != nil {
		return err
	}
	if err := write(map[string]string{"progress.md": demoPlan}); err != nil {
		return err
	}
	if _, err := git("add", "."); err != nil {
		return err
	}
	if _, err := git("commit", "-q", "-m", "initial: plan, api, parser"); err != nil {
		return err
	}

	// The session: three files changed in one commit, then more edits that
	// stay uncommitted (one staged, one not, one untracked file).
	if err := write(demoCommitted); err != nil {
		return err
	}
	if _, err := git("add", "."); err != nil {
		return err
	}
	if _, err := git("commit", "-q", "-m", "parser: stream the input; api: pages"); err != nil {
		return err
	}
	if err := write(demoUncommitted); err != nil {
		return err
	}
	if _, err := git("add", "api.go"); err != nil {
		return err
	}
	if err := write(map[string]string{"parser.go": demoCommitted["parser.go"] + "\n// TODO: a reader that counts bytes\n"}); err != nil {
		return err
	}
	say("the session so far: one commit touching api.go, parser.go, parser_test.go, and uncommitted work:")
	status, err := git("status", "--short")
	if err != nil {
		return err
	}
	step("git status --short")
	fmt.Fprint(out, status)
	before, err := demoUserWork(git)
	if err != nil {
		return err
	}

	// What you run at the end of a session, and what the next one reads.
	steps := [][]string{
		{"wrap", "--hint", "Parser streams its input now. Paging is next.", "--tests", "42 passed", "--next", "(demo) add paging"},
		{"progress", "done", "stream"},
		{"bridge"},
	}
	for _, args := range steps {
		step("git scribe " + shellJoin(args))
		if err := runScribe(ctx, f, o.IO, dir, args); err != nil {
			return fmt.Errorf("demo step git scribe %s: %w", args[0], err)
		}
	}

	if status, err = git(append([]string{"status", "--short", "--"}, demoUserPaths...)...); err != nil {
		return err
	}
	step("git status --short")
	fmt.Fprint(out, status)
	after, err := demoUserWork(git)
	if err != nil {
		return err
	}
	if after == before {
		say("(your uncommitted work is exactly as it was)")
	} else {
		say("(warning: the uncommitted work changed; please report this)")
	}
	// Every commit, wherever scribe keeps its own (the branch or its ref).
	log, err := git("log", "--oneline", "--decorate", "--decorate-refs=refs/heads/", "--decorate-refs=refs/scribe/",
		"--decorate-refs-exclude=refs/scribe/locks/", "--exclude=refs/scribe/locks/*", "--all", "-8")
	if err != nil {
		return err
	}
	step("git log --oneline --decorate --all")
	fmt.Fprint(out, log)

	say("")
	say("demo repository: %s", dir)
	say("look around with: git -C %s log --stat --all   (remove it with: rm -rf %s)", dir, dir)
	say("in your own repository, run git scribe wrap at the end of a session and git scribe bridge at the start of the next")
	return nil
}

// demoUserPaths are the files of the demo session's own work.
var demoUserPaths = []string{"api.go", "parser.go", "parser_test.go", "NOTES.md"}

// demoUserWork is the state of the session's own work: staged and unstaged
// diffs and the untracked note, byte for byte.
func demoUserWork(git func(args ...string) (string, error)) (string, error) {
	var b strings.Builder
	for _, args := range [][]string{{"diff", "--cached"}, {"diff"}, {"status", "--porcelain"}} {
		out, err := git(append(append(args, "--"), demoUserPaths...)...)
		if err != nil {
			return "", err
		}
		b.WriteString(out + "\x00")
	}
	return b.String(), nil
}

// runScribe runs one git scribe command in dir through the same command tree
// a user's invocation goes through, writing to ios.
func runScribe(ctx context.Context, f *Factory, ios *IOStreams, dir string, args []string) error {
	sub := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: ios.Out, ErrOut: ios.ErrOut}, Env: f.Env}
	root := NewRootCmd(sub)
	// -C, not Factory.Dir: flag parsing resets Dir to the flag's default.
	root.SetArgs(append([]string{"-C", dir}, args...))
	return root.ExecuteContext(ctx)
}

// demoDir makes (or checks) the directory the demo repository lives in.
func demoDir(dir string) (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "git-scribe-demo-")
		if err != nil {
			return "", fmt.Errorf("create a temporary directory: %w", err)
		}
		return filepath.EvalSymlinks(d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", dir, err)
	}
	if len(ents) > 0 {
		return "", fmt.Errorf("%s is not empty; the demo needs a new or empty directory", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// shellJoin quotes args the way a person would type them.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$`\\()*?;&|<>") {
			a = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
