package ratify

import (
	"strings"
	"testing"
)

func TestCandidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{"heading", "body\n\n## Introduced candidates\n- Mira Kade — the ferryman's daughter\n- Old Quay: the drowned district\n\n## Other\n- not me\n",
			[]string{"Mira Kade — the ferryman's daughter", "Old Quay: the drowned district"}},
		{"none", "## Introduced candidates\nNone.\n- None.\n", nil},
		{"bold and checkboxes", "**Introduced candidates:**\n* [ ] Vessa — a name\n1. The Tithe — a tax\n", []string{"Vessa — a name", "The Tithe — a tax"}},
		{"level three, dedup, via stripped", "### Introduced Candidates\n- A — x (via [[body/drafts/a]])\n- A — x\n", []string{"A — x"}},
		{"absent", "## Findings\n- a finding\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Candidates(tt.text); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("Candidates = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMineText(t *testing.T) {
	t.Parallel()
	inbox := "# Inbox\n\n## Pending\n\n- [ ] Old item (via [[body/drafts/old]])\n\n## Ratified facts\n\n- Mira Kade — the ferryman's daughter (via [[body/drafts/zero]])\n"
	srcs := []Source{
		{Path: "body/drafts/a.md", Text: "x\n## Introduced candidates\n- Vessa — a smuggler\n- Mira Kade — a smuggler\n"},
		{Path: "body/drafts/old.md", Text: "## Introduced candidates\n- Never added — already mined\n"},
		{Path: "reviews/canon/a.md", Text: "verdict: clean\n## Introduced candidates\n- Vessa — a smuggler\n- Mira Kade — the ferryman's daughter\n"},
	}
	got, added := MineText(inbox, srcs)
	want := "# Inbox\n\n## Pending\n\n" +
		"- [ ] ⚠ conflicts with ratified \"Mira Kade — the ferryman's daughter\": Mira Kade — a smuggler (via [[body/drafts/a]])\n" +
		"- [ ] Old item (via [[body/drafts/old]])\n" +
		"- [ ] Vessa — a smuggler (via [[body/drafts/a]])\n\n" +
		"## Ratified facts\n\n- Mira Kade — the ferryman's daughter (via [[body/drafts/zero]])\n"
	if got != want {
		t.Fatalf("MineText:\n%s\nwant:\n%s", got, want)
	}
	if len(added) != 2 || added[0].Conflict == "" {
		t.Fatalf("added = %+v", added)
	}
	// The via-link marker makes a second mine a no-op.
	again, more := MineText(got, srcs)
	if again != got || len(more) != 0 {
		t.Fatalf("second mine changed the inbox: %+v\n%s", more, again)
	}
}

func TestMineTextNewAndOddInboxes(t *testing.T) {
	t.Parallel()
	src := []Source{{Path: "body/drafts/a.md", Text: "## Introduced candidates\n- Vessa — a smuggler\n"}}
	tests := []struct{ name, inbox, want string }{
		{"empty", "", DefaultInbox[:strings.Index(DefaultInbox, "## Pending")] + "## Pending\n\n- [ ] Vessa — a smuggler (via [[body/drafts/a]])\n\n## Ratified facts\n"},
		{"no sections", "# My inbox\nnotes\n", "# My inbox\nnotes\n\n## Pending\n\n- [ ] Vessa — a smuggler (via [[body/drafts/a]])\n"},
		{"pending last", "## Pending\n", "## Pending\n\n- [ ] Vessa — a smuggler (via [[body/drafts/a]])\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, added := MineText(tt.inbox, src)
			if got != tt.want || len(added) != 1 {
				t.Fatalf("MineText(%q) =\n%q\nwant\n%q", tt.inbox, got, tt.want)
			}
		})
	}
}

func TestRatifyText(t *testing.T) {
	t.Parallel()
	inbox := "# Inbox\n\n## Pending\n\n" +
		"- [x] ⚠ conflicts with ratified \"A — old\": A — new (via [[body/drafts/a]])\n" +
		"- [ ] B — maybe (via [[body/drafts/a]])\n" +
		"- [X] C — yes (via [[reviews/canon/a]])\n\n" +
		"## Ratified facts\n\n- A — old (via [[body/drafts/z]])\n- [x] D — inside the ledger stays\n"
	got, facts := RatifyText(inbox)
	want := "# Inbox\n\n## Pending\n\n" +
		"- [ ] B — maybe (via [[body/drafts/a]])\n\n" +
		"## Ratified facts\n\n- A — old (via [[body/drafts/z]])\n- [x] D — inside the ledger stays\n" +
		"- A — new (via [[body/drafts/a]])\n- C — yes (via [[reviews/canon/a]])\n"
	if got != want {
		t.Fatalf("RatifyText:\n%s\nwant:\n%s", got, want)
	}
	if strings.Join(facts, "|") != "A — new|C — yes" {
		t.Fatalf("facts = %q", facts)
	}
	if again, more := RatifyText(got); again != got || len(more) != 0 {
		t.Fatalf("second ratify changed the inbox")
	}
	// Without a ledger section one is made at the end.
	got, _ = RatifyText("## Pending\n- [x] E — e (via [[x]])\n- [ ] F\n")
	if got != "## Pending\n- [ ] F\n\n## Ratified facts\n\n- E — e (via [[x]])\n" {
		t.Fatalf("no ledger: %q", got)
	}
	// Emptying the Pending section leaves one blank line under its heading,
	// not two (markdownlint MD012).
	got2, _ := RatifyText("# Inbox\n\n## Pending\n\n- [x] G — g (via [[y]])\n\n## Ratified facts\n\n- A — a\n")
	if got2 != "# Inbox\n\n## Pending\n\n## Ratified facts\n\n- A — a\n- G — g (via [[y]])\n" {
		t.Fatalf("emptied Pending: %q", got2)
	}
	// Mining after ratifying adds nothing for the ratified source.
	if _, added := MineText(got, []Source{{Path: "x.md", Text: "## Introduced candidates\n- E — e\n"}}); len(added) != 0 {
		t.Fatalf("re-mined a ratified source: %+v", added)
	}
}

func TestOnlyTicks(t *testing.T) {
	t.Parallel()
	const before = "# Inbox\n\n- [ ] a (via [[x]])\n- [ ] b\n"
	tests := []struct {
		after string
		want  bool
	}{
		{before, true},
		{"# Inbox\n\n- [x] a (via [[x]])\n- [X] b\n", true},
		{"# Inbox\n\n- [x] a, reworded (via [[x]])\n- [ ] b\n", false},
		{"# Inbox\n\n- [x] a (via [[x]])\n- [ ] b\n- [ ] c\n", false},
		{"# Inbox\n\n * [x] a (via [[x]])\n- [ ] b\n", false},
	}
	for _, tt := range tests {
		if got := onlyTicks(before, tt.after); got != tt.want {
			t.Errorf("onlyTicks(%q) = %v, want %v", tt.after, got, tt.want)
		}
	}
}
