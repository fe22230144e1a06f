package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A write speculated beside the reads is the write itself when it builds
// the same files: the commit is the speculated object, and no object is
// written twice. One that builds other files is made as always; the
// guess's objects are left unreachable, and the repository is sound.
func TestSpeculatedVaultWrite(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	if _, err := r.CommitPaths(ctx, vaultRequest("- one\n")); err != nil {
		t.Fatal(err)
	}
	loose := func() int {
		n := 0
		for _, l := range strings.Split(tr.Git("count-objects", "-v"), "\n") {
			if v, ok := strings.CutPrefix(l, "count: "); ok {
				for _, c := range v {
					n = n*10 + int(c-'0')
				}
			}
		}
		return n
	}

	r.PrepareIdent(ctx)
	r.SpeculateVault(ctx, vaultRequest("- two\n"))
	if r.spec.last == nil {
		t.Fatal("nothing was speculated")
	}
	lockFile := filepath.Join(tr.Dir, ".git", "refs", "scribe", "vault.lock")
	if _, err := os.Stat(lockFile); err != nil {
		t.Errorf("the speculated transaction is not prepared (%v)", err)
	}
	guessed, before, packs := r.spec.last.sha, loose(), r.packsWritten.Load()
	res, err := r.CommitPaths(ctx, vaultRequest("- two\n"))
	if err != nil || res.SHA != guessed {
		t.Fatalf("the write = %+v, %v; want the speculated commit %s", res, err, guessed)
	}
	if n := r.packsWritten.Load() - packs; n != 0 {
		t.Errorf("the write handed git %d packs after the speculation, want none", n)
	}
	if after := loose(); after != before {
		t.Errorf("%d loose objects written after the speculation, want none", after-before)
	}
	if got := tr.Git("cat-file", "blob", VaultRef+":journal.md"); got != "- one\n- two\n" {
		t.Errorf("vault journal = %q", got)
	}

	r.PrepareIdent(ctx)
	r.SpeculateVault(ctx, vaultRequest("- a guess\n"))
	guessed, packs = r.spec.last.sha, r.packsWritten.Load()
	res, err = r.CommitPaths(ctx, vaultRequest("- three\n"))
	if n := r.packsWritten.Load() - packs; n != 1 {
		t.Errorf("a write other than the guess handed git %d packs, want 1", n)
	}
	if err != nil || res.SHA == guessed || res.SHA == "" {
		t.Fatalf("a write other than the guess = %+v, %v (guess %s)", res, err, guessed)
	}
	if got := tr.Git("cat-file", "blob", VaultRef+":journal.md"); got != "- one\n- two\n- three\n" {
		t.Errorf("vault journal = %q", got)
	}
	if r.spec.last != nil {
		t.Error("a speculation outlived the write it was for")
	}
	if strings.Contains(tr.Git("log", "--format=%H", VaultRef), guessed) {
		t.Error("the wrong guess was published")
	}

	// Never taken, it is dropped, and the vault's ref lock with it.
	tip := tr.GitTrim("rev-parse", VaultRef)
	r.PrepareIdent(ctx)
	r.SpeculateVault(ctx, vaultRequest("- never\n"))
	r.DropSpeculation()
	if _, err := os.Stat(lockFile); err == nil {
		t.Error("a dropped speculation left the vault ref locked")
	}
	if got := tr.GitTrim("rev-parse", VaultRef); got != tip {
		t.Errorf("a dropped speculation moved the vault to %s", got)
	}
	if got := tr.lockRefs(); got != "" {
		t.Errorf("lock refs left: %s", got)
	}
	tr.fsck()
}
