package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
)

// Options are init's choices.
type Options struct {
	Agent string // claude, codex or none
	Hooks bool   // install the post-commit hook
	CI    string // github or ""
	MCP   bool   // register `git scribe mcp` in the agent's project MCP config
	Local bool   // claude: write the personal .claude/settings.local.json
	// Version is what the CI job installs: the version (or commit) of the
	// git-scribe that writes it; "" installs @latest.
	Version string
}

// Change is one step of the plan.
type Change struct {
	Path   string `json:"path"`
	Action string `json:"action"` // create, update, config, hook
	What   string `json:"what"`
	// Personal marks a file that is the user's alone (git-ignored): the
	// suggested git add leaves it out.
	Personal bool `json:"personal,omitempty"`
	after    []byte
	mode     fs.FileMode
	apply    func() error
}

// Plan is everything init would do; Unchanged lists what is already set up.
type Plan struct {
	Changes   []Change `json:"changes"`
	Unchanged []string `json:"unchanged"`
	Warnings  []string `json:"warnings,omitempty"`
	Notes     []string `json:"notes,omitempty"` // what the user should know about a change
	repo      *gitops.Repo
	hooks     bool
	hasOrigin bool
	ctx       context.Context
}

const (
	// ScribeRefspec makes plain `git fetch` bring the remote's scribe refs
	// into a tracking namespace of their own, refs/scribe/remotes/<remote>/
	// (gitops.ScribeFetchRefspec): a fetch never overwrites local refs (the
	// local locks above all), and unlike refs/remotes/<remote>/scribe/* it
	// cannot collide with a remote branch named "scribe" (git cannot store
	// both, and the user's plain fetch would fail). No push refspec is
	// written: a remote.<name>.push entry replaces push.default, so a plain
	// `git push` would stop pushing the current branch; `git scribe sync`
	// publishes the scribe refs.
	ScribeRefspec = "+refs/scribe/*:refs/scribe/remotes/%s/*"
	// legacyScribeRefspec is what earlier versions wrote; init replaces it.
	legacyScribeRefspec = "+refs/scribe/*:refs/remotes/%s/scribe/*"
)

// Build computes the plan without writing anything.
func Build(ctx context.Context, r *gitops.Repo, cfg config.Config, o Options) (*Plan, error) {
	p := &Plan{repo: r, hooks: o.Hooks, ctx: ctx, Changes: []Change{}, Unchanged: []string{}, Warnings: []string{}, Notes: []string{}}
	switch o.Agent {
	case "", "none", "claude", "codex":
	default:
		return nil, fmt.Errorf("unknown agent %q: use claude, codex or none", o.Agent)
	}
	switch o.CI {
	case "", "none", "github":
	default:
		return nil, fmt.Errorf("unknown CI %q: use github", o.CI)
	}
	if o.Local && o.Agent != "claude" {
		return nil, fmt.Errorf("--local writes Claude Code's .claude/settings.local.json: use it with --agent claude")
	}
	memoryIndex := path.Join(strings.TrimSuffix(cfg.Paths.MemoryDir, "/"), "MEMORY.md")
	steps := []func() error{
		func() error {
			return p.file(config.RepoFile, func(cur []byte, ok bool) ([]byte, string) { return scribeYAML(cur, ok) })
		},
		func() error {
			return p.file(".gitignore", func(cur []byte, ok bool) ([]byte, string) { return gitignore(cur, cfg.Paths, o.Local) })
		},
		func() error { return p.vaultDir(filepath.Dir(cfg.Paths.Journal)) },
		p.refspec,
		p.fetchVault,
	}
	if o.Hooks {
		steps = append(steps, p.hook)
	}
	if o.Agent == "claude" {
		steps = append(steps, func() error { return p.claudeSettings(o.Local) },
			func() error { return p.file(cfg.Paths.ClaudeMD, claudeMD(cfg.Paths.ClaudeMD, memoryIndex)) })
	}
	if o.Agent == "codex" {
		steps = append(steps, p.codexHooks, func() error { return p.file("AGENTS.md", agentsMD(memoryIndex)) })
	}
	if o.CI == "github" {
		steps = append(steps, func() error { return p.file(".github/workflows/scribe-check.yml", workflow(o.Version)) })
	}
	if o.MCP {
		steps = append(steps, func() error { return p.mcpConfig(o.Agent) })
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// file plans a merge of one repo file: edit returns the new content (nil for
// "leave it") and a description; errors in existing content become warnings.
func (p *Plan) file(rel string, edit func(cur []byte, ok bool) ([]byte, string)) error {
	abs, err := p.repo.Abs(rel)
	if err != nil {
		return err
	}
	cur, err := os.ReadFile(abs)
	ok := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", rel, err)
	}
	if !ok {
		// A tracked file a sparse checkout leaves out of the work tree:
		// merged into its committed text, never replaced by a new file
		// the suggested `git add` would commit over it.
		if cur, ok, err = p.repo.ReadCheckedOut(p.ctx, rel); err != nil {
			return fmt.Errorf("read %s: %w", rel, err)
		}
	}
	next, what := edit(cur, ok)
	if strings.HasPrefix(what, "warning: ") {
		p.Warnings = append(p.Warnings, rel+": "+strings.TrimPrefix(what, "warning: "))
		p.Unchanged = append(p.Unchanged, rel)
		return nil
	}
	if next == nil || (ok && bytes.Equal(next, cur)) {
		p.Unchanged = append(p.Unchanged, rel)
		return nil
	}
	action := "update"
	if !ok {
		action = "create"
	}
	p.Changes = append(p.Changes, Change{Path: rel, Action: action, What: what, after: next, mode: 0o644,
		apply: func() error { return gitops.WriteFileAtomic(abs, next) }})
	return nil
}

// ClaudeLocalSettings is Claude Code's personal settings file: Claude Code
// git-ignores it, and so does init's .gitignore block.
const ClaudeLocalSettings = ".claude/settings.local.json"

// claudeSettings plans the hooks in .claude/settings.json, or with local in
// the personal settings.local.json (never suggested for a commit).
func (p *Plan) claudeSettings(local bool) error {
	rel, other := ".claude/settings.json", ClaudeLocalSettings
	if local {
		rel, other = other, rel
	}
	if err := p.file(rel, claudeSettings); err != nil {
		return err
	}
	if abs, err := p.repo.Abs(other); err == nil {
		if data, err := os.ReadFile(abs); err == nil && hasScribeHooks(data) {
			p.Warnings = append(p.Warnings, other+" also runs scribe's hooks; Claude Code merges both files, so keep them in one")
		}
	}
	if local {
		p.markPersonal(rel)
	}
	return nil
}

// codexHooks plans .codex/hooks.json and says what Codex needs to run it.
func (p *Plan) codexHooks() error {
	const rel = ".codex/hooks.json"
	if err := p.file(rel, codexHooksJSON); err != nil {
		return err
	}
	for _, c := range p.Changes {
		if c.Path == rel {
			p.Notes = append(p.Notes, "Codex runs "+rel+" in a trusted project with hooks enabled: on by default in current Codex "+
				"([features] hooks = false turns them off); older versions need [features] codex_hooks = true in ~/.codex/config.toml. "+
				"Codex has no SessionEnd hook: the next git scribe command finalises the session.")
		}
	}
	return nil
}

func (p *Plan) markPersonal(rel string) {
	for i := range p.Changes {
		if p.Changes[i].Path == rel {
			p.Changes[i].Personal = true
			p.Notes = append(p.Notes, rel+" is personal (git-ignored): it is not for committing")
		}
	}
}

func (p *Plan) vaultDir(rel string) error {
	abs, err := p.repo.Abs(rel + "/x")
	if err != nil {
		return err
	}
	dir := filepath.Dir(abs)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		p.Unchanged = append(p.Unchanged, rel+"/")
		return nil
	}
	p.Changes = append(p.Changes, Change{Path: rel + "/", Action: "create", What: "where scribe keeps readable copies of its notes for you and your agent",
		apply: func() error { return os.MkdirAll(dir, 0o755) }})
	return nil
}

// MergeUnionDriver makes merge=union files go through scribe: the journal
// files are merged entry by entry (git's line-level union interleaves two
// entries that share lines), every other file through git's own union merge.
// Without git-scribe on PATH the plain union merge runs.
const MergeUnionDriver = "git scribe merge-union %O %A %B %P || git merge-file --union %A %O %B"

// mergeDriver registers the driver in the repository's config (per clone:
// git never takes merge drivers from the repository's content).
func (p *Plan) mergeDriver() error {
	cur, _ := p.repo.Git(p.ctx, "config", "--get", "merge.union.driver")
	if strings.TrimSpace(string(cur)) == MergeUnionDriver {
		p.Unchanged = append(p.Unchanged, "merge.union.driver")
		return nil
	}
	if strings.TrimSpace(string(cur)) != "" {
		p.Warnings = append(p.Warnings, "merge.union.driver is already set to "+strings.TrimSpace(string(cur))+"; left alone (journal merges may interleave entries)")
		p.Unchanged = append(p.Unchanged, "merge.union.driver")
		return nil
	}
	p.Changes = append(p.Changes, Change{Path: "merge.union.driver", Action: "config", What: "merge journal files on a branch entry by entry",
		apply: func() error {
			if _, err := p.repo.Git(p.ctx, "config", "merge.union.name", "union merge; journal entries kept whole by git-scribe"); err != nil {
				return err
			}
			_, err := p.repo.Git(p.ctx, "config", "merge.union.driver", MergeUnionDriver)
			return err
		}})
	return nil
}

func (p *Plan) refspec() error {
	out, err := p.repo.Git(p.ctx, "remote")
	if err != nil {
		return fmt.Errorf("list remotes: %w", err)
	}
	if !containsLine(string(out), "origin") {
		p.Unchanged = append(p.Unchanged, "remote.origin.fetch (no origin remote)")
		return nil
	}
	p.hasOrigin = true
	spec := fmt.Sprintf(ScribeRefspec, "origin")
	legacy := fmt.Sprintf(legacyScribeRefspec, "origin")
	cur, _ := p.repo.Git(p.ctx, "config", "--get-all", "remote.origin.fetch")
	hasLegacy := containsLine(string(cur), legacy)
	if containsLine(string(cur), spec) && !hasLegacy {
		p.Unchanged = append(p.Unchanged, "remote.origin.fetch")
		return nil
	}
	what := "fetch " + spec
	if hasLegacy {
		what += " (replacing " + legacy + ", which collides with a branch named scribe)"
	}
	p.Changes = append(p.Changes, Change{Path: "remote.origin.fetch", Action: "config", What: what,
		apply: func() error {
			if hasLegacy {
				if _, err := p.repo.Git(p.ctx, "config", "--fixed-value", "--unset-all", "remote.origin.fetch", legacy); err != nil {
					return err
				}
			}
			if containsLine(string(cur), spec) {
				return nil
			}
			_, err := p.repo.Git(p.ctx, "config", "--add", "remote.origin.fetch", spec)
			return err
		}})
	return nil
}

// fetchVault brings the team's vault into a fresh clone: when origin has
// refs/scribe/* and this repository has no vault yet, fetch them and start
// refs/scribe/vault at origin's.
func (p *Plan) fetchVault() error {
	if !p.hasOrigin {
		return nil
	}
	if tip, err := p.repo.VaultTip(p.ctx); err != nil || tip != "" {
		p.Unchanged = append(p.Unchanged, gitops.VaultRef)
		return nil
	}
	has, err := p.repo.RemoteHasScribe(p.ctx, "origin")
	if err != nil {
		p.Warnings = append(p.Warnings, "could not ask origin for the team's vault ("+err.Error()+"); run git scribe sync later")
		return nil
	}
	if !has {
		p.Unchanged = append(p.Unchanged, gitops.VaultRef+" (origin has no vault yet)")
		return nil
	}
	p.Changes = append(p.Changes, Change{Path: gitops.VaultRef, Action: "fetch", What: "your team's scribe record from origin (refs/scribe/*)",
		apply: func() error {
			theirs, err := p.repo.FetchScribe(p.ctx, "origin")
			if err != nil || theirs == "" {
				return err
			}
			return p.repo.SetVault(p.ctx, theirs, "")
		}})
	return nil
}

func (p *Plan) hook() error {
	state, path, err := InstallHook(p.ctx, p.repo, true)
	if err != nil {
		return err
	}
	rel := path
	if r, err := filepath.Rel(p.repo.WorkTree, path); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	what := map[HookState]string{HookInstalled: "post-commit hook", HookChained: "post-commit hook, chaining your existing hook (kept as post-commit" + OrigSuffix + ")",
		HookUpdated: "update scribe's post-commit hook"}[state]
	if HooksOutside(p.repo, filepath.Dir(path)) {
		p.Warnings = append(p.Warnings, filepath.Dir(path)+" is outside this repository (core.hooksPath): the hook will record commits of every repository that uses it")
	}
	if state == HookPresent {
		p.Unchanged = append(p.Unchanged, rel)
		return nil
	}
	p.Changes = append(p.Changes, Change{Path: rel, Action: "hook", What: what, apply: func() error {
		_, _, err := InstallHook(p.ctx, p.repo, false)
		return err
	}})
	return nil
}

// Apply carries the plan out, in order.
func (p *Plan) Apply() error {
	for _, c := range p.Changes {
		if err := c.apply(); err != nil {
			return fmt.Errorf("%s: %w", c.Path, err)
		}
	}
	return nil
}

func containsLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
