package check

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/notes"
)

// buildHistory makes n wraps with the journal capped at max entries, so the
// oldest move verbatim to the archive in the same commit.
func buildHistory(t *testing.T, tr *testRepo, n, max int) *journaler {
	t.Helper()
	tr.commit("initial", map[string]string{"README.md": "hello\n"})
	j := &journaler{max: max}
	for i := 1; i <= n; i++ {
		tr.commit(scribeMsg("session"), j.add(i))
	}
	return j
}

func TestJournalAppendOnlyCleanHistoryWithVerbatimArchiving(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	buildHistory(t, tr, 8, 3)
	if !strings.Contains(tr.Read(archivePath), "session 5") {
		t.Fatal("fixture: expected archived entries")
	}
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("clean history with verbatim archiving: want no finding, got %s", describe(got))
	}
}

// TestJournalAppendOnlyRecognisesCleanHistory pins the walk's economy: a
// clean history is verified without reading a single old version.
func TestJournalAppendOnlyRecognisesCleanHistory(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	buildHistory(t, tr, 70, 50)
	in := tr.input("")
	w := &journalWalk{in: in, jPath: journalPath, aPath: archivePath, head: in.Head, rng: in.RevRange(), working: true,
		blobs: map[string]string{}, parsed: map[string][]jentry{}, journals: map[string][]jentry{}}
	got, err := w.run(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("clean history: %v %s", err, describe(got))
	}
	if w.reads != 0 {
		t.Fatalf("read %d old versions; want all recognised from HEAD", w.reads)
	}
}

// TestJournalAppendOnlyRecognisesMergedHistory: feature branches merged
// into a branch that wraps cost no reads either.
func TestJournalAppendOnlyRecognisesMergedHistory(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.commit("initial", map[string]string{"README.md": "hello\n"})
	j := &journaler{max: 5}
	for i := 1; i <= 12; i++ {
		tr.Git("checkout", "-q", "-b", fmt.Sprintf("feature%d", i))
		tr.commit("feat", map[string]string{fmt.Sprintf("src/%d.go", i): "package x\n"})
		tr.Git("checkout", "-q", "main")
		tr.commit(scribeMsg("session"), j.add(i))
		tr.Git("merge", "-q", "--no-ff", "--no-edit", fmt.Sprintf("feature%d", i))
	}
	in := tr.input("")
	w := &journalWalk{in: in, jPath: journalPath, aPath: archivePath, head: in.Head, rng: in.RevRange(), working: true,
		blobs: map[string]string{}, parsed: map[string][]jentry{}, journals: map[string][]jentry{}}
	got, err := w.run(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("clean merged history: %v %s", err, describe(got))
	}
	if w.reads != 0 {
		t.Fatalf("read %d old versions; want all recognised", w.reads)
	}
}

func TestJournalAppendOnlyEditedEntry(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 3, 50)
	edited := strings.Replace(j.journal, "session 1", "session one", 1)
	bad := tr.commit("docs: reword", map[string]string{journalPath: edited})
	tr.commit(scribeMsg("later"), map[string]string{journalPath: edited + "\n" + entry(4).Render()})

	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 {
		t.Fatalf("want 1 finding, got %s", describe(got))
	}
	f := got[0]
	if f.Commit != bad || f.File != journalPath || f.Line != 4 || !strings.Contains(f.Message, "edited in commit "+short(bad)) ||
		!strings.Contains(f.Message, `"docs: reword"`) || f.Fix == "" {
		t.Fatalf("unexpected finding %s", describe(got))
	}

	// --since after the edit: only later commits are verified.
	if got := run(t, newJournalAppendOnly(), tr.input(bad)); len(got) != 0 {
		t.Fatalf("--since %s: want no finding, got %s", short(bad), describe(got))
	}
	// --since before it: found again.
	if got := run(t, newJournalAppendOnly(), tr.input(bad+"~1")); len(got) != 1 {
		t.Fatalf("--since %s~1: want 1 finding, got %s", short(bad), describe(got))
	}
}

func TestJournalAppendOnlyDeletedEntry(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 3, 50)
	text := j.journal
	start := strings.Index(text, "## ")
	second := start + strings.Index(text[start+3:], "## ") + 3
	bad := tr.commit("tidy journal", map[string]string{journalPath: text[:start] + text[second:]})

	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != bad || !strings.Contains(got[0].Message, "deleted") {
		t.Fatalf("want one deletion naming %s, got %s", short(bad), describe(got))
	}
	// It no longer exists: the finding is about the file.
	if got[0].File != journalPath || got[0].Line != 0 {
		t.Fatalf("want %s with no line, got %s", journalPath, describe(got))
	}
}

func TestJournalAppendOnlyArchiveMustBeVerbatim(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 3, 50)
	// Move the oldest entry to the archive, but not byte for byte.
	text := j.journal
	start := strings.Index(text, "## ")
	second := start + strings.Index(text[start+3:], "## ") + 3
	moved := strings.Replace(text[start:second], "did the thing", "did the things", 1)
	bad := tr.commit("archive by hand", map[string]string{
		journalPath: text[:start] + text[second:],
		archivePath: "# Journal Archive\n\n" + moved,
	})
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != bad || got[0].File != archivePath || got[0].Line != 3 || !strings.Contains(got[0].Message, "edited") {
		t.Fatalf("want one edit located in the archive, got %s", describe(got))
	}

	// Moved verbatim instead (in a fresh repo): clean.
	tr2 := newRepo(t)
	j2 := buildHistory(t, tr2, 3, 50)
	text = j2.journal
	tr2.commit("archive by hand", map[string]string{
		journalPath: text[:start] + text[second:],
		archivePath: "# Journal Archive\n\n" + text[start:second],
	})
	if got := run(t, newJournalAppendOnly(), tr2.input("")); len(got) != 0 {
		t.Fatalf("verbatim move: want no finding, got %s", describe(got))
	}
}

func TestJournalAppendOnlyMoveSpreadOverTwoCommits(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 3, 50)
	text := j.journal
	start := strings.Index(text, "## ")
	second := start + strings.Index(text[start+3:], "## ") + 3
	removed := tr.commit("drop oldest", map[string]string{journalPath: text[:start] + text[second:]})
	tr.commit("archive it", map[string]string{archivePath: "# Journal Archive\n\n" + text[start:second]})
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != removed || got[0].File != archivePath {
		t.Fatalf("want the deleting commit named, entry located in the archive, got %s", describe(got))
	}
}

func TestJournalAppendOnlyEditedArchiveEntry(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 12, 3)
	archived := tr.Read(archivePath)
	bad := tr.commit("fix archive", map[string]string{archivePath: strings.Replace(archived, "session 2\n", "session 2 (fixed)\n", 1)})
	// More wraps on top of the edited archive.
	j.archive = tr.Read(archivePath)
	for i := 13; i <= 15; i++ {
		tr.commit(scribeMsg("session"), j.add(i))
	}
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != bad || got[0].File != archivePath || !strings.Contains(got[0].Message, "archived journal entry") {
		t.Fatalf("want one archive edit, got %s", describe(got))
	}
	if want := lineOf(tr.Read(archivePath), "session 2 (fixed)"); got[0].Line != want {
		t.Fatalf("line: got %d, want %d", got[0].Line, want)
	}
}

// TestJournalAppendOnlyLegacyEntriesStayValid: a journal written before
// entries had blank lines around their headings and lists keeps its entries
// as they are; today's entries appended after them, and the archiving that
// moves the old ones verbatim, are no edit.
func TestJournalAppendOnlyLegacyEntriesStayValid(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.commit("initial", map[string]string{"README.md": "hello\n"})
	legacy := notes.DefaultJournalPreamble
	for i := 1; i <= 3; i++ {
		if i > 1 {
			legacy += "\n"
		}
		legacy += legacyRender(entry(i, fmt.Sprintf("(p) item %d", i)))
	}
	tr.commit(scribeMsg("legacy"), map[string]string{journalPath: legacy})
	j := &journaler{journal: legacy, max: 3}
	for i := 4; i <= 6; i++ {
		tr.commit(scribeMsg("session"), j.add(i))
	}
	if !strings.Contains(j.archive, legacyRender(entry(1, "(p) item 1"))) || !strings.Contains(j.journal, entry(6).Render()) {
		t.Fatalf("fixture: want legacy entries archived verbatim and new ones in the journal:\n%s\n---\n%s", j.journal, j.archive)
	}
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("legacy entries then new ones: want no finding, got %s", describe(got))
	}
}

func TestJournalAppendOnlyUncommittedEdit(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 2, 50)
	tr.Write(journalPath, strings.Replace(j.journal, "session 2", "session two", 1))
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != "" || !strings.Contains(got[0].Message, "uncommitted changes") {
		t.Fatalf("want one uncommitted edit, got %s", describe(got))
	}
	if want := lineOf(j.journal, "session 2"); got[0].Line != want {
		t.Fatalf("line: got %d, want %d", got[0].Line, want)
	}
	// Appending in the working tree is fine.
	tr.Write(journalPath, j.journal+"\n"+entry(3).Render())
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("uncommitted append: want no finding, got %s", describe(got))
	}
}

func TestJournalAppendOnlyRestoreIsNotANewViolation(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	j := buildHistory(t, tr, 2, 50)
	bad := tr.commit("edit", map[string]string{journalPath: strings.Replace(j.journal, "session 1", "session uno", 1)})
	restore := tr.commit("restore", map[string]string{journalPath: j.journal})
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != bad || !strings.Contains(got[0].Fix, "--since "+short(restore)) {
		t.Fatalf("want only the edit, fixed by restore %s, got %s", short(restore), describe(got))
	}
	if got := run(t, newJournalAppendOnly(), tr.input(restore)); len(got) != 0 {
		t.Fatalf("--since the restore: want clean, got %s", describe(got))
	}
}

// legacyRender writes e as journals on a branch were written before scribe's
// record moved to refs/scribe/vault: no blank lines around headings and
// lists. Only such journals meet git's line-level union merge now (scribe
// writes the journal on the vault ref, and init's merge driver merges branch
// journals entry by entry); a line-level union of two entries in today's
// layout shares their blank lines and interleaves them.
func legacyRender(e notes.Entry) string {
	s := e.Render()
	for strings.Contains(s, "\n\n") {
		s = strings.ReplaceAll(s, "\n\n", "\n")
	}
	return s
}

func TestJournalAppendOnlyMerges(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.Write(".gitattributes", ".claude/sonmat/journal*.md merge=union\n")
	j := buildHistory(t, tr, 2, 50)
	base := j.journal

	// Both branches append; the union merge keeps both: clean. (The
	// entries end in different lines: see TestJournalAppendOnlyUnionMergeMangles.)
	tr.Git("checkout", "-q", "-b", "side")
	tr.commit(scribeMsg("side"), map[string]string{journalPath: base + "\n" + legacyRender(entry(10, "(p) ten"))})
	tr.Git("checkout", "-q", "main")
	tr.commit(scribeMsg("main"), map[string]string{journalPath: base + "\n" + legacyRender(entry(11, "(p) eleven"))})
	tr.Git("merge", "-q", "--no-edit", "side")
	if !strings.Contains(tr.Read(journalPath), "session 10") || !strings.Contains(tr.Read(journalPath), "session 11") {
		t.Fatalf("fixture: union merge lost an entry:\n%s", tr.Read(journalPath))
	}
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("union merge: want no finding, got %s", describe(got))
	}

	// A merge that drops the other side's entry (-s ours) loses it.
	tr.Git("checkout", "-q", "-b", "side2", "main~1")
	tr.commit(scribeMsg("side2"), map[string]string{journalPath: tr.Read(journalPath) + "\n" + entry(12).Render()})
	tr.Git("checkout", "-q", "main")
	tr.Git("merge", "-q", "--no-edit", "-s", "ours", "side2")
	merge := tr.Head()
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != merge || !strings.Contains(got[0].Message, "session 12") || !strings.Contains(got[0].Message, "deleted") {
		t.Fatalf("ours merge: want the merge named for losing session 12, got %s", describe(got))
	}
}

// TestJournalAppendOnlyUnionMergeMangles pins a real hazard of merge=union:
// when two branches append entries that end in the same line, git's union
// merge shares that line, and the first entry loses it. The check sees the
// entry edited by the merge.
func TestJournalAppendOnlyUnionMergeMangles(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.Write(".gitattributes", ".claude/sonmat/journal*.md merge=union\n")
	j := buildHistory(t, tr, 2, 50)
	tr.Git("checkout", "-q", "-b", "side")
	tr.commit(scribeMsg("side"), map[string]string{journalPath: j.journal + "\n" + legacyRender(entry(10))})
	tr.Git("checkout", "-q", "main")
	tr.commit(scribeMsg("main"), map[string]string{journalPath: j.journal + "\n" + legacyRender(entry(11))})
	tr.Git("merge", "-q", "--no-edit", "side")
	merge := tr.Head()
	if strings.Count(tr.Read(journalPath), "- Mode: journal") != 3 {
		t.Skip("this git's union merge kept both final lines")
	}
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != merge || !strings.Contains(got[0].Message, "session 11") || !strings.Contains(got[0].Message, "edited") {
		t.Fatalf("want the merge named for mangling session 11, got %s", describe(got))
	}
}

func TestJournalAppendOnlySHA256(t *testing.T) {
	t.Parallel()
	tr := repoAt(t, t.TempDir())
	if _, err := tr.GitErr("init", "-q", "--object-format=sha256"); err != nil {
		t.Skip("git without SHA-256 support")
	}
	j := buildHistory(t, tr, 6, 3)
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("clean: %s", describe(got))
	}
	bad := tr.commit("edit", map[string]string{journalPath: strings.Replace(j.journal, "did the thing", "did a thing", 1)})
	got := run(t, newJournalAppendOnly(), tr.input(""))
	if len(got) != 1 || got[0].Commit != bad || got[0].Line != 4 {
		t.Fatalf("edit: %s", describe(got))
	}
}

func TestJournalAppendOnlyNoHistory(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("unborn, no journal: got %s", describe(got))
	}
	tr.Write(journalPath, "# Journal\n\n"+entry(1).Render())
	if got := run(t, newJournalAppendOnly(), tr.input("")); len(got) != 0 {
		t.Fatalf("unborn, new journal: got %s", describe(got))
	}
}

// TestArchiveRefFindsEveryVersion pins the prefix recognition: every
// archive version Append produces is found in the newest one by its id.
func TestArchiveRefFindsEveryVersion(t *testing.T) {
	t.Parallel()
	j := &journaler{max: 2}
	var versions []string
	for i := 1; i <= 30; i++ {
		j.add(i)
		if j.archive != "" && (len(versions) == 0 || versions[len(versions)-1] != j.archive) {
			versions = append(versions, j.archive)
		}
	}
	ref := archiveRef{text: versions[len(versions)-1], hint: len(versions[len(versions)-1])}
	for i := len(versions) - 2; i >= 0; i-- {
		got, ok := ref.find(blobID(versions[i], 40), 40)
		if !ok || got != versions[i] {
			t.Fatalf("version %d not found (ok=%v)", i, ok)
		}
	}
	if _, ok := ref.find(blobID("something else", 40), 40); ok {
		t.Fatal("found a blob that is not a prefix")
	}
}

func TestBlobIDMatchesGit(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	for _, s := range []string{"", "a\n", "# Journal\n\n## x — y\n"} {
		if want := tr.gitStdin(s, "hash-object", "--stdin"); blobID(s, 40) != want {
			t.Errorf("blobID(%q) = %s, git says %s", s, blobID(s, 40), want)
		}
	}
}

func TestUnchangedCut(t *testing.T) {
	t.Parallel()
	a := "# J\n\n## 2026-01-01 — a\n- x\n\n## 2026-01-02 — b\n- y\n"
	tests := []struct {
		name, old, new string
		want           int
	}{
		{"append", a, a + "\n## 2026-01-03 — c\n", strings.Index(a, "## 2026-01-02")},
		{"edit last", a, strings.Replace(a, "- y", "- z", 1), strings.Index(a, "## 2026-01-02")},
		{"edit first heading", a, strings.Replace(a, "— a", "— A", 1), 0},
		{"same", a, a, len(a)},
	}
	for _, tt := range tests {
		if got := unchangedCut(tt.old, tt.new); got != tt.want {
			t.Errorf("%s: unchangedCut = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// lineOf is the 1-based line of the first line containing s, or 0.
func lineOf(text, s string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

// TestJournalAppendOnlyRecognisesHistoryBeforeLintDirective: a vault that
// an older scribe wrote, whose journal and archive got the lint directive
// on top at the next write, is clean, and its old versions are still
// recognised from HEAD rather than read one by one.
func TestJournalAppendOnlyRecognisesHistoryBeforeLintDirective(t *testing.T) {
	t.Parallel()
	tr := newRepo(t)
	tr.commit("initial", map[string]string{"README.md": "hello\n"})
	j := &journaler{max: 5}
	old := func(text string) string { return strings.TrimPrefix(text, notes.JournalLintDirective+"\n") }
	for i := 1; i <= 40; i++ {
		files := j.add(i)
		if i <= 30 { // written before the directive
			j.journal, j.archive = old(j.journal), old(j.archive)
			for p, text := range files {
				files[p] = old(text)
			}
		}
		tr.commit(scribeMsg("session"), files)
	}
	if !strings.HasPrefix(j.journal, notes.JournalLintDirective+"\n# Journal\n") || !strings.HasPrefix(j.archive, notes.JournalLintDirective+"\n# Journal Archive\n") {
		t.Fatalf("fixture: want the directive on top of both files now:\n%s\n%s", j.journal, j.archive)
	}
	in := tr.input("")
	w := &journalWalk{in: in, jPath: journalPath, aPath: archivePath, head: in.Head, rng: in.RevRange(), working: true,
		blobs: map[string]string{}, parsed: map[string][]jentry{}, journals: map[string][]jentry{}}
	got, err := w.run(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("history across the directive: %v %s", err, describe(got))
	}
	if w.reads > 1 {
		t.Fatalf("read %d old versions; want those before the directive recognised too (at most the archive's last one read)", w.reads)
	}
}
