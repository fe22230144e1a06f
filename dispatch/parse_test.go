package dispatch

import (
	"context"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/skills"
)

func TestSplitFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, block, body string
		ok                      bool
	}{
		{"plain", "---\ntype: card\n---\nbody\n", "type: card\n", "body\n", true},
		{"crlf and bom", "\uFEFF---\r\ntype: card\r\n---\r\nbody", "type: card\r\n", "body", true},
		{"dots close", "---\na: 1\n...\nrest", "a: 1\n", "rest", true},
		{"empty block", "---\n---\nb", "", "b", true},
		{"unclosed", "---\na: 1\nno end", "", "---\na: 1\nno end", false},
		{"none", "# Title\n", "", "# Title\n", false},
		{"fence not first", "\n---\na: 1\n---\n", "", "\n---\na: 1\n---\n", false},
		{"closing at end", "---\na: 1\n---", "a: 1\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			block, body, ok := SplitFrontmatter(tt.text)
			if block != tt.block || body != tt.body || ok != tt.ok {
				t.Fatalf("SplitFrontmatter = %q, %q, %v", block, body, ok)
			}
		})
	}
}

func TestParseContract(t *testing.T) {
	t.Parallel()
	lay := LayoutOf(testConfig().Paths)
	tests := []struct {
		name, text, err string
		check           func(Contract) bool
	}{
		{"defaults", "---\ntype: contract\n---\n", "", func(c Contract) bool {
			return c.Mode == "fill" && c.AgentProfile == "body_fill" && c.OutputTarget == "body/drafts/x.md" && !c.HasReviewAfter
		}},
		{"full", "---\ntype: contract\ncard: \"[[cards/x]]\"\nmode: fill\nagent_profile: my_fill\noutput_target: body/drafts/sub/x\nreview_after: [review_voice, canon, voice]\nvariants: \"3\"\n---\nnotes\n", "", func(c Contract) bool {
			return c.CardRef == "cards/x" && c.AgentProfile == "my_fill" && c.OutputTarget == "body/drafts/sub/x.md" &&
				strings.Join(c.ReviewAfter, ",") == "voice,canon" && c.Variants == 3 && c.Notes == "notes"
		}},
		{"one variant is none", "---\ntype: contract\nvariants: 1\n---\n", "", func(c Contract) bool { return c.Variants == 0 }},
		{"not a contract", "---\ntype: card\n---\n", "type: contract", nil},
		{"outside drafts", "---\ntype: contract\noutput_target: canon/world.md\n---\n", "under body/drafts", nil},
		{"dot dot", "---\ntype: contract\noutput_target: body/drafts/../../x.md\n---\n", "invalid vault path", nil},
		{"glob chars", "---\ntype: contract\noutput_target: body/drafts/a*.md\n---\n", "glob", nil},
		{"variant tag", "---\ntype: contract\noutput_target: body/drafts/a (v2).md\n---\n", "(vN)", nil},
		{"bad lane", "---\ntype: contract\nreview_after: [Canon Lane]\n---\n", "review_after lane", nil},
		{"too many variants", "---\ntype: contract\nvariants: 50\n---\n", "variants 50", nil},
		{"variants not a number", "---\ntype: contract\nvariants: many\n---\n", "whole number", nil},
		{"malformed yaml", "---\ntype: [contract\n---\n", "malformed frontmatter", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseContract("control/contracts/x.md", tt.text, lay)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("%+v, %v", c, err)
			}
		})
	}
}

func TestParseCard(t *testing.T) {
	t.Parallel()
	c, ok, err := ParseCard("cards/a.md", "---\ntype: Card\nstatus: ready\n---\n# The Title\n")
	if err != nil || !ok || !c.Ready || c.Title != "The Title" || c.Kind != "piece" {
		t.Fatalf("%+v %v %v", c, ok, err)
	}
	if c, ok, _ := ParseCard("a.md", "---\ntype: card\nready: true\nkind: blog post\ntitle: T\n---\n"); !ok || !c.Ready || c.Kind != "blog post" || c.Title != "T" {
		t.Fatalf("%+v", c)
	}
	if _, ok, _ := ParseCard("a.md", "---\ntype: canon\n---\n"); ok {
		t.Fatal("a canon note is not a card")
	}
	if _, ok, err := ParseCard("a.md", "---\ntype: card\nkind: [\n---\n"); ok || err == nil {
		t.Fatal("a malformed card is reported")
	}
}

func TestParseVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, verdict, body string }{
		{"verdict: clean\n\nok", "clean", "\nok"},
		{"**Verdict:** Blocking\nx", "blocking", "x"},
		{"## Verdict: issues\n", "issues", ""},
		{"intro\nverdict: blocker.\n", "blocking", "intro\n"},
		{"verdict: looks good\n", "issues", "verdict: looks good\n"},
		{"verdict: maybe\nx", "issues", "x"},
		{"no verdict at all", "issues", "no verdict at all"},
		{"The verdict: clean is what I'd say", "issues", "The verdict: clean is what I'd say"},
	}
	for _, tt := range tests {
		v, body := ParseVerdict(tt.in)
		if v != tt.verdict || body != tt.body {
			t.Errorf("ParseVerdict(%q) = %q, %q; want %q, %q", tt.in, v, body, tt.verdict, tt.body)
		}
	}
}

func TestCleanBody(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"  text  \r\n":                         "text\n",
		"```markdown\nbody\n```":               "body\n",
		"```\na\n```\nand\n```\nb\n```":        "```\na\n```\nand\n```\nb\n```\n",
		"---\npack_sha: x\n---\n\nreal body\n": "real body\n",
	} {
		if got := CleanBody(in); got != want {
			t.Errorf("CleanBody(%q) = %q, want %q", in, got, want)
		}
	}
}

// The fake runner is deterministic and answers in the shape the contract
// states, so every skill's parser accepts its reply.
func TestFakeShapes(t *testing.T) {
	t.Parallel()
	lib := skills.Library{}
	ctx := context.Background()
	for _, name := range skills.Defaults() {
		sk, _ := lib.Get(name)
		vars := map[string]string{}
		for _, v := range skills.Vars(sk.Text) {
			vars[v] = "x"
		}
		vars["note"] = "# Bridge Note\n## Context\n- a\n"
		vars["entry"] = "## 2026-01-01T00:00:00+00:00 — the summary\n- Scope: x\n"
		prompt, err := sk.Render(vars)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := Fake{}.Generate(ctx, prompt)
		b, _ := Fake{}.Generate(ctx, prompt)
		if a != b || a == "" {
			t.Fatalf("%s: fake is not deterministic or empty", name)
		}
		switch sk.Shape {
		case skills.ShapeReview:
			if v, _ := ParseVerdict(a); v != VerdictClean {
				t.Errorf("%s: verdict %s", name, v)
			}
		case skills.ShapeCandidates:
			if _, err := ParseCandidates(a); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		case skills.ShapeScore:
			if s, err := ParseScore(a); err != nil || s != 0.5 {
				t.Errorf("%s: %v %v", name, s, err)
			}
		case skills.ShapeJournal:
			if a != "the summary" {
				t.Errorf("journal: %q", a)
			}
		case skills.ShapeBridge:
			if !strings.HasPrefix(a, "# Bridge Note") {
				t.Errorf("bridge: %q", a)
			}
		case skills.ShapeDraft:
			if !strings.Contains(a, "## Introduced candidates\n\n- ") {
				t.Errorf("draft: %q", a)
			}
		}
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{"---\ntype: card\n---\nbody", "\uFEFF---\r\na: 1\r\n...\r\n", "---\n---\n", "---\n", "", "---\nkey: [\n---\n", "---\na: 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		block, body, ok := SplitFrontmatter(text)
		if !ok {
			if body != text || block != "" {
				t.Fatalf("no frontmatter must give the text back whole")
			}
			return
		}
		if !strings.HasSuffix(strings.TrimPrefix(text, "\uFEFF"), body) || len(block)+len(body) >= len(text) {
			t.Fatalf("split %q into %q + %q", text, block, body)
		}
		fm, _, err := ParseFrontmatter(text)
		if err == nil {
			_ = fm.String("type")
			fm.List("context")
			fm.Int("variants")
			fm.Bool("ready")
		}
		ParseCard("a.md", text)
		parseReview("reviews/canon/a.md", text, LayoutOf(testConfig().Paths))
	})
}

func FuzzParseContract(f *testing.F) {
	for _, s := range []string{"---\ntype: contract\n---\n", "---\ntype: contract\noutput_target: body/drafts/x\nreview_after: canon\nvariants: 3\n---\n",
		"---\ntype: contract\ncard: '[[a|b]]'\noutput_target: ../x\n---\n"} {
		f.Add(s)
	}
	lay := LayoutOf(testConfig().Paths)
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseContract("control/contracts/x.md", text, lay)
		if err != nil {
			return
		}
		if gitops.CheckRelPath(c.OutputTarget) != nil || !strings.HasPrefix(c.OutputTarget, "body/drafts/") || !strings.HasSuffix(c.OutputTarget, ".md") {
			t.Fatalf("accepted output_target %q", c.OutputTarget)
		}
		if c.Variants < 0 || c.Variants > MaxVariants || c.Variants == 1 {
			t.Fatalf("accepted variants %d", c.Variants)
		}
		for _, v := range []int{1, c.Variants} {
			if gitops.CheckRelPath(VariantPath(c.OutputTarget, v)) != nil {
				t.Fatalf("variant path of %q is unsafe", c.OutputTarget)
			}
		}
		for _, lane := range c.ReviewAfter {
			if rp := lay.ReviewPath(c.OutputTarget, lane); gitops.CheckRelPath(rp) != nil || !strings.HasPrefix(rp, "reviews/"+lane+"/") {
				t.Fatalf("review path %q", rp)
			}
		}
	})
}

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{"verdict: clean\nx", "**Verdict**: issues", "nothing", "verdict:\n", "x\nverdict: blocked!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		v, body := ParseVerdict(out)
		switch v {
		case VerdictClean, VerdictIssues, VerdictBlocking:
		default:
			t.Fatalf("verdict %q", v)
		}
		if len(body) > len(out) {
			t.Fatalf("body grew")
		}
		if v2, _ := ParseVerdict(CleanBody(out)); v == VerdictClean && v2 != VerdictClean && strings.Count(out, "\r") == 0 {
			t.Logf("clean lost by CleanBody: %q", out)
		}
	})
}

// TestArtifactBody: a landed artifact is frontmatter, the lint directive
// and the agent's body verbatim; artifactBody gives that body back, and a
// note without the directive (a person's draft, an older landing) whole.
func TestArtifactBody(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"Fog over the water.\n", "## Findings\n\nNone.\n", "\n", ""} {
		data, err := renderArtifact(artifactFM{Title: "T", Type: "draft"}, body)
		if err != nil {
			t.Fatal(err)
		}
		if _, rest, ok := SplitFrontmatter(string(data)); !ok || !strings.HasPrefix(rest, artifactLint+"\n\n") {
			t.Errorf("the directive does not follow the frontmatter:\n%s", data)
		}
		if got := artifactBody(string(data)); got != body {
			t.Errorf("artifactBody = %q, want %q", got, body)
		}
	}
	for _, text := range []string{"---\ntitle: T\n---\nThe writer's own.\n", "No frontmatter.\n", "---\ntitle: T\n---\n" + artifactLint + "\r\n\r\nCRLF.\r\n"} {
		want := text
		if _, b, ok := SplitFrontmatter(text); ok {
			want = b
		}
		if strings.Contains(text, artifactLint) {
			want = "CRLF.\r\n"
		}
		if got := artifactBody(text); got != want {
			t.Errorf("artifactBody(%q) = %q, want %q", text, got, want)
		}
	}
}
