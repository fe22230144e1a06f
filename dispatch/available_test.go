package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
)

// TestPlanSaysWhenARunnerIsMissing: a plan routed to claude on a machine
// without the claude CLI does not count its jobs as firing, and says why;
// with a claude on PATH the same plan fires.
func TestPlanSaysWhenARunnerIsMissing(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	bin := t.TempDir()
	plan := func() *Plan {
		d := New(Options{Repo: r, Config: testConfig(), Routing: NewRouting(nil, Flags{Runner: config.RunnerClaude}),
			Now: fixedNow, Env: []string{"PATH=" + bin}})
		p, err := d.Plan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan()
	if p.Jobs == 0 || p.Unavailable != p.Jobs {
		t.Fatalf("jobs %d, unavailable %d; want every job unavailable", p.Jobs, p.Unavailable)
	}
	warned := false
	for _, w := range p.Warnings {
		warned = warned || (strings.Contains(w, "cannot fire") && strings.Contains(w, `no "claude" on PATH`))
	}
	if !warned {
		t.Errorf("no warning names the missing claude CLI: %q", p.Warnings)
	}
	for _, cp := range p.Cards {
		for _, j := range cp.Jobs {
			if j.Unavailable == "" {
				t.Errorf("job %s %s not marked unavailable", j.Kind, j.Target)
			}
		}
	}

	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p := plan(); p.Unavailable != 0 {
		t.Fatalf("with claude on PATH, %d job(s) still unavailable: %q", p.Unavailable, p.Warnings)
	}
}

func TestRunnerAvailable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rt   Route
		want string
	}{
		{Route{Runner: config.RunnerFake}, ""},
		{Route{Runner: config.RunnerOpenAI}, "no base_url"},
		{Route{Runner: config.RunnerOpenAI, BaseURL: "http://127.0.0.1:9"}, ""},
		{Route{Runner: config.RunnerCodex}, `no "codex" on PATH`},
		{Route{Runner: "gpt"}, "unknown runner"},
	} {
		err := RunnerAvailable(tc.rt, []string{"PATH=" + t.TempDir()})
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.rt.Runner, err, tc.want)
		}
	}
}

// TestPlanWarnsWhenCanonReviewHasNoCanon: the fixture's ferry card names
// canon notes and plans quietly; the same card with only a chapter for
// context gets a warning that its canon review has nothing to check against.
func TestPlanWarnsWhenCanonReviewHasNoCanon(t *testing.T) {
	t.Parallel()
	r := vaultRepo(t, fixture)
	d := newDispatcher(r, nil, &stub{}, nil)
	warning := func() string {
		p, err := d.Plan(context.Background(), "01-01-the-ferry")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range p.Warnings {
			if strings.Contains(w, "no canon to check against") {
				return w
			}
		}
		return ""
	}
	if w := warning(); w != "" {
		t.Fatalf("the fixture card names canon, yet: %s", w)
	}
	writeFile(t, r, "cards/01-01-the-ferry.md", "---\ntype: card\nkind: scene\nreadiness: ready\ncontext:\n  - body/chapters/00-prologue.md\n---\n# The Ferry\n\nBeats.\n")
	if w := warning(); !strings.HasPrefix(w, "cards/01-01-the-ferry.md: the canon review") {
		t.Fatalf("no warning for a canon review without canon: %q", w)
	}
}
