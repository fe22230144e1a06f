package gitops

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A vault commit whose object this process writes (PrepareIdent) is the
// commit commit-tree would have written: same tree, parents, identities
// (the fixed dates of the suite's environment) and message, so the same id.
func TestVaultCommitObjectIsCommitTrees(t *testing.T) {
	// Both writers stamp the same time only when it is fixed.
	t.Setenv("GIT_AUTHOR_DATE", "1700000000 +0100")
	t.Setenv("GIT_COMMITTER_DATE", "1700000001 -0500")
	ctx := context.Background()
	tr := newRepo(t)
	r := tr.open()
	first, err := r.CommitPaths(ctx, vaultRequest("- one\n"))
	if err != nil {
		t.Fatal(err)
	}
	r.PrepareIdent(ctx)
	req := vaultRequest("- two\n")
	res, err := r.CommitPaths(ctx, req)
	if err != nil || res.Parent != first.SHA {
		t.Fatalf("vault commit = %+v, %v", res, err)
	}
	if r.ident.ahead != nil {
		t.Fatal("the prepared identities were not used")
	}
	tree := tr.GitTrim("rev-parse", res.SHA+"^{tree}")
	want := strings.TrimSpace(tr.GitStdin([]byte(req.Message(res.Changed)), "commit-tree", tree, "-F", "-", "-p", first.SHA))
	if res.SHA != want {
		t.Errorf("in-process commit %s, commit-tree writes %s:\n%s\nvs\n%s", res.SHA, want,
			tr.Git("cat-file", "commit", res.SHA), tr.Git("cat-file", "commit", want))
	}
	if got := tr.GitTrim("rev-parse", VaultRef); got != res.SHA {
		t.Errorf("%s at %s, want %s", VaultRef, got, res.SHA)
	}
	tr.fsck()
}

// Identities from the environment are the ones git gives; an encoding
// other than UTF-8 leaves the object to commit-tree.
func TestPrepareIdentHonoursTheEnvironment(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ada Agent")
	t.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
	r := tr.open()
	r.PrepareIdent(ctx)
	author, committer, ok := r.takeIdent()
	if !ok || !strings.HasPrefix(author, "Ada Agent <ada@example.com> ") || strings.HasPrefix(committer, "Ada") {
		t.Fatalf("takeIdent = %q, %q, %v", author, committer, ok)
	}
	if _, _, ok := r.takeIdent(); ok {
		t.Error("the identities were handed out twice")
	}
	tr.Git("config", "i18n.commitEncoding", "ISO-8859-1")
	r.PrepareIdent(ctx)
	if _, _, ok := r.takeIdent(); ok {
		t.Error("identities for a non-UTF-8 commit encoding were used")
	}
}

func TestParseVarList(t *testing.T) {
	t.Parallel()
	good := "user.name=x\nGIT_COMMITTER_IDENT=C O <c@o> 1700000000 +0000\nGIT_AUTHOR_IDENT=A U <a@u> 1700000000 -0130\nGIT_EDITOR=vi\n"
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"both", good, true},
		{"a config value cannot stand in", "GIT_AUTHOR_IDENT=fake <f@f> 1 +0000\n" + good, true},
		{"utf-8 encoding", "i18n.commitencoding=UTF-8\n" + good, true},
		{"latin-1 encoding", "i18n.commitencoding=ISO-8859-1\n" + good, false},
		{"no committer", "GIT_AUTHOR_IDENT=A U <a@u> 1700000000 +0000\n", false},
		{"no time", "GIT_COMMITTER_IDENT=C <c@o>\nGIT_AUTHOR_IDENT=A <a@u>\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		a, c, ok := parseVarList([]byte(tt.in))
		if ok != tt.ok {
			t.Errorf("%s: ok = %v (%q, %q), want %v", tt.name, ok, a, c, tt.ok)
		}
		if tt.name == "a config value cannot stand in" && a != "A U <a@u> 1700000000 -0130" {
			t.Errorf("author = %q, want the variable's", a)
		}
	}
	if _, ok := commitObject("t", nil, "A <a> 1 +0000", "C <c> 1 +0000", "bad \xff\n"); ok {
		t.Error("a message that is not UTF-8 was written in process (commit-tree re-encodes it)")
	}
}

func FuzzParseVarList(f *testing.F) {
	f.Add([]byte("GIT_COMMITTER_IDENT=C O <c@o> 1700000000 +0000\nGIT_AUTHOR_IDENT=A U <a@u> 1700000000 -0130\n"))
	f.Add([]byte("i18n.commitencoding=utf8\nGIT_AUTHOR_IDENT=<>\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, c, ok := parseVarList(in)
		if !ok {
			return
		}
		if !validIdent(a) || !validIdent(c) || strings.ContainsAny(a+c, "\n\x00") {
			t.Fatalf("parseVarList accepted %q, %q", a, c)
		}
		raw, ok := commitObject(strings.Repeat("0", 40), nil, a, c, "msg\n")
		if !ok || strings.Count(string(raw), "\n") != 5 {
			t.Fatalf("commit object of %q, %q: %q", a, c, raw)
		}
	})
}

// The identities git gave are kept with what they came from, and given
// again, at the time of now, while that is unchanged: an edited config,
// another variable, or a config that includes another file, and git is
// asked.
func TestKeptIdentities(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	for _, k := range []string{"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE", "GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)  // the identities then come from the config
	}
	tr.Git("config", "user.name", "Config Person")
	take := func() (string, string) {
		t.Helper()
		r := tr.open()
		r.PrepareIdent(ctx)
		a, c, ok := r.takeIdent()
		if !ok || !validIdent(a) || !validIdent(c) {
			t.Fatalf("takeIdent = %q, %q, %v", a, c, ok)
		}
		return a, c
	}
	a, _ := take()
	r := tr.open()
	var k identKept
	if !ReadKept(r.identPath(), &k) || !strings.HasPrefix(a, k.Author+" ") {
		t.Fatalf("kept %+v after git gave %q", k, a)
	}
	// What is kept is what is given while the sources are the same.
	k.Author = "Kept Identity <kept@example.com>"
	if err := WriteKept(r.identPath(), k); err != nil {
		t.Fatal(err)
	}
	if a, _ := take(); !strings.HasPrefix(a, "Kept Identity <kept@example.com> ") {
		t.Fatalf("author = %q, want the kept one", a)
	}
	if f := strings.Fields(a); len(f) < 2 || f[len(f)-1] != zoneOf(time.Now()) {
		t.Errorf("author %q does not end in this zone", a)
	}
	tr.Git("config", "user.name", "Renamed Person")
	if a, _ := take(); !strings.HasPrefix(a, "Renamed Person ") {
		t.Errorf("after the config changed, author = %q", a)
	}
	t.Setenv("GIT_AUTHOR_NAME", "From The Environment")
	if a, _ := take(); !strings.HasPrefix(a, "From The Environment ") {
		t.Errorf("with GIT_AUTHOR_NAME set, author = %q", a)
	}
	os.Unsetenv("GIT_AUTHOR_NAME")
	os.WriteFile(filepath.Join(tr.Dir, "extra.gitconfig"), []byte("[user]\n\tname = Included Name\n"), 0o644)
	tr.Git("config", "include.path", filepath.Join(tr.Dir, "extra.gitconfig"))
	if a, _ := take(); !strings.HasPrefix(a, "Included Name ") {
		t.Errorf("with an include, author = %q", a)
	}
	os.WriteFile(filepath.Join(tr.Dir, "extra.gitconfig"), []byte("[user]\n\tname = Included Again\n"), 0o644)
	if a, _ := take(); !strings.HasPrefix(a, "Included Again ") {
		t.Errorf("an included file changed, author = %q (kept across an include)", a)
	}
}

// What the kept identities came from is kept as a hash: a token passed in
// git's own -c (GIT_CONFIG_PARAMETERS) never reaches the file.
func TestKeptIdentitiesHoldNoVariable(t *testing.T) {
	ctx := context.Background()
	tr := newRepo(t)
	for _, k := range []string{"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'http.extraheader'='Authorization: Bearer s3cr3t-t0ken'")
	r := tr.open()
	r.PrepareIdent(ctx)
	if _, _, ok := r.takeIdent(); !ok {
		t.Fatal("no identities")
	}
	b, err := os.ReadFile(r.identPath())
	if err != nil {
		t.Fatalf("nothing kept: %v", err)
	}
	if strings.Contains(string(b), "s3cr3t") || strings.Contains(string(b), "extraheader") {
		t.Errorf("the kept identities hold a variable's value:\n%q", b)
	}
}
