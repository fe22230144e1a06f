//go:build !windows

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestBranchKeptMoving (issue 13): a branch write that loses the
// compare-and-swap to a user commit rebuilds on the new tip, and after 20
// attempts defers to the queue.
//
// user-loop: a person commits in a loop while progress ticks (branch
// writes) and wraps (vault writes) run one after another beside it. Every
// tick must be in the branch exactly once at the end (at once, carried by
// the user commit that took it from the index, or landed from the queue by
// the next command), no commit may untick one, every user commit must land
// once, and the repository must pass fsck with no lock or queued record
// left. git refuses a user commit that races scribe's tick as it refuses
// one beside any other git writer (the index being written, the branch
// moved since the commit read HEAD); the person repeats it, and the test
// counts them.
//
// every-attempt: the branch moves during each attempt (the signing program
// makes a user commit), so the tick is deferred: it is queued and the next
// command lands it once.
func TestBranchKeptMoving(t *testing.T) {
	t.Parallel()
	t.Run("user-loop", testBranchMovesUnderTicks)
	t.Run("every-attempt", testBranchMovesEveryAttempt)
}

// testBranchMovesUnderTicks is the person's commit loop beside ticks and
// wraps.
func testBranchMovesUnderTicks(t *testing.T) {
	t.Parallel()
	rounds := 1
	if os.Getenv(adversarialEnv) != "" {
		rounds = 5
		if n, err := strconv.Atoi(os.Getenv(adversarialEnv + "_RUNS")); err == nil && n > 0 {
			rounds = n
		}
	}
	const userCommits, ticks = 40, 12
	var userFailures []string
	var deferred, carried int
	for round := 0; round < rounds; round++ {
		b := newFaultBox(t)
		dir := filepath.Join(b.root, "repo")
		b.git(b.root, "init", "-q", "-b", "main", "repo")
		var plan strings.Builder
		plan.WriteString("# Plan\n\n")
		for i := 1; i <= ticks; i++ {
			fmt.Fprintf(&plan, "- [ ] task %d\n", i)
		}
		b.write(filepath.Join(dir, "progress.md"), plan.String())
		b.write(filepath.Join(dir, "a.txt"), "a\n")
		b.write(filepath.Join(dir, "b.txt"), "b\n")
		if out, err := b.scribeRun(context.Background(), dir, nil, "init"); err != nil {
			t.Fatalf("git scribe init: %v\n%s", err, out)
		}
		b.git(dir, "add", "-A")
		b.git(dir, "commit", "-q", "-m", "initial")

		// The person: append, add, commit, 40 times, as fast as git goes.
		var wg sync.WaitGroup
		var mu sync.Mutex
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= userCommits; i++ {
				f, err := os.OpenFile(filepath.Join(dir, "user.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					fmt.Fprintf(f, "user %d\n", i)
					f.Close()
				}
				for try := 0; ; try++ {
					out, err := b.gitErr(dir, "add", "user.txt")
					if err == nil {
						out, err = b.gitErr(dir, "commit", "-q", "-m", fmt.Sprintf("user commit %d", i))
					}
					if err == nil {
						break
					}
					// git refuses a commit that races another writer, as it
					// does beside any git process: one that starts while the
					// index is being written ("index.lock': File exists") or
					// whose branch moved since it read HEAD ("cannot lock ref
					// 'HEAD'"); nothing is committed and the person runs it
					// again. Any other refusal is a failure.
					first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
					if !strings.Contains(first, "index.lock': File exists") && !strings.Contains(first, "cannot lock ref 'HEAD'") {
						t.Errorf("round %d: user commit %d failed: %s", round, i, out)
						return
					}
					why := "the index was being written"
					if strings.Contains(first, "cannot lock ref") {
						why = "the branch moved since it read HEAD"
					}
					mu.Lock()
					userFailures = append(userFailures, fmt.Sprintf("round %d, user commit %d: %s", round, i, why))
					mu.Unlock()
					if try == 20 {
						t.Errorf("user commit %d failed 20 times: %s", i, out)
						return
					}
				}
			}
		}()
		// The agent and the person's ticks, one command after another.
		for i := 1; i <= ticks; i++ {
			out, err := b.scribeRun(context.Background(), dir, nil, "progress", "done", fmt.Sprintf("task %d", i))
			if err != nil {
				t.Fatalf("round %d: progress done task %d: %v\n%s", round, i, err, out)
			}
			if strings.Contains(out, "queued:") {
				deferred++
			}
			if strings.Contains(out, "already says this") {
				carried++
			}
			if i%3 == 0 {
				if out, err := b.scribeRun(context.Background(), dir, nil, "wrap", "--mode", "journal", "--hint", fmt.Sprintf("Wrap %d.", i)); err != nil {
					t.Fatalf("round %d: wrap %d: %v\n%s", round, i, err, out)
				}
			}
		}
		wg.Wait()
		// The next command lands whatever was queued.
		if out, err := b.scribeRun(context.Background(), dir, nil, "wrap", "--mode", "journal", "--hint", "After the race."); err != nil {
			t.Fatalf("round %d: the wrap after the race: %v\n%s", round, err, out)
		}

		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("round %d: %s", round, fmt.Sprintf(format, args...))
		}
		subjects := b.git(dir, "log", "--format=%s", "main")
		for i := 1; i <= userCommits; i++ {
			if n := strings.Count(subjects, fmt.Sprintf("user commit %d\n", i)); n != 1 {
				fail("user commit %d is in the history %d times", i, n)
			}
		}
		prog := b.git(dir, "show", "HEAD:progress.md")
		for i := 1; i <= ticks; i++ {
			if n := len(regexp.MustCompile(fmt.Sprintf(`(?m)^- \[x\] task %d \(done `, i)).FindAllString(prog, -1)); n != 1 {
				fail("task %d is ticked %d times at HEAD:\n%s", i, n, prog)
			}
		}
		// No commit took a tick back (a user commit made from an index
		// scribe had set back to an older tip would).
		if untick := regexp.MustCompile(`(?m)^-- \[x\] `).FindAllString(b.git(dir, "log", "-p", "--format=%h %s", "main", "--", "progress.md"), -1); len(untick) > 0 {
			fail("%d commits untick a task:\n%s", len(untick), b.git(dir, "log", "-p", "--format=%h %s", "main", "--", "progress.md"))
		}
		if n := strings.Count(b.git(dir, "show", "refs/scribe/vault:journal.md"), "<!-- scribe:entry "); n != ticks/3+1 {
			fail("%d journal entries, want %d", n, ticks/3+1)
		}
		if st := b.git(dir, "status", "--porcelain=v2", "--untracked-files=all"); st != "" {
			fail("the work tree is not clean:\n%s", st)
		}
		if err := b.fsck(dir); err != nil {
			fail("%v", err)
		}
		if locks := b.git(dir, "for-each-ref", "refs/scribe/locks/"); locks != "" {
			fail("lock refs left:\n%s", locks)
		}
		if left := leftovers(dir); len(left) > 0 {
			fail("left under .git/scribe: %q", left)
		}
	}
	t.Logf("%d rounds of %d user commits beside %d ticks and %d wraps: every tick in the branch once (%d deferred to the queue and landed by the next command, %d taken along by a user commit), none taken back, every user commit once, fsck clean, nothing left; user commits git refused and the person repeated: %d",
		rounds, userCommits, ticks, ticks/3, deferred, carried, len(userFailures))
	for _, f := range userFailures {
		t.Log(f)
	}
}

// fakeSigner is a gpg.program that signs nothing: it reads the payload and
// says it signed. While $WORK/moving exists it first makes a user commit
// (git commit --allow-empty --only: the branch moves, the index is not
// committed), so every attempt of a signed branch write loses its
// compare-and-swap.
const fakeSigner = `#!/bin/sh
cat > /dev/null
if [ -e "$MOVING" ]; then
	n=$(cat "$MOVING")
	echo $((n+1)) > "$MOVING"
	git -c commit.gpgsign=false commit -q --allow-empty --only -m "user commit meanwhile $n" >&2 || exit 1
fi
echo '[GNUPG:] SIG_CREATED D 22 8 00 0 0 0' >&2
printf -- '-----BEGIN PGP SIGNATURE-----\n\nZmFrZQ==\n-----END PGP SIGNATURE-----\n'
`

// testBranchMovesEveryAttempt pins what follows when the branch moves
// during every one of a tick's 20 attempts: the tick is queued, saying the
// branch kept moving, with nothing of it left in the index or work tree,
// and the next command lands it once.
func testBranchMovesEveryAttempt(t *testing.T) {
	t.Parallel()
	b := newFaultBox(t)
	dir := filepath.Join(b.root, "repo")
	moving := filepath.Join(b.root, "moving")
	signer := filepath.Join(b.root, "signer")
	if err := os.WriteFile(signer, []byte(fakeSigner), 0o755); err != nil {
		t.Fatal(err)
	}
	b.env = append(b.env, "MOVING="+moving)
	b.git(b.root, "init", "-q", "-b", "main", "repo")
	b.write(filepath.Join(dir, "progress.md"), "# Plan\n\n- [ ] task 1\n- [ ] task 2\n")
	b.write(filepath.Join(dir, "a.txt"), "a\n")
	if out, err := b.scribeRun(context.Background(), dir, nil, "init"); err != nil {
		t.Fatalf("git scribe init: %v\n%s", err, out)
	}
	b.git(dir, "add", "-A")
	b.git(dir, "commit", "-q", "-m", "initial")
	b.git(dir, "config", "commit.gpgsign", "true")
	b.git(dir, "config", "gpg.program", signer)
	b.git(dir, "config", "user.signingkey", "ada@example.com")
	b.write(filepath.Join(dir, "a.txt"), "a\nstaged\n")
	b.git(dir, "add", "a.txt")
	b.write(filepath.Join(dir, "notes.txt"), "untracked\n")
	before := b.userWork(dir)

	b.write(moving, "1\n")
	out, err := b.scribeRun(context.Background(), dir, nil, "progress", "done", "task 1")
	if err != nil {
		t.Fatalf("progress done while the branch moves: %v\n%s", err, out)
	}
	if !strings.Contains(out, "queued: the ref kept moving during 20 attempts") {
		t.Fatalf("progress done while the branch moves every attempt did not queue:\n%s", out)
	}
	moved, _ := os.ReadFile(moving)
	os.Remove(moving)
	if now := b.userWork(dir); now != before {
		t.Fatalf("the deferred tick left something in the user's work:\nbefore:\n%s\nnow:\n%s", before, now)
	}
	if out, err := b.scribeRun(context.Background(), dir, nil, "wrap", "--mode", "journal", "--hint", "The next command."); err != nil {
		t.Fatalf("the next command: %v\n%s", err, out)
	}
	if err := tickedOnce(b, dir, "task 1"); err != nil {
		t.Fatal(err)
	}
	users := strings.Count(b.git(dir, "log", "--format=%s", "main"), "user commit meanwhile")
	if want, _ := strconv.Atoi(strings.TrimSpace(string(moved))); users != want-1 || users < 20 {
		t.Fatalf("%d user commits in the history, want %d (one per attempt, 20 attempts)", users, want-1)
	}
	if now := b.userWork(dir); now != before {
		t.Fatalf("the user's work changed:\nbefore:\n%s\nnow:\n%s", before, now)
	}
	if err := b.fsck(dir); err != nil {
		t.Fatal(err)
	}
	if locks := b.git(dir, "for-each-ref", "refs/scribe/locks/"); locks != "" {
		t.Fatalf("lock refs left:\n%s", locks)
	}
	if left := leftovers(dir); len(left) > 0 {
		t.Fatalf("left under .git/scribe: %q", left)
	}
	t.Logf("the branch moved during each of %d attempts: the tick was queued (\"the ref kept moving\"), the user's work byte-identical; the next command landed it once", users)
}
