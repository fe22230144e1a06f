package gitops

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// adversarialEnv turns on the slow fault loops (docs/ADVERSARIAL.md).
const adversarialEnv = "GIT_SCRIBE_ADVERSARIAL"

// adversarialRuns is the number of iterations a fault loop runs:
// GIT_SCRIBE_ADVERSARIAL_RUNS, default def.
func adversarialRuns(t *testing.T, def int) int {
	if os.Getenv(adversarialEnv) == "" {
		t.Skipf("slow fault loop: set %s=1 to run it (docs/ADVERSARIAL.md)", adversarialEnv)
	}
	if n, err := strconv.Atoi(os.Getenv(adversarialEnv + "_RUNS")); err == nil && n > 0 {
		return n
	}
	return def
}

// TestFaultLoopKilledWrites kills a committing process with SIGKILL at a
// random moment, again and again, with the user's staged, unstaged and
// untracked work in place. After each kill the next write must land at
// once (no two-minute wait on the dead holder's lock), the user's work must
// be byte-identical, no lock may be left, and the repository must pass
// git fsck.
func TestFaultLoopKilledWrites(t *testing.T) {
	runs := adversarialRuns(t, 100)
	ctx := context.Background()
	tr := newRepo(t)
	tr.Commit("initial", map[string]string{"README.md": "hi\n", "src/a.go": "package a\n", "src/b.go": "package b\n"})
	tr.Write("src/a.go", "package a // staged\n")
	tr.Git("add", "src/a.go")
	tr.Write("src/b.go", "package b // unstaged\n")
	tr.Write("notes.txt", "untracked\n")
	before := tr.snapshot()
	const path = ".claude/sonmat/journal.md"
	r := tr.open()
	var landed, killedLanded int
	for i := 0; i < runs; i++ {
		c := helperCmd(t, "commit", "GITOPS_REPO="+tr.Dir, fmt.Sprintf("GITOPS_ID=k%d", i))
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(mrand.IntN(60)) * time.Millisecond)
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()

		line := fmt.Sprintf("- entry from process n%d\n", i)
		start := time.Now()
		res, err := r.CommitPaths(ctx, CommitRequest{
			Paths: []string{path},
			Locks: []string{"journal"},
			Build: func(cur map[string][]byte) (map[string][]byte, error) {
				return map[string][]byte{path: append(append([]byte(nil), cur[path]...), line...)}, nil
			},
			Message:     func([]string) string { return "progress: entry n" + strconv.Itoa(i) + "\n\nScribe-Mode: test\n" },
			LockOptions: LockOptions{Timeout: 3 * time.Second},
		})
		if err != nil || res.SHA == "" {
			t.Fatalf("run %d: the write after a kill = %+v, %v (after %v)", i, res, err, time.Since(start))
		}
		landed++
		journal := tr.Git("show", "HEAD:"+path)
		if !strings.Contains(journal, line) {
			t.Fatalf("run %d: the landed entry is not in the journal", i)
		}
		if strings.Contains(journal, fmt.Sprintf("process k%d\n", i)) {
			killedLanded++
		}
		after := tr.snapshot()
		// A kill between the atomic writer's create and rename leaves its
		// temp file (".journal.md<digits>"); it is the writer's, not the
		// user's, and is removed once stale (checked below).
		after.status = withoutPaths(after.status, ".claude/sonmat/.journal.md")
		if withoutPaths(after.status, path) != withoutPaths(before.status, path) || after.cached != before.cached ||
			after.unstaged != before.unstaged || withoutPaths(after.lsFilesMeta, path) != withoutPaths(before.lsFilesMeta, path) {
			t.Fatalf("run %d: the user's work changed:\nbefore %+v\nafter  %+v", i, before, after)
		}
		if got := tr.lockRefs(); got != "" {
			t.Fatalf("run %d: locks left: %s", i, got)
		}
		if i%20 == 19 {
			tr.fsck()
		}
	}
	tr.fsck()
	// The temp files kills left are removed by the first write after they
	// went stale.
	temps, _ := filepath.Glob(filepath.Join(tr.Dir, ".claude", "sonmat", ".journal.md*"))
	old := time.Now().Add(-2 * StaleTempAge)
	for _, p := range temps {
		os.Chtimes(p, old, old)
	}
	if err := WriteFileAtomic(tr.Path(path), []byte(tr.Read(path))); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tr.Dir, ".claude", "sonmat", ".journal.md*")); len(left) != 0 {
		t.Errorf("stale temp files left after a write: %q", left)
	}
	t.Logf("%d kills left %d temp files, all removed once stale", runs, len(temps))
	t.Logf("%d kills; %d writes landed after them, %d killed writes had landed before the kill", runs, landed, killedLanded)
}
