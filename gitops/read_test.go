package gitops

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// byPath indexes changes by path for order-independent comparison.
func byPath(fcs []FileChange) map[string]FileChange {
	m := map[string]FileChange{}
	for _, f := range fcs {
		m[f.Path] = f
	}
	return m
}

func TestReadChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	tests := []struct {
		name string
		// setup returns the base and head to pass and the exclude list.
		setup func(t *testing.T, tr *testRepo) (base, head string, exclude []string)
		check func(t *testing.T, tr *testRepo, c Changes)
	}{
		{
			name: "committed rename keeps the old path",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				body := strings.Repeat("a line that survives the rename\n", 20)
				tr.Commit("add", map[string]string{"docs/old name.md": body})
				base := tr.Head()
				tr.Git("mv", "docs/old name.md", "docs/new name.md")
				tr.Write("docs/new name.md", body+"one more\n")
				tr.Git("add", "-A")
				tr.Git("commit", "-q", "-m", "rename")
				return base, tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				want := []FileChange{{Path: "docs/new name.md", OldPath: "docs/old name.md", Status: "R", Added: 1}}
				if !reflect.DeepEqual(c.Committed, want) {
					t.Errorf("Committed = %+v, want %+v", c.Committed, want)
				}
				if len(c.Commits) != 1 || c.Commits[0].Subject != "rename" || c.Commits[0].SHA != tr.Head() {
					t.Errorf("Commits = %+v, want the rename commit", c.Commits)
				}
			},
		},
		{
			name: "staged rename",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				tr.Commit("add", map[string]string{"a.txt": strings.Repeat("same\n", 30)})
				tr.Git("mv", "a.txt", "b.txt")
				return "", tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				want := []FileChange{{Path: "b.txt", OldPath: "a.txt", Status: "R"}}
				if !reflect.DeepEqual(c.Staged, want) {
					t.Errorf("Staged = %+v, want %+v", c.Staged, want)
				}
			},
		},
		{
			name: "binary files are summarised without counts",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				tr.Commit("bin", map[string]string{"img.png": "\x89PNG\x00\x01\x02"})
				base := tr.Head()
				tr.Commit("bin2", map[string]string{"img.png": "\x89PNG\x00\x03\x04\x05", "text.md": "t\n"})
				return base, tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				got := byPath(c.Committed)
				if f := got["img.png"]; !f.Binary || f.Added != 0 || f.Deleted != 0 || f.Status != "M" {
					t.Errorf("img.png = %+v, want binary M with no counts", f)
				}
				if f := got["text.md"]; f.Binary || f.Added != 1 || f.Status != "A" {
					t.Errorf("text.md = %+v, want text A +1", f)
				}
			},
		},
		{
			name: "file over BigFileThreshold is summarised as binary",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				if testing.Short() {
					t.Skip("writes a 9 MiB file")
				}
				line := "plain text line that is not binary at all\n"
				big := strings.Repeat(line, (9<<20)/len(line)+1)
				tr.Commit("big", map[string]string{"big.log": big})
				base := tr.Head()
				tr.Write("big.log", big+"tail\n")
				tr.Git("add", "big.log")
				tr.Git("commit", "-q", "-m", "bigger")
				tr.Write("big.log", big+"tail\nunstaged\n")
				return base, tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				for name, set := range map[string][]FileChange{"Committed": c.Committed, "Unstaged": c.Unstaged} {
					f := byPath(set)["big.log"]
					if !f.Binary || f.Added != 0 || f.Deleted != 0 {
						t.Errorf("%s big.log = %+v, want binary with no counts", name, f)
					}
				}
			},
		},
		{
			name: "staged, unstaged and untracked are kept apart",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				tr.Commit("files", map[string]string{"a.md": "a\n", "b.md": "b1\nb2\nb3\n", "gone.md": "x\n"})
				tr.Write("a.md", "a\nstaged\n")
				tr.Git("add", "a.md")
				tr.Write("b.md", "b1\nb3\nunstaged\n")
				tr.Write("c.md", "untracked\n")
				tr.Write("newdir/d.md", "untracked too\n")
				tr.Write("ignored.tmp", "ignored\n")
				tr.Write(".gitignore", "*.tmp\n")
				tr.Git("rm", "-q", "gone.md")
				return "", tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				wantStaged := map[string]FileChange{
					"a.md":    {Path: "a.md", Status: "M", Added: 1},
					"gone.md": {Path: "gone.md", Status: "D", Deleted: 1},
				}
				if got := byPath(c.Staged); !reflect.DeepEqual(got, wantStaged) {
					t.Errorf("Staged = %+v, want %+v", got, wantStaged)
				}
				wantUnstaged := []FileChange{{Path: "b.md", Status: "M", Added: 1, Deleted: 1}}
				if !reflect.DeepEqual(c.Unstaged, wantUnstaged) {
					t.Errorf("Unstaged = %+v, want %+v", c.Unstaged, wantUnstaged)
				}
				untracked := append([]string(nil), c.Untracked...)
				sort.Strings(untracked)
				if want := []string{".gitignore", "c.md", "newdir/d.md"}; !reflect.DeepEqual(untracked, want) {
					t.Errorf("Untracked = %q, want %q", untracked, want)
				}
				files := c.Files()
				sort.Strings(files)
				want := []string{".gitignore", "a.md", "b.md", "c.md", "gone.md", "newdir/d.md"}
				if !reflect.DeepEqual(files, want) {
					t.Errorf("Files() = %q, want %q", files, want)
				}
			},
		},
		{
			name: "excluded paths are left out everywhere",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				base := tr.Head()
				tr.Commit("vault", map[string]string{".claude/sonmat/journal.md": "j\n", "src.go": "package x\n", "progress.md": "p\n"})
				tr.Write(".claude/sonmat/journal.md", "j\nstaged\n")
				tr.Git("add", "-A")
				tr.Write(".claude/sonmat/journal.md", "j\nstaged\nunstaged\n")
				tr.Write(".claude/sonmat/bridge-note.md", "untracked\n")
				tr.Write("progress.md", "p\nunstaged\n")
				tr.Write("user.md", "untracked\n")
				return base, tr.Head(), []string{".claude/sonmat", "progress.md"}
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				for _, p := range c.Files() {
					if strings.HasPrefix(p, ".claude/") || p == "progress.md" {
						t.Errorf("excluded path %s listed: %+v", p, c)
					}
				}
				if want := []FileChange{{Path: "src.go", Status: "A", Added: 1}}; !reflect.DeepEqual(c.Committed, want) {
					t.Errorf("Committed = %+v, want %+v", c.Committed, want)
				}
				if !reflect.DeepEqual(c.Untracked, []string{"user.md"}) {
					t.Errorf("Untracked = %q, want [user.md]", c.Untracked)
				}
			},
		},
		{
			name: "root commit diffs against the empty tree",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				return "", tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				if c.Base != EmptyTree {
					t.Errorf("Base = %s, want the empty tree %s", c.Base, EmptyTree)
				}
				if want := []Commit{{SHA: tr.Head(), Subject: "initial"}}; !reflect.DeepEqual(c.Commits, want) {
					t.Errorf("Commits = %+v, want %+v", c.Commits, want)
				}
				if want := []FileChange{{Path: "README.md", Status: "A", Added: 1}}; !reflect.DeepEqual(c.Committed, want) {
					t.Errorf("Committed = %+v, want %+v", c.Committed, want)
				}
			},
		},
		{
			name: "empty base means the parent",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				tr.Commit("one", map[string]string{"one.md": "1\n"})
				tr.Commit("two", map[string]string{"two.md": "2\n"})
				return "", tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				if c.Base != tr.GitTrim("rev-parse", "HEAD~1") {
					t.Errorf("Base = %s, want HEAD~1", c.Base)
				}
				if len(c.Commits) != 1 || c.Commits[0].Subject != "two" {
					t.Errorf("Commits = %+v, want only two", c.Commits)
				}
				if want := []FileChange{{Path: "two.md", Status: "A", Added: 1}}; !reflect.DeepEqual(c.Committed, want) {
					t.Errorf("Committed = %+v, want %+v", c.Committed, want)
				}
			},
		},
		{
			name: "commit range oldest first",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				base := tr.Head()
				for _, s := range []string{"c1", "c2", "c3"} {
					tr.Commit(s, map[string]string{s + ".md": s + "\n"})
				}
				return base, tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				var subj []string
				for _, cm := range c.Commits {
					subj = append(subj, cm.Subject)
				}
				if !reflect.DeepEqual(subj, []string{"c1", "c2", "c3"}) {
					t.Errorf("Commits = %q, want c1 c2 c3", subj)
				}
				if len(c.Committed) != 3 {
					t.Errorf("Committed = %+v, want 3 files", c.Committed)
				}
			},
		},
		{
			name: "odd path names",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				base := tr.Head()
				tr.Commit("odd", map[string]string{
					"with space.md":     "1\n",
					"ünï cödé/日本.md":    "2\n",
					":colon-first.md":   "3\n",
					"-dash-first.md":    "4\n",
					`quote"d.md`:        "5\n",
					`back\slash.md`:     "6\n",
					"tab\there.md":      "7\n",
					"semi;colon&amp.md": "8\n",
					"emoji-🚀.md":        "9\n",
				})
				head := tr.Head()
				tr.Git("mv", "with space.md", "still with space.md")
				tr.Write(":colon-first.md", "3\nstaged\n")
				tr.Git("--literal-pathspecs", "add", ":colon-first.md")
				tr.Write("ünï cödé/日本.md", "2\nunstaged\n")
				tr.Write("new ünï.md", "untracked\n")
				return base, head, nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				committed := byPath(c.Committed)
				for _, p := range []string{"with space.md", "ünï cödé/日本.md", ":colon-first.md", "-dash-first.md",
					`quote"d.md`, `back\slash.md`, "tab\there.md", "semi;colon&amp.md", "emoji-🚀.md"} {
					if f, ok := committed[p]; !ok || f.Status != "A" || f.Added != 1 {
						t.Errorf("Committed[%q] = %+v, %v; want A +1", p, f, ok)
					}
				}
				staged := byPath(c.Staged)
				if f := staged["still with space.md"]; f.OldPath != "with space.md" || f.Status != "R" {
					t.Errorf("staged rename = %+v", f)
				}
				if f := staged[":colon-first.md"]; f.Status != "M" || f.Added != 1 {
					t.Errorf("staged :colon-first.md = %+v", f)
				}
				if want := []FileChange{{Path: "ünï cödé/日本.md", Status: "M", Added: 1}}; !reflect.DeepEqual(c.Unstaged, want) {
					t.Errorf("Unstaged = %+v, want %+v", c.Unstaged, want)
				}
				if !reflect.DeepEqual(c.Untracked, []string{"new ünï.md"}) {
					t.Errorf("Untracked = %q", c.Untracked)
				}
			},
		},
		{
			name: "deleted and typechanged files",
			setup: func(t *testing.T, tr *testRepo) (string, string, []string) {
				tr.Commit("files", map[string]string{"del.md": "a\nb\n", "tc.md": "x\n"})
				base := tr.Head()
				tr.Git("rm", "-q", "del.md")
				os.Remove(tr.Path("tc.md"))
				if err := os.Symlink("README.md", tr.Path("tc.md")); err != nil {
					t.Fatal(err)
				}
				tr.Git("add", "tc.md")
				tr.Git("commit", "-q", "-m", "del")
				return base, tr.Head(), nil
			},
			check: func(t *testing.T, tr *testRepo, c Changes) {
				got := byPath(c.Committed)
				if f := got["del.md"]; f.Status != "D" || f.Deleted != 2 {
					t.Errorf("del.md = %+v, want D -2", f)
				}
				if f := got["tc.md"]; f.Status != "T" {
					t.Errorf("tc.md = %+v, want T", f)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newRepo(t)
			base, head, exclude := tt.setup(t, tr)
			before := tr.snapshot()
			start := time.Now()
			c, err := tr.open().ReadChanges(ctx, base, head, exclude)
			if err != nil {
				t.Fatalf("ReadChanges: %v", err)
			}
			t.Logf("ReadChanges took %v", time.Since(start))
			tt.check(t, tr, c)
			if after := tr.snapshot(); after != before {
				t.Errorf("ReadChanges changed the repository:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

func TestReadChangesUnborn(t *testing.T) {
	t.Parallel()
	tr := newEmptyRepo(t)
	tr.Write("a.md", "a\n")
	tr.Write("b.md", "b\n")
	tr.Git("add", "a.md")
	c, err := tr.open().ReadChanges(context.Background(), "", "", nil)
	if err != nil {
		t.Fatalf("ReadChanges: %v", err)
	}
	if want := []FileChange{{Path: "a.md", Status: "A", Added: 1}}; !reflect.DeepEqual(c.Staged, want) {
		t.Errorf("Staged = %+v, want %+v", c.Staged, want)
	}
	if len(c.Commits) != 0 || len(c.Committed) != 0 || len(c.Unstaged) != 0 {
		t.Errorf("unborn branch reported commits or committed/unstaged changes: %+v", c)
	}
	if !reflect.DeepEqual(c.Untracked, []string{"b.md"}) {
		t.Errorf("Untracked = %q, want [b.md]", c.Untracked)
	}
}

func TestReadChangesSubmodule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lib := newRepo(t)
	lib.Commit("lib", map[string]string{"lib.go": "package lib\n"})

	tr := newRepo(t)
	tr.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.Dir, "vendor/lib")
	tr.Git("commit", "-q", "-m", "add submodule")
	base := tr.Head()

	sub := repoAt(t, tr.Path("vendor/lib"))
	sub.Commit("lib 2", map[string]string{"lib.go": "package lib\n\nconst V = 2\n"})
	tr.Git("add", "vendor/lib")
	tr.Git("commit", "-q", "-m", "bump submodule")
	head := tr.Head()
	// Move it again without staging: an unstaged submodule change.
	sub.Commit("lib 3", map[string]string{"lib.go": "package lib\n\nconst V = 3\n"})
	// Dirty content inside the submodule is not descended into.
	sub.Write("scratch.txt", "dirty\n")
	sub.Write("lib.go", "edited\n")

	c, err := tr.open().ReadChanges(ctx, base, head, nil)
	if err != nil {
		t.Fatalf("ReadChanges: %v", err)
	}
	if want := []FileChange{{Path: "vendor/lib", Status: "M", Added: 1, Deleted: 1, Submodule: true}}; !reflect.DeepEqual(c.Committed, want) {
		t.Errorf("Committed = %+v, want %+v", c.Committed, want)
	}
	if len(c.Unstaged) != 1 || c.Unstaged[0].Path != "vendor/lib" || !c.Unstaged[0].Submodule {
		t.Errorf("Unstaged = %+v, want only the submodule, marked Submodule", c.Unstaged)
	}
	for _, p := range c.Files() {
		if strings.HasPrefix(p, "vendor/lib/") {
			t.Errorf("descended into the submodule: %s", p)
		}
	}
	if len(c.Untracked) != 0 {
		t.Errorf("Untracked = %q, want none (submodule content is not listed)", c.Untracked)
	}

	// A freshly added submodule on a root-like range is listed as added.
	c, err = tr.open().ReadChanges(ctx, "", base, nil)
	if err != nil {
		t.Fatalf("ReadChanges: %v", err)
	}
	got := byPath(c.Committed)
	if f := got["vendor/lib"]; f.Status != "A" || !f.Submodule {
		t.Errorf("added submodule = %+v, want A Submodule", f)
	}
	if _, ok := got[".gitmodules"]; !ok {
		t.Errorf(".gitmodules missing from %+v", c.Committed)
	}
}

func TestParseRawNumstat(t *testing.T) {
	t.Parallel()
	const (
		a = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
		b = "8baef1b4abc478178b004d62031cf7fe6db6f903"
		z = "0000000000000000000000000000000000000000"
	)
	raw := func(oldMode, newMode, status string) string {
		return ":" + oldMode + " " + newMode + " " + a + " " + b + " " + status
	}
	tests := []struct {
		name    string
		in      string
		want    []FileChange
		wantErr bool
	}{
		{name: "empty", in: "", want: nil},
		{
			name: "modify",
			in:   raw("100644", "100644", "M") + "\x00a.txt\x00" + "3\t1\ta.txt\x00",
			want: []FileChange{{Path: "a.txt", Status: "M", Added: 3, Deleted: 1}},
		},
		{
			name: "rename with similarity score",
			in: raw("100644", "100644", "R075") + "\x00old name.txt\x00new name.txt\x00" +
				"1\t0\t\x00old name.txt\x00new name.txt\x00",
			want: []FileChange{{Path: "new name.txt", OldPath: "old name.txt", Status: "R", Added: 1}},
		},
		{
			name: "copy",
			in:   raw("100644", "100644", "C100") + "\x00src\x00dst\x00" + "0\t0\t\x00src\x00dst\x00",
			want: []FileChange{{Path: "dst", OldPath: "src", Status: "C"}},
		},
		{
			name: "binary",
			in:   raw("100644", "100644", "M") + "\x00bin\x00" + "-\t-\tbin\x00",
			want: []FileChange{{Path: "bin", Status: "M", Binary: true}},
		},
		{
			name: "submodule",
			in:   raw("160000", "160000", "M") + "\x00vendor/lib\x00" + "1\t1\tvendor/lib\x00",
			want: []FileChange{{Path: "vendor/lib", Status: "M", Added: 1, Deleted: 1, Submodule: true}},
		},
		{
			name: "added submodule",
			in:   ":000000 160000 " + z + " " + b + " A\x00vendor/lib\x00" + "1\t0\tvendor/lib\x00",
			want: []FileChange{{Path: "vendor/lib", Status: "A", Added: 1, Submodule: true}},
		},
		{
			name: "paths that look like records",
			in: raw("100644", "100644", "M") + "\x00:colon\x00" + raw("100644", "100644", "M") + "\x00tab\there\x00" +
				"1\t0\t:colon\x00" + "2\t0\ttab\there\x00",
			want: []FileChange{
				{Path: ":colon", Status: "M", Added: 1},
				{Path: "tab\there", Status: "M", Added: 2},
			},
		},
		{
			name: "mixed with delete and rename",
			in: raw("100644", "000000", "D") + "\x00gone\x00" +
				raw("100644", "100644", "R100") + "\x00a\x00b\x00" +
				raw("000000", "100644", "A") + "\x00new\x00" +
				"0\t4\tgone\x00" + "0\t0\t\x00a\x00b\x00" + "7\t0\tnew\x00",
			want: []FileChange{
				{Path: "gone", Status: "D", Deleted: 4},
				{Path: "b", OldPath: "a", Status: "R"},
				{Path: "new", Status: "A", Added: 7},
			},
		},
		{
			name: "numstat without a raw record is ignored",
			in:   "1\t1\tstray\x00",
			want: nil,
		},
		{name: "bad raw record", in: ":100644 100644 M\x00a\x00", wantErr: true},
		{name: "truncated rename", in: raw("100644", "100644", "R100") + "\x00only-old", wantErr: true},
		{name: "truncated record", in: raw("100644", "100644", "M"), wantErr: true},
		{name: "bad numstat record", in: raw("100644", "100644", "M") + "\x00a\x00garbage\x00", wantErr: true},
		{name: "truncated numstat rename", in: raw("100644", "100644", "R100") + "\x00a\x00b\x00" + "1\t1\t\x00a", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseRawNumstat([]byte(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parseRawNumstat(%q) = %+v, want an error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseRawNumstat(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseRawNumstat(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

// The literal cases above must match what this git actually prints.
func TestParseRawNumstatMatchesGit(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.Commit("files", map[string]string{"old name.txt": strings.Repeat("keep\n", 10), "bin": "\x00\x01", ":colon": "c\n"})
	tr.Git("mv", "old name.txt", "new name.txt")
	tr.Write("bin", "\x00\x02")
	tr.Write(":colon", "c\nd\n")
	tr.Git("add", "-A")
	out := tr.Git("diff", "--cached", "--raw", "--numstat", "-z", "-M")
	got, err := parseRawNumstat([]byte(out))
	if err != nil {
		t.Fatalf("parseRawNumstat(%q): %v", out, err)
	}
	want := map[string]FileChange{
		"new name.txt": {Path: "new name.txt", OldPath: "old name.txt", Status: "R"},
		"bin":          {Path: "bin", Status: "M", Binary: true},
		":colon":       {Path: ":colon", Status: "M", Added: 1},
	}
	if !reflect.DeepEqual(byPath(got), want) {
		t.Errorf("parsed %q\n got %+v\nwant %+v", out, got, want)
	}
}

func FuzzParseRawNumstat(f *testing.F) {
	f.Add([]byte(":100644 100644 e69de29 8baef1b M\x00a.txt\x003\t1\ta.txt\x00"))
	f.Add([]byte(":100644 100644 e69de29 8baef1b R075\x00old\x00new\x001\t0\t\x00old\x00new\x00"))
	f.Add([]byte(":160000 160000 e69de29 8baef1b M\x00sub\x00-\t-\tsub\x00"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := parseRawNumstat(in)
		if err != nil {
			return
		}
		for _, fc := range got {
			if fc.Status == "" {
				t.Errorf("parsed a change with no status from %q: %+v", in, got)
			}
		}
		// Parsing is deterministic.
		again, _ := parseRawNumstat(bytes.Clone(in))
		if !reflect.DeepEqual(got, again) {
			t.Errorf("parse not deterministic for %q", in)
		}
	})
}

// A prefetched work-tree read is the next ReadChanges' with the same
// exclude and head, once and only while fresh: a later call, another
// exclude, or a read started more than worktreeFresh ago reads again.
func TestPrefetchWorktreeIsTakenOnceWhileFresh(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	head := tr.Head()
	exclude := []string{"notes"}
	tr.Write("a.txt", "one\n")
	r.PrefetchWorktree(ctx, exclude, head)
	<-r.worktree.done
	tr.Write("b.txt", "two\n") // after the prefetch: not in its read
	got, err := r.ReadChanges(ctx, head, head, exclude)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Untracked) != "[a.txt]" {
		t.Errorf("prefetched read: untracked %q, want the state at the prefetch", got.Untracked)
	}
	again, _ := r.ReadChanges(ctx, head, head, exclude)
	if fmt.Sprint(again.Untracked) != "[a.txt b.txt]" {
		t.Errorf("second read: untracked %q, want a fresh read", again.Untracked)
	}

	r.PrefetchWorktree(ctx, exclude, head)
	<-r.worktree.done
	tr.Write("c.txt", "three\n")
	other, _ := r.ReadChanges(ctx, head, head, []string{"elsewhere"})
	if fmt.Sprint(other.Untracked) != "[a.txt b.txt c.txt]" {
		t.Errorf("another exclude: untracked %q, want a fresh read", other.Untracked)
	}
	r.worktree.started = time.Now().Add(-worktreeFresh - time.Second)
	stale, _ := r.ReadChanges(ctx, head, head, exclude)
	if fmt.Sprint(stale.Untracked) != "[a.txt b.txt c.txt]" {
		t.Errorf("stale prefetch: untracked %q, want a fresh read", stale.Untracked)
	}
}
