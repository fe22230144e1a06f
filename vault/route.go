package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/git-scribe/git-scribe/followups"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// LockFollowups is the ref lock held while routing writes project files.
const LockFollowups = "followups"

// cleanSegment checks a project or task name used as a path segment.
func cleanSegment(kind, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") {
		return "", &notes.UsageError{Msg: fmt.Sprintf("%s %q cannot name a directory: use a plain name", kind, name)}
	}
	return name, nil
}

// fillPattern puts values into a pattern's wildcard segments, in order.
func fillPattern(pattern string, values ...string) (string, bool) {
	segs := strings.Split(pattern, "/")
	n := 0
	for i, s := range segs {
		if !strings.ContainsAny(s, "*?[") {
			continue
		}
		if n >= len(values) {
			return "", false
		}
		segs[i] = values[n]
		n++
	}
	return strings.Join(segs, "/"), n == len(values)
}

// multiProject reports whether the repository keeps projects in directories
// (a source path names a project).
func (v *Vault) multiProject(srcs []followups.SourceFile) bool {
	for _, s := range srcs {
		if s.Project != "" {
			return true
		}
	}
	return false
}

// ActiveTasks lists the active tasks of a project (the directories the
// actives pattern matches), sorted.
func (v *Vault) ActiveTasks(project string) []string {
	var tasks []string
	for _, pat := range v.Config.Followups.Actives {
		glob := pat
		if strings.Count(pat, "*") >= 2 {
			var ok bool
			if glob, ok = fillPattern(pat, project, "*"); !ok {
				continue
			}
		}
		matches, _ := filepath.Glob(filepath.Join(v.Repo.WorkTree, filepath.FromSlash(glob)))
		for _, m := range matches {
			rel, err := filepath.Rel(v.Repo.WorkTree, m)
			if err != nil {
				continue
			}
			_, task := projectFromPath(pat, filepath.ToSlash(rel))
			if strings.Count(pat, "*") < 2 {
				task, _ = projectFromPath(pat, filepath.ToSlash(rel))
			}
			if task != "" && !slices.Contains(tasks, task) {
				tasks = append(tasks, task)
			}
		}
	}
	sort.Strings(tasks)
	return tasks
}

// Assign resolves routes into assignments with their target files. Errors
// name the orphan and what to answer instead.
func (v *Vault) Assign(orphans []followups.Candidate, routes map[int]followups.Route, srcs []followups.SourceFile) ([]followups.Assignment, error) {
	multi := v.multiProject(srcs)
	def := v.DefaultProject(srcs)
	var out []followups.Assignment
	for i, o := range orphans {
		r, ok := routes[i]
		if !ok {
			continue
		}
		a := followups.Assignment{Candidate: o, To: r.To, Project: r.Project, Task: r.Task}
		if a.Project == "" {
			a.Project = o.Project
		}
		if a.Project == "" {
			a.Project = def
		}
		switch r.To {
		case followups.RouteSkip:
		case followups.RouteJournal:
			a.Path = v.Config.Paths.Journal
		case followups.RouteTodos:
			p, err := v.todosPath(a.Project, multi, def)
			if err != nil {
				return nil, fmt.Errorf("follow-up %d (%q): %w", o.N, o.Text, err)
			}
			a.Path = p
		case followups.RouteActive:
			if a.Task == "" {
				tasks := v.ActiveTasks(a.Project)
				if len(tasks) != 1 {
					msg := "it has no active tasks yet; name a new one (task: NAME, or a:TASK at the prompt)"
					if len(tasks) > 1 {
						msg = "name one of its active tasks: " + strings.Join(tasks, ", ")
					}
					return nil, &notes.UsageError{Msg: fmt.Sprintf("follow-up %d (%q) goes to an active task of %s; %s", o.N, o.Text, orUnknown(a.Project), msg)}
				}
				a.Task = tasks[0]
			}
			p, err := v.activePath(a.Project, a.Task, multi)
			if err != nil {
				return nil, fmt.Errorf("follow-up %d (%q): %w", o.N, o.Text, err)
			}
			a.Path = p
		default:
			return nil, &notes.UsageError{Msg: fmt.Sprintf("follow-up %d: unknown destination %q", o.N, r.To)}
		}
		out = append(out, a)
	}
	return out, nil
}

func orUnknown(p string) string {
	if p == "" {
		return "no project"
	}
	return p
}

// todosPath is a project's todos.md: projects/<p>/todos.md in a
// multi-project repository (or for a project other than the repository's
// own), the repository's todos.md otherwise.
func (v *Vault) todosPath(project string, multi bool, def string) (string, error) {
	pats := v.Config.Followups.Todos
	if !multi && (project == "" || project == def) {
		for _, p := range pats {
			if !strings.ContainsAny(p, "*?[") {
				return p, nil
			}
		}
	}
	if project == "" {
		return "", &notes.UsageError{Msg: "it has no (project) tag and this repository has several projects; name one (project: NAME, or t:NAME at the prompt)"}
	}
	name, err := cleanSegment("project", project)
	if err != nil {
		return "", err
	}
	for _, p := range pats {
		if strings.Count(p, "*") == 1 {
			if out, ok := fillPattern(p, name); ok {
				return out, gitops.CheckRelPath(out)
			}
		}
	}
	return "", &notes.UsageError{Msg: "no followups.todos pattern has a project wildcard (like projects/*/todos.md)"}
}

// activePath is an active task's todos.md.
func (v *Vault) activePath(project, task string, multi bool) (string, error) {
	t, err := cleanSegment("task", task)
	if err != nil {
		return "", err
	}
	for _, p := range v.Config.Followups.Actives {
		switch strings.Count(p, "*") {
		case 2:
			if project == "" {
				return "", &notes.UsageError{Msg: "it has no (project) tag; name the project (project: NAME, or a:PROJECT/TASK at the prompt)"}
			}
			name, err := cleanSegment("project", project)
			if err != nil {
				return "", err
			}
			out, _ := fillPattern(p, name, t)
			return out, gitops.CheckRelPath(out)
		case 1:
			out, _ := fillPattern(p, t)
			return out, gitops.CheckRelPath(out)
		}
	}
	return "", &notes.UsageError{Msg: "no followups.actives pattern (like projects/*/actives/*/todos.md) to place an active task"}
}

// RouteReport is what routing wrote.
type RouteReport struct {
	Status   string                 `json:"status"` // committed | nothing | queued
	Reason   string                 `json:"reason,omitempty"`
	Commit   *gitops.CommitResult   `json:"commit,omitempty"`
	Routed   []followups.Assignment `json:"routed"`
	Skipped  []followups.Assignment `json:"skipped"`
	Warnings []string               `json:"warnings,omitempty"`
}

// RouteFollowups writes routed orphans as one scribe commit, through
// gitops.CommitPaths: journal routes as one new journal entry (append-only:
// the entries already written are never edited) whose "### Next" lists
// them tagged; todos routes under the project's "## Next Session" (section
// and file created when missing); active routes as open checkboxes of the
// task's todos.md. ACTIVE-STATUS.md is regenerated in the same commit. An
// item already in its target file is not written twice. Text is redacted
// before it reaches a file.
//
// When the commit cannot be made now, the person's choices are queued under
// the git dir (principle 3) and the next synchronous command lands them.
func (v *Vault) RouteFollowups(ctx context.Context, assigns []followups.Assignment) (RouteReport, error) {
	rep, err := v.routeFollowups(ctx, assigns, "")
	if err != nil || rep.Status != "deferred" {
		return rep, err
	}
	head, _ := v.Repo.Head(ctx)
	if _, err := v.Repo.Enqueue(KindRoute, rep.Reason, queuedRoute{Branch: head.Ref, Assigns: assigns}); err != nil {
		return rep, fmt.Errorf("%s, and queueing the routing failed: %w", rep.Reason, err)
	}
	rep.Status = "queued"
	rep.Reason += "; your choices are queued and the next git scribe command lands them"
	return rep, nil
}

// queuedRoute is a person's routing that waits in the queue: it lands only
// on the branch it was made on.
type queuedRoute struct {
	Branch  string                 `json:"branch,omitempty"`
	Assigns []followups.Assignment `json:"assigns"`
}

// LandQueuedRoutes lands routing choices queued by RouteFollowups, oldest
// first; those that still cannot be committed stay queued.
func (v *Vault) LandQueuedRoutes(ctx context.Context) (landed int, warns []string) {
	items, _ := v.Repo.Queued()
	for _, it := range items {
		if it.Kind != KindRoute {
			continue
		}
		var q queuedRoute
		if err := json.Unmarshal(it.Payload, &q); err != nil {
			// Earlier versions queued the bare list.
			if err := json.Unmarshal(it.Payload, &q.Assigns); err != nil {
				warns = append(warns, fmt.Sprintf("queued routing %s is unreadable and was left in place: %v", it.ID, err))
				continue
			}
		}
		rep, err := v.routeFollowups(ctx, q.Assigns, q.Branch)
		if err != nil {
			warns = append(warns, "queued routing: "+err.Error())
			return landed, warns
		}
		if rep.Status == "deferred" {
			return landed, warns // still blocked; keep it for the next command
		}
		if err := v.Repo.Dequeue([]gitops.QueueItem{it}); err != nil {
			warns = append(warns, err.Error())
		}
		landed++
	}
	return landed, warns
}

func (v *Vault) routeFollowups(ctx context.Context, assigns []followups.Assignment, branch string) (RouteReport, error) {
	rep := RouteReport{Routed: []followups.Assignment{}, Skipped: []followups.Assignment{}}
	byPath := map[string][]followups.Assignment{}
	var paths []string
	for _, a := range assigns {
		a.Candidate.Text = v.redact(a.Candidate.Text)
		if a.To == followups.RouteSkip {
			rep.Skipped = append(rep.Skipped, a)
			continue
		}
		if byPath[a.Path] == nil {
			paths = append(paths, a.Path)
		}
		byPath[a.Path] = append(byPath[a.Path], a)
	}
	if len(paths) == 0 {
		rep.Status, rep.Reason = "nothing", "no follow-up was routed"
		return rep, nil
	}
	sort.Strings(paths)
	p := v.Config.Paths
	// Todos and active tasks are the person's files: a branch commit of
	// exactly them (principle 3). Journal routes and the dashboard are
	// scribe's record: a vault commit after it.
	var branchPaths []string
	for _, path := range paths {
		if byPath[path][0].To != followups.RouteJournal {
			branchPaths = append(branchPaths, path)
		}
	}
	now := v.now()
	var fingerprint string
	var written []followups.Assignment
	fresh := func(path, text string) []followups.Assignment {
		var out []followups.Assignment
		for _, a := range byPath[path] {
			if !followups.ContainsFollowup(text, a.Candidate.Text) {
				out = append(out, a)
			}
		}
		return out
	}
	var inCommit int // follow-ups the commit being built writes
	message := func([]string) string {
		return scribeMessage(fmt.Sprintf("route %d follow-up%s from the conversation", inCommit, notes.Plural(inCommit)), "followups", fingerprint)
	}
	var res gitops.CommitResult
	if len(branchPaths) > 0 {
		req := gitops.CommitRequest{
			Paths:       branchPaths,
			Branch:      branch,
			Locks:       []string{LockFollowups},
			LockOptions: v.lockOptions("route follow-ups"),
			Build: func(cur map[string][]byte) (map[string][]byte, error) {
				out := map[string][]byte{}
				written = written[:0]
				for _, path := range branchPaths {
					text := string(cur[path])
					f := fresh(path, text)
					if len(f) == 0 {
						continue
					}
					written = append(written, f...)
					var lines []string
					for _, a := range f {
						lines = append(lines, followups.FollowupItem(v.tagIfForeign(a, path))...)
					}
					if f[0].To == followups.RouteTodos {
						out[path] = []byte(followups.InsertUnderSection(text, v.section(), lines, f[0].Project))
					} else {
						out[path] = []byte(followups.AppendLines(text, lines, "# "+f[0].Task))
					}
				}
				fingerprint = v.carriedFingerprint(ctx)
				inCommit = len(written)
				return out, nil
			},
			Message: message,
		}
		var err error
		res, err = v.Repo.CommitPaths(ctx, req)
		var de *gitops.DeferredError
		if errors.As(err, &de) {
			rep.Status, rep.Reason = "deferred", de.Reason
			return rep, nil
		}
		if err != nil {
			return rep, fmt.Errorf("route follow-ups: %w", err)
		}
	}
	branchWritten := append([]followups.Assignment(nil), written...)
	declared := []string{}
	locks := []string{}
	if byPath[p.Journal] != nil {
		declared = append(declared, notes.VaultJournal, notes.VaultArchive)
		locks = append(locks, "journal")
	}
	status, warns := v.activeStatusUpdate(ctx, true, declared)
	rep.Warnings = append(rep.Warnings, warns...)
	if status != nil {
		declared = append(declared, notes.VaultActiveStatus)
		locks = append(locks, LockActiveStatus)
	}
	if len(declared) > 0 {
		req := gitops.CommitRequest{
			Paths:       declared,
			Locks:       locks,
			LockOptions: v.lockOptions("route follow-ups"),
			Build: func(cur map[string][]byte) (map[string][]byte, error) {
				out := map[string][]byte{}
				written = append(written[:0], branchWritten...)
				if byPath[p.Journal] != nil {
					text := string(cur[notes.VaultJournal])
					if f := fresh(p.Journal, text); len(f) > 0 {
						written = append(written, f...)
						e := notes.Entry{ID: entryID(now), Time: now, Summary: fmt.Sprintf("%d follow-up%s kept from the conversation", len(f), notes.Plural(len(f))),
							Scope: "conversation follow-ups", Modes: "followups"}
						for _, a := range f {
							e.Next = append(e.Next, followups.Tagged(a.Project, a.Candidate.Text))
						}
						v.appendJournal(cur, out, []notes.Entry{e}, nil)
					}
				}
				if b, ok := status.build(cur, out); ok {
					out[notes.VaultActiveStatus] = b
				}
				fingerprint = v.carriedFingerprint(ctx)
				inCommit = len(written) - len(branchWritten)
				return out, nil
			},
			Message: func(changed []string) string {
				if inCommit == 0 {
					return scribeMessage(fmt.Sprintf("active-status regenerated after routing %d follow-up%s", len(branchWritten), notes.Plural(len(branchWritten))), "followups", fingerprint)
				}
				return message(changed)
			},
		}
		vres, err := v.commitVault(ctx, req)
		rep.Warnings = append(rep.Warnings, vres.Warnings...)
		var de *gitops.DeferredError
		if errors.As(err, &de) && len(branchPaths) == 0 {
			rep.Status, rep.Reason = "deferred", de.Reason
			return rep, nil
		}
		if err != nil && !errors.As(err, &de) {
			return rep, fmt.Errorf("route follow-ups: %w", err)
		}
		if res.SHA == "" {
			res = vres
		}
	}
	rep.Routed = append(rep.Routed, written...)
	if res.SHA == "" {
		rep.Status, rep.Reason = "nothing", "every routed follow-up is already in its file"
		return rep, nil
	}
	rep.Status, rep.Commit = "committed", &res
	return rep, nil
}

func (v *Vault) section() string {
	if s := v.Config.Followups.Section; s != "" {
		return s
	}
	return followups.DefaultSection
}

// tagIfForeign writes the item's tag only when the file's path does not
// already say the project: a projects/<p>/ file of that project, or the
// repository's own file for the repository's project.
func (v *Vault) tagIfForeign(a followups.Assignment, path string) string {
	if a.Project == "" {
		return a.Candidate.Text
	}
	named := ""
	for _, sp := range v.sourcePatterns() {
		if ok, _ := pathMatch(sp.pattern, path); ok {
			named, _ = projectFromPath(sp.pattern, path)
			if sp.kind == followups.SourceActive && strings.Count(sp.pattern, "*") < 2 {
				named = ""
			}
			break
		}
	}
	if strings.EqualFold(named, a.Project) || (named == "" && a.Project == v.DefaultProject(nil)) {
		return a.Candidate.Text
	}
	return followups.Tagged(a.Project, a.Candidate.Text)
}
