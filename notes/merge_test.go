package notes

import (
	"strings"
	"testing"
	"time"
)

func TestMergeJournalKeepsEntriesWhole(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	entry := func(id, summary string) Entry {
		return Entry{ID: id, Time: at, Summary: summary, Scope: "no file changes", Result: "shipped", Modes: "journal"}
	}
	base, _ := Append("", "", entry("b", "Base"), 50)
	ours, _ := Append(base, "", entry("m", "Main"), 50)
	theirs, _ := Append(base, "", entry("s", "Side"), 50)
	got := MergeJournal(base, ours, theirs)
	if !strings.HasPrefix(got, ours) {
		t.Fatalf("ours is not kept byte for byte:\n%s", got)
	}
	j := ParseJournal(got)
	if len(j.Entries) != 3 || j.Entries[2].Summary != "Side" {
		t.Fatalf("entries = %d, want Base, Main, Side:\n%s", len(j.Entries), got)
	}
	if n := strings.Count(got, "- Mode: journal\n"); n != 3 {
		t.Errorf("%d Mode lines, want 3 (one per entry):\n%s", n, got)
	}
	if again := MergeJournal(base, got, theirs); again != got {
		t.Errorf("merging again changed the result")
	}
	if MergeJournal(base, ours, base) != ours {
		t.Errorf("theirs unchanged: ours must win as is")
	}
}

func TestMergeJournalArchivedOnOneSide(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var base string
	for _, s := range []string{"one", "two"} {
		base, _ = Append(base, "", Entry{ID: s, Time: at, Summary: s}, 50)
	}
	// ours archived "one" (max 1 entry) while theirs appended "three".
	ours, _ := Append(base, "", Entry{ID: "x", Time: at, Summary: "x"}, 2)
	theirs, _ := Append(base, "", Entry{ID: "three", Time: at, Summary: "three"}, 50)
	got := ParseJournal(MergeJournal(base, ours, theirs))
	var names []string
	for _, e := range got.Entries {
		names = append(names, e.Summary)
	}
	if strings.Join(names, ",") != "two,x,three" {
		t.Errorf("entries = %v, want two,x,three (the archived one stays archived)", names)
	}
}

func TestMergeJournalArchivedOnTheirSide(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var base string
	for _, s := range []string{"one", "two"} {
		base, _ = Append(base, "", Entry{ID: s, Time: at, Summary: s}, 50)
	}
	ours, _ := Append(base, "", Entry{ID: "mine", Time: at, Summary: "mine"}, 50)
	// theirs wrapped with max 2: "one" moved to their archive.
	theirs, theirArchive := Append(base, "", Entry{ID: "theirs", Time: at, Summary: "theirs"}, 2)
	got := ParseJournal(MergeJournal(base, ours, theirs))
	var names []string
	for _, e := range got.Entries {
		names = append(names, e.Summary)
	}
	if strings.Join(names, ",") != "two,mine,theirs" {
		t.Errorf("journal = %v, want two,mine,theirs", names)
	}
	arch := ParseJournal(MergeJournal("", "", theirArchive))
	if len(arch.Entries) != 1 || arch.Entries[0].Summary != "one" {
		t.Errorf("archive = %+v, want one", arch.Entries)
	}
}

// A sync's merge puts the entries of two vaults in time order, none lost,
// none doubled, each byte for byte.
func TestMergeJournalInTime(t *testing.T) {
	e := func(ts, id, s string) string {
		return "## " + ts + " — " + s + "\n- Scope: x (1 file)\n- Result: shipped\n<!-- scribe:entry " + id + " -->\n"
	}
	base := e("2026-12-01T09:00:00+00:00", "a", "base")
	ours := base + "\n" + e("2026-12-01T11:00:00+00:00", "c", "ours later")
	theirs := base + "\n" + e("2026-12-01T10:00:00+00:00", "b", "theirs earlier")
	got := MergeJournalInTime(base, ours, theirs)
	want := base + "\n" + e("2026-12-01T10:00:00+00:00", "b", "theirs earlier") + "\n" + e("2026-12-01T11:00:00+00:00", "c", "ours later")
	if got != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
	if again := MergeJournalInTime(base, got, theirs); again != got {
		t.Errorf("merging again changed it:\n%s", again)
	}
}

// TestMergeJournalLintDirective: a journal from before the lint directive
// merged with one written since is in the newer format, its entries whole.
func TestMergeJournalLintDirective(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	old := "# Journal\n\n" + Entry{ID: "b", Time: at, Summary: "Base"}.Render()
	ours := old + "\n" + Entry{ID: "m", Time: at, Summary: "Main"}.Render()
	theirs, _ := Append(old, "", Entry{ID: "s", Time: at, Summary: "Side"}, 50)
	got := MergeJournal(old, ours, theirs)
	if !strings.HasPrefix(got, JournalLintDirective+"\n"+ours) {
		t.Fatalf("want the directive on top of ours, kept byte for byte:\n%s", got)
	}
	if j := ParseJournal(got); len(j.Entries) != 3 || j.Entries[2].Summary != "Side" || strings.Count(got, JournalLintDirective) != 1 {
		t.Fatalf("want Base, Main, Side and one directive:\n%s", got)
	}
	// Theirs from before it: ours stays as it is, with or without.
	if got := MergeJournal(old, theirs, ours); !strings.HasPrefix(got, theirs) || strings.Count(got, JournalLintDirective) != 1 {
		t.Errorf("ours with the directive, theirs without:\n%s", got)
	}
	if got := MergeJournal(old, ours, ours+"\n"+Entry{ID: "t", Time: at, Summary: "Two"}.Render()); strings.Contains(got, JournalLintDirective) {
		t.Errorf("neither side has the directive; the merge added it:\n%s", got)
	}
}
