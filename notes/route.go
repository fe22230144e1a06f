package notes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/markdown"
)

// Route destinations of a conversation follow-up (SPEC §5).
const (
	RouteJournal = "journal" // a journal entry's "### Next"
	RouteTodos   = "todos"   // the project's todos.md "## Next Session"
	RouteActive  = "active"  // an active task's todos.md, as an open checkbox
	RouteSkip    = "skip"    // a person decided not to keep it
)

// LockFollowups is the ref lock held while routing writes project files.
const LockFollowups = "followups"

// Route is one decision about one orphan.
type Route struct {
	// Item names the orphan: its number in the extraction ("2") or its text
	// (matched like follow-ups are, at or above the similarity threshold).
	Item string `yaml:"item" json:"item"`
	// To is journal, todos, active or skip.
	To string `yaml:"to" json:"to"`
	// Project picks the project for todos and active (default: the item's
	// "(project)" tag, else the repository's project).
	Project string `yaml:"project,omitempty" json:"project,omitempty"`
	// Task picks the active task (projects/<project>/actives/<task>/);
	// optional when the project has exactly one.
	Task string `yaml:"task,omitempty" json:"task,omitempty"`
}

// RouteFile is the decision file of `--route FILE`:
//
//	# decisions for the orphans of `git scribe followups extract`
//	routes:
//	  - item: "1"                   # the orphan's number…
//	    to: journal
//	  - item: migrate the cache     # …or its text
//	    to: todos
//	    project: api
//	  - item: 로그 정리
//	    to: active
//	    project: ops
//	    task: logging
//	  - item: "4"
//	    to: skip
//	default: skip                   # optional: for orphans no route names
//
// Without default, an orphan no route names stays unrouted (and counts as
// potentially lost). A route naming no orphan is reported, not fatal.
type RouteFile struct {
	Routes  []Route `yaml:"routes" json:"routes"`
	Default string  `yaml:"default,omitempty" json:"default,omitempty"`
}

// ParseRouteFile reads a decision file (YAML, or JSON, which is YAML).
func ParseRouteFile(data []byte) (RouteFile, error) {
	var rf RouteFile
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&rf); err != nil && !errors.Is(err, io.EOF) {
		return rf, &UsageError{Msg: fmt.Sprintf("route file: %v (format: routes: [{item, to: journal|todos|active|skip, project, task}], default)", err)}
	}
	if rf.Default != "" && !validRoute(rf.Default) {
		return rf, &UsageError{Msg: fmt.Sprintf("route file: default %q: use journal, todos, active or skip", rf.Default)}
	}
	for i, r := range rf.Routes {
		if strings.TrimSpace(r.Item) == "" {
			return rf, &UsageError{Msg: fmt.Sprintf("route file: route %d has no item (an orphan's number or text)", i+1)}
		}
		if !validRoute(r.To) {
			return rf, &UsageError{Msg: fmt.Sprintf("route file: route %d (%q): to %q: use journal, todos, active or skip", i+1, r.Item, r.To)}
		}
	}
	return rf, nil
}

func validRoute(to string) bool {
	switch to {
	case RouteJournal, RouteTodos, RouteActive, RouteSkip:
		return true
	}
	return false
}

// Assignment is an orphan with its decided destination.
type Assignment struct {
	Candidate Candidate `json:"followup"`
	To        string    `json:"to"`
	Project   string    `json:"project,omitempty"`
	Task      string    `json:"task,omitempty"`
	// Path is the file it is written to ("" for skip).
	Path string `json:"path,omitempty"`
}

// Apply matches a decision file's routes to orphans. Orphans no route
// names take the file's default, or stay out of the result (unrouted).
func (rf RouteFile) Apply(orphans []Candidate, theta float64) (routes map[int]Route, unknown []string) {
	routes = map[int]Route{}
	for _, r := range rf.Routes {
		i := matchOrphan(orphans, r.Item, theta)
		if i < 0 {
			unknown = append(unknown, r.Item)
			continue
		}
		if _, dup := routes[i]; !dup {
			routes[i] = r
		}
	}
	if rf.Default != "" {
		for i := range orphans {
			if _, ok := routes[i]; !ok {
				routes[i] = Route{Item: strconv.Itoa(orphans[i].N), To: rf.Default}
			}
		}
	}
	return routes, unknown
}

// matchOrphan finds the orphan an item names: its number, else the most
// similar text at or above theta.
func matchOrphan(orphans []Candidate, item string, theta float64) int {
	item = strings.TrimSpace(item)
	if n, err := strconv.Atoi(item); err == nil {
		for i, o := range orphans {
			if o.N == n {
				return i
			}
		}
		return -1
	}
	best, bestSim := -1, 0.0
	for i, o := range orphans {
		if s := Similarity(o.Text, item); s >= theta && s > bestSim {
			best, bestSim = i, s
		}
	}
	return best
}

// cleanSegment checks a project or task name used as a path segment.
func cleanSegment(kind, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") {
		return "", &UsageError{Msg: fmt.Sprintf("%s %q cannot name a directory: use a plain name", kind, name)}
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
func (v *Vault) multiProject(srcs []SourceFile) bool {
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
func (v *Vault) Assign(orphans []Candidate, routes map[int]Route, srcs []SourceFile) ([]Assignment, error) {
	multi := v.multiProject(srcs)
	def := v.DefaultProject(srcs)
	var out []Assignment
	for i, o := range orphans {
		r, ok := routes[i]
		if !ok {
			continue
		}
		a := Assignment{Candidate: o, To: r.To, Project: r.Project, Task: r.Task}
		if a.Project == "" {
			a.Project = o.Project
		}
		if a.Project == "" {
			a.Project = def
		}
		switch r.To {
		case RouteSkip:
		case RouteJournal:
			a.Path = v.Config.Paths.Journal
		case RouteTodos:
			p, err := v.todosPath(a.Project, multi, def)
			if err != nil {
				return nil, fmt.Errorf("follow-up %d (%q): %w", o.N, o.Text, err)
			}
			a.Path = p
		case RouteActive:
			if a.Task == "" {
				tasks := v.ActiveTasks(a.Project)
				if len(tasks) != 1 {
					msg := "it has no active tasks yet; name a new one (task: NAME, or a:TASK at the prompt)"
					if len(tasks) > 1 {
						msg = "name one of its active tasks: " + strings.Join(tasks, ", ")
					}
					return nil, &UsageError{Msg: fmt.Sprintf("follow-up %d (%q) goes to an active task of %s; %s", o.N, o.Text, orUnknown(a.Project), msg)}
				}
				a.Task = tasks[0]
			}
			p, err := v.activePath(a.Project, a.Task, multi)
			if err != nil {
				return nil, fmt.Errorf("follow-up %d (%q): %w", o.N, o.Text, err)
			}
			a.Path = p
		default:
			return nil, &UsageError{Msg: fmt.Sprintf("follow-up %d: unknown destination %q", o.N, r.To)}
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
		return "", &UsageError{Msg: "it has no (project) tag and this repository has several projects; name one (project: NAME, or t:NAME at the prompt)"}
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
	return "", &UsageError{Msg: "no followups.todos pattern has a project wildcard (like projects/*/todos.md)"}
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
				return "", &UsageError{Msg: "it has no (project) tag; name the project (project: NAME, or a:PROJECT/TASK at the prompt)"}
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
	return "", &UsageError{Msg: "no followups.actives pattern (like projects/*/actives/*/todos.md) to place an active task"}
}

// RouteReport is what routing wrote.
type RouteReport struct {
	Status   string               `json:"status"` // committed | nothing | queued
	Reason   string               `json:"reason,omitempty"`
	Commit   *gitops.CommitResult `json:"commit,omitempty"`
	Routed   []Assignment         `json:"routed"`
	Skipped  []Assignment         `json:"skipped"`
	Warnings []string             `json:"warnings,omitempty"`
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
func (v *Vault) RouteFollowups(ctx context.Context, assigns []Assignment) (RouteReport, error) {
	rep, err := v.routeFollowups(ctx, assigns)
	if err != nil || rep.Status != "deferred" {
		return rep, err
	}
	if _, err := v.Repo.Enqueue(KindRoute, rep.Reason, assigns); err != nil {
		return rep, fmt.Errorf("%s, and queueing the routing failed: %w", rep.Reason, err)
	}
	rep.Status = "queued"
	rep.Reason += "; your choices are queued and the next git scribe command lands them"
	return rep, nil
}

// LandQueuedRoutes lands routing choices queued by RouteFollowups, oldest
// first; those that still cannot be committed stay queued.
func (v *Vault) LandQueuedRoutes(ctx context.Context) (landed int, warns []string) {
	items, _ := v.Repo.Queued()
	for _, it := range items {
		if it.Kind != KindRoute {
			continue
		}
		var assigns []Assignment
		if err := json.Unmarshal(it.Payload, &assigns); err != nil {
			warns = append(warns, fmt.Sprintf("queued routing %s is unreadable and was left in place: %v", it.ID, err))
			continue
		}
		rep, err := v.routeFollowups(ctx, assigns)
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

func (v *Vault) routeFollowups(ctx context.Context, assigns []Assignment) (RouteReport, error) {
	rep := RouteReport{Routed: []Assignment{}, Skipped: []Assignment{}}
	byPath := map[string][]Assignment{}
	var paths []string
	for _, a := range assigns {
		a.Candidate.Text = v.redact(a.Candidate.Text)
		if a.To == RouteSkip {
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
		if byPath[path][0].To != RouteJournal {
			branchPaths = append(branchPaths, path)
		}
	}
	now := v.now()
	var fingerprint string
	var written []Assignment
	fresh := func(path, text string) []Assignment {
		var out []Assignment
		for _, a := range byPath[path] {
			if !containsFollowup(text, a.Candidate.Text) {
				out = append(out, a)
			}
		}
		return out
	}
	var inCommit int // follow-ups the commit being built writes
	message := func([]string) string {
		return scribeMessage(fmt.Sprintf("route %d follow-up%s from the conversation", inCommit, plural(inCommit)), "followups", fingerprint)
	}
	var res gitops.CommitResult
	if len(branchPaths) > 0 {
		req := gitops.CommitRequest{
			Paths:       branchPaths,
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
						lines = append(lines, "- [ ] "+v.tagIfForeign(a, path))
					}
					if f[0].To == RouteTodos {
						out[path] = []byte(insertUnderSection(text, v.section(), lines, f[0].Project))
					} else {
						out[path] = []byte(appendLines(text, lines, "# "+f[0].Task))
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
	branchWritten := append([]Assignment(nil), written...)
	declared := []string{}
	locks := []string{}
	if byPath[p.Journal] != nil {
		declared = append(declared, VaultJournal, VaultArchive)
		locks = append(locks, "journal")
	}
	status, warns := v.activeStatusUpdate(ctx, true, declared)
	rep.Warnings = append(rep.Warnings, warns...)
	if status != nil {
		declared = append(declared, VaultActiveStatus)
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
					text := string(cur[VaultJournal])
					if f := fresh(p.Journal, text); len(f) > 0 {
						written = append(written, f...)
						e := Entry{ID: entryID(now), Time: now, Summary: fmt.Sprintf("%d follow-up%s kept from the conversation", len(f), plural(len(f))),
							Scope: "conversation follow-ups", Modes: "followups"}
						for _, a := range f {
							e.Next = append(e.Next, tagged(a.Project, a.Candidate.Text))
						}
						j, arch := Append(text, string(cur[VaultArchive]), e, v.Config.JournalMax)
						out[VaultJournal] = []byte(j)
						if arch != string(cur[VaultArchive]) {
							out[VaultArchive] = []byte(arch)
						}
					}
				}
				if b, ok := status.build(cur, out); ok {
					out[VaultActiveStatus] = b
				}
				fingerprint = v.carriedFingerprint(ctx)
				inCommit = len(written) - len(branchWritten)
				return out, nil
			},
			Message: func(changed []string) string {
				if inCommit == 0 {
					return scribeMessage(fmt.Sprintf("active-status regenerated after routing %d follow-up%s", len(branchWritten), plural(len(branchWritten))), "followups", fingerprint)
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
	return DefaultSection
}

func tagged(project, text string) string {
	if project == "" {
		return text
	}
	return "(" + project + ") " + text
}

// tagIfForeign writes the item's tag only when the file's path does not
// already say the project: a projects/<p>/ file of that project, or the
// repository's own file for the repository's project.
func (v *Vault) tagIfForeign(a Assignment, path string) string {
	if a.Project == "" {
		return a.Candidate.Text
	}
	named := ""
	for _, sp := range v.sourcePatterns() {
		if ok, _ := pathMatch(sp.pattern, path); ok {
			named, _ = projectFromPath(sp.pattern, path)
			if sp.kind == SourceActive && strings.Count(sp.pattern, "*") < 2 {
				named = ""
			}
			break
		}
	}
	if strings.EqualFold(named, a.Project) || (named == "" && a.Project == v.DefaultProject(nil)) {
		return a.Candidate.Text
	}
	return tagged(a.Project, a.Candidate.Text)
}

// containsFollowup reports whether text already lists item.
func containsFollowup(text, item string) bool {
	want := string(NormalizeFollowup(item))
	for _, line := range splitLines(text) {
		if _, _, body, ok := listItem(line); ok && string(NormalizeFollowup(body)) == want {
			return true
		}
	}
	return false
}

// insertUnderSection adds lines at the end of the section's list (the
// section, and the file, created when missing), keeping every other byte.
func insertUnderSection(text, section string, lines []string, project string) string {
	eol := detectEOL(text)
	block := strings.Join(lines, eol) + eol
	if text == "" {
		title := "Todos"
		if project != "" {
			title = project + " todos"
		}
		return "# " + title + eol + eol + "## " + section + eol + eol + block
	}
	all := strings.SplitAfter(text, "\n")
	start, level := -1, 0
	for i, l := range all {
		if lv, h, ok := markdown.Heading(strings.TrimRight(l, "\r\n")); ok {
			if start >= 0 && lv <= level {
				return splice(all, start, i, block, eol)
			}
			if start < 0 && hasPrefixFold(h, section) {
				start, level = i, lv
			}
		}
	}
	if start >= 0 {
		return splice(all, start, len(all), block, eol)
	}
	return withBlankLineEnd(text, eol) + "## " + section + eol + eol + block
}

// splice inserts block after the last non-blank line of all[start:end].
func splice(all []string, start, end int, block, eol string) string {
	at := end
	for at > start+1 && strings.TrimSpace(all[at-1]) == "" {
		at--
	}
	var b strings.Builder
	for _, l := range all[:at] {
		b.WriteString(l)
	}
	if at > 0 && !strings.HasSuffix(all[at-1], "\n") {
		b.WriteString(eol)
	}
	if at == start+1 {
		b.WriteString(eol) // a blank line between the heading and the list
	}
	b.WriteString(block)
	for _, l := range all[at:] {
		b.WriteString(l)
	}
	return b.String()
}

// appendLines adds lines at the end of text (created with heading when
// empty).
func appendLines(text string, lines []string, heading string) string {
	eol := detectEOL(text)
	block := strings.Join(lines, eol) + eol
	if text == "" {
		return heading + eol + eol + block
	}
	if !strings.HasSuffix(text, "\n") {
		text += eol
	}
	return text + block
}
