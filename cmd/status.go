package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/dispatch"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/vault"
)

// StatusReport is `git scribe status --json`.
type StatusReport struct {
	Branch   string            `json:"branch"`
	Head     string            `json:"head"`
	Vault    string            `json:"vault_tip"`
	Files    []VaultFile       `json:"vault_files"`
	LastWrap *LastWrap         `json:"last_wrap,omitempty"`
	Queue    []QueuedRecord    `json:"queue"`
	Locks    []gitops.HeldLock `json:"locks"`
	Failures []string          `json:"failures,omitempty"`
	Blocked  string            `json:"blocked,omitempty"` // why queued writes cannot land right now
	Memory   *MemoryStatus     `json:"memory,omitempty"`  // compound candidates, pending memory writes, disabled detectors
	// Dispatchable lists the cards a `git scribe dispatch run` would fire.
	Dispatchable []string `json:"dispatchable_cards"`
	// Sessions counts agent session records and what they keep for a person.
	Sessions SessionsStatus `json:"sessions"`
}

// SessionsStatus is the sessions part of status (SPEC principle 12).
type SessionsStatus struct {
	Open      int `json:"open"`
	Journaled int `json:"journaled"`
	// PendingFollowups wait for git scribe followups route.
	PendingFollowups int `json:"pending_followups"`
}

// VaultFile is one scribe-managed file.
type VaultFile struct {
	Role string `json:"role"`
	// Path is where the file lives: refs/scribe/vault:<path> for scribe's
	// own record, a work-tree path for person-owned files.
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// View is the git-ignored working-tree copy of a vault file.
	View string `json:"view,omitempty"`
}

// LastWrap is the newest scribe commit.
type LastWrap struct {
	SHA     string `json:"sha"`
	Modes   string `json:"modes"`
	Subject string `json:"subject"`
	Date    string `json:"date"`
}

// QueuedRecord is one waiting write.
type QueuedRecord struct {
	ID      string    `json:"id"`
	Kind    string    `json:"kind"`
	Created time.Time `json:"created"`
	Reason  string    `json:"reason,omitempty"`
}

func newStatusCmd(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Show scribe's files, the last wrap, writes waiting, locks and hook failures",
		Long: `Status shows at a glance where scribe stands: its files and whether they
exist, the last wrap, writes waiting in its queue, locks held, memory
candidates waiting for you, hook failures. It changes nothing. Writes wait in
the queue when they could not be made at once (the post-commit hook's
records, wrap --background, a wrap during a rebase); the next git scribe
command you run and wait for, such as git scribe wrap, makes them.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runStatus(c.Context(), f, asJSON) },
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	c.AddCommand(newStatusRegenerateCmd(f))
	return c
}

func runStatus(ctx context.Context, f *Factory, asJSON bool) error {
	rep, err := buildStatus(ctx, f)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(f.IO, rep)
	}
	renderStatus(f.IO, rep)
	return nil
}

// buildStatus gathers the status report; it reads only (the MCP status tool
// relies on it).
func buildStatus(ctx context.Context, f *Factory) (StatusReport, error) {
	rep := StatusReport{Queue: []QueuedRecord{}, Locks: []gitops.HeldLock{}}
	v, err := f.Vault(ctx)
	if err != nil {
		return rep, err
	}
	r := v.Repo
	head, err := r.Head(ctx)
	if err != nil {
		return rep, err
	}
	rep.Branch, rep.Head = strings.TrimPrefix(head.Ref, "refs/heads/"), head.Commit
	p := v.Config.Paths
	v.Migrate(ctx)
	tip, vfiles, err := v.ReadVault(ctx, notes.BridgeVaultPath(head.Ref), notes.VaultJournal, notes.VaultArchive, notes.VaultActiveStatus)
	if err != nil {
		return rep, err
	}
	rep.Vault = tip
	for _, vf := range []VaultFile{{Role: "bridge note", Path: gitops.VaultRef + ":" + notes.BridgeVaultPath(head.Ref), View: p.BridgeNote},
		{Role: "journal", Path: gitops.VaultRef + ":" + notes.VaultJournal, View: p.Journal},
		{Role: "journal archive", Path: gitops.VaultRef + ":" + notes.VaultArchive, View: p.JournalArchive},
		{Role: "active status", Path: gitops.VaultRef + ":" + notes.VaultActiveStatus, View: p.ActiveStatus}} {
		_, vf.Exists = vfiles[strings.TrimPrefix(vf.Path, gitops.VaultRef+":")]
		if !v.Config.View {
			vf.View = ""
		}
		rep.Files = append(rep.Files, vf)
	}
	prog := VaultFile{Role: "progress", Path: p.Progress}
	_, prog.Exists, _ = v.ReadWorktree(ctx, p.Progress)
	rep.Files = append(rep.Files, prog)
	if log, err := r.VaultLog(ctx, tip, 50); err == nil {
		for _, c := range log {
			if c.Trailers["Scribe-Fingerprint"] == "" {
				continue
			}
			rep.LastWrap = &LastWrap{SHA: c.SHA, Modes: c.Trailers[gitops.TrailerMode], Subject: c.Subject, Date: c.Date}
			break
		}
	}
	items, qerr := r.Queued()
	shas := make([]string, len(items)) // "" for a record that is not a commit's
	for i, it := range items {
		shas[i] = vault.RecordedSHA(it)
	}
	notOwn := r.NotOwnCommits(shas)
	for i, it := range items {
		if notOwn[shas[i]] {
			continue // a concluded merge or cherry-pick: the next landing drops it
		}
		rep.Queue = append(rep.Queue, QueuedRecord{ID: it.ID, Kind: it.Kind, Created: it.Created, Reason: it.Reason})
	}
	if qerr != nil {
		rep.Failures = append(rep.Failures, qerr.Error())
	}
	if locks, err := r.Locks(ctx); err == nil {
		rep.Locks = append(rep.Locks, locks...)
	}
	fails := r.Failures()
	if len(fails) > 20 {
		fails = fails[len(fails)-20:]
	}
	rep.Failures = append(rep.Failures, fails...)
	if len(items) > 0 {
		if _, err := r.CheckWritable(ctx, nil); err != nil {
			rep.Blocked = err.Error()
		}
	}
	rep.Memory = memoryStatus(ctx, f)
	rep.Dispatchable = dispatchableCards(ctx, f)
	if all, err := v.Sessions(ctx); err == nil {
		for _, s := range all {
			if s.Open() {
				rep.Sessions.Open++
			} else {
				rep.Sessions.Journaled++
			}
			rep.Sessions.PendingFollowups += len(s.Pending())
		}
	}
	return rep, nil
}

// mayHaveContracts reports whether dispatch contracts can exist: their
// directory is in the work tree, or a sparse checkout may leave it out.
func mayHaveContracts(r *gitops.Repo, dir string) bool {
	if dir == "" {
		return true
	}
	if fi, err := os.Stat(filepath.Join(r.WorkTree, filepath.FromSlash(dir))); err == nil && fi.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(r.GitDir, "info", "sparse-checkout"))
	return err == nil
}

func renderStatus(ios *IOStreams, rep StatusReport) {
	out := ios.Out
	branch := rep.Branch
	if branch == "" {
		branch = "(detached HEAD)"
	}
	fmt.Fprintf(out, "%s %s\n", ios.Bold("branch:"), branch)
	if rep.LastWrap != nil {
		fmt.Fprintf(out, "%s %s %s (%s)\n", ios.Bold("last wrap:"), rep.LastWrap.SHA[:12], rep.LastWrap.Subject, rep.LastWrap.Date)
	} else {
		fmt.Fprintf(out, "%s none yet; run git scribe wrap at the end of a session\n", ios.Bold("last wrap:"))
	}
	tipNote := "no commit yet; the first wrap makes one"
	if rep.Vault != "" {
		tipNote = "at " + rep.Vault[:12]
	}
	fmt.Fprintf(out, "%s %s %s\n", ios.Bold("vault:"), gitops.VaultRef, tipNote)
	for _, vf := range rep.Files {
		mark := "missing"
		if vf.Exists {
			mark = "ok"
		}
		name := strings.TrimPrefix(vf.Path, gitops.VaultRef+":")
		if vf.View != "" {
			name += " (view: " + vf.View + ")"
		} else if !strings.HasPrefix(vf.Path, gitops.VaultRef+":") {
			name += " (your branch)"
		}
		fmt.Fprintf(out, "  %-16s %-56s %s\n", vf.Role, name, mark)
	}
	if n := len(rep.Queue); n > 0 {
		kinds := map[string]int{}
		for _, q := range rep.Queue {
			kinds[q.Kind]++
		}
		var parts []string
		for _, k := range []string{vault.KindCommit, vault.KindPlan, vault.KindRoute, memory.KindMemory, dispatch.KindDispatch} {
			if kinds[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", kinds[k], map[string]string{vault.KindCommit: "recorded commit(s)",
					vault.KindPlan: "deferred wrap(s)", vault.KindRoute: "follow-up routing(s)",
					memory.KindMemory: "confirmed memory write(s)", dispatch.KindDispatch: "dispatch pass(es), landed by git scribe dispatch run"}[k]))
			}
		}
		fmt.Fprintf(out, "%s %d record(s) waiting (%s); run `git scribe wrap` to land them as one progress: commit\n",
			ios.Bold("queue:"), n, strings.Join(parts, ", "))
		for _, q := range rep.Queue {
			if q.Reason != "" {
				fmt.Fprintf(out, "  %s: %s\n", q.Kind, q.Reason)
			}
		}
		if rep.Blocked != "" {
			fmt.Fprintf(out, "  they cannot land yet: %s\n", strings.TrimPrefix(rep.Blocked, "cannot commit now: "))
		}
	} else {
		fmt.Fprintf(out, "%s empty\n", ios.Bold("queue:"))
	}
	if n := len(rep.Dispatchable); n > 0 {
		fmt.Fprintf(out, "%s %d card(s) ready for agents (%s); `git scribe dispatch plan` shows what would fire\n",
			ios.Bold("dispatch:"), n, strings.Join(rep.Dispatchable, ", "))
	}
	for _, l := range rep.Locks {
		state := "held"
		if l.Expired {
			state = "EXPIRED (the next waiter takes it over)"
		}
		who := "unknown holder"
		if l.Holder != nil {
			who = l.Holder.String()
		}
		fmt.Fprintf(out, "%s %s %s by %s\n", ios.Bold("lock:"), l.Name, state, who)
	}
	for _, fl := range rep.Failures {
		fmt.Fprintf(out, "%s %s\n", ios.Bold("failure:"), fl)
	}
	renderMemoryStatus(ios, rep.Memory)
	if ss := rep.Sessions; ss.Open+ss.PendingFollowups > 0 {
		fmt.Fprintf(out, "sessions: %d open (journaled when they end), %d follow-up(s) need routing: git scribe followups route\n", ss.Open, ss.PendingFollowups)
	}
}

// dispatchableCards are the cards with agent work waiting; a vault without
// cards (or a dispatch setup that does not load) has none.
func dispatchableCards(ctx context.Context, f *Factory) []string {
	cards := []string{}
	if r, err := f.Repo(ctx); err == nil {
		if c, err := f.Config(ctx); err == nil && !mayHaveContracts(r, c.Config.Paths.Contracts) {
			// Only a card with a contract has a job: without the contracts
			// directory there is nothing to dispatch, and no reason to read
			// every markdown file of a code repository to say so.
			return cards
		}
	}
	d, _, err := openDispatcher(ctx, f, dispatch.Flags{}, nil)
	if err != nil {
		return cards
	}
	p, err := d.Plan(ctx)
	if err != nil {
		return cards
	}
	for _, cp := range p.Cards {
		if len(cp.Jobs) > 0 {
			cards = append(cards, cp.Card.Path)
		}
	}
	return cards
}
