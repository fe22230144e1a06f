package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/git-scribe/git-scribe/gitops"
)

// The MCP server is an adapter over the same engine calls the commands
// make: every tool takes typed, schema-validated arguments, makes its engine
// call and returns a typed result. Arguments are data: none reaches a
// command line, names a path outside the repository, or picks another
// repository. A write a person must confirm (project rules, traps, memory
// decisions) asks that person through MCP elicitation; tools annotated
// read-only write nothing at all.

func newMCPCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve scribe to an agent over MCP (stdio): bridge note, journal, progress, status, proposals",
		Long: `mcp runs a Model Context Protocol (MCP) server on stdin/stdout, so any agent
that speaks MCP can read scribe's notes and propose writes through tools,
without a shell. stdout carries protocol frames only; logs go to stderr.

Read-only tools (they write nothing, not even queued writes):

  bridge_read        the bridge note, and which files it cites changed since
  journal_tail       the newest journal entries
  progress_list      progress.md checkboxes
  status             queued writes, locks, last wrap
  followups_extract  follow-ups in a transcript that no file holds yet
  compound_list      pending memory candidates

Writing tools:

  progress_done      tick progress.md items (a progress: commit)
  rule_propose       a project rule for CLAUDE.md      (after a person's yes)
  trap_propose       a trap record (a lesson from a mistake checks missed)
                                                       (after a person's yes)
  compound_gate      keep or reject memory candidates (after a person's yes)
  followups_route    file follow-ups nothing holds yet (after a person's yes)

Tool arguments are data, checked against each tool's JSON Schema: never
command-line flags, paths outside the repository, or another repository.

A proposal is written only when the person confirms it in their MCP client:
the server asks them (an MCP elicitation: a question the client shows the
person, not the agent) showing exactly what would be written, and writes on
accept (its commit carries "Scribe-Confirmed: mcp-elicitation").
Decline or cancel writes nothing. A client without elicitation gets
written: false and the git scribe command a person can run instead; the
agent cannot confirm on the person's behalf.

The server serves the repository it was started in (or -C). Started
outside one, it still answers, using the repository its client's roots name,
or an error per call saying so. Register it with Claude Code by
"git scribe init --agent claude --mcp" (.mcp.json), or in any client as:
git scribe mcp (in the repository).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runMCP(c.Context(), f) },
	}
}

func runMCP(ctx context.Context, f *Factory) error {
	log := slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := &mcpServer{env: f.Env}
	if r, err := f.Repo(ctx); err == nil {
		s.dir = r.WorkTree
	} else {
		// Still serve, so the client gets a clear answer to every call
		// rather than a server that died before the handshake.
		s.startErr, s.named = err, f.Dir != ""
		if s.named {
			log.Warn("-C names no git repository; every tool call answers with this error", "error", err)
		} else {
			log.Warn("started outside a git repository; tools use the client's roots", "error", err)
		}
	}
	err := s.server(log).Run(ctx, &mcpStdio{in: f.IO.In, out: f.IO.Out})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil // the client hung up
	}
	return fmt.Errorf("mcp: %w", err)
}

// mcpServer holds what every tool call shares.
type mcpServer struct {
	dir      string // the repository's work tree; "" when started outside one
	startErr error  // why dir is empty
	named    bool   // -C named the directory: the client's roots do not replace it
	env      []string
	writeMu  sync.Mutex // one write at a time (answers from people may arrive together)

	mu    sync.Mutex
	roots map[*mcp.ServerSession]string // the repository a session's roots named
	asks  map[string]pendingAsk         // questions put to a person, by request state
	args  map[string][]string           // each tool's argument names
}

// mcpCall is one tool call's repository, session and request.
type mcpCall struct {
	f   *Factory
	ss  *mcp.ServerSession
	req *mcp.CallToolRequest
}

// multiRoundTrip reports whether the client speaks a protocol version in
// which the server asks for input (elicitation, roots) by returning input
// requests from the call (SEP-2322) rather than by sending requests while
// serving it. The SDK makes the same decision.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// open makes a fresh factory for one call (factories cache and are not
// shared between goroutines), on the server's repository or, when it was
// started outside one, the repository the client's roots name. ask is the
// input request for the client's roots when they are still to be listed.
func (s *mcpServer) open(ctx context.Context, req *mcp.CallToolRequest) (c *mcpCall, ask *mcp.CallToolResult, err error) {
	dir := s.dir
	if dir == "" && s.named {
		return nil, nil, fmt.Errorf("git scribe mcp -C: %s; fix the server's -C in the client's configuration", errorText(s.startErr))
	}
	if dir == "" {
		if dir, ask, err = s.fromRoots(ctx, req); err != nil || ask != nil {
			return nil, ask, err
		}
	}
	f := &Factory{IO: NewIOStreams(strings.NewReader(""), io.Discard, io.Discard), Env: s.env, Dir: dir}
	return &mcpCall{f: f, ss: req.Session, req: req}, nil, nil
}

// fromRoots finds the one git work tree among the client's file:// roots,
// once per session.
func (s *mcpServer) fromRoots(ctx context.Context, req *mcp.CallToolRequest) (string, *mcp.CallToolResult, error) {
	ss := req.Session
	s.mu.Lock()
	dir, ok := s.roots[ss]
	s.mu.Unlock()
	if ok {
		return dir, nil, nil
	}
	why := strings.TrimSuffix(errorText(s.startErr), "; run git scribe inside a git work tree or pass -C <path>")
	fix := "start git scribe mcp in the repository (the client's working directory for the server) or with -C <path>"
	var res *mcp.ListRootsResult
	if multiRoundTrip(ss) {
		got, _ := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if got == nil {
			return "", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
		}
		res = got
	} else {
		var err error
		if res, err = ss.ListRoots(ctx, nil); err != nil {
			return "", nil, fmt.Errorf("git scribe mcp was started outside a git repository (%s) and the client lists no roots (%v); %s", why, err, fix)
		}
	}
	var repos, looked []string
	for _, root := range res.Roots {
		u, err := url.Parse(root.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			continue
		}
		dir := filepath.FromSlash(u.Path)
		looked = append(looked, dir)
		r, err := gitops.Discover(ctx, dir)
		if err != nil {
			continue
		}
		if !contains(repos, r.WorkTree) {
			repos = append(repos, r.WorkTree)
		}
	}
	switch len(repos) {
	case 1:
		s.mu.Lock()
		if s.roots == nil {
			s.roots = map[*mcp.ServerSession]string{}
		}
		s.roots[ss] = repos[0]
		s.mu.Unlock()
		return repos[0], nil, nil
	case 0:
		return "", nil, fmt.Errorf("git scribe mcp was started outside a git repository (%s) and none of the client's roots is in one (%s); %s",
			why, strings.Join(looked, ", "), fix)
	}
	return "", nil, fmt.Errorf("the client's roots name %d repositories (%s) and scribe will not guess which one to use; %s",
		len(repos), strings.Join(repos, ", "), fix)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// addTool registers a typed tool whose handler runs on the call's
// repository; an error becomes an isError result with its message.
func addTool[In any](srv *mcp.Server, s *mcpServer, t *mcp.Tool, h func(context.Context, *mcpCall, In) (any, error)) {
	if s.args == nil {
		s.args = map[string][]string{}
	}
	if schema, ok := t.InputSchema.(*jsonschema.Schema); ok {
		for name := range schema.Properties {
			s.args[t.Name] = append(s.args[t.Name], name)
		}
		sort.Strings(s.args[t.Name])
	}
	mcp.AddTool(srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		c, ask, err := s.open(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		if ask != nil {
			return ask, nil, nil
		}
		// A read-only tool writes nothing: no vault import, no view refresh.
		c.f.readOnly = t.Annotations != nil && t.Annotations.ReadOnlyHint
		out, err := h(ctx, c, in)
		if err != nil {
			msg := errorText(err)
			if msg == "" {
				msg = t.Name + " failed"
			}
			return nil, nil, errors.New(msg)
		}
		if r, ok := out.(*mcp.CallToolResult); ok { // input requests: ask, then the call comes again
			return r, nil, nil
		}
		return nil, out, nil
	})
}

func (s *mcpServer) server(log *slog.Logger) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "git-scribe", Title: "git-scribe", Version: version()}, &mcp.ServerOptions{
		Logger:       log,
		Capabilities: &mcp.ServerCapabilities{},
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) {
			s.mu.Lock()
			delete(s.roots, req.Session) // named again at the next call
			s.mu.Unlock()
		},
		Instructions: "git-scribe keeps session results in this git repository. Read the bridge note at the start of a task " +
			"(a hypothesis to verify, not a fact). Proposals (rules, traps, memories) are written only after the person " +
			"accepts them in the client's confirmation dialog; you cannot confirm for them.",
	})
	srv.AddReceivingMiddleware(s.argumentErrors)
	no := false
	read := func(title string) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	}
	write := func(title string, idempotent bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, DestructiveHint: &no, IdempotentHint: idempotent, OpenWorldHint: &no}
	}

	addTool(srv, s, &mcp.Tool{Name: "bridge_read", Annotations: read("Read the bridge note"), InputSchema: mcpSchema[mcpNoInput](nil),
		Description: "The bridge note the last session left (a hypothesis to verify, not a fact), with a staleness warning naming cited files changed since it was written. Reads only: queued writes are counted, not landed."},
		s.bridgeRead)
	addTool(srv, s, &mcp.Tool{Name: "journal_tail", Annotations: read("Read the newest journal entries"), InputSchema: mcpSchema[mcpJournalArg](tuneJournal),
		Description: "The newest entries of the append-only journal."},
		s.journalTail)
	addTool(srv, s, &mcp.Tool{Name: "progress_list", Annotations: read("List progress.md checkboxes"), InputSchema: mcpSchema[mcpNoInput](nil),
		Description: "progress.md's checkboxes with their headings."},
		s.progressList)
	addTool(srv, s, &mcp.Tool{Name: "status", Annotations: read("Scribe status"), InputSchema: mcpSchema[mcpNoInput](nil),
		Description: "Derived state at a glance: vault files, last wrap, queued writes and why they wait, held locks, hook failures, pending memory candidates."},
		s.status)
	addTool(srv, s, &mcp.Tool{Name: "followups_extract", Annotations: read("Find unpersisted follow-ups"), InputSchema: mcpSchema[mcpFollowupsArg](tuneFollowups),
		Description: "Follow-ups said in a session transcript that no durable source (journal ### Next, todos.md, PROGRESS.md, active tasks) holds: the orphans a person should route. Reads only; routing is the person's, with the command in route_command."},
		s.followupsExtract)
	addTool(srv, s, &mcp.Tool{Name: "compound_list", Annotations: read("List memory candidates"), InputSchema: mcpSchema[mcpNoInput](nil),
		Description: "Pending memory candidates from the compound promotion gate, with their ids, scores and overlap bands."},
		s.compoundList)
	addTool(srv, s, &mcp.Tool{Name: "progress_done", Annotations: write("Tick progress.md items", true), InputSchema: mcpSchema[mcpProgressDoneArg](tuneProgressDone),
		Description: "Tick progress.md items and commit `progress: ITEM done`. Each item is matched as text (exact, else a unique prefix or substring); an ambiguous or unknown item is an error listing the candidates, and nothing is written then."},
		s.progressDone)
	addTool(srv, s, &mcp.Tool{Name: "followups_route", Annotations: write("Route follow-ups", false), InputSchema: mcpSchema[mcpFollowupsRouteArg](tuneFollowupsRoute),
		Description: "Propose where a transcript's orphaned follow-ups go (journal, a project's todos.md, an active task, or skip; see followups_extract for their numbers). The person is asked in the client (MCP elicitation) with every follow-up and its destination file; nothing is routed unless they accept."},
		s.followupsRoute)
	addTool(srv, s, &mcp.Tool{Name: "rule_propose", Annotations: write("Propose a project rule", true), InputSchema: mcpSchema[mcpRuleArg](tuneRule),
		Description: "Propose a project rule for CLAUDE.md's ## Project Rules. The person is asked in the client (MCP elicitation) with the exact rule; it is written only if they accept. Without elicitation nothing is written and the result names the command the person can run."},
		s.rulePropose)
	addTool(srv, s, &mcp.Tool{Name: "trap_propose", Annotations: write("Propose a trap record", true), InputSchema: mcpSchema[mcpTrapArg](tuneTrap),
		Description: "Propose a novel-trap record (abstracted: project names, paths, hosts, people stripped). The person is asked in the client (MCP elicitation) with the record exactly as it would be written; it is written only if they accept."},
		s.trapPropose)
	addTool(srv, s, &mcp.Tool{Name: "compound_gate", Annotations: write("Decide memory candidates", false), InputSchema: mcpSchema[mcpGateArg](tuneGate),
		Description: "Propose promoting or rejecting memory candidates by id (see compound_list). The person is asked in the client (MCP elicitation) with every decision and the text it promotes; nothing is decided unless they accept. Without ids the pending candidates come back and nothing is asked."},
		s.compoundGate)
	return srv
}

// argumentErrors rewrites the SDK's schema-validation failure of a tool
// call into a message that names the tool, says nothing was done and which
// arguments it takes — and, for an agent's "confirmed", why there is none.
func (s *mcpServer) argumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		tc, ok := r.Content[0].(*mcp.TextContent)
		const prefix = `validating "arguments": `
		if !ok || !strings.HasPrefix(tc.Text, prefix) {
			return res, err
		}
		name := ""
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
			name = p.Name
		}
		detail := strings.TrimPrefix(strings.TrimPrefix(tc.Text, prefix), "validating root: ")
		msg := fmt.Sprintf("%s: invalid arguments, nothing done: %s", name, detail)
		if args := s.args[name]; len(args) > 0 {
			msg += " (its arguments: " + strings.Join(args, ", ") + ")"
		} else {
			msg += " (it takes no arguments)"
		}
		if strings.Contains(detail, `"confirmed"`) {
			msg += `; there is no "confirmed": the person confirms a proposal in the client's dialog (MCP elicitation), and an agent cannot confirm for them`
		}
		tc.Text = msg
		return res, err
	}
}
