package gitops

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// datedRepo is a repository whose commits were made at dates in several
// zones (git's %cI keeps each commit's own), as listed by git.
func datedRepo(t *testing.T) (*testRepo, []string) {
	t.Helper()
	tr := newEmptyRepo(t)
	zones := []string{"+0000", "+0900", "-0800", "+0530", "+1400", "-1200", "+0545", "-0000"}
	for i, z := range zones {
		t.Setenv("GIT_COMMITTER_DATE", fmt.Sprintf("%d %s", 1700000000+i*86413, z))
		tr.Commit(fmt.Sprintf("commit %d", i), map[string]string{"f.txt": strings.Repeat("line\n", i+1)})
	}
	t.Setenv("GIT_COMMITTER_DATE", "")
	return tr, strings.Fields(tr.Git("rev-list", "HEAD"))
}

// CommitDate agrees with `git log -1 --format=%cI` on every commit, loose
// and packed (where git stores most commits whole), in every zone.
func TestCommitDateMatchesGit(t *testing.T) {
	tr, ids := datedRepo(t)
	check := func(stage string, wantInProcess bool) {
		t.Helper()
		r := tr.open()
		read := 0
		defer func() {
			if read == 0 {
				t.Errorf("%s: no commit read in process", stage)
			}
		}()
		for _, id := range ids {
			want := strings.TrimSpace(tr.Git("log", "-1", "--no-walk", "--format=%cI", id))
			got, ok := r.CommitDate(id)
			if !ok {
				if wantInProcess {
					t.Errorf("%s: CommitDate(%s) not read in process", stage, id)
				}
				continue
			}
			read++
			if got != want {
				t.Errorf("%s: CommitDate(%s) = %q, git says %q", stage, id, got, want)
			}
			if up, ok := r.CommitDate(strings.ToUpper(id)); !ok || up != want {
				t.Errorf("%s: CommitDate of the upper-case id = %q, %v; want %q", stage, up, ok, want)
			}
		}
	}
	check("loose", true)
	tr.Git("repack", "-a", "-d", "-q")
	tr.Git("prune-packed")
	if loose := tr.GitTrim("count-objects"); !strings.HasPrefix(loose, "0 objects") {
		t.Fatalf("objects left loose after repack: %s", loose)
	}
	check("packed", false)
	// Deltas of commits are rare but legal: a pack made with a large
	// window and depth may hold some; those go to git, the rest still agree.
	tr.Git("repack", "-a", "-d", "-f", "-q", "--window=250", "--depth=250")
	check("repacked aggressively", false)
	tr.fsck()
}

// What git alone can read is left to it: not a commit, not a full id,
// objects in an alternate store or replaced.
func TestCommitDateLeavesTheRestToGit(t *testing.T) {
	tr, ids := datedRepo(t)
	tr.Git("tag", "-a", "-m", "v1", "v1")
	tr.Git("repack", "-a", "-d", "-q")
	r := tr.open()
	tag := tr.GitTrim("rev-parse", "v1")
	blob := tr.GitTrim("rev-parse", "HEAD:f.txt")
	for _, id := range []string{tag, blob, ids[0][:12], "HEAD", strings.Repeat("0", 40), "not-a-hex-id-at-all-but-forty-chars-long"} {
		if d, ok := r.CommitDate(id); ok {
			t.Errorf("CommitDate(%q) = %q, ok; want git to read it", id, d)
		}
	}
	if _, ok := r.CommitDate(ids[0]); !ok {
		t.Fatalf("CommitDate(%s) not read in process", ids[0])
	}

	tr.Git("replace", ids[0], ids[1])
	if d, ok := tr.open().CommitDate(ids[0]); ok {
		t.Errorf("with refs/replace, CommitDate = %q, ok; git shows the replacement's date", d)
	}
	tr.Git("pack-refs", "--all")
	if d, ok := tr.open().CommitDate(ids[0]); ok {
		t.Errorf("with a packed refs/replace, CommitDate = %q, ok", d)
	}
	tr.Git("replace", "-d", ids[0])
	if _, ok := tr.open().CommitDate(ids[0]); !ok {
		t.Errorf("replace ref deleted, CommitDate still left to git")
	}

	alt := filepath.Join(tr.Dir, ".git", "objects", "info", "alternates")
	if err := os.WriteFile(alt, []byte(t.TempDir()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, ok := tr.open().CommitDate(ids[0]); ok {
		t.Errorf("with alternates, CommitDate = %q, ok", d)
	}
}

// A damaged pack is an error for the reader, never a wrong answer.
func TestPackedReadChecksTheID(t *testing.T) {
	tr, ids := datedRepo(t)
	tr.Git("repack", "-a", "-d", "-q")
	r := tr.open()
	st := r.objectsInProcess()
	if st == nil {
		t.Fatal("objectsInProcess = nil for a plain repository")
	}
	h := plumbing.NewHash(ids[0])
	if _, _, err := st.read(h); err != nil {
		t.Fatalf("read(%s): %v", h, err)
	}
	packs, _ := filepath.Glob(filepath.Join(tr.Dir, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	idx := strings.TrimSuffix(packs[0], ".pack") + ".idx"
	off, ok, err := packOffset(idx, h)
	if err != nil || !ok {
		t.Fatalf("packOffset: %d %v %v", off, ok, err)
	}
	// Flip a byte of the object's deflated content.
	b, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[off+8] ^= 0xff
	os.Chmod(packs[0], 0o644)
	if err := os.WriteFile(packs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.read(h); err == nil {
		t.Error("read of a damaged object: no error")
	}
	if d, ok := r.CommitDate(ids[0]); ok {
		t.Errorf("CommitDate of a damaged object = %q, ok", d)
	}
}

func BenchmarkCommitDatePacked(b *testing.B) {
	tr := newRepo(b)
	id := tr.Head()
	tr.Git("repack", "-a", "-d", "-q")
	r := tr.open()
	for b.Loop() {
		if _, ok := r.CommitDate(id); !ok {
			b.Fatal("not read in process")
		}
	}
}
