package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

// The MCP server is a thin adapter over the CLI: every tool runs the same
// git scribe command in-process (with --json) that a person would run, so
// the tools read and write exactly what the commands do, pass the same
// confirmation gates, and fail with the same messages.

func newMCPCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve scribe to an MCP client (stdio): bridge, journal, progress, status, proposals",
		Long: `mcp runs a Model Context Protocol server on stdin/stdout for any MCP-capable
agent. stdout carries protocol frames only; logs go to stderr. Tools:

  bridge_read        the bridge note, with the cited files changed since it was written
  journal_tail       the newest journal entries
  progress_list      progress.md checkboxes
  progress_done      tick progress.md items (a progress: commit)
  status             queued writes, locks, last wrap
  followups_extract  follow-ups in a transcript that no durable source holds (read only)
  rule_propose       a project rule for CLAUDE.md
  trap_propose       a novel trap record
  compound_list      pending memory candidates
  compound_gate      promote or reject candidates by id

The proposal tools keep the CLI's gate: without confirmed=true (or, for
compound_gate, the person's approve/reject ids) they return the proposal and
write nothing; call again with the confirmation only after the person said
yes. Register it with Claude Code by "git scribe init --agent claude --mcp"
(.mcp.json), or in any client as: git scribe mcp (in the repository).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runMCP(c.Context(), f) },
	}
}

func runMCP(ctx context.Context, f *Factory) error {
	r, err := f.Repo(ctx)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := newMCPServer(&mcpTools{dir: r.WorkTree, env: f.Env}, log)
	log.Info("serving", "repository", r.WorkTree)
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(f.IO.In), Writer: nopWriteCloser{f.IO.Out}})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil // the client hung up
	}
	return fmt.Errorf("mcp: %w", err)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpTools runs git scribe commands in-process for the tools, one at a time.
type mcpTools struct {
	mu  sync.Mutex
	dir string
	env []string
}

// cliRun is one command's outcome.
type cliRun struct {
	stdout, stderr string
	code           int
	err            error // what the CLI would print after "git-scribe: "
}

// run executes `git scribe -C dir args…` in-process with no terminal (so
// nothing prompts) and reports what the CLI would have printed and exited.
func (t *mcpTools) run(ctx context.Context, args ...string) cliRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out, errb bytes.Buffer
	f := &Factory{IO: NewIOStreams(strings.NewReader(""), &out, &errb), Env: t.env}
	root := NewRootCmd(f)
	root.SetArgs(append([]string{"-C", t.dir}, args...))
	err := root.ExecuteContext(ctx)
	res := cliRun{stdout: out.String(), stderr: errb.String()}
	if err != nil {
		res.code = exitCode(err)
		if msg := errorText(err); msg != "" {
			res.err = errors.New(msg)
		} else {
			res.err = fmt.Errorf("exit status %d", res.code)
		}
	}
	return res
}

// result turns a run into a tool result: the command's JSON report as the
// structured output, its stderr notes as warnings; a failed command is a
// tool error carrying the CLI's message.
func (r cliRun) result() (map[string]any, error) {
	obj, jerr := jsonReport(r.stdout)
	if r.err != nil {
		msg := r.err.Error()
		if s := strings.TrimSpace(r.stdout); s != "" {
			msg += "\n" + s
		}
		return nil, errors.New(msg)
	}
	if jerr != nil {
		obj = map[string]any{"text": r.stdout}
	}
	if w := warnings(r.stderr); len(w) > 0 {
		obj["warnings"] = w
	}
	return obj, nil
}

// jsonReport reads a command's --json report: the whole of stdout, or the
// JSON object that ends it when a line of text came first.
func jsonReport(stdout string) (map[string]any, error) {
	var obj map[string]any
	err := json.Unmarshal([]byte(stdout), &obj)
	if err == nil {
		return obj, nil
	}
	if i := strings.Index(stdout, "\n{"); i >= 0 {
		if json.Unmarshal([]byte(stdout[i+1:]), &obj) == nil {
			return obj, nil
		}
	}
	return nil, err
}

func warnings(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "warning: ")); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// proposal turns a gated command's run into a tool result: a refusal for
// want of confirmation is not an error but the proposal, with what to do.
func (r cliRun) proposal(confirmWith string) (map[string]any, error) {
	if obj, err := jsonReport(r.stdout); err == nil && obj["status"] == "refused" {
		out := map[string]any{
			"written":  false,
			"proposal": obj,
			"message":  errText(r.err),
			"confirm":  "Show the proposal to the person. Only if they say yes, call this tool again with " + confirmWith + ".",
		}
		return out, nil
	}
	obj, err := r.result()
	if err == nil {
		obj["written"] = true
		if s, _ := obj["status"].(string); s != "" && s != "added" && s != "recorded" && s != "promoted" {
			obj["written"] = false
		}
	}
	return obj, err
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Tool inputs: their JSON schemas are what the client sees.
type (
	mcpNoInput    struct{}
	mcpJournalArg struct {
		N int `json:"n,omitempty" jsonschema:"how many of the newest entries to return (default 5)"`
	}
	mcpProgressDoneArg struct {
		Items []string `json:"items" jsonschema:"progress.md items to tick: the exact text, or a unique prefix or substring of it"`
	}
	mcpFollowupsArg struct {
		Transcript string `json:"transcript" jsonschema:"path of the session transcript (Claude Code or Codex JSONL, or text), absolute or relative to the repository"`
	}
	mcpRuleArg struct {
		Rule      string `json:"rule" jsonschema:"the project rule, one sentence (e.g. 'Always run go vet before saying done.')"`
		Confirmed bool   `json:"confirmed,omitempty" jsonschema:"true only after the person said yes to this exact rule; otherwise the proposal is returned and nothing is written"`
	}
	mcpTrapArg struct {
		Title       string `json:"title" jsonschema:"short title of the trap"`
		Pattern     string `json:"pattern" jsonschema:"what went wrong and why it was not caught"`
		Context     string `json:"context" jsonschema:"what was being done when it fired"`
		CatchSignal string `json:"catch_signal" jsonschema:"the check or signal that would have caught it earlier"`
		Scope       string `json:"scope,omitempty" jsonschema:"project (default) or universal"`
		Confirmed   bool   `json:"confirmed,omitempty" jsonschema:"true only after the person said yes to the record exactly as proposed; otherwise it is returned and nothing is written"`
	}
	mcpGateArg struct {
		Approve []string `json:"approve,omitempty" jsonschema:"candidate ids the person decided to promote"`
		Reject  []string `json:"reject,omitempty" jsonschema:"candidate ids the person decided to reject"`
	}
)

func newMCPServer(t *mcpTools, log *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "git-scribe", Title: "git-scribe", Version: version()}, &mcp.ServerOptions{
		Logger:       log,
		Capabilities: &mcp.ServerCapabilities{},
		Instructions: "git-scribe keeps session results in this git repository. Read the bridge note at the start of a task " +
			"(a hypothesis to verify, not a fact). Proposals (rules, traps, memories) are written only after the person says yes: " +
			"show them the proposal, then call again with the confirmation.",
	})
	read := &mcp.ToolAnnotations{ReadOnlyHint: true}
	no := false
	write := &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}

	mcp.AddTool(srv, &mcp.Tool{Name: "bridge_read", Annotations: read,
		Description: "The bridge note the last session left (a hypothesis to verify, not a fact), with a staleness warning naming cited files changed since it was written. Lands queued writes first, like `git scribe bridge`."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoInput) (*mcp.CallToolResult, any, error) {
			obj, err := t.run(ctx, "bridge", "--json").result()
			if err != nil {
				return nil, nil, err
			}
			if stale, _ := obj["stale"].([]any); len(stale) > 0 {
				var files []string
				for _, s := range stale {
					files = append(files, fmt.Sprint(s))
				}
				obj["staleness_warning"] = fmt.Sprintf("cited files changed since this note was written (%v): %s — verify before relying on it",
					obj["written_at"], strings.Join(files, ", "))
			}
			return nil, obj, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "journal_tail", Annotations: read,
		Description: "The newest entries of the append-only journal (`git scribe journal tail N`)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpJournalArg) (*mcp.CallToolResult, any, error) {
			n := in.N
			if n == 0 {
				n = 5
			}
			obj, err := t.run(ctx, "journal", "tail", strconv.Itoa(n), "--json").result()
			return nil, obj, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "progress_list", Annotations: read,
		Description: "progress.md's checkboxes with their headings (`git scribe progress list`)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoInput) (*mcp.CallToolResult, any, error) {
			obj, err := t.run(ctx, "progress", "list", "--json").result()
			return nil, obj, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "progress_done", Annotations: write,
		Description: "Tick progress.md items and commit `progress: ITEM done` (`git scribe progress done`). An ambiguous or unknown item is an error listing the candidates; nothing is written then."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in mcpProgressDoneArg) (*mcp.CallToolResult, any, error) {
			if len(in.Items) == 0 {
				return nil, nil, errors.New("progress done needs at least one ITEM")
			}
			obj, err := t.run(ctx, append(append([]string{"progress", "done"}, in.Items...), "--json")...).result()
			return nil, obj, err
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Annotations: read,
		Description: "Derived state at a glance: vault files, last wrap, queued writes and why they wait, held locks, hook failures (`git scribe status`)."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoInput) (*mcp.CallToolResult, any, error) {
			obj, err := t.run(ctx, "status", "--json").result()
			return nil, obj, err
		})

	// The features below arrive with their commands; a tool is offered only
	// when this build has the command behind it.
	has := func(path ...string) bool {
		c, _, err := NewRootCmd(&Factory{IO: NewIOStreams(nil, io.Discard, io.Discard)}).Find(path)
		return err == nil && c.Name() == path[len(path)-1]
	}
	if has("followups", "extract") {
		mcp.AddTool(srv, &mcp.Tool{Name: "followups_extract", Annotations: read,
			Description: "Follow-ups said in a session transcript that no durable source (journal ### Next, todos.md, PROGRESS.md, active tasks) holds: the orphans a person should route. Reads only; routing is the person's, in the CLI."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in mcpFollowupsArg) (*mcp.CallToolResult, any, error) {
				if in.Transcript == "" {
					return nil, nil, errors.New("followups extract needs a transcript")
				}
				run := t.run(ctx, "followups", "extract", "--transcript", in.Transcript, "--json")
				if run.code == ExitFindings && json.Valid([]byte(run.stdout)) {
					run.err = nil // orphans found: a finding, not a failure
				}
				obj, err := run.result()
				return nil, obj, err
			})
	}
	if has("rule", "propose") {
		mcp.AddTool(srv, &mcp.Tool{Name: "rule_propose", Annotations: write,
			Description: "Propose a project rule for CLAUDE.md's ## Project Rules. Without confirmed=true nothing is written: the proposal comes back for the person (\"Add to CLAUDE.md? Yes / No / Rephrase\"); call again with confirmed=true only after they said yes."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in mcpRuleArg) (*mcp.CallToolResult, any, error) {
				args := []string{"rule", "propose", in.Rule, "--json"}
				if in.Confirmed {
					args = append(args, "--confirmed")
				}
				obj, err := t.run(ctx, args...).proposal("confirmed=true")
				return nil, obj, err
			})
	}
	if has("trap", "propose") {
		mcp.AddTool(srv, &mcp.Tool{Name: "trap_propose", Annotations: write,
			Description: "Propose a novel-trap record (abstracted: project names, paths, hosts, people stripped). Without confirmed=true nothing is written: the record comes back for the person (\"Record as project memory? Yes / No / Edit first\"); call again with confirmed=true only after they said yes."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in mcpTrapArg) (*mcp.CallToolResult, any, error) {
				args := []string{"trap", "propose", "--title", in.Title, "--pattern", in.Pattern, "--context", in.Context,
					"--catch-signal", in.CatchSignal, "--json"}
				if in.Scope != "" {
					args = append(args, "--scope", in.Scope)
				}
				if in.Confirmed {
					args = append(args, "--confirmed")
				}
				obj, err := t.run(ctx, args...).proposal("confirmed=true")
				return nil, obj, err
			})
	}
	if has("compound", "list") && has("compound", "gate") {
		mcp.AddTool(srv, &mcp.Tool{Name: "compound_list", Annotations: read,
			Description: "Pending memory candidates from the compound promotion gate, with their ids, scores and overlap bands."},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ mcpNoInput) (*mcp.CallToolResult, any, error) {
				obj, err := t.run(ctx, "compound", "list", "--json").result()
				return nil, obj, err
			})
		mcp.AddTool(srv, &mcp.Tool{Name: "compound_gate", Annotations: write,
			Description: "Promote or reject memory candidates by id — each id is the person's explicit decision. Without ids nothing is decided: the pending candidates come back as the proposal."},
			func(ctx context.Context, _ *mcp.CallToolRequest, in mcpGateArg) (*mcp.CallToolResult, any, error) {
				if len(in.Approve) == 0 && len(in.Reject) == 0 {
					// A gate without decisions would reject everything
					// (non-interactive); show what awaits a decision instead.
					obj, err := t.run(ctx, "compound", "list", "--json").result()
					if err != nil {
						return nil, nil, err
					}
					return nil, map[string]any{"written": false, "proposal": obj,
						"confirm": "Show the candidates to the person. Call again with approve/reject ids only for the ones they decided."}, nil
				}
				args := []string{"compound", "gate", "--json"}
				for _, id := range in.Approve {
					args = append(args, "--approve", id)
				}
				for _, id := range in.Reject {
					args = append(args, "--reject", id)
				}
				obj, err := t.run(ctx, args...).result()
				return nil, obj, err
			})
	}
	return srv
}
