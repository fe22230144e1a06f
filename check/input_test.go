package check

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// vaultCommit commits files, the whole tree, onto refs/scribe/vault with
// plumbing (blobs, one tree per directory, commit-tree, update-ref).
func (tr *testRepo) vaultCommit(msg string, files map[string]string) string {
	tr.T.Helper()
	dirs := map[string][]string{} // directory → its mktree lines
	for p, content := range files {
		blob := tr.gitStdin(content, "hash-object", "-w", "--stdin")
		dir, base := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		dirs[dir] = append(dirs[dir], fmt.Sprintf("100644 blob %s\t%s", blob, base))
	}
	var sub []string
	for d := range dirs {
		if d != "" {
			if strings.Contains(d, "/") {
				tr.T.Fatalf("vaultCommit builds one level of directories, not %s", d)
			}
			sub = append(sub, d)
		}
	}
	sort.Strings(sub)
	for _, d := range sub {
		tree := tr.gitStdin(strings.Join(dirs[d], "\n")+"\n", "mktree")
		dirs[""] = append(dirs[""], fmt.Sprintf("040000 tree %s\t%s", tree, d))
	}
	root := tr.gitStdin(strings.Join(dirs[""], "\n")+"\n", "mktree")
	args := []string{"commit-tree", root, "-m", msg}
	if parent, err := tr.GitErr("rev-parse", "-q", "--verify", gitops.VaultRef); err == nil {
		args = append(args, "-p", strings.TrimSpace(parent))
	}
	c := tr.gitStdin("", args...)
	tr.Git("update-ref", gitops.VaultRef, c)
	return c
}

// findingsRepo is a repository in which nearly every rule that reads a
// shared input finds something: scribe commits on the branch that change
// progress.md beyond ticks, CLAUDE.md's rules and a memory without
// confirmation, and a vault whose journal entry was edited, whose journal
// is over a small journal_max, whose bridge note carries witness findings
// and whose journal holds a secret. Ordinary commits in between give
// --since something to cut.
func findingsRepo(t *testing.T) *testRepo {
	t.Helper()
	tr := newRepo(t)
	tr.commit("start", map[string]string{"progress.md": progressText, "CLAUDE.md": "# Project\n\n## Project Rules\n\n- one\n", "src/a.go": "package a\n"})
	tr.commit("code 1", map[string]string{"src/a.go": "package a // 1\n"})
	tr.commit(scribeMsg("ticks"), map[string]string{"progress.md": strings.Replace(progressText, "- [ ] lexer", "- [ ] lexer and more", 1)})
	tr.commit("code 2", map[string]string{"src/a.go": "package a // 2\n"})
	tr.commit(scribeMsg("rule"), map[string]string{"CLAUDE.md": "# Project\n\n## Project Rules\n\n- one\n- two\n"})
	tr.commit("code 3", map[string]string{"src/a.go": "package a // 3\n"})
	tr.commit(scribeMsg("memory"), map[string]string{".claude/memory/tacit/m.md": "---\nname: m\n---\n# M\n"})
	tr.commit("code 4", map[string]string{"src/a.go": "package a // 4\n"})

	good := notes.BridgeNote{Context: []string{"parser half done"}}.Render()
	j, _ := notes.Append("", "", entry(1), 50)
	j, _ = notes.Append(j, "", entry(2), 50)
	tr.vaultCommit("progress: two", map[string]string{notes.VaultJournal: j, "bridge/main.md": good})
	secret := "ghp_" + "k3Xq9ZrT7mWv2LpN8sYb4HdJc6FgA1eR5uQo"
	edited := strings.Replace(j, "session 1", "session one", 1) + "\nuse token " + secret + "\n"
	tr.vaultCommit("progress: edit", map[string]string{notes.VaultJournal: edited,
		"bridge/main.md": good + "- WARN iter2 not-covered-by-tests\n", "bridge/other.md": good})
	return tr
}

// TestEarlyReadsFindTheSame pins what NewInput starts for its rules (the
// scribe log, beside --since's resolution or with the revision as typed;
// the vault tree, read once; SCR008, which reads nothing --since decides)
// to the findings and errors of each rule reading on its own when it runs.
func TestEarlyReadsFindTheSame(t *testing.T) {
	t.Parallel()
	tr := findingsRepo(t)
	cfg := config.Defaults()
	cfg.JournalMax = 1
	first := strings.TrimSpace(tr.Git("rev-list", "--max-parents=0", "HEAD"))
	ctx := context.Background()
	repo, err := gitops.Discover(ctx, tr.Dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(since string, rules []Rule) (Report, *Input, error) {
		in, err := NewInput(ctx, repo, cfg, since, rules)
		if err != nil {
			return Report{}, nil, err
		}
		rep, err := Run(ctx, in, Rules())
		return rep, in, err
	}
	want := []string{"SCR001", "SCR002", "SCR003", "SCR004", "SCR005", "SCR008", "SCR012", "SCR013"}
	for _, since := range []string{"", first, "HEAD~7", "main~7", "HEAD~7^{commit}", "HEAD~2", "HEAD~8..HEAD~7", "HEAD^!", "-x", "no-such-rev"} {
		t.Run(since, func(t *testing.T) {
			t.Parallel()
			lazy, _, lazyErr := check(since, nil)
			early, in, earlyErr := check(since, Rules())
			if fmt.Sprint(lazyErr) != fmt.Sprint(earlyErr) {
				t.Fatalf("errors differ: on their own %v, early %v", lazyErr, earlyErr)
			}
			if lazyErr != nil {
				return
			}
			if !reflect.DeepEqual(lazy, early) {
				t.Fatalf("findings differ:\non their own%s\nearly%s", describe(lazy.Findings), describe(early.Findings))
			}
			if in.scribePending == nil || in.started[NoSecretsID] == nil {
				t.Fatalf("the scribe log or %s was not started early", NoSecretsID)
			}
			var ids []string
			for _, f := range early.Findings {
				if !slices.Contains(ids, f.RuleID) {
					ids = append(ids, f.RuleID)
				}
			}
			slices.Sort(ids)
			if since == "" || since == first || strings.HasSuffix(since, "~7") || strings.HasSuffix(since, "^{commit}") {
				if !reflect.DeepEqual(ids, want) {
					t.Fatalf("rules with findings: %v, want %v%s", ids, want, describe(early.Findings))
				}
			}
		})
	}
}

func TestSinceInWalk(t *testing.T) {
	t.Parallel()
	for since, want := range map[string]bool{
		"HEAD~500": true, "origin/main": true, "0123abc": true, "v1.0^{commit}": true, "HEAD@{1}": true, ":/fix": true,
		"": false, "A..B": false, "A...B": false, "A^!": false, "A^@": false, "A^-": false, "A^-2": false,
		"^A": false, "-A": false, "--output=x": false,
	} {
		if got := sinceInWalk(since); got != want {
			t.Errorf("sinceInWalk(%q) = %v, want %v", since, got, want)
		}
	}
}

// A --since the walk resolves itself is resolved by check only when a
// rule needs its answer: SCR001 over a clean vault history that is all
// loose needs none, so no `git log -1` of HEAD~N runs beside the walk. A
// packed vault history, or one with a violation, is walked again from the
// resolved date, with the findings of a check that resolved first.
func TestLateSinceResolvesOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := config.Defaults()
	tr := newRepo(t)
	for i := 0; i < 4; i++ {
		tr.commit(fmt.Sprintf("code %d", i), map[string]string{"src/a.go": fmt.Sprintf("package a // %d\n", i)})
	}
	j, _ := notes.Append("", "", entry(1), 50)
	tr.vaultCommit("progress: one", map[string]string{notes.VaultJournal: j})
	j, _ = notes.Append(j, "", entry(2), 50)
	tr.vaultCommit("progress: two", map[string]string{notes.VaultJournal: j})
	run := func(since string) (Report, *Input) {
		t.Helper()
		repo, err := gitops.Discover(ctx, tr.Dir)
		if err != nil {
			t.Fatal(err)
		}
		in, err := NewInput(ctx, repo, cfg, since, Rules())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ctx, in, Rules())
		if err != nil {
			t.Fatal(err)
		}
		return rep, in
	}
	if rep, in := run("HEAD~2"); in.late == nil || in.lateAsked.Load() || len(rep.Findings) != 0 {
		t.Fatalf("clean loose vault: late %v, resolution asked %v, findings %s", in.late != nil, in.lateAsked.Load(), describe(rep.Findings))
	}
	// An edited entry: SCR001 finds it, so the walk needs the date.
	tr.vaultCommit("progress: edit", map[string]string{notes.VaultJournal: strings.Replace(j, "session 1", "session one", 1)})
	rep, in := run("HEAD~2")
	if !in.lateAsked.Load() || !slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.RuleID == "SCR001" }) {
		t.Fatalf("violation: resolution asked %v, findings %s", in.lateAsked.Load(), describe(rep.Findings))
	}
	eager, _ := run(tr.GitTrim("rev-parse", "HEAD~2")) // a full id resolves at once
	if !reflect.DeepEqual(rep, eager) {
		t.Fatalf("late and resolved --since differ:\nlate%s\nresolved%s", describe(rep.Findings), describe(eager.Findings))
	}
	// Packed, the vault history goes through git from the resolved date.
	tr.Git("repack", "-a", "-d", "-q")
	tr.Git("prune-packed")
	packed, in := run("HEAD~2")
	if !in.lateAsked.Load() || !reflect.DeepEqual(packed, eager) {
		t.Fatalf("packed vault: resolution asked %v, findings%s", in.lateAsked.Load(), describe(packed.Findings))
	}
}
