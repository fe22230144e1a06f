package vault

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// proseStub is a scripted ProseWriter.
type proseStub struct {
	bridge, summary string
	err             error
	calls           int
}

func (p *proseStub) BridgeNote(context.Context, notes.BridgeNote) (string, error) {
	p.calls++
	return p.bridge, p.err
}

func (p *proseStub) JournalSummary(context.Context, notes.Entry) (string, error) {
	p.calls++
	return p.summary, p.err
}

func proseRepo(t *testing.T) *Vault {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=A",
			"GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "A")
	git("config", "user.email", "a@example.com")
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		os.WriteFile(filepath.Join(dir, f), []byte("package x\n"), 0o644)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	for _, f := range []string{"a.go", "b.go", "c.go"} {
		os.WriteFile(filepath.Join(dir, f), []byte("package x\n// more\n"), 0o644)
	}
	git("commit", "-q", "-a", "-m", "three files")
	r, err := gitops.Discover(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	cfg.Timezone = "UTC"
	return &Vault{Repo: r, Config: cfg}
}

func TestWrapUsesProse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := proseRepo(t)
	v.Prose = &proseStub{bridge: "# Bridge Note\n## Context\n- Streaming parser landed.\n## Carry Forward\n- Paging waits.\n", summary: "Streaming parser landed."}
	rep, err := v.Wrap(ctx, notes.WrapInput{Hint: "Parser streams.", Loop: "keep", Witness: "WARN iter2 not-covered-by-tests"})
	if err != nil || rep.Status != "committed" {
		t.Fatalf("%+v %v", rep, err)
	}
	note, _ := os.ReadFile(filepath.Join(v.Repo.WorkTree, v.Config.Paths.BridgeNote))
	journal, _ := os.ReadFile(filepath.Join(v.Repo.WorkTree, v.Config.Paths.Journal))
	if !strings.Contains(string(note), "- Streaming parser landed.") || !strings.Contains(string(note), "Witness: WARN\n") || !strings.Contains(string(note), "<!-- scribe: commit=") {
		t.Fatalf("bridge note:\n%s", note)
	}
	if !strings.Contains(string(journal), "— Streaming parser landed\n") || !strings.Contains(string(journal), "not-covered-by-tests") {
		t.Fatalf("journal:\n%s", journal)
	}
}

func TestWrapRejectsProseWithFindings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := proseRepo(t)
	v.Prose = &proseStub{bridge: "# Bridge Note\n## Context\n- WARN iter2 not-covered-by-tests\n", summary: "ok"}
	rep, err := v.Wrap(ctx, notes.WrapInput{Hint: "Parser streams.", Loop: "keep", Witness: "WARN iter2 not-covered-by-tests"})
	if err != nil || rep.Status != "committed" {
		t.Fatalf("%+v %v", rep, err)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "bridge prose rejected") {
		t.Fatalf("warnings %q", rep.Warnings)
	}
	note, _ := os.ReadFile(filepath.Join(v.Repo.WorkTree, v.Config.Paths.BridgeNote))
	if strings.Contains(string(note), "not-covered") || !strings.Contains(string(note), "Parser streams.") {
		t.Fatalf("bridge note:\n%s", note)
	}
}

func TestWrapProseFallbacks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		err   error
		dry   bool
		warns int
		calls int
	}{
		{"no route: silent", ErrNoProse, false, 0, 2},
		{"agent failed: warned", errors.New("backend down"), false, 2, 2},
		{"dry run: never called", nil, true, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := proseRepo(t)
			stub := &proseStub{err: tt.err}
			v.Prose = stub
			rep, err := v.Wrap(ctx, notes.WrapInput{Hint: "Parser streams.", DryRun: tt.dry})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Warnings) != tt.warns || stub.calls != tt.calls {
				t.Fatalf("warnings %q, %d calls", rep.Warnings, stub.calls)
			}
			if !strings.Contains(rep.Bridge, "Parser streams.") {
				t.Fatalf("deterministic note lost:\n%s", rep.Bridge)
			}
		})
	}
}

// A Stop hook's wrap commits the deterministic note; the agent's prose for
// it is queued detached and lands at the next command — unless a newer note
// replaced the one it rewrote.
func TestQueuedBridgeProseLandsOnlyOverItsNote(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := proseRepo(t)
	rep, err := v.Wrap(ctx, notes.WrapInput{Hint: "Parser streams.", Witness: "WARN iter2 not-covered-by-tests", Loop: "keep"})
	if err != nil || rep.Commit == nil {
		t.Fatalf("%+v %v", rep, err)
	}
	v.Prose = &proseStub{bridge: "# Bridge Note\n## Context\n- The parser streams now.\n## Carry Forward\n- Paging waits.\n"}
	queued, err := v.QueueBridgeProse(ctx, rep.Commit.SHA)
	if err != nil || !queued {
		t.Fatalf("QueueBridgeProse = %v, %v", queued, err)
	}
	head := func() string {
		out, _ := v.Repo.Git(ctx, "rev-parse", "refs/scribe/vault")
		return strings.TrimSpace(string(out))
	}
	if head() != rep.Commit.SHA {
		t.Fatal("queueing moved the vault")
	}
	v.Prose = nil
	if n, _, err := v.Drain(ctx); err != nil || n != 1 {
		t.Fatalf("Drain = %d, %v", n, err)
	}
	note, _ := os.ReadFile(filepath.Join(v.Repo.WorkTree, v.Config.Paths.BridgeNote))
	if !strings.Contains(string(note), "- The parser streams now.") || !strings.Contains(string(note), "Witness: WARN\n") ||
		strings.Contains(string(note), "not-covered") {
		t.Fatalf("bridge note after landing:\n%s", note)
	}

	// Stale prose: a newer wrap wrote another note first.
	landed := head()
	v.Prose = &proseStub{bridge: "# Bridge Note\n## Context\n- Stale prose.\n"}
	if ok, err := v.QueueBridgeProse(ctx, landed); err != nil || !ok {
		t.Fatalf("QueueBridgeProse = %v, %v", ok, err)
	}
	v.Prose = nil
	if _, err := v.Wrap(ctx, notes.WrapInput{Hint: "Newer session.", Mode: "bridge"}); err != nil {
		t.Fatal(err)
	}
	note, _ = os.ReadFile(filepath.Join(v.Repo.WorkTree, v.Config.Paths.BridgeNote))
	if strings.Contains(string(note), "Stale prose") || !strings.Contains(string(note), "Newer session") {
		t.Fatalf("stale prose replaced a newer note:\n%s", note)
	}
	if q, _ := v.Repo.Queued(); len(q) != 0 {
		t.Fatalf("queue not drained: %d left", len(q))
	}
}
