package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// Tool inputs. Their JSON schemas (additionalProperties: false, with the
// bounds the tune functions add) are what the client sees and what the SDK
// validates every call against before a handler runs.
type (
	mcpNoInput    struct{}
	mcpJournalArg struct {
		N int `json:"n,omitempty" jsonschema:"how many of the newest entries to return (1-200, default 5)"`
	}
	mcpProgressDoneArg struct {
		Items []string `json:"items" jsonschema:"progress.md items to tick: the exact text, or a unique prefix or substring of it"`
	}
	mcpFollowupsArg struct {
		Transcript string `json:"transcript" jsonschema:"the session transcript (Claude Code or Codex JSONL, or text): a path inside the repository (relative to its top), or this repository's Claude Code transcript under ~/.claude/projects"`
	}
	mcpRuleArg struct {
		Rule string `json:"rule" jsonschema:"the project rule, one sentence (e.g. 'Always run go vet before saying done.')"`
	}
	mcpTrapArg struct {
		Title       string `json:"title" jsonschema:"short title of the trap"`
		Pattern     string `json:"pattern" jsonschema:"what went wrong and why it was not caught"`
		Context     string `json:"context" jsonschema:"what was being done when it fired"`
		CatchSignal string `json:"catch_signal" jsonschema:"the check or signal that would have caught it earlier"`
		Scope       string `json:"scope,omitempty" jsonschema:"project (default) or universal"`
		Flavor      string `json:"flavor,omitempty" jsonschema:"verification_failure (default) or spec_gap"`
	}
	mcpGateArg struct {
		Approve []string `json:"approve,omitempty" jsonschema:"candidate ids to propose for promotion"`
		Reject  []string `json:"reject,omitempty" jsonschema:"candidate ids to propose for rejection"`
	}
)

// mcpSchema is T's input schema, tightened by tune.
func mcpSchema[T any](tune func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp input schema: %v", err)) // a programming error, caught by every test
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	if tune != nil {
		tune(s.Properties)
	}
	return s
}

func intPtr(n int) *int           { return &n }
func floatPtr(n float64) *float64 { return &n }

// boundText makes p a non-empty string of at most max characters.
func boundText(p *jsonschema.Schema, max int) {
	p.Type, p.Types = "string", nil
	p.MinLength, p.MaxLength = intPtr(1), intPtr(max)
}

// boundList makes p an array of such strings, min to max of them.
func boundList(p *jsonschema.Schema, min, max, each int) {
	p.Type, p.Types = "array", nil
	p.MinItems, p.MaxItems = intPtr(min), intPtr(max)
	boundText(p.Items, each)
}

func tuneJournal(ps map[string]*jsonschema.Schema) {
	ps["n"].Minimum, ps["n"].Maximum = floatPtr(1), floatPtr(200)
	ps["n"].Default = json.RawMessage("5")
}

func tuneProgressDone(ps map[string]*jsonschema.Schema) { boundList(ps["items"], 1, 50, 500) }

func tuneFollowups(ps map[string]*jsonschema.Schema) { boundText(ps["transcript"], 4096) }

func tuneRule(ps map[string]*jsonschema.Schema) { boundText(ps["rule"], 1000) }

func tuneTrap(ps map[string]*jsonschema.Schema) {
	for _, k := range []string{"title", "pattern", "context", "catch_signal"} {
		boundText(ps[k], 2000)
	}
	ps["scope"].Enum = []any{"project", "universal"}
	ps["flavor"].Enum = []any{"verification_failure", "spec_gap"}
}

func tuneGate(ps map[string]*jsonschema.Schema) {
	boundList(ps["approve"], 0, 100, 200)
	boundList(ps["reject"], 0, 100, 200)
}

// BridgeResult is the bridge_read tool's answer.
type BridgeResult struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Branch string `json:"branch,omitempty"`
	// FromBranch names the branch whose note this is when the checked-out
	// branch has none yet (the newest note of the repository).
	FromBranch       string   `json:"from_branch,omitempty"`
	Text             string   `json:"text"`
	WrittenAt        string   `json:"written_at,omitempty"`
	Stale            []string `json:"stale"`
	StalenessWarning string   `json:"staleness_warning,omitempty"`
	// Queued counts writes waiting to land; this tool never lands them.
	Queued     int    `json:"queued"`
	QueuedNote string `json:"queued_note,omitempty"`
}

func (s *mcpServer) bridgeRead(ctx context.Context, c *mcpCall, _ mcpNoInput) (any, error) {
	v, err := c.f.Vault(ctx)
	if err != nil {
		return nil, err
	}
	bv, err := v.Bridge(ctx)
	if err != nil {
		return nil, err
	}
	res := BridgeResult{Path: bv.Path, Exists: bv.Exists, Branch: bv.Branch, FromBranch: bv.FromBranch, WrittenAt: bv.Commit, Stale: nonNil(bv.Stale)}
	if bv.Exists {
		res.Text = bv.Text
		if budget := v.Config.BridgeTokens * 4; len(res.Text) > budget { // ~4 bytes a token, as `git scribe bridge`
			res.Text = res.Text[:budget] + "\n[… truncated to the bridge_tokens budget]\n"
		}
	}
	if len(bv.Stale) > 0 {
		res.StalenessWarning = fmt.Sprintf("cited files changed since this note was written (%s): %s — verify before relying on it",
			shortRef(bv.Commit), strings.Join(bv.Stale, ", "))
	}
	if q, err := v.Repo.Queued(); err == nil && len(q) > 0 {
		res.Queued = len(q)
		res.QueuedNote = fmt.Sprintf("%d queued write(s) wait; the next writing command (git scribe wrap, progress_done) lands them — this tool only reads", len(q))
	}
	return res, nil
}

// JournalResult is the journal_tail tool's answer.
type JournalResult struct {
	Path    string       `json:"path"`
	Exists  bool         `json:"exists"`
	Entries []JournalRow `json:"entries"`
}

func (s *mcpServer) journalTail(ctx context.Context, c *mcpCall, in mcpJournalArg) (any, error) {
	n := in.N
	if n == 0 {
		n = 5
	}
	v, err := c.f.Vault(ctx)
	if err != nil {
		return nil, err
	}
	_, files, err := v.ReadVault(ctx, notes.VaultJournal)
	if err != nil {
		return nil, err
	}
	b, ok := files[notes.VaultJournal]
	entries := notes.ParseJournal(string(b)).Entries
	if len(entries) > n {
		entries = entries[len(entries)-n:]
	}
	return JournalResult{Path: gitops.VaultRef + ":" + notes.VaultJournal, Exists: ok, Entries: journalRows(entries)}, nil
}

// ProgressResult is the progress_list tool's answer.
type ProgressResult struct {
	Path   string        `json:"path"`
	Exists bool          `json:"exists"`
	Items  []ProgressRow `json:"items"`
}

func (s *mcpServer) progressList(ctx context.Context, c *mcpCall, _ mcpNoInput) (any, error) {
	v, err := c.f.Vault(ctx)
	if err != nil {
		return nil, err
	}
	items, ok, err := v.Progress(ctx)
	if err != nil {
		return nil, err
	}
	return ProgressResult{Path: v.Config.Paths.Progress, Exists: ok, Items: progressRows(items)}, nil
}

func (s *mcpServer) status(ctx context.Context, c *mcpCall, _ mcpNoInput) (any, error) {
	return buildStatus(ctx, c.f)
}

func (s *mcpServer) compoundList(ctx context.Context, c *mcpCall, _ mcpNoInput) (any, error) {
	st, err := c.f.Memory(ctx)
	if err != nil {
		return nil, err
	}
	out, warns := buildCompoundList(st)
	return struct {
		compoundList
		Warnings []string `json:"warnings,omitempty"`
	}{out, warns}, nil
}

// errActive is every writing tool's answer inside scribe (an agent scribe
// started): scribe does not write on its own behalf from there.
var errActive = errors.New("GIT_SCRIBE_ACTIVE is set (this server runs inside scribe); it writes nothing")

func (s *mcpServer) progressDone(ctx context.Context, c *mcpCall, in mcpProgressDoneArg) (any, error) {
	if c.f.Active() {
		return nil, errActive
	}
	v, err := c.f.Vault(ctx)
	if err != nil {
		return nil, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	rep, err := v.ProgressDone(ctx, in.Items)
	if err != nil {
		return nil, fmt.Errorf("nothing ticked: %w", err)
	}
	return rep, nil
}

// FollowupsResult is the followups_extract tool's answer.
type FollowupsResult struct {
	followups.Extraction
	// RouteCommand is what a person runs to route the orphans.
	RouteCommand string `json:"route_command,omitempty"`
}

func (s *mcpServer) followupsExtract(ctx context.Context, c *mcpCall, in mcpFollowupsArg) (any, error) {
	v, err := c.f.Vault(ctx)
	if err != nil {
		return nil, err
	}
	path, err := transcriptPath(v.Repo, in.Transcript, c.f.getenv("HOME"))
	if err != nil {
		return nil, err
	}
	ex, err := v.ExtractConversation(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", in.Transcript, err)
	}
	res := FollowupsResult{Extraction: ex}
	if len(ex.Orphans) > 0 {
		res.RouteCommand = "git scribe followups extract --transcript " + shellQuote(path)
	}
	return res, nil
}

// transcriptPath resolves a transcript argument to a file the server may
// read: inside the repository's work tree (not its git dir, no symlink out),
// or a Claude Code transcript of this work tree
// (~/.claude/projects/<work tree with every non-alphanumeric as "-">/).
func transcriptPath(r *gitops.Repo, arg, home string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("transcript %q: %s; give a path inside the repository (relative to %s) or this repository's Claude Code transcript under ~/.claude/projects", arg, why, r.WorkTree)
	}
	if strings.ContainsRune(arg, 0) {
		return "", bad("contains a NUL byte")
	}
	p := filepath.Clean(arg)
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.WorkTree, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", bad("no such file")
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", bad("not a regular file")
	}
	allowed := []string{r.WorkTree}
	if home != "" {
		allowed = append(allowed, filepath.Join(home, ".claude", "projects", claudeProjectSlug(r.WorkTree)))
	}
	for _, root := range allowed {
		rr, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rr, real); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			if root == r.WorkTree && (rel == ".git" || strings.HasPrefix(rel, ".git"+string(filepath.Separator))) {
				return "", bad("inside the git dir")
			}
			for _, gd := range []string{r.GitDir, r.CommonDir} {
				if g, err := filepath.EvalSymlinks(gd); err == nil {
					if rel, err := filepath.Rel(g, real); err == nil && !strings.HasPrefix(rel, "..") {
						return "", bad("inside the git dir")
					}
				}
			}
			return real, nil
		}
	}
	return "", bad("outside the repository")
}

// claudeProjectSlug is how Claude Code names a work tree's transcript
// directory: every character but letters and digits becomes "-".
func claudeProjectSlug(dir string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, dir)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
