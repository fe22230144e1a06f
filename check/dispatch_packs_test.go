package check

import (
	"context"
	"strings"
	"testing"
)

func TestDispatchPacks(t *testing.T) {
	t.Parallel()
	const pack = "control/context-packs/cards/a.md"
	v1, v2 := "---\ntype: context-pack\n---\nversion one\n", "---\ntype: context-pack\n---\nversion two\n"
	artifact := func(sha string) string {
		return "---\ntype: draft\npack: " + pack + "\npack_sha: " + sha + "\nagent: fake\n---\nbody\n"
	}
	tr := newRepo(t)
	tr.commit("freeze v1", map[string]string{pack: v1, "control/context-packs/cards/a.sha256": sha256Hex([]byte(v1)) + "  a.md\n"})
	tr.commit("draft", map[string]string{"body/drafts/a.md": artifact(sha256Hex([]byte(v1)))})
	// Re-frozen after the draft landed: the old sha still resolves in history.
	tr.commit("freeze v2", map[string]string{pack: v2, "control/context-packs/cards/a.sha256": sha256Hex([]byte(v2)) + "  a.md\n",
		"reviews/canon/a.md": artifact(sha256Hex([]byte(v2))), "body/drafts/mine.md": "a person's draft, no receipt\n"})
	if got := run(t, newDispatchPacks(), tr.input("")); len(got) != 0 {
		t.Fatalf("clean vault: %s", describe(got))
	}
	// A forged receipt and a hand-edited pack.
	tr.Write("reviews/voice/a.md", artifact(strings.Repeat("ab", 32)))
	tr.Write("body/drafts/b.md", "---\npack_sha: "+strings.Repeat("cd", 32)+"\n---\n")
	tr.Write(pack, v2+"edited\n")
	rep, err := Run(context.Background(), tr.input(""), []Rule{newDispatchPacks()})
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Findings
	var msgs []string
	for _, f := range got {
		msgs = append(msgs, f.File+":"+string(f.Severity)+":"+f.Message)
	}
	want := []string{
		"body/drafts/b.md:error:the artifact has a pack_sha but names no pack",
		pack + ":warning:the frozen pack no longer matches a.sha256 (edited after the freeze)",
		"reviews/voice/a.md:error:pack_sha abababababababab… matches no version of " + pack + ", now or in history",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
	if got[0].Line != 2 || got[2].Line != 4 {
		t.Fatalf("lines: %d %d", got[0].Line, got[2].Line)
	}
}
