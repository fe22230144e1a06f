package gitops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestWriteVaultTreeMatchesTheTemporaryIndex builds the same vault commits
// both ways — in process with one unpack-objects, and with the temporary
// index (hash-object, read-tree, update-index, write-tree) — and wants the
// same tree id every time: random writes and deletions over nested
// directories, a directory emptied (it leaves its parent), a new one, names
// that sort differently as directories ("a" vs "a.md" vs "a/"), through
// each of readVault's readers (loose objects, go-git, and cat-file for
// repositories whose packs go-git does not open). git fsck --strict checks every object.
func TestWriteVaultTreeMatchesTheTemporaryIndex(t *testing.T) {
	ctx := context.Background()
	names := []string{"journal.md", "ACTIVE-STATUS.md", "bridge/main.md", "bridge/feat/x.md", "bridge/feat.md",
		"sessions/s1.yaml", "sessions/s2.yaml", "a.md", "a/b.md", "a/b/c.md", "a-b.md", "deep/er/still/f.md"}
	for _, reader := range []string{"loose", "go-git", "plumbing"} {
		t.Run(reader, func(t *testing.T) {
			tr := newRepo(t)
			r := tr.open()
			r.noLoose = reader != "loose"
			if reader == "plumbing" {
				r.goOnce.Do(func() {}) // go-git never opens the store: reads go through git
			}
			rng := rand.New(rand.NewPCG(1, 2))
			tip := ""
			for round := 0; round < 25; round++ {
				// Each round changes a random subset: writes and deletions.
				paths := randomSubset(rng, names)
				files, trees, err := r.readVault(ctx, tip, paths)
				if err != nil {
					t.Fatal(err)
				}
				if trees == nil {
					t.Fatalf("round %d: no trees read at %s", round, tip)
				}
				next := map[string][]byte{}
				var changed []string
				for _, p := range paths {
					if _, had := files[p]; had && rng.IntN(2) == 0 {
						next[p] = nil
					} else {
						next[p] = []byte(fmt.Sprintf("%s round %d\n", p, round))
					}
					changed = append(changed, p)
				}
				slices.Sort(changed)
				fast, _, _, err := r.writeVaultTree(ctx, trees, changed, next, nil)
				if err != nil {
					t.Fatalf("round %d: writeVaultTree: %v", round, err)
				}
				var live []string
				for _, p := range changed {
					if next[p] != nil || files[p] != nil {
						live = append(live, p)
					}
				}
				oids, err := r.hashObjects(ctx, changed, next)
				if err != nil {
					t.Fatal(err)
				}
				slow, err := r.buildVaultTree(ctx, tip, live, oids)
				if err != nil {
					t.Fatalf("round %d: buildVaultTree: %v", round, err)
				}
				if fast != slow {
					t.Fatalf("round %d: in-process tree %s, temporary index %s\n%s\nvs\n%s", round, fast, slow,
						tr.Git("ls-tree", "-r", "-t", fast), tr.Git("ls-tree", "-r", "-t", slow))
				}
				tip = strings.TrimSpace(tr.GitStdin([]byte("round\n"), append([]string{"commit-tree", fast}, parentArgs(tip)...)...))
			}
			tr.fsck()
		})
	}
}

// randomSubset is about a third of names, never none.
func randomSubset(rng *rand.Rand, names []string) []string {
	var paths []string
	for _, n := range names {
		if rng.IntN(3) == 0 {
			paths = append(paths, n)
		}
	}
	if len(paths) == 0 {
		paths = names[:1]
	}
	return paths
}

func parentArgs(tip string) []string {
	if tip == "" {
		return nil
	}
	return []string{"-p", tip}
}

// TestWriteVaultTreeFallsBack: where the vault holds a file at a directory
// the write needs (or a directory at a file), the in-process build says so
// and the temporary index builds the commit, as before.
func TestWriteVaultTreeFallsBack(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	tr.Commit("odd", map[string]string{"bridge": "a file where a directory goes\n", "sessions/s1.yaml/x": "a directory where a file goes\n"})
	r := tr.open()
	for _, p := range []string{"bridge/main.md", "sessions/s1.yaml"} {
		files, trees, err := r.readVault(ctx, tr.Head(), []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := r.writeVaultTree(ctx, trees, []string{p}, map[string][]byte{p: []byte("x\n")}, nil); err != errNoFastTree {
			t.Errorf("%s: writeVaultTree = %v, want errNoFastTree (files %v)", p, err, files)
		}
	}
}

// What ReadVaultFiles read at a commit serves the vault write's read of the
// same commit without a git process, copies each time (a Build may append
// to what it is given), and a path or directory not read before is read.
func TestReadVaultFilesIsKeptForTheWrite(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	tip := tr.Commit("vault", map[string]string{"bridge/main.md": "note\n", "sessions/s1.yaml": "id: s1\n"})
	r := tr.open()
	r.goOnce.Do(func() {}) // reads through git, as on a repository with large packs
	r.noLoose = true       // and with the objects packed
	files, err := r.ReadVaultFiles(ctx, tip, []string{"sessions/s1.yaml", "bridge/main.md", "sessions/s2.yaml"})
	if err != nil || string(files["bridge/main.md"]) != "note\n" || files["sessions/s2.yaml"] != nil {
		t.Fatalf("ReadVaultFiles = %q, %v", files, err)
	}
	files["bridge/main.md"] = append(files["bridge/main.md"][:4], '!')

	work := r.WorkTree
	r.WorkTree = t.TempDir() // any git process now fails: not a repository
	got, trees, err := r.readVault(ctx, tip, []string{"bridge/main.md", "sessions/s2.yaml"})
	if err != nil {
		t.Fatalf("readVault of what was read: %v (it ran git)", err)
	}
	if string(got["bridge/main.md"]) != "note\n" || got["sessions/s2.yaml"] != nil {
		t.Errorf("readVault = %q, want the first read's contents", got)
	}
	if len(trees["sessions"]) != 1 || len(trees["bridge"]) != 1 || len(trees[""]) != 3 {
		t.Errorf("trees = %v", trees)
	}
	if _, _, err := r.readVault(ctx, tip, []string{"journal.md"}); err == nil {
		t.Error("a path never read was served without git")
	}
	r.WorkTree = work
	if got, _, err := r.readVault(ctx, tip, []string{"journal.md", "bridge/main.md"}); err != nil || got["journal.md"] != nil || string(got["bridge/main.md"]) != "note\n" {
		t.Errorf("readVault with a new path = %q, %v", got, err)
	}
}

// After a vault write the process knows the new tip without reading it:
// what it knew at the old tip with the changed paths replaced, and the
// trees the write built. Over random writes and deletions that knowledge
// equals a fresh read of the new commit, and serving it runs no git.
func TestVaultWriteKnowsItsNewTip(t *testing.T) {
	names := []string{"journal.md", "ACTIVE-STATUS.md", "bridge/main.md", "bridge/feat/x.md", "sessions/s1.yaml", "sessions/s2.yaml", "a/b/c.md"}
	for _, start := range []string{"empty vault", "vault made by another process"} {
		t.Run(start, func(t *testing.T) { vaultWriteKnowsItsNewTip(t, names, start != "empty vault") })
	}
}

func vaultWriteKnowsItsNewTip(t *testing.T, names []string, existing bool) {
	ctx := context.Background()
	tr := newRepo(t)
	if existing {
		if _, err := tr.open().CommitPaths(ctx, CommitRequest{Vault: true, Paths: []string{"bridge/main.md", "sessions/s9.yaml"}, Message: message("first"),
			Build: func(map[string][]byte) (map[string][]byte, error) {
				return map[string][]byte{"bridge/main.md": []byte("note\n"), "sessions/s9.yaml": []byte("id: s9\n")}, nil
			}}); err != nil {
			t.Fatal(err)
		}
	}
	r := tr.open()
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 15; round++ {
		tip, _ := r.VaultTip(ctx)
		if _, _, err := r.readVault(ctx, tip, names); err != nil {
			t.Fatal(err)
		}
		paths := randomSubset(rng, names)
		res, err := r.CommitPaths(ctx, CommitRequest{Vault: true, Paths: paths, Message: message("round"),
			Build: func(cur map[string][]byte) (map[string][]byte, error) {
				next := map[string][]byte{}
				for _, p := range paths {
					if cur[p] != nil && rng.IntN(2) == 0 {
						next[p] = nil
					} else {
						next[p] = []byte(fmt.Sprintf("%s %d\n", p, round))
					}
				}
				return next, nil
			}})
		if err != nil || res.SHA == "" {
			t.Fatalf("round %d: %+v, %v", round, res, err)
		}
		work := r.WorkTree
		r.WorkTree = t.TempDir() // no git from here: only what the write kept
		known, knownTrees, err := r.readVault(ctx, res.SHA, names)
		r.WorkTree = work
		if err != nil {
			t.Fatalf("round %d: the new tip was read again: %v", round, err)
		}
		fresh, freshTrees, err := tr.open().readVault(ctx, res.SHA, names)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(known) != fmt.Sprint(fresh) {
			t.Fatalf("round %d: kept files %q, fresh read %q", round, known, fresh)
		}
		if fmt.Sprint(knownTrees) != fmt.Sprint(freshTrees) {
			t.Fatalf("round %d: kept trees %v, fresh read %v", round, knownTrees, freshTrees)
		}
	}
	tr.fsck()
}
