//go:build !windows

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
)

// The kill sweep (issue 13): each write path of the real binary is killed
// with SIGKILL after every one of its steps in turn (gitops.FaultKillAtEnv:
// a git process or an atomic file write), each time in a fresh copy of the
// same repository with the user's staged, unstaged and untracked work in
// it. The next run of the same command must exit 0 at once, and then the
// write has landed exactly once, git fsck --strict passes, no lock ref and
// no queued record is left, and the user's work is byte-identical.
//
// A kill after a step that writes nothing leaves the state the last
// writing step left, so the always-on sweep kills after every writing step
// (every distinct state a kill can leave); GIT_SCRIBE_ADVERSARIAL=1 kills
// after every step.

// faultBox is an isolated environment (HOME, git config, state dir) for
// the real binary.
type faultBox struct {
	t      *testing.T
	root   string
	env    []string
	scribe string // the git-scribe on PATH (this test binary)
}

func newFaultBox(t *testing.T) *faultBox {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitconfig := "[init]\n\tdefaultBranch = main\n[user]\n\tname = Ada Author\n\temail = ada@example.com\n" +
		"[core]\n\tautocrlf = false\n[commit]\n\tgpgSign = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"), "GIT_CEILING_DIRECTORIES=" + root}
	for k, v := range gitEnv {
		if k != "GIT_AUTHOR_DATE" && k != "GIT_COMMITTER_DATE" {
			env = append(env, k+"="+v)
		}
	}
	scribe, err := exec.LookPath("git-scribe")
	if err != nil {
		t.Fatalf("git-scribe is not on PATH (TestMain puts this binary there): %v", err)
	}
	return &faultBox{t: t, root: root, env: env, scribe: scribe}
}

// git runs git in dir; a failure fails the test.
func (b *faultBox) git(dir string, args ...string) string {
	b.t.Helper()
	out, err := b.gitErr(dir, args...)
	if err != nil {
		b.t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

func (b *faultBox) gitErr(dir string, args ...string) (string, error) {
	c := exec.Command("git", args...)
	c.Dir, c.Env = dir, b.env
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}

func (b *faultBox) write(path, text string) {
	b.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// template builds the repository every run copies: scribe set up, a
// progress.md, then the user's staged, unstaged and untracked work.
func (b *faultBox) template(name string) string {
	b.t.Helper()
	dir := filepath.Join(b.root, name)
	b.git(b.root, "init", "-q", "-b", "main", name)
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "src/d.go"} {
		b.write(filepath.Join(dir, f), f+"\n")
	}
	b.write(filepath.Join(dir, "progress.md"), "# Plan\n\n## Phase 1\n- [ ] Parser\n- [ ] Docs\n")
	if out, err := b.scribeRun(context.Background(), dir, nil, "init"); err != nil {
		b.t.Fatalf("git scribe init: %v\n%s", err, out)
	}
	b.git(dir, "add", "-A")
	b.git(dir, "commit", "-q", "-m", "initial")
	b.write(filepath.Join(dir, "a.txt"), "a.txt\nstaged\n")
	b.git(dir, "add", "a.txt")
	b.write(filepath.Join(dir, "b.txt"), "b.txt\nunstaged\n")
	b.write(filepath.Join(dir, "notes.txt"), "untracked\n")
	b.write(filepath.Join(dir, "new", "e.go"), "package e // untracked\n")
	return dir
}

// copyRepo copies a repository whole (cp -a keeps modes and times, so the
// index's stat data stays valid).
func (b *faultBox) copyRepo(from, to string) {
	b.t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		b.t.Fatalf("cp -a %s %s: %v\n%s", from, to, err, out)
	}
}

// scribeRun runs the real binary in dir with extra environment.
func (b *faultBox) scribeRun(ctx context.Context, dir string, extra []string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, b.scribe, args...)
	c.Dir, c.Env = dir, append(append([]string(nil), b.env...), extra...)
	c.WaitDelay = time.Second
	out, err := c.CombinedOutput()
	return string(out), err
}

// userWork is everything of the user's that scribe must not touch:
// status, staged and unstaged diffs, the bytes of every untracked file.
func (b *faultBox) userWork(dir string) string {
	b.t.Helper()
	var s strings.Builder
	fmt.Fprintf(&s, "=== status\n%s", b.git(dir, "status", "--porcelain=v2", "--untracked-files=all"))
	fmt.Fprintf(&s, "=== diff --cached\n%s", b.git(dir, "diff", "--cached", "--binary", "--no-ext-diff"))
	fmt.Fprintf(&s, "=== diff\n%s", b.git(dir, "diff", "--binary", "--no-ext-diff"))
	untracked := strings.Split(strings.TrimSuffix(b.git(dir, "ls-files", "-z", "--others", "--exclude-standard"), "\x00"), "\x00")
	sort.Strings(untracked)
	for _, p := range untracked {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			b.t.Fatal(err)
		}
		fmt.Fprintf(&s, "=== untracked %s\n%q\n", p, data)
	}
	return s.String()
}

// fsck fails the test unless git fsck --strict passes (dangling objects,
// which a kill leaves, are not errors).
func (b *faultBox) fsck(dir string) error {
	out, err := b.gitErr(dir, "fsck", "--strict", "--no-progress")
	if err != nil {
		return fmt.Errorf("git fsck --strict: %v\n%s", err, out)
	}
	return nil
}

// leftovers lists what is left under the scribe dir that no finished
// command leaves: temp indexes, staged blobs, intent records, queue records.
func leftovers(dir string) []string {
	var left []string
	scribeDir := filepath.Join(dir, ".git", "scribe")
	filepath.WalkDir(scribeDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == scribeDir {
			return nil
		}
		rel, _ := filepath.Rel(scribeDir, p)
		top, _, _ := strings.Cut(rel, string(filepath.Separator))
		switch {
		case top == "view" || top == "view-kept":
			return filepath.SkipDir // the view's own state
		case top == "followups" && !strings.HasPrefix(d.Name(), "cache-"):
			return nil // the regenerations' cache; a temporary one is left over
		case rel == "sessions.cache" || rel == "vaultlog.cache" || rel == "ident.cache",
			strings.HasPrefix(rel, "untracked-") && strings.HasSuffix(rel, ".memo"):
			return nil // kept parses and scans (gitops.WriteKept)
		case d.IsDir():
			if strings.HasPrefix(rel, "blobs-") {
				left = append(left, rel+"/")
				return filepath.SkipDir
			}
			return nil
		}
		left = append(left, rel)
		return nil
	})
	return left
}

// traceSteps runs the command once with GIT_SCRIBE_TRACE=1 in a copy of
// tmpl and returns its numbered steps (index 0 is step 1).
func (b *faultBox) traceSteps(tmpl string, args []string) []string {
	b.t.Helper()
	dir := tmpl + "-trace"
	b.copyRepo(tmpl, dir)
	out, err := b.scribeRun(context.Background(), dir, []string{"GIT_SCRIBE_TRACE=1"}, args...)
	if err != nil {
		b.t.Fatalf("git scribe %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	stepRE := regexp.MustCompile(`(?m)^git-scribe trace: #(\d+) (.*)$`)
	var steps []string
	for _, m := range stepRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		for len(steps) < n {
			steps = append(steps, "")
		}
		steps[n-1] = strings.TrimSpace(m[2])
	}
	if len(steps) < 10 {
		b.t.Fatalf("only %d traced steps in a clean run of %v:\n%s", len(steps), args, out)
	}
	return steps
}

// writingStep reports whether a traced step changes anything on disk.
var writingStep = regexp.MustCompile(`^write |ms git (hash-object -w|unpack-objects|update-ref|update-index|commit-tree|mktree|read-tree|write-tree)`)

// killPath is one write path under the kill sweep.
type killPath struct {
	name string
	args []string
	// landedOnce checks that the write is in the repository exactly once.
	landedOnce func(b *faultBox, dir string) error
	// again is a second, different write: it must land too, and it removes
	// what the killed run left once that is stale.
	again []string
	// full: only in the full sweep (GIT_SCRIBE_ADVERSARIAL).
	full bool
	// setup runs once in the repository every run copies.
	setup []string
	// from, when set, limits the always-on kill points to the writing
	// steps from the first step it matches on (the full sweep kills after
	// every step).
	from *regexp.Regexp
}

// journalOnce checks that the vault's journal holds one entry, the one
// summarised as summary, and that its working-tree view is the same text.
func journalOnce(b *faultBox, dir, summary string) error {
	journal, err := b.gitErr(dir, "show", gitops.VaultRef+":journal.md")
	if err != nil {
		return fmt.Errorf("no journal on the vault: %s", journal)
	}
	if n := strings.Count(journal, "<!-- scribe:entry "); n != 1 {
		return fmt.Errorf("%d journal entries, want 1:\n%s", n, journal)
	}
	if n := strings.Count(journal, summary); n != 1 {
		return fmt.Errorf("%q is in the journal %d times, want 1:\n%s", summary, n, journal)
	}
	view, err := os.ReadFile(filepath.Join(dir, ".claude", "sonmat", "journal.md"))
	if err != nil || string(view) != journal {
		return fmt.Errorf("the journal's view is not the vault's journal (%v):\n%s", err, view)
	}
	return nil
}

// tickedOnce checks that one commit on main ticked item, and that the
// work tree and index hold HEAD's progress.md.
func tickedOnce(b *faultBox, dir, item string) error {
	subjects := b.git(dir, "log", "--format=%s", "main")
	if n := strings.Count(subjects, "progress: "+item+" done\n"); n != 1 {
		return fmt.Errorf("%d commits ticking %s, want 1:\n%s", n, item, subjects)
	}
	prog := b.git(dir, "show", "HEAD:progress.md")
	if strings.Count(prog, "- [x] "+item+" (done ") != 1 {
		return fmt.Errorf("progress.md at HEAD:\n%s", prog)
	}
	if d := b.git(dir, "diff", "HEAD", "--", "progress.md"); d != "" {
		return fmt.Errorf("progress.md in the work tree or index is not HEAD's:\n%s", d)
	}
	if d := b.git(dir, "diff", "--cached", "--", "progress.md"); d != "" {
		return fmt.Errorf("progress.md in the index is not HEAD's:\n%s", d)
	}
	return nil
}

func TestKillAtEveryStep(t *testing.T) {
	t.Parallel()
	full := os.Getenv(adversarialEnv) != ""
	paths := []killPath{
		{
			name: "vault",
			args: []string{"wrap", "--hint", "Killed at every step."},
			landedOnce: func(b *faultBox, dir string) error {
				return journalOnce(b, dir, "Killed at every step")
			},
			again: []string{"wrap", "--hint", "After the kill."},
		},
		{
			name: "branch",
			args: []string{"progress", "done", "Parser"},
			landedOnce: func(b *faultBox, dir string) error {
				return tickedOnce(b, dir, "Parser")
			},
			again: []string{"progress", "done", "Docs"},
		},
		{
			// A queued wrap landed by the next one: the vault commit names
			// the record (Scribe-Queue), which is removed after it.
			name:  "queue",
			setup: []string{"wrap", "--queue-only", "--hint", "Queued first."},
			// Always on: from the vault commit naming the record to its
			// removal; before it, this is the vault path.
			from: regexp.MustCompile(`update-ref -m scribe: vault commit`),
			args: []string{"wrap", "--mode", "journal", "--hint", "Lands the queue."},
			landedOnce: func(b *faultBox, dir string) error {
				journal, err := b.gitErr(dir, "show", gitops.VaultRef+":journal.md")
				if err != nil {
					return fmt.Errorf("no journal on the vault: %s", journal)
				}
				if n := strings.Count(journal, "<!-- scribe:entry "); n != 2 {
					return fmt.Errorf("%d journal entries, want 2:\n%s", n, journal)
				}
				return errors.Join(journalCount(b, dir, "Queued first", 1), journalCount(b, dir, "Lands the queue", 1))
			},
			again: []string{"wrap", "--mode", "journal", "--hint", "After the kill."},
		},
		{
			// Both paths in one command: the tick on the branch first,
			// then the vault commit.
			name: "wrap-done",
			full: true,
			args: []string{"wrap", "--hint", "Killed with a tick.", "--done", "Parser"},
			landedOnce: func(b *faultBox, dir string) error {
				return errors.Join(tickedOnce(b, dir, "Parser"), journalOnce(b, dir, "Killed with a tick"))
			},
			again: []string{"progress", "done", "Docs"},
		},
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			if p.full && !full {
				t.Skipf("slow fault loop: set %s=1 to run it (docs/ADVERSARIAL.md)", adversarialEnv)
			}
			t.Parallel()
			b := newFaultBox(t)
			tmpl := b.template("tmpl")
			if p.setup != nil {
				if out, err := b.scribeRun(context.Background(), tmpl, nil, p.setup...); err != nil {
					t.Fatalf("git scribe %s: %v\n%s", strings.Join(p.setup, " "), err, out)
				}
			}
			before := b.userWork(tmpl)
			steps := b.traceSteps(tmpl, p.args)
			var ks []int
			from := p.from == nil
			for k, s := range steps {
				from = from || p.from.MatchString(s)
				if full || (from && (k == 0 || writingStep.MatchString(s))) {
					ks = append(ks, k+1)
				}
			}
			if len(ks) == 0 {
				t.Fatalf("no kill point in the steps of %v:\n%s", p.args, strings.Join(steps, "\n"))
			}
			var slowest time.Duration
			var leftCount int
			for _, k := range ks {
				dir := fmt.Sprintf("%s-k%d", tmpl, k)
				b.copyRepo(tmpl, dir)
				out, err := b.scribeRun(context.Background(), dir, []string{gitops.FaultKillAtEnv + "=" + strconv.Itoa(k)}, p.args...)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("kill at step %d (%s): the run was not killed there: %v\n%s", k, steps[k-1], err, out)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				start := time.Now()
				out, err = b.scribeRun(ctx, dir, nil, p.args...)
				took := time.Since(start)
				cancel()
				slowest = max(slowest, took)
				if err != nil {
					t.Fatalf("kill at step %d (%s): the next run failed after %v: %v\n%s", k, steps[k-1], took.Round(time.Millisecond), err, out)
				}
				fail := func(format string, args ...any) {
					t.Helper()
					t.Fatalf("kill at step %d (%s), then a run (%s): %s", k, steps[k-1], strings.TrimSpace(out), fmt.Sprintf(format, args...))
				}
				if err := b.fsck(dir); err != nil {
					fail("%v", err)
				}
				if err := p.landedOnce(b, dir); err != nil {
					fail("%v", err)
				}
				if locks := b.git(dir, "for-each-ref", gitops.LockRefPrefix); locks != "" {
					fail("lock refs left:\n%s", locks)
				}
				if now := b.userWork(dir); now != before {
					fail("the user's work changed:\nbefore:\n%s\nnow:\n%s", before, now)
				}
				if left := leftovers(dir); len(left) > 0 {
					// Temp files of the killed run go once stale, at the
					// next write; nothing else may stay.
					leftCount++
					old := time.Now().Add(-10 * time.Minute)
					for _, l := range left {
						os.Chtimes(filepath.Join(dir, ".git", "scribe", l), old, old)
					}
					if out, err := b.scribeRun(context.Background(), dir, nil, p.again...); err != nil {
						fail("%v\n%s", err, out)
					}
					if still := leftovers(dir); len(still) > 0 {
						fail("left under .git/scribe after another write, stale: %q (after the kill: %q)", still, left)
					}
				}
				os.RemoveAll(dir)
			}
			t.Logf("%s path: %d steps, killed after %d of them (%s); every next run exited 0 (slowest %v) and landed the write once; fsck clean, no lock left, the user's work byte-identical; %d kills left temp files, removed by the next write",
				p.name, len(steps), len(ks), map[bool]string{true: "all", false: "the writing ones"}[full], slowest.Round(time.Millisecond), leftCount)
		})
	}
}

// journalCount checks that summary is in the vault's journal want times.
func journalCount(b *faultBox, dir, summary string, want int) error {
	journal, err := b.gitErr(dir, "show", "refs/scribe/vault:journal.md")
	if err != nil {
		return fmt.Errorf("no journal on the vault: %s", journal)
	}
	if n := strings.Count(journal, summary); n != want {
		return fmt.Errorf("%q is in the journal %d times, want %d:\n%s", summary, n, want, journal)
	}
	return nil
}
