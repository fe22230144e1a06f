package dispatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/secrets"
)

// TestContactFixtureVault is seed 002's contact test: on a copy of the
// fixture vault, with the fake runner, ready_for_fill → fill lands →
// has_draft → reviews land → reviewed; a second run dispatches nothing; and
// every file outside the outputs (body/drafts/, reviews/,
// control/context-packs/ and the journal, where the pass's ledger goes) is
// byte-identical by checksum.
func TestContactFixtureVault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	before := checksums(t, r.WorkTree)
	head0 := strings.TrimSpace(gitRun(t, r.WorkTree, "rev-parse", "HEAD"))
	d := newDispatcher(r, nil, nil, nil)

	p, err := d.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]State{}
	for _, cp := range p.Cards {
		states[cp.Card.Path] = cp.State
	}
	if s := states["cards/01-01-the-ferry.md"]; !s.ReadyForFill || s.HasDraft || s.Reviewed {
		t.Fatalf("before: the ferry card is %+v, want ready_for_fill", s)
	}
	if s := states["cards/01-02-the-quay.md"]; s.ReadyForFill {
		t.Fatalf("a card that is not ready is ready_for_fill")
	}
	if p.Jobs != 3 {
		t.Fatalf("plan has %d jobs, want 3 (one fill, two review lanes)", p.Jobs)
	}
	if !slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.Contains(w, "01-03-the-tithe") && strings.Contains(w, "no contract")
	}) {
		t.Fatalf("a ready card without a contract must be skipped with a warning; warnings: %q", p.Warnings)
	}

	rep, err := d.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != "committed" || len(rep.Failed) > 0 {
		t.Fatalf("run: %+v", rep)
	}
	// One commit holding exactly the pass's outputs.
	if n := gitRun(t, r.WorkTree, "rev-list", "--count", head0+"..HEAD"); strings.TrimSpace(n) != "1" {
		t.Fatalf("the pass made %s commits, want 1", n)
	}
	changed := strings.Fields(gitRun(t, r.WorkTree, "show", "--name-only", "--format=", "HEAD"))
	want := []string{"body/drafts/01-01-the-ferry.md",
		"control/context-packs/cards/01-01-the-ferry.md", "control/context-packs/cards/01-01-the-ferry.sha256",
		"reviews/canon/01-01-the-ferry.md", "reviews/voice/01-01-the-ferry.md"}
	if !slices.Equal(changed, want) {
		t.Fatalf("the commit changed %q, want %q", changed, want)
	}
	// The ledger line is scribe's record: on refs/scribe/vault, not the branch.
	if got := gitRun(t, r.WorkTree, "show", "--name-only", "--format=%s", "refs/scribe/vault"); !strings.Contains(got, "journal.md") || !strings.Contains(got, "progress: dispatch 1 fill, 2 reviews") {
		t.Fatalf("vault commit: %s", got)
	}
	if msg := gitRun(t, r.WorkTree, "log", "-1", "--format=%B"); !strings.HasPrefix(msg, "progress: dispatch 1 fill, 2 reviews") || !strings.Contains(msg, "Scribe-Mode: dispatch") {
		t.Fatalf("commit message: %s", msg)
	}

	// Receipts: the dispatcher's frontmatter, pack_sha of the bytes read.
	pack, _ := os.ReadFile(filepath.Join(r.WorkTree, "control/context-packs/cards/01-01-the-ferry.md"))
	sha := Sha256Hex(pack)
	side, _ := os.ReadFile(filepath.Join(r.WorkTree, "control/context-packs/cards/01-01-the-ferry.sha256"))
	if string(side) != sha+"  01-01-the-ferry.md\n" {
		t.Fatalf("sidecar %q, pack sha %s", side, sha)
	}
	for _, f := range []string{"body/drafts/01-01-the-ferry.md", "reviews/canon/01-01-the-ferry.md", "reviews/voice/01-01-the-ferry.md"} {
		data, _ := os.ReadFile(filepath.Join(r.WorkTree, f))
		fm, body, err := ParseFrontmatter(string(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if fm.String("pack_sha") != sha || fm.String("agent") != "fake" || fm.String("kind") != "scene" ||
			fm.String("generated") != "2026-07-12T09:30:00+00:00" || fm.String("card") != "cards/01-01-the-ferry.md" {
			t.Fatalf("%s frontmatter: %v", f, fm)
		}
		if links, _ := fm.List("links"); !slices.Contains(links, "[[cards/01-01-the-ferry]]") {
			t.Fatalf("%s links: %v", f, links)
		}
		if strings.HasPrefix(f, "reviews/") {
			if fm.String("type") != "review" || fm.String("verdict") != VerdictClean || fm.String("draft") != "body/drafts/01-01-the-ferry.md" {
				t.Fatalf("%s: %v", f, fm)
			}
			if strings.Contains(body, "verdict:") {
				t.Fatalf("%s: the verdict line stays in the body", f)
			}
		} else if fm.String("type") != "draft" || !strings.Contains(body, "## Introduced candidates") {
			t.Fatalf("%s: %v\n%s", f, fm, body)
		}
	}
	journal, _ := os.ReadFile(filepath.Join(r.WorkTree, ".claude/sonmat/journal.md"))
	if !strings.Contains(string(journal), "— dispatch 1 fill, 2 reviews") || !strings.Contains(string(journal), "ledger: 3 run(s)") ||
		!strings.Contains(string(journal), "review_voice reviews/voice/01-01-the-ferry.md: fake fake") {
		t.Fatalf("journal ledger:\n%s", journal)
	}

	// After: has_draft and reviewed; nothing fires.
	p, err = d.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range p.Cards {
		if cp.Card.Path == "cards/01-01-the-ferry.md" && (!cp.State.HasDraft || !cp.State.Reviewed || cp.State.ReadyForFill) {
			t.Fatalf("after: %+v", cp.State)
		}
	}
	if p.Jobs != 0 {
		t.Fatalf("after a complete pass the plan still has %d jobs", p.Jobs)
	}
	head1 := gitRun(t, r.WorkTree, "rev-parse", "HEAD")
	rep, err = d.Run(ctx)
	if err != nil || rep.Status != "nothing" {
		t.Fatalf("second run: %+v, %v", rep, err)
	}
	if gitRun(t, r.WorkTree, "rev-parse", "HEAD") != head1 {
		t.Fatal("the second run made a commit")
	}

	// Every file outside the outputs is byte-identical.
	after := checksums(t, r.WorkTree)
	for f, sum := range before {
		if after[f] != sum {
			t.Errorf("%s changed (or vanished)", f)
		}
	}
	for f := range after {
		if _, old := before[f]; old {
			continue
		}
		if !slices.ContainsFunc([]string{"body/drafts/", "reviews/", "control/context-packs/", ".claude/sonmat/journal.md"},
			func(p string) bool { return strings.HasPrefix(f, p) }) {
			t.Errorf("new file %s outside the output dirs", f)
		}
	}
	if st := gitRun(t, r.WorkTree, "status", "--porcelain"); st != "" {
		t.Fatalf("work tree not clean after the pass:\n%s", st)
	}
	gitRun(t, r.WorkTree, "fsck", "--strict", "--no-progress")
}

// A person's rework of the draft in place never refires anything: the
// artifact exists, so fill is done and its reviews fired.
func TestHumanReworkNeverRefires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	s := &stub{}
	d := newDispatcher(r, nil, s, nil)
	if _, err := d.Run(ctx); err != nil {
		t.Fatal(err)
	}
	writeFile(t, r, "body/drafts/01-01-the-ferry.md", "My own words now.\n")
	commitAll(t, r, "rework")
	calls := s.calls()
	rep, err := d.Run(ctx)
	if err != nil || rep.Status != "nothing" || s.calls() != calls {
		t.Fatalf("run after a rework: %+v %v (%d more agent calls)", rep, err, s.calls()-calls)
	}
	if data, _ := os.ReadFile(filepath.Join(r.WorkTree, "body/drafts/01-01-the-ferry.md")); string(data) != "My own words now.\n" {
		t.Fatal("the person's draft was rewritten")
	}
}

const variantsContract = `---
type: contract
card: cards/01-01-the-ferry.md
output_target: body/drafts/01-01-the-ferry.md
variants: 3
---
Three takes.
`

// Variants: N independent fills of one frozen pack, routed per the overlay
// list, landed "(vN)"-tagged and each reviewed; a person's untagged rework
// returns reviews to newest-only.
func TestVariants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	writeFile(t, r, "control/contracts/01-01-the-ferry.md", variantsContract)
	commitAll(t, r, "variants")
	t07 := 0.7
	dl := &config.DispatchLoaded{Origins: map[string]string{}, File: config.Dispatch{Skills: map[string]config.SkillRoute{
		"body_fill": {Route: config.Route{Runner: "openai", BaseURL: "http://127.0.0.1:1", Model: "gemma"},
			Variants: []config.Route{{Temperature: &t07}, {Runner: "claude"}}},
	}}}
	s := &stub{}
	d := newDispatcher(r, NewRouting(dl, Flags{}), s, nil)
	rep, err := d.Run(ctx)
	if err != nil || rep.Status != "committed" {
		t.Fatalf("run: %+v %v", rep, err)
	}
	var drafts, reviews []string
	for _, l := range rep.Landed {
		switch l.Kind {
		case "draft":
			drafts = append(drafts, l.Path)
		case "review":
			reviews = append(reviews, l.Path)
		}
	}
	slices.Sort(drafts)
	if want := []string{"body/drafts/01-01-the-ferry (v1).md", "body/drafts/01-01-the-ferry (v2).md", "body/drafts/01-01-the-ferry (v3).md"}; !slices.Equal(drafts, want) {
		t.Fatalf("drafts %q", drafts)
	}
	if len(reviews) != 6 {
		t.Fatalf("reviews %q: want canon and voice for each variant", reviews)
	}
	routes := map[string]string{}
	s.mu.Lock()
	var packSHAs []string
	for i, p := range s.prompts {
		if strings.Contains(p, "Skill: body_fill") {
			v := p[strings.Index(p, "This is variant ")+16:][:1]
			routes[v] = s.routes[i].Describe()
			packSHAs = append(packSHAs, p[strings.Index(p, "sha256 ")+7:][:64])
		}
	}
	s.mu.Unlock()
	if routes["1"] != "openai gemma @ http://127.0.0.1:1 t=0.7" || routes["2"] != "claude" || routes["3"] != "openai gemma @ http://127.0.0.1:1" {
		t.Fatalf("variant routes: %q", routes)
	}
	if packSHAs[0] != packSHAs[1] || packSHAs[1] != packSHAs[2] {
		t.Fatalf("variants read different packs: %q", packSHAs)
	}
	data, _ := os.ReadFile(filepath.Join(r.WorkTree, "body/drafts/01-01-the-ferry (v2).md"))
	if fm, _, _ := ParseFrontmatter(string(data)); fm.String("variant") != "2" || fm.String("agent") != "claude" {
		t.Fatalf("variant frontmatter: %v", fm)
	}
	// Nothing refires; no auto-pick.
	if rep, err := d.Run(ctx); err != nil || rep.Status != "nothing" {
		t.Fatalf("second run: %+v %v", rep, err)
	}
	// The writer's untagged rework of the pick: reviews go to it only.
	writeFile(t, r, "body/drafts/01-01-the-ferry.md", "The pick, reworked.\n")
	commitAll(t, r, "pick")
	p, err := d.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, cp := range p.Cards {
		for _, j := range cp.Jobs {
			targets = append(targets, j.Kind+" "+j.Target)
		}
	}
	if want := []string{"review reviews/canon/01-01-the-ferry.md", "review reviews/voice/01-01-the-ferry.md"}; !slices.Equal(targets, want) {
		t.Fatalf("after the rework: %q", targets)
	}
}

// review_after narrows and reorders the lanes; gamedev adds mechanics.
func TestLanes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, extra string
		set         string
		want        []string
	}{
		{"fiction default", "", "fiction", []string{"canon", "voice"}},
		{"gamedev", "", "gamedev", []string{"canon", "voice", "mechanics"}},
		{"narrowed", "review_after: [voice]\n", "fiction", []string{"voice"}},
		{"reordered", "review_after: [voice, canon]\n", "gamedev", []string{"voice", "canon"}},
		{"none", "review_after: []\n", "fiction", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := vaultRepo(t, fixture)
			writeFile(t, r, "control/contracts/01-01-the-ferry.md", "---\ntype: contract\ncard: cards/01-01-the-ferry.md\n"+tt.extra+"---\n")
			commitAll(t, r, "contract")
			cfg := testConfig()
			cfg.TemplateSet = tt.set
			d := New(Options{Repo: r, Config: cfg, Now: fixedNow})
			p, err := d.Plan(context.Background(), "01-01-the-ferry")
			if err != nil {
				t.Fatal(err)
			}
			var lanes []string
			for _, j := range p.Cards[0].Jobs {
				if j.Kind == JobReview {
					lanes = append(lanes, j.Lane)
				}
			}
			if !slices.Equal(lanes, tt.want) {
				t.Fatalf("lanes %q, want %q", lanes, tt.want)
			}
		})
	}
}

// A failed run lands nothing of its own; the rest lands, and the next run
// fires only what is missing.
func TestFailedRunRefiresOnlyWhatIsMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	fail := true
	s := &stub{reply: func(prompt string, _ Route) (string, error) {
		if fail && strings.Contains(prompt, "Skill: review_voice") {
			return "", errors.New("backend down")
		}
		return Fake{}.Generate(ctx, prompt)
	}}
	d := newDispatcher(r, nil, s, nil)
	rep, err := d.Run(ctx)
	if err != nil || rep.Status != "committed" || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Error, "backend down") {
		t.Fatalf("run: %+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(r.WorkTree, "reviews/voice/01-01-the-ferry.md")); err == nil {
		t.Fatal("a failed review landed")
	}
	if j, _ := os.ReadFile(filepath.Join(r.WorkTree, ".claude/sonmat/journal.md")); !strings.Contains(string(j), "FAILED review_voice") || !strings.Contains(string(j), "Result: partial") {
		t.Fatalf("the ledger does not record the failure:\n%s", j)
	}
	fail = false
	calls := s.calls()
	rep, err = d.Run(ctx)
	if err != nil || rep.Status != "committed" || s.calls()-calls != 1 || len(rep.Landed) != 1 || rep.Landed[0].Path != "reviews/voice/01-01-the-ferry.md" {
		t.Fatalf("second run: %+v %v (%d calls)", rep, err, s.calls()-calls)
	}
	// That review read the landed draft: its body as the agent wrote it,
	// without the lint directive the landing put after the frontmatter.
	draft, _ := os.ReadFile(filepath.Join(r.WorkTree, "body/drafts/01-01-the-ferry.md"))
	if _, body, _ := SplitFrontmatter(string(draft)); !strings.HasPrefix(body, artifactLint+"\n\n") {
		t.Fatalf("the draft's body does not start with the lint directive:\n%s", draft)
	}
	s.mu.Lock()
	prompt := s.prompts[len(s.prompts)-1]
	s.mu.Unlock()
	if body := strings.TrimSpace(artifactBody(string(draft))); strings.Contains(prompt, "markdownlint") || body == "" || !strings.Contains(prompt, body) {
		t.Fatalf("the review's prompt does not hold the draft's body alone:\n%s", prompt)
	}
}

// Agent output is scanned for secrets before it lands; the agent's own
// frontmatter is dropped and the review verdict defaults to issues.
func TestLandingRedactsAndOwnsFrontmatter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	s := &stub{reply: func(prompt string, _ Route) (string, error) {
		if strings.Contains(prompt, "Skill: review_") {
			return "---\nverdict: clean\npack_sha: forged\n---\nLooks fine, I guess.\n", nil
		}
		return "```markdown\n---\ntype: canon\npack_sha: forged\n---\nThe token is ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d, keep it.\n```", nil
	}}
	d := newDispatcher(r, nil, s, func(t string) string { out, _ := secrets.Redact(t); return out })
	if _, err := d.Run(ctx); err != nil {
		t.Fatal(err)
	}
	draft, _ := os.ReadFile(filepath.Join(r.WorkTree, "body/drafts/01-01-the-ferry.md"))
	if strings.Contains(string(draft), "ghp_u8jz") || !strings.Contains(string(draft), "[REDACTED:") {
		t.Fatalf("secret landed:\n%s", draft)
	}
	if strings.Contains(string(draft), "forged") || strings.Contains(string(draft), "```") || strings.Count(string(draft), "---\n") != 2 {
		t.Fatalf("agent frontmatter or fence kept:\n%s", draft)
	}
	review, _ := os.ReadFile(filepath.Join(r.WorkTree, "reviews/canon/01-01-the-ferry.md"))
	if fm, _, _ := ParseFrontmatter(string(review)); fm.String("verdict") != VerdictIssues || fm.String("pack_sha") == "forged" {
		t.Fatalf("review frontmatter: %v", fm)
	}
	if log := gitRun(t, r.WorkTree, "log", "-p", "--all"); strings.Contains(log, "u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d") {
		t.Fatal("the secret is in history")
	}
}

// A hand-edited pack no longer matches its sidecar: its card is skipped,
// with a warning saying how to re-freeze.
func TestEditedPackIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	d := newDispatcher(r, nil, nil, nil)
	if _, err := d.Freeze(ctx, "01-01-the-ferry"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r.WorkTree, "control/context-packs/cards/01-01-the-ferry.md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, "An edit.\n"...), 0o644)
	commitAll(t, r, "edit the pack")
	plan, err := d.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Jobs != 0 || !slices.ContainsFunc(plan.Warnings, func(w string) bool { return strings.Contains(w, "pack freeze") }) {
		t.Fatalf("jobs %d, warnings %q", plan.Jobs, plan.Warnings)
	}
	// Re-freezing fixes it, and freezing again changes nothing.
	rep, err := d.Freeze(ctx, "cards/01-01-the-ferry.md")
	if err != nil || rep.Status != "committed" {
		t.Fatalf("freeze: %+v %v", rep, err)
	}
	if rep, err := d.Freeze(ctx, "cards/01-01-the-ferry.md"); err != nil || rep.Status != "unchanged" {
		t.Fatalf("second freeze: %+v %v", rep, err)
	}
	if plan, _ := d.Plan(ctx); plan.Jobs != 3 {
		t.Fatalf("after re-freezing: %d jobs", plan.Jobs)
	}
}

// A pass that cannot commit (detached HEAD) keeps the agents' outputs under
// the git dir; nothing refires, and the next run lands them with no agent
// call.
func TestDeferredPassLandsLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	gitRun(t, r.WorkTree, "checkout", "-q", "--detach")
	s := &stub{}
	d := newDispatcher(r, nil, s, nil)
	rep, err := d.Run(ctx)
	if err != nil || rep.Status != "queued" || !strings.Contains(rep.Reason, "detached") {
		t.Fatalf("run on a detached HEAD: %+v %v", rep, err)
	}
	if _, err := os.Stat(filepath.Join(r.WorkTree, "body/drafts/01-01-the-ferry.md")); err == nil {
		t.Fatal("a deferred pass wrote the work tree")
	}
	p, err := d.Plan(ctx)
	if err != nil || p.Jobs != 0 || len(p.Pending) != 5 {
		t.Fatalf("plan with deferred outputs: jobs %d pending %q %v", p.Jobs, p.Pending, err)
	}
	gitRun(t, r.WorkTree, "checkout", "-q", "main")
	calls := s.calls()
	rep, err = d.Run(ctx)
	if err != nil || rep.Status != "committed" || s.calls() != calls {
		t.Fatalf("landing the deferred pass: %+v %v (%d agent calls)", rep, err, s.calls()-calls)
	}
	if n := len(strings.Fields(gitRun(t, r.WorkTree, "show", "--name-only", "--format=", "HEAD"))); n != 5 {
		t.Fatalf("the landing commit has %d files, want 5 (the journal line goes to the vault)", n)
	}
	if rep, _ := d.Run(ctx); rep.Status != "nothing" {
		t.Fatalf("third run: %+v", rep)
	}
}

// The concurrency cap bounds agents in flight.
func TestConcurrencyCap(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	writeFile(t, r, "control/contracts/01-01-the-ferry.md", strings.Replace(variantsContract, "variants: 3", "variants: 5", 1))
	commitAll(t, r, "five variants")
	s := &stub{delay: 40 * time.Millisecond}
	d := newDispatcher(r, NewRouting(nil, Flags{Concurrency: 2}), s, nil)
	rep, err := d.Run(context.Background())
	if err != nil || rep.Status != "committed" {
		t.Fatalf("%+v %v", rep, err)
	}
	if s.calls() != 15 || s.maxSeen.Load() != 2 {
		t.Fatalf("%d calls, at most %d at once; want 15 and 2", s.calls(), s.maxSeen.Load())
	}
}

// Cards pick up context by path, wikilink, name or directory; a missing
// context note is an error naming it.
func TestPackSources(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	snap, err := Scan(context.Background(), r, LayoutOf(testConfig().Paths), nil)
	if err != nil {
		t.Fatal(err)
	}
	card := Card{Path: "cards/01-02-the-quay.md", Context: []string{"canon/", "[[00-prologue]]"}}
	got, err := packSources(snap, card, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cards/01-02-the-quay.md canon/voice.md canon/world.md body/chapters/00-prologue.md"; strings.Join(got, " ") != want {
		t.Fatalf("sources %q", got)
	}
	card.Context = []string{"canon/missing.md"}
	if _, err := packSources(snap, card, nil); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing context: %v", err)
	}
}

// A pack quotes each source verbatim in a fence nothing in the source can
// close, even a note that holds code fences of its own.
func TestBuildPackQuotesSources(t *testing.T) {
	t.Parallel()
	notes := map[string]string{
		"cards/a.md": "---\ntype: card\n---\n# A\n\n```go\nx := 1\n```\n",
		"canon/b.md": "# B\n\n````\nfour\n````\n",
		"canon/c.md": "plain\n",
	}
	p, err := buildPack(Card{Path: "cards/a.md", Title: "A"}, "control/context-packs/cards/a.md", []string{"cards/a.md", "canon/b.md", "canon/c.md"},
		func(src string) ([]byte, error) { return []byte(notes[src]), nil })
	if err != nil {
		t.Fatal(err)
	}
	body := string(p.Data)
	for _, want := range []string{
		"\n## Source: cards/a.md\n\n````markdown\n" + strings.TrimSuffix(notes["cards/a.md"], "\n") + "\n````\n",
		"\n## Source: canon/b.md\n\n`````markdown\n" + strings.TrimSuffix(notes["canon/b.md"], "\n") + "\n`````\n",
		"\n## Source: canon/c.md\n\n```markdown\nplain\n```\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("pack lacks %q:\n%s", want, body)
		}
	}
	if p.SHA != Sha256Hex(p.Data) {
		t.Errorf("sha %s is not the pack's", p.SHA)
	}
}

// A broken skill override is found at plan time: its card is skipped with
// a warning naming the override and the unknown variable.
func TestBrokenOverrideSkipsCard(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	writeFile(t, r, ".agents/skills/review_voice.md", "Judge $draft against $voice_canon.\n")
	commitAll(t, r, "override")
	p, err := newDispatcher(r, nil, nil, nil).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Jobs != 0 || !slices.ContainsFunc(p.Warnings, func(w string) bool {
		return strings.Contains(w, ".agents/skills/review_voice.md") && strings.Contains(w, "unknown variable $voice_canon")
	}) {
		t.Fatalf("jobs %d, warnings %q", p.Jobs, p.Warnings)
	}
	if _, err := newDispatcher(r, nil, nil, nil).Plan(context.Background(), "no-such-card"); !errors.Is(err, ErrNoCard) {
		t.Fatalf("unknown card: %v", err)
	}
}

// The one queue's landing lands a deferred pass with no agent call: any
// synchronous scribe command (through the vault's landers), not only
// dispatch run.
func TestDeferredPassLandsWithoutAnAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := vaultRepo(t, fixture)
	gitRun(t, r.WorkTree, "checkout", "-q", "--detach")
	s := &stub{}
	d := newDispatcher(r, nil, s, nil)
	if rep, err := d.Run(ctx); err != nil || rep.Status != "queued" {
		t.Fatalf("run on a detached HEAD: %+v %v", rep, err)
	}
	if n, waiting, _ := d.LandPending(ctx); n != 0 || !strings.Contains(waiting, "detached") {
		t.Fatalf("landing while still detached = %d, %q; want it to wait, saying why", n, waiting)
	}
	gitRun(t, r.WorkTree, "checkout", "-q", "main")
	calls := s.calls()
	n, waiting, warns := d.LandPending(ctx)
	if n != 1 || waiting != "" || s.calls() != calls {
		t.Fatalf("LandPending = %d, %q, %q (%d agent calls)", n, waiting, warns, s.calls()-calls)
	}
	if got := len(strings.Fields(gitRun(t, r.WorkTree, "show", "--name-only", "--format=", "HEAD"))); got != 5 {
		t.Fatalf("the landing commit has %d files, want 5", got)
	}
	if q, _ := r.Queued(); len(q) != 0 {
		t.Fatalf("%d records left in the queue", len(q))
	}
	if rep, _ := d.Run(ctx); rep.Status != "nothing" {
		t.Fatalf("a run after the landing: %+v", rep)
	}
}
