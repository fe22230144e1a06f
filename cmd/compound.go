package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/transcript"
)

// CompoundOptions are the parsed flags of the compound commands.
type CompoundOptions struct {
	IO         *IOStreams
	Transcript string
	Hook       bool
	Trigger    string
	Session    string
	Approve    []string
	Reject     []string
	JSON       bool
}

// compoundPipeline is the analyzer set and judge collect runs: the
// deterministic built-ins (the dispatch runners plug in here).
func compoundPipeline(st *memory.Store) memory.Pipeline {
	return memory.Pipeline{Analyzers: memory.BuiltinAnalyzers(st.Keywords())}
}

func newCompoundCmd(f *Factory) *cobra.Command {
	o := &CompoundOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "compound [collect | gate | list | reactivate DETECTOR]",
		Short: "Learn memories from a session (corrections, preferences, conventions); each kept only after your yes",
		Long: `Compound keeps what a session taught your agent — a correction you made
("no, don't mock the clock"), a preference you stated, a topic that kept
coming up, a convention nobody wrote down — as memory records the agent
reads in later sessions (memory_dir, indexed in MEMORY.md, which init points
CLAUDE.md and AGENTS.md at). Nothing is kept without your yes:

  collect      read a session transcript (its last memory.window turns), find
               candidate memories with four detectors (tacit: unwritten
               conventions; correction: things you corrected; pattern: a topic
               raised 3 times; preference: how you like things done), drop
               what memory already holds or you rejected before, score each
               0.0–1.0, and queue them. Never asks, never writes a memory.
               wrap runs it at the end of a session.
  gate         ask you about each queued candidate: y keep it, N (or Enter)
               reject it, e edit it then keep it, s skip it (asked again next
               time). The score suggests an answer: ≥ 0.80 green (y), ≤ 0.40
               red (N), yellow between (your call). One commit per gate:
               "progress: memory +N -M (compound)". Without a terminal every
               candidate is rejected for this run and nothing is written.
  list         the queue, detectors switched off, writes waiting
  reactivate   switch a detector back on: after 3 of its candidates in a row
               are rejected it is off for 7 days

Plain "git scribe compound" runs the gate.

Kept memories go to memory_dir/corrections/ (your corrections),
preferences/ (preferences for one scope) or tacit/, with frontmatter and a
MEMORY.md line; rejected ones to corrections/_rejected/<candidate_id>.md and
_rejections.log, and are never proposed again.`,
		Example: `  git scribe compound collect --transcript ~/.claude/projects/-src-app/5b1c….jsonl
  git scribe compound gate
  git scribe compound gate --approve 2a18cdd19b85 --reject 559356c7924d
  git scribe compound reactivate pattern`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runCompoundGate(c.Context(), f, o) },
	}
	collect := &cobra.Command{
		Use:   "collect --transcript FILE",
		Short: "Find candidate memories in a session transcript and queue them for your decision (never asks)",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCompoundCollect(c.Context(), f, o) },
	}
	collect.Flags().StringVar(&o.Transcript, "transcript", "", "the session transcript `FILE` (Claude Code or Codex JSONL, or text)")
	collect.Flags().BoolVar(&o.Hook, "hook", false, "read an agent hook's JSON (transcript_path, session_id) on stdin")
	collect.Flags().StringVar(&o.Trigger, "trigger", memory.TriggerManual, "why collect runs: manual, session_wrap, user_correction (you corrected the agent) or pattern_repeat (a topic came up 3 times)")
	collect.Flags().StringVar(&o.Session, "session", "", "session id (default: the transcript's)")
	collect.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	gate := &cobra.Command{
		Use:   "gate",
		Short: "Decide on each queued memory: y keep / N reject / e edit / s skip",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCompoundGate(c.Context(), f, o) },
	}
	gate.Flags().StringArrayVar(&o.Approve, "approve", nil, "keep candidate `ID` without asking (your decision, typed; repeatable)")
	gate.Flags().StringArrayVar(&o.Reject, "reject", nil, "reject candidate `ID` without asking (repeatable)")
	gate.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON (never prompts)")
	list := &cobra.Command{
		Use:   "list",
		Short: "Show the queued memories, detectors switched off, and writes waiting",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return runCompoundList(c.Context(), f, o) },
	}
	list.Flags().BoolVar(&o.JSON, "json", false, "print as JSON")
	reactivate := &cobra.Command{
		Use:       "reactivate DETECTOR",
		Short:     "Switch a detector back on after 3 rejections turned it off (tacit, correction, pattern, preference)",
		Args:      cobra.ExactArgs(1),
		ValidArgs: memory.Detectors(),
		RunE: func(c *cobra.Command, args []string) error {
			return runCompoundReactivate(c.Context(), f, args[0])
		},
	}
	c.AddCommand(collect, gate, list, reactivate)
	return c
}

// compoundHook is the part of an agent hook's JSON collect reads.
type compoundHook struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
}

func runCompoundCollect(ctx context.Context, f *Factory, o *CompoundOptions) error {
	if f.SkipActive() {
		return nil
	}
	valid := false
	for _, t := range memory.Triggers() {
		valid = valid || t == o.Trigger
	}
	if !valid {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--trigger %q: use one of %s", o.Trigger, strings.Join(memory.Triggers(), ", "))}
	}
	path, session := o.Transcript, o.Session
	if o.Hook {
		f.hookMode = true
		var h compoundHook
		data, err := io.ReadAll(io.LimitReader(o.IO.In, 16<<20))
		if err != nil {
			return fmt.Errorf("read hook input: %w", err)
		}
		if err := json.Unmarshal(data, &h); err != nil {
			return &ExitError{Code: ExitFindings, Err: fmt.Errorf("hook input is not JSON (%v); nothing collected", err)}
		}
		if path == "" {
			path = h.TranscriptPath
		}
		if session == "" {
			session = h.SessionID
		}
		if f.Dir == "" && h.CWD != "" {
			f.Dir = h.CWD
		}
	}
	if path == "" {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("collect needs a transcript: pass --transcript FILE (or --hook with the agent's hook JSON on stdin)")}
	}
	if !filepath.IsAbs(path) && f.Dir != "" && !o.Hook {
		path = filepath.Join(f.Dir, path)
	}
	st, err := openMemoryForWrite(ctx, f)
	if err != nil {
		return err
	}
	res, err := collect(ctx, f, st, path, o.Trigger, session)
	if err != nil {
		if o.Hook || o.Trigger == memory.TriggerSessionWrap {
			fmt.Fprintln(o.IO.ErrOut, "[compound] intake skipped: "+err.Error())
			return nil
		}
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if o.JSON {
		return printJSON(o.IO, res)
	}
	reportCollect(o.IO, res, o.IO.Out)
	return nil
}

// collect reads a transcript and runs the pipeline on its last turns.
func collect(ctx context.Context, f *Factory, st *memory.Store, path, trigger, session string) (memory.CollectResult, error) {
	tr, err := transcript.ReadFile(path)
	if err != nil {
		return memory.CollectResult{}, err
	}
	if session == "" {
		session = tr.SessionID
	}
	if session == "" {
		session = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	snap, snapPath, err := st.Intake(memory.TurnsOf(tr), trigger, session, path, tr.Stats.Corrupt)
	if err != nil {
		return memory.CollectResult{}, err
	}
	res, err := st.Collect(ctx, snap, withAgents(ctx, f, compoundPipeline(st)))
	res.Snapshot = snapPath
	if tr.Stats.Corrupt > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("skipped %d unreadable transcript line(s)", tr.Stats.Corrupt))
	}
	return res, err
}

func reportCollect(ios *IOStreams, res memory.CollectResult, w io.Writer) {
	if !res.Fired {
		fmt.Fprintf(w, "[compound] trigger %s did not fire: %s; nothing queued\n", res.Trigger, res.Why)
	} else {
		fmt.Fprintf(w, "[compound] %s: %d turn(s) of session %s → %d candidate(s) queued", res.Trigger, res.Turns, res.SessionID, len(res.Queued))
		if len(res.Dropped) > 0 {
			fmt.Fprintf(w, ", %d dropped", len(res.Dropped))
		}
		fmt.Fprintln(w)
		for _, c := range res.Queued {
			fmt.Fprintf(w, "  %s  %-10s %s\n", c.ID, c.Detector, c.Name)
		}
		for _, d := range res.Dropped {
			fmt.Fprintln(w, ios.Dim(fmt.Sprintf("  dropped %s %s: %s", d.ID, d.Name, d.Reason)))
		}
		if len(res.Queued) > 0 {
			fmt.Fprintln(w, "decide with: git scribe compound gate")
		}
	}
	for _, warn := range res.Warnings {
		fmt.Fprintln(ios.ErrOut, "[compound] warning: "+warn)
	}
}

// nonInteractive is the gate's refusal without a person (seed 003).
const nonInteractive = "[compound] non-interactive → all rejected"

func runCompoundGate(ctx context.Context, f *Factory, o *CompoundOptions) error {
	if f.SkipActive() {
		return nil
	}
	st, err := openMemoryForWrite(ctx, f)
	if err != nil {
		return err
	}
	if len(o.Approve)+len(o.Reject) > 0 {
		return explicitGate(ctx, f, st, o)
	}
	show, held, warns := st.Presentable()
	for _, w := range warns {
		fmt.Fprintln(o.IO.ErrOut, "[compound] warning: "+w)
	}
	if len(show) == 0 {
		if o.JSON {
			return printJSON(o.IO, memory.GateResult{Status: "nothing", Reason: "no candidate to decide", Promoted: []memory.Promotion{}, Rejected: []string{}, Skipped: []string{}})
		}
		fmt.Fprintf(o.IO.Out, "[compound] no candidate to decide")
		if len(held) > 0 {
			fmt.Fprintf(o.IO.Out, " (%d held: their detector is disabled; see git scribe compound list)", len(held))
		}
		fmt.Fprintln(o.IO.Out)
		return nil
	}
	if !o.IO.CanPrompt() || o.JSON {
		if o.JSON {
			ids := make([]string, len(show))
			for i, c := range show {
				ids[i] = c.ID
			}
			printJSON(o.IO, memory.GateResult{Status: "refused", Reason: "no terminal: nothing written", Promoted: []memory.Promotion{}, Rejected: []string{}, Skipped: []string{}, Left: ids})
		}
		return refuseGate(o.IO, len(show))
	}
	res, err := st.RunGate(ctx, &gateAsker{f: f, st: st, p: newPrompter(f, st.EditDir())})
	if err != nil {
		return err
	}
	reportGate(o.IO, st, res)
	if res.Status == "refused" {
		fmt.Fprintln(o.IO.ErrOut, nonInteractive)
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("nothing written: input ended before any answer; the candidates stay queued")}
	}
	return nil
}

// refuseGate is the non-interactive gate: every candidate is rejected for
// this run, nothing is written, the queue is kept for a person.
func refuseGate(ios *IOStreams, n int) error {
	fmt.Fprintln(ios.ErrOut, nonInteractive)
	return &ExitError{Code: ExitFindings, Err: fmt.Errorf(
		"nothing written: %d candidate(s) need a person's answer and stay queued; run git scribe compound gate in a terminal, or decide explicitly with --approve ID / --reject ID (ids: git scribe compound list)", n)}
}

// explicitGate applies --approve / --reject: a person's decisions given as
// flags, valid without a terminal.
func explicitGate(ctx context.Context, f *Factory, st *memory.Store, o *CompoundOptions) error {
	q, _ := st.Queue()
	byID := map[string]memory.Candidate{}
	for _, c := range q {
		byID[c.ID] = c
	}
	var ds []memory.Decision
	seen := map[string]bool{}
	add := func(ids []string, a memory.Action) error {
		for _, id := range ids {
			c, ok := byID[id]
			if !ok {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("candidate %q is not queued; see git scribe compound list", id)}
			}
			if seen[id] {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("candidate %s is both approved and rejected", id)}
			}
			seen[id] = true
			ds = append(ds, memory.Decision{Candidate: c, Action: a})
		}
		return nil
	}
	if err := add(o.Approve, memory.ActionApproved); err != nil {
		return err
	}
	if err := add(o.Reject, memory.ActionRejected); err != nil {
		return err
	}
	disabled, warns := st.NoteExplicit(ds)
	res, err := st.ApplyDecisions(ctx, ds)
	if err != nil {
		return err
	}
	res.Disabled = disabled
	res.Warnings = append(warns, res.Warnings...)
	if o.JSON {
		return printJSON(o.IO, res)
	}
	reportGate(o.IO, st, res)
	return nil
}

func reportGate(ios *IOStreams, st *memory.Store, res memory.GateResult) {
	for _, p := range res.Promoted {
		where := p.Path
		if where == "" {
			where = "(pending write)"
		}
		fmt.Fprintf(ios.Out, "promoted %s → %s\n", p.ID, where)
	}
	for _, id := range res.Rejected {
		fmt.Fprintf(ios.Out, "rejected %s → %s/ (never proposed again)\n", id, st.RejectedDir())
	}
	if n := len(res.Skipped); n > 0 {
		fmt.Fprintf(ios.Out, "skipped %d: asked again at the next gate\n", n)
	}
	if n := len(res.Held); n > 0 {
		fmt.Fprintf(ios.Out, "held %d: their detector is disabled (git scribe compound list)\n", n)
	}
	if n := len(res.Left); n > 0 {
		fmt.Fprintf(ios.ErrOut, "[compound] input ended: %d candidate(s) rejected for this gate — nothing written for them, they stay queued\n", n)
	}
	switch res.Status {
	case "committed":
		fmt.Fprintf(ios.Out, "committed %s: progress: memory +%d -%d (compound)\n", res.Commit.SHA[:12], len(res.Promoted), len(res.Rejected))
	case "queued":
		fmt.Fprintf(ios.Out, "decisions saved, not committed yet: %s\n", res.Reason)
	case "nothing":
		if len(res.Promoted)+len(res.Rejected) == 0 {
			fmt.Fprintln(ios.Out, "nothing to write")
		}
	}
	for _, d := range res.Disabled {
		fmt.Fprintf(ios.ErrOut, "[compound] detector %s disabled until %s (git scribe compound reactivate %s)\n", d.Detector, d.DisabledUntil.Format("2006-01-02 15:04"), d.Detector)
	}
	if res.Suggestion != "" {
		fmt.Fprintln(ios.ErrOut, "[compound] "+res.Suggestion)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(ios.ErrOut, "[compound] warning: "+w)
	}
}

// gateAsker asks about one candidate on the terminal.
type gateAsker struct {
	f  *Factory
	st *memory.Store
	p  *prompter
}

func (a *gateAsker) Notice(msg string) { fmt.Fprintln(a.f.IO.ErrOut, msg) }

func (a *gateAsker) Ask(_ context.Context, c memory.Candidate, pos, total int) (memory.Action, string, error) {
	ios := a.f.IO
	v := memory.VerdictOf(c.EvaluatorScore)
	badge, hint := verdictBadge(ios, v, c.EvaluatorScore)
	fmt.Fprintf(ios.Out, "\n[compound] %d/%d  %s  %s · %s → %s/\n", pos, total, badge, c.Detector, c.ID, a.st.Config.Paths.MemoryDir+"/"+c.Dir())
	fmt.Fprintf(ios.Out, "  %s\n  %s\n", ios.Bold(c.Name), c.Description)
	overlap := "overlap " + c.OverlapBand
	if c.OverlapWith != "" {
		overlap += fmt.Sprintf(" (%.2f with %s)", c.OverlapScore, c.OverlapWith)
	}
	fmt.Fprintln(ios.Out, "  "+ios.Dim(overlap))
	fmt.Fprintf(ios.Out, "\n%s\n\n", indent(c.Content, "    "))
	for {
		ans, err := a.p.line(fmt.Sprintf("Promote? %s [y/N/e/s] ", hint))
		if err == errNoAnswer {
			return "", "", memory.ErrNoAnswer
		}
		if err != nil {
			return "", "", err
		}
		switch strings.ToLower(ans) {
		case "y", "yes":
			return memory.ActionApproved, "", nil
		case "", "n", "no":
			return memory.ActionRejected, "", nil
		case "s", "skip":
			return memory.ActionSkipped, "", nil
		case "e", "edit":
			text, err := a.p.edit(c.Content+"\n", "candidate.md")
			if err != nil {
				fmt.Fprintln(ios.ErrOut, "warning: "+err.Error())
				continue
			}
			text = strings.TrimSpace(redact(text))
			if text == "" {
				fmt.Fprintln(ios.Out, "empty text: skipped (asked again next gate)")
				return memory.ActionSkipped, "", nil
			}
			fmt.Fprintf(ios.Out, "edited:\n%s\n", indent(text, "    "))
			return memory.ActionEditedApproved, text, nil
		}
		fmt.Fprintln(ios.Out, "please answer y (promote), n or Enter (reject), e (edit, then promote) or s (skip)")
	}
}

// verdictBadge renders the evaluator verdict: coloured on a terminal,
// words otherwise, and the recommendation shown in the prompt.
func verdictBadge(ios *IOStreams, v memory.Verdict, score float64) (string, string) {
	text := fmt.Sprintf("%s %.2f", v, score)
	hint := "(your call)"
	code, mark := "33", "🟡 "
	switch v {
	case memory.VerdictGreen:
		hint, code, mark = "(recommended: y)", "32", "🟢 "
	case memory.VerdictRed:
		hint, code, mark = "(recommended: N)", "31", "🔴 "
	}
	if ios.Color() {
		return mark + "\x1b[" + code + "m" + text + "\x1b[0m", hint
	}
	return text, hint
}

// compoundList is `compound list --json`.
type compoundList struct {
	Queue         []memory.Candidate     `json:"queue"`
	Held          []memory.Candidate     `json:"held"`
	Detectors     []memory.DetectorState `json:"detectors"`
	PendingWrites int                    `json:"pending_writes"`
	Rejected      int                    `json:"rejected"`
	Memories      int                    `json:"memories"`
}

// buildCompoundList reads the queue, the held candidates and the detector
// states; it writes nothing.
func buildCompoundList(st *memory.Store) (compoundList, []string) {
	show, held, warns := st.Presentable()
	out := compoundList{Queue: show, Held: held, Detectors: st.DetectorStates(), PendingWrites: st.PendingCount()}
	if out.Queue == nil {
		out.Queue = []memory.Candidate{}
	}
	if out.Held == nil {
		out.Held = []memory.Candidate{}
	}
	if rej, err := st.Rejected(); err == nil {
		out.Rejected = len(rej)
	}
	if mem, err := st.Memories(); err == nil {
		out.Memories = len(mem)
	}
	return out, warns
}

func runCompoundList(ctx context.Context, f *Factory, o *CompoundOptions) error {
	st, err := f.Memory(ctx)
	if err != nil {
		return err
	}
	out, warns := buildCompoundList(st)
	show, held := out.Queue, out.Held
	for _, w := range warns {
		fmt.Fprintln(o.IO.ErrOut, "[compound] warning: "+w)
	}
	if o.JSON {
		return printJSON(o.IO, out)
	}
	ios := o.IO
	fmt.Fprintf(ios.Out, "%d candidate(s) queued\n", len(show))
	for _, c := range show {
		fmt.Fprintf(ios.Out, "  %s  %-10s %-6s %.2f  overlap %-8s %s\n", c.ID, c.Detector, memory.VerdictOf(c.EvaluatorScore), c.EvaluatorScore, c.OverlapBand, c.Name)
	}
	for _, c := range held {
		fmt.Fprintf(ios.Out, "  %s  %-10s held (detector disabled)  %s\n", c.ID, c.Detector, c.Name)
	}
	for _, d := range out.Detectors {
		if until, off := st.DisabledUntil(d.Detector); off {
			fmt.Fprintf(ios.Out, "detector %s disabled until %s (git scribe compound reactivate %s)\n", d.Detector, until.Format("2006-01-02 15:04"), d.Detector)
		} else if d.ConsecutiveRejections > 0 {
			fmt.Fprintf(ios.Out, "detector %s: %d rejection(s) in a row\n", d.Detector, d.ConsecutiveRejections)
		}
	}
	if out.PendingWrites > 0 {
		fmt.Fprintf(ios.Out, "%d confirmed write(s) pending (retried by the next compound or wrap)\n", out.PendingWrites)
	}
	fmt.Fprintf(ios.Out, "%d memories, %d rejected\n", out.Memories, out.Rejected)
	return nil
}

func runCompoundReactivate(ctx context.Context, f *Factory, detector string) error {
	st, err := f.Memory(ctx)
	if err != nil {
		return err
	}
	was, err := st.Reactivate(detector)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if was {
		fmt.Fprintf(f.IO.Out, "detector %s reactivated\n", detector)
	} else {
		fmt.Fprintf(f.IO.Out, "detector %s was not disabled; its rejection streak is reset\n", detector)
	}
	return nil
}

// compoundAfterWrap is wrap's session_wrap trigger: collect from the
// session's transcript, then the gate when a person is at the terminal.
// It never fails the wrap; problems are reported on stderr.
func compoundAfterWrap(ctx context.Context, f *Factory, transcriptPath, session string, interactive bool) {
	if f.Active() {
		return
	}
	ios := f.IO
	st, err := f.Memory(ctx)
	if err != nil {
		fmt.Fprintln(ios.ErrOut, "[compound] intake skipped: "+err.Error())
		return
	}
	landPendingMemory(ctx, f, st) // confirmed writes that could not be made before
	if transcriptPath == "" {
		return
	}
	if _, err := os.Stat(transcriptPath); err != nil {
		fmt.Fprintln(ios.ErrOut, "[compound] intake skipped: "+err.Error())
		return
	}
	res, err := collect(ctx, f, st, transcriptPath, memory.TriggerSessionWrap, session)
	if err != nil {
		fmt.Fprintln(ios.ErrOut, "[compound] intake skipped: "+err.Error())
		return
	}
	reportCollect(ios, res, ios.ErrOut)
	show, _, _ := st.Presentable()
	if len(show) == 0 {
		return
	}
	if !interactive {
		fmt.Fprintln(ios.ErrOut, nonInteractive)
		fmt.Fprintf(ios.ErrOut, "[compound] nothing written; %d candidate(s) stay queued for git scribe compound gate\n", len(show))
		return
	}
	gres, err := st.RunGate(ctx, &gateAsker{f: f, st: st, p: newPrompter(f, st.EditDir())})
	if err != nil {
		fmt.Fprintln(ios.ErrOut, "[compound] gate failed: "+err.Error())
		return
	}
	reportGate(ios, st, gres)
}
