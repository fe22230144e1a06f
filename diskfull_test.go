//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The disk-full sweep (issue 13): the repository and the state queue on a
// small tmpfs, filled to each of a range of free-space levels, then one
// write: `git scribe wrap` (the vault path) or `git scribe progress done`
// (the branch path). Every run must either land, or say it queued the
// write, or exit non-zero saying it was not recorded; once the filler is
// gone, the next command lands whatever was queued, exactly once. fsck
// must pass, no lock, queue record or scratch file may stay, and the
// user's work must be byte-identical.
//
// The mount needs a user and mount namespace (unshare -rm), so the test
// re-runs itself inside one (diskFullInner set) and reports from there.

const diskFullInner = "GIT_SCRIBE_TEST_DISKFULL_INNER"

// page is tmpfs's unit of space.
const page = 4096

// diskFullLevels are the free pages left before the write: 0 (nothing,
// not even a queue record, fits) up to more than a whole wrap needs.
// The always-on sweep runs one level of each kind the full one finds
// (GIT_SCRIBE_ADVERSARIAL runs all): nothing fits (0); some of the
// commit's objects fit, and then nothing more (1, 3: a vault write takes
// its locks in its ref transaction, so no lock ref is written and freed
// first); the whole commit fits (8).
var diskFullLevels = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 24}

func TestDiskFull(t *testing.T) {
	if os.Getenv(diskFullInner) == "" {
		t.Parallel()
		if !tmpfsMountWorks() {
			t.Skip("no tmpfs mount in a user namespace here (unshare -rm, mount -t tmpfs): the disk-full sweep needs one")
		}
		c := exec.Command("unshare", "-rm", os.Args[0], "-test.run=^TestDiskFull$", "-test.v", "-test.count=1")
		c.Env = append(os.Environ(), diskFullInner+"=1")
		out, err := c.CombinedOutput()
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if strings.Contains(l, "diskfull_test.go") || strings.HasPrefix(strings.TrimSpace(l), "---") {
				t.Log(strings.TrimSpace(l))
			}
		}
		if err != nil {
			t.Fatalf("the sweep in its namespace failed: %v\n%s", err, out)
		}
		return
	}

	full := os.Getenv(adversarialEnv) != ""
	b := newFaultBox(t)
	tmpl := b.template("tmpl")
	before := b.userWork(tmpl)
	mnt := filepath.Join(b.root, "tmpfs")
	if err := os.MkdirAll(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=4m"); err != nil {
		t.Fatalf("mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(mnt, 0)

	type path struct {
		name  string
		first []string // the write made on the full disk
		next  []string // the command run once there is room
		// count says how many times the first write is in the repository.
		count func(dir string) int
		// nextOnce checks that the next command's own write landed once.
		nextOnce func(dir string) error
	}
	paths := []path{
		{
			name:  "wrap",
			first: []string{"wrap", "--hint", "On a full disk."},
			next:  []string{"wrap", "--hint", "With room again."},
			count: func(dir string) int {
				return strings.Count(b.git(dir, "show", "refs/scribe/vault:journal.md"), "On a full disk")
			},
			nextOnce: func(dir string) error {
				return journalCount(b, dir, "With room again", 1)
			},
		},
		{
			name:  "progress",
			first: []string{"progress", "done", "Parser"},
			next:  []string{"progress", "done", "Docs"},
			count: func(dir string) int {
				return strings.Count(b.git(dir, "log", "--format=%B", "main"), "- [x] Parser\n")
			},
			nextOnce: func(dir string) error {
				if n := strings.Count(b.git(dir, "log", "--format=%B", "main"), "- [x] Docs\n"); n != 1 {
					return fmt.Errorf("%d commits tick Docs, want 1", n)
				}
				if d := b.git(dir, "diff", "HEAD", "--", "progress.md"); d != "" {
					return fmt.Errorf("progress.md in the work tree or index is not HEAD's:\n%s", d)
				}
				return nil
			},
		},
	}
	// The state queue on the full tmpfs too (nothing at all can be
	// written at the lowest levels), or on another file system (only the
	// git dir is full: every write must land or queue).
	type where struct {
		name   string
		state  string
		levels []int // in the always-on sweep
	}
	places := []where{
		{"state queue on the full disk too", filepath.Join(mnt, "state"), []int{0, 1, 3, 8}},
		{"state queue elsewhere", filepath.Join(b.root, "state"), []int{0, 1}},
	}
	for i, pl := range places {
		levels := diskFullLevels
		if !full {
			levels = pl.levels
		}
		for _, p := range paths {
			if i > 0 && p.name != "wrap" {
				continue
			}
			diskFullPath(t, b, tmpl, before, mnt, pl.state, pl.name, levels, p.name, p.first, p.next, p.count, p.nextOnce)
		}
	}
}

// diskFullPath runs one write path through the free-space levels.
func diskFullPath(t *testing.T, b *faultBox, tmpl, before, mnt, state, where string, levels []int,
	name string, first, next []string, count func(string) int, nextOnce func(string) error) {
	t.Helper()
	stateOnDisk := strings.HasPrefix(state, mnt+string(filepath.Separator))
	outcomes := map[string][]int{}
	for _, level := range levels {
		dir := filepath.Join(mnt, "repo")
		b.copyRepo(tmpl, dir)
		env := []string{"XDG_STATE_HOME=" + state}
		filler := filepath.Join(mnt, "filler")
		got := fill(t, mnt, filler, level)

		// A ref lock that cannot be written is no lock held by another:
		// no run may wait out the 30-second lock timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		out, err := b.scribeRun(ctx, dir, env, first...)
		cancel()
		outcome := ""
		switch {
		case err == nil && strings.Contains(out, "queued:"):
			outcome = "queued"
		case err == nil:
			outcome = "landed"
		case stateOnDisk && strings.Contains(out, "was not recorded") && strings.Contains(out, "run it again") && !strings.Contains(out, "held by"):
			outcome = "refused"
		default:
			t.Fatalf("%s, %s, %d pages free: neither written, nor queued, nor a clear refusal: %v\n%s", name, where, got, err, out)
		}
		outcomes[outcome] = append(outcomes[outcome], level)
		os.Remove(filler)

		if out, err := b.scribeRun(context.Background(), dir, env, next...); err != nil {
			t.Fatalf("%s, %s, %d pages free (%s), then with room: %v\n%s", name, where, got, outcome, err, out)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("%s, %s, %d pages free (%s: %s), then with room: %s", name, where, got, outcome, strings.TrimSpace(out), fmt.Sprintf(format, args...))
		}
		want := 1
		if outcome == "refused" {
			want = 0 // it said so: the person runs it again
		}
		if n := count(dir); n != want {
			fail("the write is in the repository %d times, want %d", n, want)
		}
		if err := nextOnce(dir); err != nil {
			fail("the next write: %v", err)
		}
		if err := b.fsck(dir); err != nil {
			fail("%v", err)
		}
		if locks := b.git(dir, "for-each-ref", "refs/scribe/locks/"); locks != "" {
			fail("lock refs left:\n%s", locks)
		}
		if now := b.userWork(dir); now != before {
			fail("the user's work changed:\nbefore:\n%s\nnow:\n%s", before, now)
		}
		if left := leftovers(dir); len(left) > 0 {
			fail("left under .git/scribe: %q", left)
		}
		if q, _ := filepath.Glob(filepath.Join(state, "git-scribe", "*", "queue", "*")); len(q) > 0 {
			fail("left in the state queue: %q", q)
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(state)
	}
	t.Logf("disk full, %s, %s: %d levels (free pages); landed at once %v, queued and landed later %v, refused with \"not recorded\" %v; nothing lost or doubled, fsck clean, no lock or queue record left, the user's work byte-identical",
		name, where, len(outcomes["landed"])+len(outcomes["queued"])+len(outcomes["refused"]), outcomes["landed"], outcomes["queued"], outcomes["refused"])
}

// fill writes filler until exactly free pages are left on the file system
// of dir, and returns the pages left.
func fill(t *testing.T, dir, filler string, free int) int {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := int64(st.Bavail) * int64(st.Bsize)
	size := avail - int64(free)*page
	if size < 0 {
		t.Fatalf("only %d bytes free on the tmpfs, want %d pages", avail, free)
	}
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for left := size; left > 0; {
		n := min(left, int64(len(buf)))
		if _, err := f.Write(buf[:n]); err != nil {
			t.Fatalf("write the filler: %v", err)
		}
		left -= n
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int(int64(st.Bavail) * int64(st.Bsize) / page)
}
