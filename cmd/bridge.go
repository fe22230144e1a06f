package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/notes"
	"github.com/git-scribe/git-scribe/vault"
)

// BridgeOptions are bridge's flags.
type BridgeOptions struct {
	IO   *IOStreams
	Hook bool
	JSON bool
}

func newBridgeCmd(f *Factory) *cobra.Command {
	o := &BridgeOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "bridge",
		Short: "Print the bridge note for the next session",
		Long: `Bridge prints the bridge note the last wrap left for the next session — where
things stand, what carries forward, open questions — within the configured
token budget (bridge_tokens, default 1500), and warns which of the files it
cites changed since it was written: the note is a hypothesis to verify, not a
fact. It first makes any scribe write that was waiting in the queue.

With --hook (Claude Code's or Codex's SessionStart hook, for every way a
session starts: startup, resume, clear, compact) it reads the hook's JSON on
stdin and prints what the agent's new session is given to read
(SessionStart additionalContext): the branch's note with its stale-file
warnings (on compact or resume of the same session it says so), follow-ups
and memory candidates waiting for you, the open follow-ups, the project's
traps (lessons from past mistakes, git scribe trap) and the memory index, cut by priority to the budget and saying what
was left out. A new session (startup, clear) also journals the branch's
previous session if it never said it ended. In a repository never set up
with git scribe init it prints empty context and writes nothing.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runBridge(c.Context(), f, o) },
	}
	c.Flags().BoolVar(&o.Hook, "hook", false, "act as the agent's SessionStart hook: the hook's JSON on stdin, the session's context (additionalContext JSON) out")
	c.Flags().BoolVar(&o.JSON, "json", false, "print as JSON")
	return c
}

func runBridge(ctx context.Context, f *Factory, o *BridgeOptions) error {
	var h notes.Hook
	if o.Hook {
		f.hookMode = true
		if data, _ := io.ReadAll(io.LimitReader(o.IO.In, 1<<20)); len(strings.TrimSpace(string(data))) > 0 {
			_ = json.Unmarshal(data, &h) // unknown or bad input: still inject what we have
		}
		if h.CWD != "" && f.Dir == "" {
			f.Dir = h.CWD
		}
		if !f.hookSetUp(ctx) {
			// Never set up with git scribe init: valid, empty hook output.
			return printJSON(o.IO, hookContext(""))
		}
	}
	v, err := f.Vault(ctx)
	if err != nil {
		return err
	}
	if o.Hook && !f.Active() {
		return runBridgeHook(ctx, f, o, v, h)
	}
	var landedNote string
	if !f.Active() {
		if n, waiting, err := v.Drain(ctx); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "warning: landing queued writes failed: %v\n", err)
		} else if n > 0 {
			landedNote = fmt.Sprintf("landed %d queued record(s)", n)
		} else if waiting != "" {
			landedNote = "queued writes still wait: " + waiting
		}
	}
	if !f.Active() {
		// The view follows the checked-out branch (a checkout since the
		// last write shows another branch's note), and is rendered again
		// when a view file is not what scribe last wrote.
		for _, w := range v.RefreshStaleView(ctx) {
			fmt.Fprintln(o.IO.ErrOut, "warning: "+w)
		}
	}
	bv, err := v.Bridge(ctx)
	if err != nil {
		return err
	}
	text := bv.Text
	if !bv.Exists {
		text = ""
	}
	budget := v.Config.BridgeTokens * 4 // ~4 bytes a token
	if len(text) > budget {
		text = text[:budget] + "\n[… truncated to the bridge_tokens budget]\n"
	}
	var warn string
	if bv.FromBranch != "" {
		text = fmt.Sprintf("(%s has no bridge note yet; this is the newest note of the repository, from branch %s)\n\n", bv.Branch, bv.FromBranch) + text
	}
	if len(bv.Stale) > 0 {
		warn = fmt.Sprintf("cited files changed since this note was written (%s): %s — verify before relying on it",
			shortRef(bv.Commit), strings.Join(bv.Stale, ", "))
	}
	switch {
	case o.Hook:
		ctxText := ""
		if bv.Exists {
			ctxText = "Bridge note from the previous session (" + bv.Path + "); a hypothesis to verify, not a fact:\n\n" + text
			if warn != "" {
				ctxText += "\nNote: " + warn + ".\n"
			}
		}
		out := map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "SessionStart", "additionalContext": ctxText}}
		return printJSON(o.IO, out)
	case o.JSON:
		return printJSON(o.IO, map[string]any{"path": bv.Path, "exists": bv.Exists, "text": text, "branch": bv.Branch,
			"from_branch": bv.FromBranch, "written_at": bv.Commit, "stale": nonNil(bv.Stale), "landed": landedNote})
	}
	if landedNote != "" {
		fmt.Fprintln(o.IO.ErrOut, landedNote)
	}
	if !bv.Exists {
		fmt.Fprintf(o.IO.Out, "no bridge note yet (%s); `git scribe wrap` writes one\n", bv.Path)
		return nil
	}
	fmt.Fprint(o.IO.Out, text)
	if warn != "" {
		fmt.Fprintln(o.IO.ErrOut, "warning: "+warn)
	}
	return nil
}

func shortRef(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func hookContext(text string) map[string]any {
	return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "SessionStart", "additionalContext": text}}
}

// runBridgeHook answers SessionStart (every source: startup, resume, clear,
// compact): it remembers where a new session starts, journals the branch's
// sessions that are over (a new one started), lands the queue, and prints
// the context within the token budget.
func runBridgeHook(ctx context.Context, f *Factory, o *BridgeOptions, v *vault.Vault, h notes.Hook) error {
	if h.SessionID != "" && (h.Source == "" || h.Source == "startup" || h.Source == "clear") {
		v.NoteSessionStart(ctx, h.SessionID)
		if _, open := v.OpenSession(ctx, h.SessionID); !open {
			if rep, err := v.FinaliseSessions(ctx, vault.EndNewSession, notes.WrapInput{}); err != nil {
				fmt.Fprintf(o.IO.ErrOut, "warning: journaling the previous session failed: %v\n", err)
			} else {
				for _, w := range rep.Warnings {
					fmt.Fprintln(o.IO.ErrOut, "warning: "+w)
				}
			}
		}
	}
	if _, _, err := v.Drain(ctx); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: landing queued writes failed: %v\n", err)
	}
	for _, w := range v.RefreshStaleView(ctx) {
		fmt.Fprintln(o.IO.ErrOut, "warning: "+w)
	}
	mem := 0
	if ms := memoryStatus(ctx, f); ms != nil {
		mem = ms.Candidates
	}
	sc, err := v.StartContext(ctx, vault.StartContextOptions{SessionID: h.SessionID, Source: h.Source, MemoryCandidates: mem})
	if err != nil {
		return err
	}
	return printJSON(o.IO, hookContext(notes.FitContext(sc.Sections, v.Config.BridgeTokens*4)))
}
