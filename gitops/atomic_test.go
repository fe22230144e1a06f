package gitops

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteFileAtomicRemovesStaleTemps: the temp files a killed writer
// left (".journal.md<digits>", older than a minute) are removed by the next
// write to their directory; fresh ones (a writer still running), temp-like
// names of files that do not exist, and the user's own files stay.
func TestWriteFileAtomicRemovesStaleTemps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Minute)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk("bridge-note.md", old)
	stale := []string{
		mk(".journal.md5577006791947779410", old),     // the file being written
		mk(".bridge-note.md8674665223082153551", old), // a sibling that exists
	}
	kept := []string{
		mk(".journal.md6129484611666145821", time.Now()), // a writer still at work
		mk(".notes.md6129484611666145821", old),          // notes.md does not exist
		mk(".env2", old),                                 // too few digits: the user's
		mk("journal.md1234567890", old),                  // no leading dot
	}
	if err := WriteFileAtomic(filepath.Join(dir, "journal.md"), []byte("j\n")); err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("stale temp %s was left", filepath.Base(p))
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "journal.md")); string(b) != "j\n" {
		t.Errorf("journal.md = %q", b)
	}
}

// WriteFileReplace replaces a file whole (no temporary file left, the
// mode kept) and removes the stale temporaries a killed write of it left;
// TidyTemps does the same without writing.
func TestWriteFileReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "ade7ac53fc14") // a name ending in digits, as the follow-up cache's may
	if err := WriteFileReplace(path, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	stale := filepath.Join(dir, ".ade7ac53fc141234567890")
	os.WriteFile(stale, []byte("partial"), 0o644)
	old := time.Now().Add(-2 * StaleTempAge)
	os.Chtimes(stale, old, old)
	if err := WriteFileReplace(path, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left in the directory: %v", ents)
	}
	os.WriteFile(stale, []byte("partial"), 0o644)
	os.Chtimes(stale, old, old)
	TidyTemps(path)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("TidyTemps left the stale temporary file (%v)", err)
	}
}
