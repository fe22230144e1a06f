package cmd

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/memory"
	"github.com/git-scribe/git-scribe/vault"
)

// ProposalStatus is what became of a proposal made through MCP.
type ProposalStatus string

// Proposal statuses.
const (
	// ProposalWritten: the person accepted and it was committed (or, for a
	// universal trap, written to the universal memory directory).
	ProposalWritten ProposalStatus = "written"
	// ProposalQueued: the person accepted; the commit waits (principle 4).
	ProposalQueued ProposalStatus = "queued"
	// ProposalExists: already there; nothing to ask, nothing written.
	ProposalExists ProposalStatus = "exists"
	// ProposalDeclined: the person said no; nothing written.
	ProposalDeclined ProposalStatus = "declined"
	// ProposalCancelled: the person dismissed the question; nothing written.
	ProposalCancelled ProposalStatus = "cancelled"
	// ProposalNeedsPerson: nobody could be asked (the client has no
	// elicitation, or asking failed); nothing written.
	ProposalNeedsPerson ProposalStatus = "needs_person"
	// ProposalNothing: nothing to decide (compound_gate without ids).
	ProposalNothing ProposalStatus = "nothing_to_decide"
)

// ProposalResult is the answer of rule_propose, trap_propose and
// compound_gate.
type ProposalResult struct {
	Written bool           `json:"written"`
	Status  ProposalStatus `json:"status"`
	// Proposal is the exact text the person was (or would be) shown.
	Proposal string `json:"proposal"`
	// ConfirmedBy is how the person said yes (the Scribe-Confirmed value).
	ConfirmedBy string `json:"confirmed_by,omitempty"`
	Message     string `json:"message"`
	// Command is what the person can run in a terminal instead.
	Command string `json:"command,omitempty"`
	// Result is the engine's report of the write.
	Result any `json:"result,omitempty"`
	// Pending reports confirmed writes of earlier runs landed first.
	Pending *memory.PendingReport `json:"pending,omitempty"`
}

// personAnswer is how a question to the person ended.
type personAnswer int

const (
	answerAccept personAnswer = iota
	answerDecline
	answerCancel
	answerNobody // the client cannot ask
)

// pendingAsk is a question put to a person: the digest of the exact
// proposal it showed, so that only an answer to that question, once, can
// confirm that proposal.
type pendingAsk struct {
	digest  [sha256.Size]byte
	created time.Time
}

// askTTL bounds how long a question waits for its answer.
const askTTL = 30 * time.Minute

// ask puts the proposal to the person through MCP elicitation, with no
// fields to fill: accept or decline is the whole answer. It is a
// multi-round-trip exchange: the first call returns the question as an input
// request (the SDK sends it as elicitation/create to clients of older
// protocol versions) and the call comes again with the person's answer and
// the request state naming the question. An answer that does not name a
// question this server asked about this exact proposal is refused: the
// agent cannot answer for the person.
func (s *mcpServer) ask(c *mcpCall, tool, message, proposal string) (personAnswer, string, *mcp.CallToolResult, error) {
	digest := sha256.Sum256([]byte(tool + "\x00" + c.f.Dir + "\x00" + proposal))
	p := c.req.Params
	answer, _ := p.InputResponses["confirm"].(*mcp.ElicitResult)
	if answer == nil && p.RequestState == "" {
		ip := c.ss.InitializeParams()
		if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
			return answerNobody, "this MCP client does not support elicitation, so the person cannot be asked here", nil, nil
		}
		if e := ip.Capabilities.Elicitation; e.Form == nil && e.URL != nil {
			return answerNobody, "this MCP client supports only URL elicitation, so the person cannot be asked here", nil, nil
		}
		var nonce [16]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return answerNobody, "", nil, fmt.Errorf("make a question id: %w", err)
		}
		state := hex.EncodeToString(nonce[:])
		s.mu.Lock()
		if s.asks == nil {
			s.asks = map[string]pendingAsk{}
		}
		for k, a := range s.asks {
			if time.Since(a.created) > askTTL {
				delete(s.asks, k)
			}
		}
		s.asks[state] = pendingAsk{digest: digest, created: time.Now()}
		s.mu.Unlock()
		return 0, "", &mcp.CallToolResult{RequestState: state, InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
			Mode: "form", Message: message, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}}}}}, nil
	}
	s.mu.Lock()
	asked, ok := s.asks[p.RequestState]
	delete(s.asks, p.RequestState) // one answer per question
	s.mu.Unlock()
	if !ok || asked.digest != digest || time.Since(asked.created) > askTTL || answer == nil {
		return answerNobody, "", nil, errors.New("nothing written: this answer does not belong to a question this server put to the person about exactly this proposal (or it expired); call the tool again without inputResponses so the person is asked")
	}
	switch answer.Action {
	case "accept":
		return answerAccept, "", nil, nil
	case "decline":
		return answerDecline, "", nil, nil
	}
	return answerCancel, "", nil, nil
}

// propose runs one confirmation: ask, then write on accept. write makes the
// write with a store confirmed by elicitation and says what became of it.
func (s *mcpServer) propose(ctx context.Context, c *mcpCall, st *memory.Store, tool, question, proposal, command string,
	onDecline func(), write func(context.Context, *memory.Store) (any, ProposalStatus, error)) (any, error) {
	if c.f.Active() {
		return nil, errActive
	}
	res := ProposalResult{Proposal: proposal, Command: command}
	ans, why, input, err := s.ask(c, tool, question+"\n\n"+proposal, proposal)
	if err != nil {
		return nil, err
	}
	if input != nil {
		return input, nil
	}
	switch ans {
	case answerNobody:
		res.Status = ProposalNeedsPerson
		res.Message = "nothing written: " + why + ". Show the proposal to the person; if they want it, they run the command in `command` themselves. Your own confirmation does not count."
		return res, nil
	case answerDecline:
		if onDecline != nil {
			onDecline()
		}
		res.Status, res.Message = ProposalDeclined, "nothing written: the person declined"
		return res, nil
	case answerCancel:
		res.Status, res.Message = ProposalCancelled, "nothing written: the person dismissed the question without answering"
		return res, nil
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if st != nil { // a memory write: land the person's earlier confirmed ones first
		st.ConfirmedVia = memory.ConfirmedMCPElicitation
		if st.PendingCount() > 0 {
			rep := st.LandPending(ctx)
			res.Pending = &rep
		}
	}
	out, status, err := write(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("the person accepted, but the write failed: %w", err)
	}
	res.Result, res.Status, res.ConfirmedBy = out, status, memory.ConfirmedMCPElicitation
	switch status {
	case ProposalWritten:
		res.Written, res.Message = true, "written: the person accepted in the client"
	case ProposalQueued:
		res.Message = "the person accepted; the commit cannot be made now and waits as a pending write (status shows it)"
	case ProposalExists:
		res.Message = "nothing to write: it is recorded already"
	}
	return res, nil
}

func (s *mcpServer) rulePropose(ctx context.Context, c *mcpCall, in mcpRuleArg) (any, error) {
	st, err := c.f.Memory(ctx)
	if err != nil {
		return nil, err
	}
	rule := memory.CleanRule(redact(in.Rule))
	if rule == "" {
		return nil, fmt.Errorf("the rule is empty once cleaned; give it as one sentence")
	}
	claude := st.Config.Paths.ClaudeMD
	command := "git scribe rule propose -- " + shellQuote(rule) // "--": a rule may start with "-"
	if cur, err := readWorktree(st, claude); err == nil && memory.HasRule(cur, rule) {
		return ProposalResult{Status: ProposalExists, Proposal: rule, Message: claude + " already has this rule; nothing to do"}, nil
	}
	question := fmt.Sprintf("An agent proposes a project rule for %s (under \"## Project Rules\"). Accept writes it exactly as below and commits \"progress: project rule added\"; decline writes nothing.", claude)
	return s.propose(ctx, c, st, "rule_propose", question, rule, command,
		func() { _ = st.DeclineRule(rule) }, // as at the terminal: not proposed again by rule detect
		func(ctx context.Context, st *memory.Store) (any, ProposalStatus, error) {
			r, err := st.AddRule(ctx, rule)
			return r, proposalStatus(r.Status), err
		})
}

func (s *mcpServer) trapPropose(ctx context.Context, c *mcpCall, in mcpTrapArg) (any, error) {
	tin := memory.TrapInput{Title: in.Title, Pattern: in.Pattern, Context: in.Context, CatchSignal: in.CatchSignal, Scope: in.Scope, Flavor: in.Flavor}
	for _, f := range []struct{ name, val string }{{"title", in.Title}, {"pattern", in.Pattern}, {"context", in.Context}, {"catch_signal", in.CatchSignal}} {
		if strings.TrimSpace(f.val) == "" {
			return nil, fmt.Errorf("%s is blank: a trap records its title, pattern, context and catch_signal", f.name)
		}
	}
	if err := memory.ValidateTrapInput(tin); err != nil {
		return nil, err
	}
	st, err := c.f.Memory(ctx)
	if err != nil {
		return nil, err
	}
	trap := redactTrap(memory.AbstractTrap(tin, c.f.abstractor(ctx)))
	where := fmt.Sprintf("project memory (%s, committed)", path.Join(strings.TrimSuffix(st.Config.Paths.TrapDir, "/"), trap.FileName("")))
	if trap.Scope == memory.ScopeUniversal {
		where = fmt.Sprintf("universal memory (%s, outside this repository, not committed)", st.UniversalDir)
	}
	command := fmt.Sprintf("git scribe trap propose --title=%s --pattern=%s --context=%s --catch-signal=%s",
		shellQuote(in.Title), shellQuote(in.Pattern), shellQuote(in.Context), shellQuote(in.CatchSignal))
	if in.Scope != "" {
		command += " --scope=" + in.Scope
	}
	if in.Flavor != "" {
		command += " --flavor=" + in.Flavor
	}
	question := fmt.Sprintf("An agent proposes a trap record for %s. Accept writes it exactly as below; decline writes nothing.", where)
	return s.propose(ctx, c, st, "trap_propose", question, trap.Render(), command, nil,
		func(ctx context.Context, st *memory.Store) (any, ProposalStatus, error) {
			r, err := st.RecordTrap(ctx, trap)
			return r, proposalStatus(r.Status), err
		})
}

func (s *mcpServer) compoundGate(ctx context.Context, c *mcpCall, in mcpGateArg) (any, error) {
	st, err := c.f.Memory(ctx)
	if err != nil {
		return nil, err
	}
	if len(in.Approve)+len(in.Reject) == 0 {
		out, _ := buildCompoundList(st)
		return ProposalResult{Status: ProposalNothing, Result: out,
			Message: "nothing asked, nothing written: call again with the ids to approve and reject (the person is asked to confirm them)"}, nil
	}
	q, _ := st.Queue()
	byID := map[string]memory.Candidate{}
	for _, cd := range q {
		byID[cd.ID] = cd
	}
	var ds []memory.Decision
	seen := map[string]bool{}
	var b strings.Builder
	command := "git scribe compound gate"
	for _, group := range []struct {
		ids    []string
		action memory.Action
		head   string
		flag   string
	}{{in.Approve, memory.ActionApproved, "Promote to memory (" + st.Config.Paths.MemoryDir + "):", "--approve"},
		{in.Reject, memory.ActionRejected, "Reject (kept in the rejection history, not proposed again):", "--reject"}} {
		if len(group.ids) > 0 {
			fmt.Fprintf(&b, "%s\n", group.head)
		}
		for _, id := range group.ids {
			cd, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("candidate %q is not queued; nothing asked, nothing written (compound_list shows the queued ids)", id)
			}
			if seen[id] {
				return nil, fmt.Errorf("candidate %s is named twice (approve and reject, or repeated); nothing asked, nothing written", id)
			}
			seen[id] = true
			ds = append(ds, memory.Decision{Candidate: cd, Action: group.action})
			fmt.Fprintf(&b, "  - %s %s: %s\n", cd.ID, cd.Name, cd.Description)
			if group.action == memory.ActionApproved && strings.TrimSpace(cd.Content) != "" {
				fmt.Fprintf(&b, "%s\n", indent(cd.Content, "      "))
			}
			command += " " + group.flag + "=" + shellQuote(id)
		}
	}
	question := "An agent proposes these memory decisions. Accept applies all of them in one commit; decline decides nothing (the candidates stay queued)."
	return s.propose(ctx, c, st, "compound_gate", question, strings.TrimRight(b.String(), "\n"), command, nil,
		func(ctx context.Context, st *memory.Store) (any, ProposalStatus, error) {
			disabled, warns := st.NoteExplicit(ds)
			r, err := st.ApplyDecisions(ctx, ds)
			r.Disabled = disabled
			r.Warnings = append(warns, r.Warnings...)
			status := ProposalWritten
			switch r.Status {
			case "queued":
				status = ProposalQueued
			case "nothing":
				status = ProposalExists
			}
			return r, status, err
		})
}

// proposalStatus maps a rule's or trap's engine status.
func proposalStatus(s string) ProposalStatus {
	switch s {
	case "added", "recorded":
		return ProposalWritten
	case "queued":
		return ProposalQueued
	}
	return ProposalExists
}

// mcpRouteArg is one proposed destination for an orphan.
type mcpRouteArg struct {
	Item    string `json:"item" jsonschema:"the orphan: its number n in followups_extract's orphans, or its text"`
	To      string `json:"to" jsonschema:"journal, todos, active or skip"`
	Project string `json:"project,omitempty" jsonschema:"the project for todos and active (default: the item's (project) tag, else the repository's)"`
	Task    string `json:"task,omitempty" jsonschema:"the active task (optional when the project has exactly one)"`
}

// mcpFollowupsRouteArg is followups_route's input.
type mcpFollowupsRouteArg struct {
	Transcript string        `json:"transcript,omitempty" jsonschema:"the transcript followups_extract read (same rules); leave it out to route the follow-ups agent sessions kept on the vault (numbered as git scribe followups lists them)"`
	Routes     []mcpRouteArg `json:"routes" jsonschema:"where each orphan should go; orphans no route names stay unrouted"`
}

func tuneFollowupsRoute(ps map[string]*jsonschema.Schema) {
	boundText(ps["transcript"], 4096)
	r := ps["routes"]
	r.Type, r.Types = "array", nil
	r.MinItems, r.MaxItems = intPtr(1), intPtr(100)
	item := r.Items.Properties
	boundText(item["item"], 1000)
	item["to"].Enum = []any{followups.RouteJournal, followups.RouteTodos, followups.RouteActive, followups.RouteSkip}
	for _, k := range []string{"project", "task"} { // they name directories: one plain name each
		boundText(item[k], 100)
		item[k].Pattern = `^[A-Za-z0-9][A-Za-z0-9._-]*$`
	}
}

// routeKept proposes where the follow-ups agent sessions kept on the vault
// go (issue 11: nothing silently lost in hook mode; MCP can elicit) and
// routes them once the person accepts the exact list of destinations.
func (s *mcpServer) routeKept(ctx context.Context, c *mcpCall, v *vault.Vault, in mcpFollowupsRouteArg) (any, error) {
	pending, err := v.PendingFollowups(ctx)
	if err != nil {
		return nil, err
	}
	if len(pending) == 0 {
		return nil, errors.New("nothing asked, nothing routed: no follow-ups wait for routing (git scribe followups lists them)")
	}
	rf, err := routeFile(in.Routes)
	if err != nil {
		return nil, err
	}
	cands := vault.Candidates(pending)
	routes, unknown := rf.Apply(cands, v.Similarity())
	if len(unknown) > 0 {
		return nil, fmt.Errorf("nothing asked, nothing routed: no kept follow-up matches %s (git scribe followups lists them with their numbers)", strings.Join(quoteAll(unknown), ", "))
	}
	if len(routes) == 0 {
		return nil, errors.New("nothing asked, nothing routed: these routes name no kept follow-up")
	}
	srcs, _, err := v.FollowupSources(ctx, nil)
	if err != nil {
		return nil, err
	}
	assigns, err := v.Assign(cands, routes, srcs)
	if err != nil {
		return nil, fmt.Errorf("nothing asked, nothing routed: %w", err)
	}
	b := describeRoutes(assigns, "skipped")
	question := "An agent proposes routing these follow-ups its sessions kept. Accept writes them; decline routes nothing."
	return s.propose(ctx, c, nil, "followups_route", question, b, "git scribe followups route", nil,
		func(ctx context.Context, _ *memory.Store) (any, ProposalStatus, error) {
			now, err := v.PendingFollowups(ctx)
			if err != nil {
				return nil, "", err
			}
			again, _ := rf.Apply(vault.Candidates(now), v.Similarity()) // what the person saw, by text
			rep, err := v.RoutePending(ctx, now, again)
			if err != nil {
				return nil, "", err
			}
			status := ProposalExists
			if rep != nil {
				switch rep.Status {
				case "committed":
					status = ProposalWritten
				case "queued":
					status = ProposalQueued
				}
			}
			return map[string]any{"decided": len(again), "routing": rep}, status, nil
		})
}

// followupsRoute proposes where a transcript's orphans go and routes them
// once the person accepts the exact list of destinations.
func (s *mcpServer) followupsRoute(ctx context.Context, c *mcpCall, in mcpFollowupsRouteArg) (any, error) {
	if c.f.Active() {
		return nil, errActive
	}
	v, err := c.f.Vault(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Transcript) == "" {
		return s.routeKept(ctx, c, v, in)
	}
	path, err := transcriptPath(v.Repo, in.Transcript, c.f.getenv("HOME"))
	if err != nil {
		return nil, err
	}
	rf, err := routeFile(in.Routes)
	if err != nil {
		return nil, err
	}
	theta := v.Similarity()
	ex, err := v.ExtractConversation(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", in.Transcript, err)
	}
	routes, unknown := rf.Apply(ex.Orphans, theta)
	if len(unknown) > 0 {
		return nil, fmt.Errorf("nothing asked, nothing routed: no orphan matches %s (followups_extract lists them with their numbers)", strings.Join(quoteAll(unknown), ", "))
	}
	if len(routes) == 0 {
		return nil, errors.New("nothing asked, nothing routed: the transcript has no orphan these routes name")
	}
	assigns, err := v.Assign(ex.Orphans, routes, ex.Sources)
	if err != nil {
		return nil, fmt.Errorf("nothing asked, nothing routed: %w", err)
	}
	b := describeRoutes(assigns, "skipped (reported as potentially lost)")
	command := "git scribe followups extract --transcript " + shellQuote(path) + " (answer the prompt, or pass --route FILE with these routes)"
	question := "An agent proposes routing these follow-ups from the session. Accept writes them (one commit); decline routes nothing."
	return s.propose(ctx, c, nil, "followups_route", question, b, command, nil,
		func(ctx context.Context, _ *memory.Store) (any, ProposalStatus, error) {
			fr, err := v.ExtractAndRoute(ctx, vault.ExtractOptions{Transcript: path,
				Ask: func(fr *vault.FollowupsReport) (map[int]followups.Route, error) {
					r, _ := rf.Apply(fr.Orphans, theta) // the same transcript, the same routes: what the person saw
					return r, nil
				}})
			if err != nil {
				return nil, "", err
			}
			status := ProposalExists
			if fr.Routing != nil {
				switch fr.Routing.Status {
				case "committed":
					status = ProposalWritten
				case "queued":
					status = ProposalQueued
				}
			}
			return fr, status, nil
		})
}

// routeFile turns a tool's routes into the decision file's form.
func routeFile(routes []mcpRouteArg) (followups.RouteFile, error) {
	rf := followups.RouteFile{}
	for _, r := range routes {
		if strings.Contains(r.Task+r.Project, "..") {
			return rf, fmt.Errorf("route %q: project and task are plain names, without \"..\"", r.Item)
		}
		rf.Routes = append(rf.Routes, followups.Route{Item: r.Item, To: r.To, Project: r.Project, Task: r.Task})
	}
	return rf, nil
}

// describeRoutes is what the person is shown: each follow-up and where it
// would go (skipped says what a skip means here).
func describeRoutes(assigns []followups.Assignment, skipped string) string {
	var b strings.Builder
	for _, a := range assigns {
		where := a.Path
		switch {
		case a.To == followups.RouteSkip:
			where = skipped
		case a.To == followups.RouteJournal:
			where = "the journal's ### Next (a new entry)"
		case a.Task != "":
			where += " (active task " + a.Task + ")"
		}
		fmt.Fprintf(&b, "  %d. %s\n     → %s\n", a.Candidate.N, a.Candidate.Text, where)
	}
	return strings.TrimRight(b.String(), "\n")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
