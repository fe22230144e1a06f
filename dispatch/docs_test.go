package dispatch

import (
	"context"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestWritersDocExample builds a vault from docs/WRITERS.md's example files
// (each a fenced block after a "vault-file: PATH" comment) and plans it: the
// card is ready for its fill, fill and both reviews would fire, no warning,
// and the pack holds the card, the contract and both canon notes.
func TestWritersDocExample(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/WRITERS.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)<!-- vault-file: (\\S+) -->\n```markdown\n(.*?)```\n").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) != 4 {
		t.Fatalf("docs/WRITERS.md has %d vault-file blocks, want 4", len(blocks))
	}
	r := vaultRepo(t, "")
	for _, b := range blocks {
		writeFile(t, r, b[1], b[2])
	}
	gitRun(t, r.WorkTree, "add", "-A")
	gitRun(t, r.WorkTree, "commit", "-q", "-m", "the example vault")
	p, err := newDispatcher(r, nil, &stub{}, nil).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Cards) != 1 || !p.Cards[0].State.ReadyForFill || p.Jobs != 3 || len(p.Warnings) != 0 {
		t.Fatalf("plan of the documented vault: %d card(s), %d job(s), warnings %q", len(p.Cards), p.Jobs, p.Warnings)
	}
	srcs, err := packSources(p.snap, p.Cards[0].Card, p.Cards[0].contract)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cards/01-01-the-ferry.md", "control/contracts/01-01-the-ferry.md", "canon/world.md", "canon/voice.md"}
	if !slices.Equal(srcs, want) {
		t.Fatalf("pack sources %q, want %q", srcs, want)
	}
}
