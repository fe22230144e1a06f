package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/secrets"
	"github.com/git-scribe/git-scribe/vault"
)

// WrapOptions are wrap's parsed flags.
type WrapOptions struct {
	IO         *IOStreams
	Input      notes.WrapInput
	Artifacts  string // FILE or "-"
	LoopFile   string
	Hook       bool
	JSON       bool
	Background bool
	QueueOnly  bool   // hidden: the detached half of --background
	StdinFile  string // hidden: stdin captured by the parent of --background
	// Transcript and Route drive conversation follow-up extraction.
	Transcript string
	Route      string
	// RemoteLock and NoRemoteLock override sync.remote_lock.
	RemoteLock   bool
	NoRemoteLock bool
}

func newWrapCmd(f *Factory) *cobra.Command {
	o := &WrapOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "wrap",
		Short: "Persist the session: journal entry, bridge note, progress ticks",
		Long: `Wrap keeps what a session did as one "progress: …" commit on
refs/scribe/vault, scribe's own history (your branch, HEAD and index are not
touched). What it writes depends on how the session went:

  --loop keep                  bridge note + journal + progress ticks + verdicts
  --loop discard               journal
  3 or more files changed      bridge note + journal
  --session-end, unfinished    bridge note
  1–2 files changed            nothing (not worth a note)
  --trivial                    nothing

A loop is an agent's try-review cycle: --loop keep means its result was kept
(shipped), discard that it was thrown away. --witness gives the reviewer's
verdict on each try (PASS, WARN or BLOCK, with findings): the journal keeps
the findings in full, the bridge note only the final verdict, so the next
session is not steered by the review's details. --mode forces a row.

The bridge note is the current branch's (each branch has its own); the
journal entry names the commits it covers. Both are rendered, git-ignored,
into .claude/sonmat/ so editors and agents can read them.

Without --artifacts, wrap reads the diff itself: commits since the last
journaled commit (else HEAD~1) plus your staged, unstaged and untracked
changes. Your own work is never staged, committed or modified. The one write
wrap makes on your branch is a progress tick you asked for (--done ITEM):
a commit of progress.md alone, signed when you sign commits. When that
cannot be made now (merge or rebase in progress, detached HEAD, index locked,
your edits on progress.md) it waits in scribe's queue and the next git scribe
command makes it, on the branch it was meant for.

With --hook (Claude Code's or Codex's Stop hook: session_id,
transcript_path, cwd, stop_hook_active, last_assistant_message, turn_id on
stdin) wrap works per session, not per turn: it updates the session's record
(sessions/<session_id>.yaml on refs/scribe/vault) from the part of the
transcript it has not read yet and rewrites the branch's bridge note from
the whole session, fast and deterministic; no journal entry. The session's
one journal entry, naming each of its commits once (a commit rewritten by
rebase or amend is recognised by its patch id), is written at SessionEnd
(--hook --session-end, or hook_event_name SessionEnd), by an explicit wrap
while the session is open (its flags go into the entry), or by the next
command once the session went idle (sessions.idle) or a new one started.
Follow-ups found with no terminal to ask are kept for git scribe followups
route. In a repository never set up with git scribe init (no .scribe.yaml,
no refs/scribe/vault, no scribe post-commit hook) --hook does nothing; events that
are not the session's turn (SubagentStop, PreCompact) are ignored.`,
		Example: `  git scribe wrap --hint "Parser now streams input; fuzz corpus added"
  git scribe wrap --loop keep --tests "42 passed" --witness "PASS iter1; WARN iter2 not-covered-by-tests" --done "Phase 1 parser"
  git scribe wrap --artifacts dispatch.yaml
  git scribe wrap --dry-run --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runWrap(c.Context(), f, c, o)
		},
	}
	fl := c.Flags()
	in := &o.Input
	fl.StringVar(&in.Loop, "loop", "", "how the agent's try-review loop ended: keep (result kept) or discard (thrown away)")
	fl.BoolVar(&in.SessionEnd, "session-end", false, "the session is ending")
	fl.BoolVar(&in.Trivial, "trivial", false, "trivial task: persist nothing")
	fl.StringVar(&in.Hint, "hint", "", "1–2 sentences on what was done (the bridge note's context)")
	fl.StringVar(&in.Tests, "tests", "", "test results summary")
	fl.StringVar(&in.Witness, "witness", "", `the reviewer's verdict on each try, e.g. "PASS iter1; WARN iter2 not-covered-by-tests"`)
	fl.StringVar(&o.LoopFile, "loop-report", "", "the agent loop's own report, from `FILE` (kept in the journal)")
	fl.StringVar(&in.Base, "base", "", "read changes since `REV` instead of the last scribe commit")
	fl.StringArrayVar(&in.Done, "done", nil, "progress `ITEM` completed (repeatable): ticked in progress.md, a commit of that file alone on your branch")
	fl.StringArrayVar(&in.Next, "next", nil, `follow-up for the journal's "### Next", e.g. "(api) add paging" (repeatable)`)
	fl.StringVar(&in.Urgent, "urgent", "", "an urgent item for the first line of the bridge note")
	fl.StringArrayVar(&in.Questions, "question", nil, "open question for the bridge note (repeatable)")
	fl.StringVar(&in.Result, "result", "", "journal result: shipped, partial or reverted (default: inferred)")
	fl.StringVar(&in.Mode, "mode", "auto", "auto (the table above), all, or parts joined by +: bridge, journal, progress, witness (the verdicts)")
	fl.StringVar(&o.Artifacts, "artifacts", "", "read what the session did (changed files, tests, verdicts, a hint: YAML, JSON or an agent's \"## Scribe Dispatch\" message) from `FILE`, or - for stdin")
	fl.BoolVar(&o.Hook, "hook", false, "read an agent hook's JSON (Claude Code or Codex Stop/SessionEnd) on stdin: update the session record and bridge note")
	fl.BoolVar(&in.DryRun, "dry-run", false, "print what would be written; write nothing")
	fl.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	fl.BoolVar(&o.Background, "background", false, "return at once; the result waits in scribe's queue and the next git scribe command commits it")
	fl.BoolVar(&o.QueueOnly, "queue-only", false, "compute and queue the result; never commit")
	fl.StringVar(&o.StdinFile, "stdin-file", "", "read stdin from `FILE`")
	fl.StringVar(&o.Transcript, "transcript", "", "extract conversation follow-ups from the session transcript `FILE` (default: the hook's transcript_path)")
	fl.StringVar(&o.Route, "route", "", "route the transcript's orphan follow-ups by the decision `FILE` (see git scribe followups extract --help)")
	fl.BoolVar(&o.RemoteLock, "remote-lock", false, "also take the locks on the remote (sync.remote or upstream), so your machines write one at a time; unreachable → the write waits in the queue")
	fl.BoolVar(&o.NoRemoteLock, "no-remote-lock", false, "write without the remote lock even if sync.remote_lock is on (and make the writes that waited for it)")
	fl.MarkHidden("queue-only")
	fl.MarkHidden("stdin-file")
	return c
}

func runWrap(ctx context.Context, f *Factory, c *cobra.Command, o *WrapOptions) error {
	if o.Hook {
		f.hookMode = true
	}
	if f.SkipActive() {
		return nil
	}
	stdin := o.IO.In
	if o.StdinFile != "" {
		data, err := os.ReadFile(o.StdinFile)
		os.Remove(o.StdinFile)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("read captured input: %w", err)}
		}
		stdin = strings.NewReader(string(data))
	}
	if o.Background && !o.Input.DryRun {
		if o.Transcript != "" || o.Route != "" {
			fmt.Fprintln(o.IO.ErrOut, "git-scribe: --transcript and --route are not used by --background (detached work never asks or routes); run git scribe followups extract --transcript FILE")
		}
		return startBackground(ctx, f, c, o, stdin)
	}
	in, hook, err := vault.ReadWrapInput(vault.InputOptions{Flags: o.Input, Set: c.Flags().Changed,
		Artifacts: o.Artifacts, LoopReport: o.LoopFile, Hook: o.Hook, Stdin: stdin})
	if err != nil {
		return err
	}
	if hook != nil && hook.StopHookActive {
		return nil // Claude Code is already continuing because of a Stop hook
	}
	if hook != nil && hook.HookEventName != "" && hook.HookEventName != "Stop" && hook.HookEventName != "SessionEnd" {
		return nil // SubagentStop, PreCompact, …: not the session's turn
	}
	if hook != nil && hook.CWD != "" && f.Dir == "" {
		f.Dir = hook.CWD
	}
	if o.Hook && !f.hookSetUp(ctx) {
		return nil // never set up with git scribe init: left alone (principle 12)
	}
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	if !o.Hook || o.QueueOnly {
		v.Prose = proseWriter(ctx, f) // a Stop hook stays fast and deterministic
	}
	if err := applyRemoteLockFlags(ctx, v, o.RemoteLock, o.NoRemoteLock); err != nil {
		return err
	}
	if !o.QueueOnly {
		go secrets.Warm() // the redactor's keyword index builds while git reads the repository
	}
	if o.Hook && !o.QueueOnly && hook != nil && hook.SessionID != "" {
		return runSessionStop(ctx, v, o, in, *hook)
	}
	if o.Transcript != "" {
		if _, err := os.Stat(o.Transcript); err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--transcript: %w", err)}
		}
	}
	if !o.Hook && !o.QueueOnly {
		v.PrefetchWrapReads(ctx)
		if !in.DryRun {
			v.PrepareWrite(ctx)
		}
		// An explicit wrap while a session is open ends it: the session's
		// one journal entry, with the flags given here.
		srep, err := v.FinaliseSessions(ctx, vault.EndExplicitWrap, in)
		if err != nil {
			return err
		}
		if len(srep.Finalised) > 0 {
			return renderSessionReport(o.IO, o.JSON, srep)
		}
	}
	var rep vault.WrapReport
	if o.QueueOnly {
		rep, err = v.Queue(ctx, in, "background wrap")
	} else {
		rep, err = v.Wrap(ctx, in)
	}
	if err != nil {
		return err
	}
	if err := reportWrap(ctx, v, o, in, hook, rep); err != nil {
		return err
	}
	if o.Hook && !o.QueueOnly && !in.DryRun {
		proseAfterHook(ctx, f, v, rep)
	}
	if !o.QueueOnly && !in.DryRun {
		// session_wrap trigger: collect memory candidates; the gate asks
		// only when a person is at the terminal.
		transcriptPath, session := o.Transcript, ""
		if hook != nil {
			if transcriptPath == "" {
				transcriptPath = hook.TranscriptPath
			}
			session = hook.SessionID
		}
		compoundAfterWrap(ctx, f, transcriptPath, session, o.IO.CanPrompt() && !o.JSON && !o.Hook)
	}
	return nil
}

// startBackground re-runs wrap detached with --queue-only and returns at
// once; the detached half never moves a branch (SPEC principle 11).
func startBackground(ctx context.Context, f *Factory, c *cobra.Command, o *WrapOptions, stdin io.Reader) error {
	r, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable for --background: %w", err)
	}
	args := []string{"-C", r.WorkTree, "wrap", "--queue-only"}
	var ferr error
	for _, name := range []string{"loop", "session-end", "trivial", "hint", "tests", "witness", "loop-report", "base",
		"done", "next", "urgent", "question", "result", "mode", "artifacts", "hook", "remote-lock", "no-remote-lock"} {
		fl := c.Flags().Lookup(name)
		if fl == nil || !fl.Changed {
			continue
		}
		if sv, ok := fl.Value.(interface{ GetSlice() []string }); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+name+"="+v)
			}
			continue
		}
		val := fl.Value.String()
		if (name == "loop-report" || name == "artifacts") && val != "-" {
			if abs, err := filepath.Abs(val); err == nil {
				val = abs
			}
		}
		args = append(args, "--"+name+"="+val)
	}
	if o.Hook || o.Artifacts == "-" {
		read := func() ([]byte, error) { return io.ReadAll(io.LimitReader(stdin, 16<<20)) }
		if o.Hook {
			// Bounded: an agent's stdin that never closes cannot block the hook.
			read = func() ([]byte, error) { return vault.ReadHookInput(stdin, vault.HookInputWait) }
		}
		data, err := read()
		if err != nil {
			return fmt.Errorf("read stdin for --background: %w", err)
		}
		if err := os.MkdirAll(r.ScribeDir(), 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(r.ScribeDir(), "stdin-")
		if err != nil {
			return fmt.Errorf("capture stdin for --background: %w", err)
		}
		_, ferr = tmp.Write(data)
		tmp.Close()
		if ferr != nil {
			return ferr
		}
		args = append(args, "--stdin-file="+tmp.Name())
	}
	if err := spawnDetached(r, exe, args); err != nil {
		return fmt.Errorf("start background wrap: %w", err)
	}
	if !o.Hook {
		fmt.Fprintln(o.IO.Out, "wrap continues in the background; its result is queued and the next git scribe command (or `git scribe wrap`) lands it")
	}
	return nil
}

// spawnDetached starts git-scribe in its own session, its output appended to
// background.log under the git dir, and does not wait for it.
func spawnDetached(r *gitops.Repo, exe string, args []string) error {
	if err := os.MkdirAll(r.ScribeDir(), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", r.ScribeDir(), err)
	}
	logPath := filepath.Join(r.ScribeDir(), "background.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", logPath, err)
	}
	defer logf.Close()
	child := exec.Command(exe, args...)
	child.Stdout, child.Stderr = logf, logf
	detach(child)
	if err := child.Start(); err != nil {
		return err
	}
	return child.Process.Release()
}

// proseAfterHook starts the agent's prose for the bridge note a Stop hook's
// wrap just committed: detached, so the hook returns at once; its result is
// queued and lands at the next synchronous command (SPEC §3).
func proseAfterHook(ctx context.Context, f *Factory, v *vault.Vault, rep vault.WrapReport) {
	if rep.Commit == nil || rep.Bridge == "" || proseWriter(ctx, f) == nil {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	if err := spawnDetached(v.Repo, exe, []string{"-C", v.Repo.WorkTree, "wrap-prose", rep.Commit.SHA}); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "warning: agent prose for the bridge note not started: %v\n", err)
	}
}

func newWrapProseCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "wrap-prose COMMIT",
		Short:  "Queue an agent's rewrite of the bridge note commit COMMIT wrote (wrap --hook starts it in the background)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			v, err := f.Vault(c.Context())
			if err != nil {
				return err
			}
			v.Prose = proseWriter(c.Context(), f)
			queued, err := v.QueueBridgeProse(c.Context(), args[0])
			if err != nil {
				return err
			}
			if queued {
				fmt.Fprintf(f.IO.Out, "queued the agent's bridge note for %s; the next git scribe command lands it\n", args[0])
			}
			return nil
		},
	}
}

// runSessionStop is a Stop (or SessionEnd) hook's turn: the session record
// and the branch's bridge note, no journal entry until the session ends
// (SPEC principle 12). A --route FILE decides the follow-ups kept pending.
func runSessionStop(ctx context.Context, v *vault.Vault, o *WrapOptions, in notes.WrapInput, h notes.Hook) error {
	end := in.SessionEnd || h.HookEventName == "SessionEnd"
	if in.Hint == (notes.Hook{LastAssistantMessage: h.LastAssistantMessage}).Apply(notes.WrapInput{}).Hint {
		in.Hint = "" // the turn's message is a summary in the record, not a person's hint
	}
	if o.Transcript != "" {
		h.TranscriptPath = o.Transcript
	}
	rep, err := v.SessionStop(ctx, h, in, end)
	if err != nil {
		return err
	}
	if o.Route != "" && !in.DryRun {
		routed, err := routePendingFile(ctx, v, o.Route)
		if err != nil {
			return err
		}
		rep.Pending -= routed
	}
	if end && !in.DryRun && h.TranscriptPath != "" {
		// Memory candidates from the whole session, collected detached: the
		// full transcript read stays off SessionEnd's time budget.
		if _, err := os.Stat(h.TranscriptPath); err == nil {
			if exe, err := os.Executable(); err == nil {
				spawnDetached(v.Repo, exe, []string{"-C", v.Repo.WorkTree, "compound", "collect", "--transcript", h.TranscriptPath,
					"--trigger", "session_wrap", "--session", h.SessionID})
			}
		}
	}
	if o.JSON {
		return printJSON(o.IO, rep)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "git-scribe: %s\n", w)
	}
	return nil
}

// routePendingFile routes the pending session follow-ups by a decision file.
func routePendingFile(ctx context.Context, v *vault.Vault, path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read --route file: %w", err)
	}
	rf, err := followups.ParseRouteFile(data)
	if err != nil {
		return 0, err
	}
	pending, err := v.PendingFollowups(ctx)
	if err != nil || len(pending) == 0 {
		return 0, err
	}
	routes, _ := rf.Apply(vault.Candidates(pending), v.Similarity())
	if _, err := v.RoutePending(ctx, pending, routes); err != nil {
		return 0, err
	}
	return len(routes), nil
}

// renderSessionReport prints what finalising sessions did.
func renderSessionReport(ios *IOStreams, asJSON bool, rep vault.SessionReport) error {
	if asJSON {
		return printJSON(ios, rep)
	}
	switch rep.Status {
	case "journaled", "updated":
		sha := ""
		if rep.Commit != nil {
			sha = " " + rep.Commit.SHA[:12]
		}
		fmt.Fprintf(ios.Out, "%s%s session %s ended (%s)\n", ios.Bold("wrapped:"), sha, strings.Join(rep.Finalised, ", "), rep.Reason)
	case "queued":
		fmt.Fprintf(ios.Out, "%s %s\n", ios.Bold("queued:"), rep.Reason)
	case "dry-run":
		fmt.Fprintf(ios.Out, "%s would end session %s\n", ios.Bold("dry run:"), strings.Join(rep.Finalised, ", "))
	}
	if rep.Entry != "" {
		fmt.Fprint(ios.Out, rep.Entry)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
	}
	return nil
}
