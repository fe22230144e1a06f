package followups

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
)

// Route destinations of a conversation follow-up (SPEC §5).
const (
	RouteJournal = "journal" // a journal entry's "### Next"
	RouteTodos   = "todos"   // the project's todos.md "## Next Session"
	RouteActive  = "active"  // an active task's todos.md, as an open checkbox
	RouteSkip    = "skip"    // a person decided not to keep it
)

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
		return rf, &notes.UsageError{Msg: fmt.Sprintf("route file: %v (format: routes: [{item, to: journal|todos|active|skip, project, task}], default)", err)}
	}
	if rf.Default != "" && !validRoute(rf.Default) {
		return rf, &notes.UsageError{Msg: fmt.Sprintf("route file: default %q: use journal, todos, active or skip", rf.Default)}
	}
	for i, r := range rf.Routes {
		if strings.TrimSpace(r.Item) == "" {
			return rf, &notes.UsageError{Msg: fmt.Sprintf("route file: route %d has no item (an orphan's number or text)", i+1)}
		}
		if !validRoute(r.To) {
			return rf, &notes.UsageError{Msg: fmt.Sprintf("route file: route %d (%q): to %q: use journal, todos, active or skip", i+1, r.Item, r.To)}
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
// similar text at or above theta that names the same things.
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
		if s := Similarity(o.Text, item); s >= theta && s > bestSim && SameIdentifiers(o.Text, item) {
			best, bestSim = i, s
		}
	}
	return best
}

// FollowupItem is the list item a follow-up is written as in a person's
// todos.md or active task: an open checkbox, its text escaped
// (markdown.EscapeItem: a bare URL an autolink, a "<" escaped) and wrapped
// at 80 columns, continuation lines indented under the text, so the file
// lints clean. ScanSource and ContainsFollowup read it back whole.
func FollowupItem(text string) []string {
	return markdown.Wrap(markdown.EscapeItem(text), markdown.Width, "- [ ] ", "  ")
}

func Tagged(project, text string) string {
	if project == "" {
		return text
	}
	return "(" + project + ") " + text
}

// ContainsFollowup reports whether text already lists item: as written,
// or wrapped and escaped as FollowupItem writes it.
func ContainsFollowup(text, item string) bool {
	want, ident := string(NormalizeFollowup(item)), newIdentifierSet(item)
	for _, line := range markdown.Unwrap(notes.SplitLines(text)) { // an item wrapped is read whole
		_, _, body, ok := listItem(line)
		if !ok {
			continue
		}
		// As written, or as the journal escapes it for markdown.
		for _, b := range []string{body, markdown.UnescapeItem(body)} {
			if string(NormalizeFollowup(b)) == want && newIdentifierSet(b).agrees(ident) {
				return true
			}
		}
	}
	return false
}

// InsertUnderSection adds lines at the end of the section's list (the
// section, and the file, created when missing), keeping every other byte.
func InsertUnderSection(text, section string, lines []string, project string) string {
	eol := notes.DetectEOL(text)
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
	return notes.WithBlankLineEnd(text, eol) + "## " + section + eol + eol + block
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

// AppendLines adds lines at the end of text (created with heading when
// empty).
func AppendLines(text string, lines []string, heading string) string {
	eol := notes.DetectEOL(text)
	block := strings.Join(lines, eol) + eol
	if text == "" {
		return heading + eol + eol + block
	}
	if !strings.HasSuffix(text, "\n") {
		text += eol
	}
	return text + block
}
