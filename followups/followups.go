package followups

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/internal/similarity"
	"github.com/git-scribe/git-scribe/markdown"
	"github.com/git-scribe/git-scribe/notes"
)

// SourceKind names a kind of durable follow-up source (SPEC §5).
type SourceKind string

// The durable follow-up sources, in source priority order (journal and
// archive share the first rank: both are the journal's "### Next").
const (
	// SourceJournal is the journal's "### Next" subsections.
	SourceJournal SourceKind = "journal"
	// SourceArchive is the journal archive's "### Next" subsections.
	SourceArchive SourceKind = "archive"
	// SourceActive is a task's actives/<task>/todos.md: its open checkboxes.
	SourceActive SourceKind = "active"
	// SourceTodos is a todos.md: its "## Next Session" section.
	SourceTodos SourceKind = "todos"
	// SourceProgress is a PROGRESS.md or progress.md: its "## Next Session" section.
	SourceProgress SourceKind = "progress"
)

// sourceKinds lists the kinds in report order.
var sourceKinds = []SourceKind{SourceJournal, SourceArchive, SourceActive, SourceTodos, SourceProgress}

// rank is a kind's source priority: lower comes first among items equally
// recent.
func (k SourceKind) rank() int {
	switch k {
	case SourceJournal, SourceArchive:
		return 0
	case SourceActive:
		return 1
	case SourceTodos:
		return 2
	case SourceProgress:
		return 3
	}
	return 4
}

// DefaultSection is the heading of todos.md and PROGRESS.md whose items are
// follow-ups.
const DefaultSection = "Next Session"

// DefaultCap is how many follow-ups ACTIVE-STATUS.md shows.
const DefaultCap = 15

// SourceFile is one durable source as read: its text and where it came from.
type SourceFile struct {
	Kind SourceKind
	// Path is repo-relative.
	Path string
	// Project is the project the path names (projects/<p>/…), "" if none.
	Project string
	// Task is the active task the path names, "" if none.
	Task string
	Text string
	// Time is when the file last changed; items without a time of their
	// own (a journal entry's, a dated Session header's) take it.
	Time time.Time
	// Unread, when set, says why the source could not be read (too large,
	// unreadable): it has no Text, and the dashboard names it, so that its
	// follow-ups are never missing without a word.
	Unread string
}

// Tag origins: where a follow-up's project came from.
const (
	TagExplicit = "tag"     // its own "(project)" prefix
	TagSession  = "session" // the enclosing "## Session: <project>" header
	TagPath     = "path"    // the source's path (projects/<p>/…)
	TagDefault  = "default" // the repository's project (single-project repos, or configured)
)

// Followup is one follow-up line found in a durable source, open or
// resolved.
type Followup struct {
	// Text is the item without bullet, checkbox, tag or "(done …)" note.
	Text    string     `json:"text"`
	Project string     `json:"project,omitempty"`
	TagFrom string     `json:"tag_from,omitempty"`
	Kind    SourceKind `json:"kind"`
	Path    string     `json:"path"`
	Line    int        `json:"line"` // 1-based
	Time    time.Time  `json:"time,omitzero"`
	// Resolved marks a ticked checkbox ([x] anywhere) or a journal
	// "### Done" item.
	Resolved bool `json:"resolved,omitempty"`
}

var (
	tagPrefix   = lazyre.New(`^\(([^()\s][^()]*)\)\s+`)
	bulletStart = lazyre.New(`^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$`)
)

// cutTag splits a leading "(project) " tag off s.
func cutTag(s string) (tag, rest string, ok bool) {
	m := tagPrefix().FindStringSubmatchIndex(s)
	if m == nil {
		return "", s, false
	}
	return strings.TrimSpace(s[m[2]:m[3]]), s[m[1]:], true
}

// cutCheckbox splits a leading "[ ] " or "[x] " off s.
func cutCheckbox(s string) (rest string, ok bool) {
	if len(s) >= 3 && s[0] == '[' && s[2] == ']' && (len(s) == 3 || s[3] == ' ' || s[3] == '\t') {
		return strings.TrimLeft(s[3:], " \t"), true
	}
	return s, false
}

// boxState is a list item's checkbox: none, open or closed ([x], [X], and
// the cancelled marks [-] and [~]).
type boxState int

const (
	boxNone boxState = iota
	boxOpen
	boxClosed
)

// listItem reads a bullet or numbered list line.
func listItem(line string) (indent int, box boxState, text string, ok bool) {
	m := bulletStart().FindStringSubmatch(line)
	if m == nil {
		return 0, boxNone, "", false
	}
	indent = len(strings.ReplaceAll(m[1], "\t", "    "))
	text = m[2]
	if len(text) >= 3 && text[0] == '[' && text[2] == ']' && (len(text) == 3 || text[3] == ' ' || text[3] == '\t') {
		switch text[1] {
		case ' ':
			box = boxOpen
		case 'x', 'X', '-', '~':
			box = boxClosed
		default:
			return indent, boxNone, text, true // [/], [>] …: read as text
		}
		text = text[3:]
	}
	return indent, box, text, true
}

// sessionHeading reads "Session: <project>" with an optional " — <date>".
func sessionHeading(text string) (project string, when time.Time, ok bool) {
	rest, found := cutPrefixFold(text, "session:")
	if !found {
		return "", time.Time{}, false
	}
	rest = strings.TrimSpace(rest)
	for _, sep := range []string{" — ", " – ", " - "} {
		if p, d, cut := strings.Cut(rest, sep); cut {
			rest = p
			if t, err := notes.ParseTime(d); err == nil {
				when = t
			}
			break
		}
	}
	project = strings.Trim(strings.TrimSpace(rest), "()`*_[] ")
	return project, when, project != ""
}

func hasPrefixFold(s, prefix string) bool {
	_, ok := cutPrefixFold(s, prefix)
	return ok
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// dropDoneNote removes a trailing "(done …)" annotation; the regexp runs
// only on the lines that can have one.
func dropDoneNote(s string) string {
	if !strings.Contains(strings.ToLower(s), "(done") {
		return s
	}
	return notes.DoneAnnotation().ReplaceAllString(s, "")
}

// maxFollowupRunes caps one follow-up's text.
const maxFollowupRunes = 240

// cleanFollowup is an item's display text: one line, tag split off, the
// "(done …)" note dropped.
func cleanFollowup(raw string) (text, tag string) {
	s := markdown.UnescapeItem(notes.SingleLine(raw)) // as Render escaped it
	if t, rest, ok := cutTag(s); ok {
		tag, s = t, rest
	}
	s = strings.TrimSpace(dropDoneNote(s))
	return notes.CapRunes(s, maxFollowupRunes), tag
}

// ScanSource lists the follow-ups of one durable source, open and resolved,
// in file order. It never fails on hand-edited input.
//
//   - Every ticked checkbox ([x], [X], [-], [~]) anywhere is a resolved item.
//   - Journal and archive: the bullets of "### Next" subsections are open
//     (an open checkbox too), those of "### Done" resolved. An entry heading
//     "## <time> — …" gives its items their time.
//   - Actives: every open checkbox is open.
//   - Todos and progress: the bullets and open checkboxes of the section
//     named section (any level, up to the next heading of the same or a
//     higher level) are open; nested plain bullets are details, not items.
//
// A "Session: <project> [— <date>]" heading tags the items under it (and
// dates them); an item's own "(project)" prefix wins over it, and it wins
// over the path's project.
func ScanSource(src SourceFile, section string) []Followup {
	out, _, _ := scanSource(src, section)
	return out
}

// scanSource is ScanSource, also returning each follow-up's normalised
// text (which it computes anyway, to skip items with none) and whether its
// time is the source's own (src.Time), not an entry's or a Session
// header's: what a scan depends on src.Time for.
func scanSource(src SourceFile, section string) ([]Followup, [][]rune, []bool) {
	s := newScanner(src, section)
	lines := notes.SplitLines(src.Text)
	if s.journal {
		// Scribe writes a journal's items on one line each, and scanJournal
		// reads it line by line too: the dashboard is the same with a cache
		// as without.
		for i, line := range lines {
			s.line(i, line)
		}
		return s.out, s.norms, s.fromFile
	}
	// A person's files hold items wrapped at 80 columns (RouteFollowups
	// writes them so, and people wrap by hand): each item is read whole,
	// at its first line.
	joined, at := markdown.UnwrapAt(lines)
	for k, line := range joined {
		s.line(at[k], line)
	}
	return s.out, s.norms, s.fromFile
}

// scanner is ScanSource's state, line by line: a scan can stop at a line
// and go on from there (a journal is scanned entry by entry, scanJournal).
type scanner struct {
	src      SourceFile
	section  string
	journal  bool
	fileTime time.Time
	fences   markdown.Fences
	out      []Followup
	norms    [][]rune
	fromFile []bool
	scanState
}

// scanState is what a scan carries from one line to the next, besides
// the fenced block it may be in.
type scanState struct {
	when         time.Time
	whenIsFile   bool // when is still src.Time
	session      string
	sessionLevel int
	sessionTime  time.Time
	sub          string // journal: "next", "done" or ""
	sectionLevel int    // > 0 inside the follow-up section
	sectionBase  int    // indent of the section's first item
}

func newScanner(src SourceFile, section string) *scanner {
	if section == "" {
		section = DefaultSection
	}
	return &scanner{src: src, section: section, journal: src.Kind == SourceJournal || src.Kind == SourceArchive, fileTime: src.Time,
		scanState: scanState{when: src.Time, whenIsFile: true, sectionBase: -1}}
}

// line scans line i (0-based) of the source.
func (s *scanner) line(i int, line string) {
	trimmed := strings.TrimLeft(line, " \t")
	if s.fences.Skip(trimmed) {
		return
	}
	if level, text, ok := markdown.Heading(line); ok {
		if s.sessionLevel > 0 && level <= s.sessionLevel {
			s.session, s.sessionLevel, s.sessionTime = "", 0, time.Time{}
		}
		if s.sectionLevel > 0 && level <= s.sectionLevel {
			s.sectionLevel = 0
		}
		if level <= 2 {
			s.sub = ""
		}
		if s.journal && level == 2 {
			if ts, _, ok := notes.EntryHeading(line); ok {
				if t, err := notes.ParseTime(ts); err == nil {
					s.when, s.whenIsFile = t, false
					return
				}
			}
		}
		if p, t, ok := sessionHeading(text); ok {
			s.session, s.sessionLevel, s.sessionTime = p, level, t
			s.sub = ""
			return
		}
		if s.journal && level >= 3 {
			switch strings.ToLower(text) {
			case "next", "next session", "next steps":
				s.sub = "next"
			case "done":
				s.sub = "done"
			default:
				s.sub = ""
			}
		}
		if !s.journal && hasPrefixFold(text, s.section) {
			s.sectionLevel, s.sectionBase = level, -1
		}
		return
	}
	indent, box, raw, ok := listItem(line)
	if !ok {
		return
	}
	var open, resolved bool
	switch {
	case box == boxClosed:
		resolved = true
	case s.journal && s.sub == "next":
		open = true
	case s.journal && s.sub == "done":
		resolved = true
	case s.src.Kind == SourceActive:
		open = box == boxOpen
	case s.sectionLevel > 0:
		if s.sectionBase < 0 {
			s.sectionBase = indent
		}
		open = box == boxOpen || indent <= s.sectionBase
	}
	if !open && !resolved {
		return
	}
	text, tag := cleanFollowup(raw)
	norm := NormalizeFollowup(text)
	if len(norm) == 0 {
		return
	}
	f := Followup{Text: text, Kind: s.src.Kind, Path: s.src.Path, Line: i + 1, Resolved: resolved, Time: s.when}
	isFile := s.whenIsFile
	if !s.journal {
		f.Time, isFile = s.fileTime, true
	}
	if !s.sessionTime.IsZero() {
		f.Time, isFile = s.sessionTime, false
	}
	switch {
	case tag != "":
		f.Project, f.TagFrom = tag, TagExplicit
	case s.session != "":
		f.Project, f.TagFrom = s.session, TagSession
	case s.src.Project != "":
		f.Project, f.TagFrom = s.src.Project, TagPath
	}
	s.out = append(s.out, f)
	s.norms = append(s.norms, norm)
	s.fromFile = append(s.fromFile, isFile)
}

// scanned is one source's scan: its follow-ups in file order, each one's
// form, and which of them carry the source's own time (the others carry
// an entry's or a Session header's): those take the time of the source
// they are read for, so a scan does not depend on src.Time.
type scanned struct {
	mentions []Followup
	forms    []form
	fileTime []bool
}

// scanForms scans src and computes each follow-up's form.
func scanForms(src SourceFile, section string) *scanned {
	fs, norms, fromFile := scanSource(src, section)
	s := &scanned{mentions: fs, forms: make([]form, len(fs)), fileTime: fromFile}
	for i, f := range fs {
		s.forms[i] = form{norm: string(norms[i]), ids: Identifiers(f.Text)}
	}
	return s
}

// MergeOptions tunes Regenerate.
type MergeOptions struct {
	// Section is the todos/progress heading holding follow-ups.
	Section string
	// Cap is how many follow-ups the dashboard shows (0: DefaultCap).
	Cap int
	// Similarity is the Similarity at or above which two items are one
	// (0: DefaultSimilarity).
	Similarity float64
	// DefaultProject tags items nothing else tags (a single-project
	// repository's name, or the configured project); "" leaves them
	// untagged, with a warning.
	DefaultProject string
	// Cache, when set, holds what earlier regenerations computed; an
	// unchanged source is not scanned again and pairs of unchanged
	// follow-ups are not looked for again (see Cache). The dashboard is
	// the same with it as without.
	Cache *Cache
}

func (o MergeOptions) cap() int {
	if o.Cap <= 0 {
		return DefaultCap
	}
	return o.Cap
}

func (o MergeOptions) theta() float64 {
	if o.Similarity <= 0 || o.Similarity > 1 {
		return DefaultSimilarity
	}
	return o.Similarity
}

// SourceRef names one place a follow-up is written.
type SourceRef struct {
	Kind SourceKind `json:"kind"`
	Path string     `json:"path"`
	Line int        `json:"line"`
	Time time.Time  `json:"time,omitzero"`
}

// Priority is one open follow-up of the dashboard: near-duplicates from
// every source merged into one.
type Priority struct {
	Text    string `json:"text"`
	Project string `json:"project,omitempty"`
	// Time is the newest mention's; Kind the highest-priority source's.
	Time    time.Time   `json:"time,omitzero"`
	Kind    SourceKind  `json:"kind"`
	Sources []SourceRef `json:"sources"`
}

// Line renders the dashboard line: "(project) text — source · source".
func (p Priority) Line() string {
	tag := "(untagged)"
	if p.Project != "" {
		tag = "(" + p.Project + ")"
	}
	var refs []string
	seen := map[string]bool{}
	for _, s := range p.Sources {
		label := s.Path
		switch s.Kind {
		case SourceJournal, SourceArchive:
			label = string(s.Kind)
			if !s.Time.IsZero() {
				label += " " + s.Time.Format("2006-01-02")
			}
		}
		if !seen[label] {
			seen[label] = true
			refs = append(refs, label)
		}
	}
	if len(refs) > 3 {
		refs = append(refs[:3], fmt.Sprintf("+%d more", len(refs)-3))
	}
	return fmt.Sprintf("%s %s — %s", tag, p.Text, strings.Join(refs, " · "))
}

// SourceCount is the audit's count for one kind of source.
type SourceCount struct {
	Kind     SourceKind `json:"kind"`
	Files    int        `json:"files"`
	Open     int        `json:"open"`     // open mentions read
	Resolved int        `json:"resolved"` // ticked or Done items read
}

// UntaggedWarning is a follow-up whose project nothing names.
type UntaggedWarning struct {
	Text    string `json:"text"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// LostFollowup is a conversation follow-up nothing persisted: skipped by a
// person, or not routed (no prompt and no decision file).
type LostFollowup struct {
	Text   string `json:"text"`
	Reason string `json:"reason"` // "skipped" or "unrouted"
	Detail string `json:"detail,omitempty"`
}

// ConversationAudit counts a transcript's follow-ups.
type ConversationAudit struct {
	Transcript string `json:"transcript"`
	Found      int    `json:"found"`   // follow-ups the keywords caught
	Durable    int    `json:"durable"` // already in a durable source
	Orphans    int    `json:"orphans"`
	Routed     int    `json:"routed"`
	Skipped    int    `json:"skipped"`
	Unrouted   int    `json:"unrouted"`
	Corrupt    int    `json:"corrupt_lines,omitempty"`
}

// Merge is one follow-up the dashboard does not show in its own words:
// merged into the near-duplicate item Into (Resolved false), or dropped as
// resolved by Into, a ticked or done near-duplicate (Resolved true). A
// text written the same way in several places is no merge of another text
// and is not listed; Audit.Merged counts it.
type Merge struct {
	Text     string `json:"text"`
	Project  string `json:"project,omitempty"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Into     string `json:"into"`
	IntoPath string `json:"into_path"`
	IntoLine int    `json:"into_line"`
	Resolved bool   `json:"resolved,omitempty"`
}

// Audit is the persistence audit of a wrap or a regeneration: what each
// source held, what the dashboard kept, and what may be lost.
type Audit struct {
	Sources []SourceCount `json:"sources"`
	// Open is the number of distinct open follow-ups; Shown of them are on
	// the dashboard and BeyondCap are only in their sources.
	Open      int `json:"open"`
	Shown     int `json:"shown"`
	BeyondCap int `json:"beyond_cap"`
	// Resolved counts open mentions dropped as resolved; Merged those
	// merged into a near-duplicate.
	Resolved int `json:"resolved_dropped"`
	Merged   int `json:"duplicates_merged"`
	// Merges names every follow-up whose own words are not on the
	// dashboard: merged into a near-duplicate, or dropped as resolved by
	// one, in another text.
	Merges          []Merge            `json:"merges"`
	Untagged        []UntaggedWarning  `json:"untagged_warnings"`
	Conversation    *ConversationAudit `json:"conversation,omitempty"`
	PotentiallyLost []LostFollowup     `json:"potentially_lost"`
	Warnings        []string           `json:"warnings,omitempty"`
	// Unread are the sources that could not be read, each with why.
	Unread []UnreadSource `json:"unread_sources,omitempty"`
}

// UnreadSource is a follow-up source the regeneration could not read.
type UnreadSource struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Dashboard is a regeneration's result: every open follow-up, ordered, the
// first Shown of which ACTIVE-STATUS.md lists.
type Dashboard struct {
	Items []Priority `json:"items"`
	Shown int        `json:"shown"`
	Audit Audit      `json:"audit"`
	// Mentions is every follow-up read, open and resolved: what
	// conversation extraction checks orphans against.
	Mentions []Followup `json:"-"`
	theta    float64
}

// Regenerate builds the dashboard from durable sources only (never from a
// previous dashboard): every open follow-up of every source, minus those
// resolved anywhere (a ticked box or a journal "### Done" item at or above
// the similarity threshold), near-duplicates merged (see Similarity; pairs
// are found with similarity.Index, near-linear in the number of items, and merged
// transitively), ordered by recency (newest mention first) then source
// priority (journal, actives, todos, progress), then path and line. Items of
// different projects are never merged or resolved by each other; an
// untagged item may match any project.
func Regenerate(sources []SourceFile, opts MergeOptions) Dashboard {
	d := Dashboard{theta: opts.theta()}
	run := opts.Cache.begin()
	defer run.end()
	var forms []form
	counts := map[SourceKind]*SourceCount{}
	for _, k := range sourceKinds {
		counts[k] = &SourceCount{Kind: k}
	}
	for _, src := range sources {
		if src.Unread != "" {
			d.Audit.Unread = append(d.Audit.Unread, UnreadSource{Path: src.Path, Reason: src.Unread})
			continue
		}
		c := counts[src.Kind]
		if c == nil {
			c = &SourceCount{Kind: src.Kind}
			counts[src.Kind] = c
		}
		c.Files++
		sc := run.scan(src, opts.Section)
		for i, f := range sc.mentions {
			if sc.fileTime[i] {
				f.Time = src.Time
			}
			if f.Project == "" && opts.DefaultProject != "" {
				f.Project, f.TagFrom = opts.DefaultProject, TagDefault
			}
			if f.Resolved {
				c.Resolved++
			} else {
				c.Open++
			}
			d.Mentions = append(d.Mentions, f)
			forms = append(forms, sc.forms[i])
		}
	}
	for _, k := range sourceKinds {
		if c := counts[k]; c.Files > 0 {
			d.Audit.Sources = append(d.Audit.Sources, *c)
		}
	}
	d.Items, d.Audit.Resolved, d.Audit.Merged, d.Audit.Merges = merge(d.Mentions, forms, d.theta, run)
	if d.Audit.Merges == nil {
		d.Audit.Merges = []Merge{}
	}
	d.Shown = min(len(d.Items), opts.cap())
	d.Audit.Open, d.Audit.Shown, d.Audit.BeyondCap = len(d.Items), d.Shown, len(d.Items)-d.Shown
	d.Audit.Untagged = []UntaggedWarning{}
	d.Audit.PotentiallyLost = []LostFollowup{}
	for _, p := range d.Items {
		if p.Project == "" {
			s := p.Sources[0]
			d.Audit.Untagged = append(d.Audit.Untagged, UntaggedWarning{Text: p.Text, Path: s.Path, Line: s.Line,
				Message: "no (project) tag, no enclosing \"## Session: <project>\" header and no project in the path; tag it \"(project) …\""})
		}
	}
	return d
}

// form is what the similarity join compares of a follow-up: its
// normalised text and its identifiers, computed once per text.
type form struct {
	norm string // NormalizeFollowup
	ids  []string
}

// group is the mentions sharing one project, normalised text and
// identifiers.
type group struct {
	key      string // the grouping key (merge)
	norm     string
	runes    []rune        // norm, once the group is joined
	project  string        // lower case
	ident    identifierSet // of the first member's text
	members  []int         // indexes into mentions
	resolved bool          // a resolved group (made of resolved mentions)
}

// joinKey names a group in the cache of the join's pairs: everything a
// pair's finding depends on (the group's text, project, resolution and
// identifiers), written so that no two groups share it. That is the
// grouping key unless the project or an identifier holds a NUL, which the
// grouping key separates its fields with.
func (g *group) joinKey() string {
	if !strings.ContainsRune(g.project, 0) && !slices.ContainsFunc(g.ident.ids, func(id string) bool { return strings.ContainsRune(id, 0) }) {
		return g.key
	}
	b := make([]byte, 0, 9+len(g.project)+len(g.norm)+8*len(g.ident.ids))
	b = append(b, 1) // a grouping key starts with "true" or "false": never 1
	if g.resolved {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	for _, s := range append([]string{g.project, g.norm}, g.ident.ids...) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return string(b)
}

// smallBlock is the size up to which a block's groups are compared pair
// by pair instead of through a similarity index (building one costs more
// than a few edit distances).
const smallBlock = 8

// pairsByIdentifiers calls fn(i, j), i < j, for every compatible pair of
// groups at or above theta that can name the same things and of which at
// least one is fresh (all, when fresh is nil), in (i, j) order.
// Groups whose strong identifiers differ never do (see strongIdentifiers),
// so each set of them is joined on its own: a vault's follow-ups name
// files and functions, and ten thousand of them fall into many small
// blocks instead of one similarity join over all. A set whose groups all
// name a project is cut by project too, as groups of two projects are
// never compatible.
func pairsByIdentifiers(groups []*group, theta float64, compatible func(i, j int) bool, fresh []bool, fn func(i, j int)) {
	blocks := map[string][]int{}
	var keys []string
	for i, g := range groups {
		k := strings.Join(strongIdentifiers(g.ident.ids), "\x00")
		if _, ok := blocks[k]; !ok {
			keys = append(keys, k)
		}
		blocks[k] = append(blocks[k], i)
	}
	var pairs [][2]int
	join := func(members []int) {
		var probe []int // fresh members, as indexes into members
		for n, i := range members {
			if fresh == nil || fresh[i] {
				probe = append(probe, n)
			}
		}
		if len(probe) == 0 || len(members) < 2 {
			return
		}
		idx := &similarity.Index{Theta: theta, Texts: make([][]rune, len(members))}
		for n, i := range members {
			g := groups[i]
			if g.runes == nil {
				g.runes = []rune(g.norm)
			}
			idx.Texts[n] = g.runes
		}
		ok := func(a, b int) bool { return compatible(members[a], members[b]) }
		add := func(a, b int) {
			i, j := members[a], members[b]
			if fresh != nil && !fresh[i] && !fresh[j] {
				return // known: the cache holds it
			}
			pairs = append(pairs, [2]int{min(i, j), max(i, j)})
		}
		// Few fresh groups among many (an unchanged vault with a new
		// entry), or a small block: compare them directly.
		if len(members) <= smallBlock || len(probe)*smallBlock <= len(members) {
			idx.PairsWith(probe, ok, add)
			return
		}
		idx.Pairs(ok, add)
	}
	for _, k := range keys {
		members := blocks[k]
		if len(members) < 2 {
			continue
		}
		byProject := map[string][]int{}
		var projects []string
		for _, i := range members {
			p := groups[i].project
			if p == "" {
				projects = nil
				break
			}
			if _, ok := byProject[p]; !ok {
				projects = append(projects, p)
			}
			byProject[p] = append(byProject[p], i)
		}
		if projects == nil {
			join(members)
			continue
		}
		for _, p := range projects {
			join(byProject[p])
		}
	}
	emitPairs(pairs, fn)
}

// emitPairs calls fn on each pair, in order: the order the pairing reports
// them in decides which match MarkDurable keeps.
func emitPairs(pairs [][2]int, fn func(i, j int)) {
	slices.SortFunc(pairs, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, p := range pairs {
		fn(p[0], p[1])
	}
}

// merge resolves and deduplicates mentions (forms[i] is mentions[i]'s)
// into ordered priorities; it returns how many open mentions were dropped
// as resolved and how many were merged into another, and the texts that
// are not on the dashboard in their own words (see Merge). run's cache, if
// any, supplies the pairs of groups it has joined before.
func merge(mentions []Followup, forms []form, theta float64, run *cacheRun) (items []Priority, resolvedDropped, merged int, merges []Merge) {
	// Identical texts of one project collapse first, so a line carried
	// through fifty journal entries is compared once.
	var groups []*group
	byKey := make(map[string]*group, len(mentions))
	var kb strings.Builder
	for i, f := range mentions {
		fm := forms[i]
		project := strings.ToLower(f.Project)
		// Normalising drops what sets identifiers apart ("foo.go" and
		// "foo_go" both read "foo go"): they are part of the key.
		kb.Reset()
		kb.WriteString(strconv.FormatBool(f.Resolved))
		kb.WriteByte(0)
		kb.WriteString(project)
		kb.WriteByte(0)
		kb.WriteString(fm.norm)
		kb.WriteByte(0)
		for n, id := range fm.ids {
			if n > 0 {
				kb.WriteByte(0)
			}
			kb.WriteString(id)
		}
		key := kb.String()
		g := byKey[key]
		if g == nil {
			g = &group{key: key, norm: fm.norm, project: project, ident: identifierSet{text: f.Text, ids: fm.ids}, resolved: f.Resolved}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, i)
	}
	compatible := func(i, j int) bool {
		a, b := groups[i], groups[j]
		if a.resolved && b.resolved {
			return false
		}
		return a.project == b.project || a.project == "" || b.project == ""
	}
	dropped := make([]bool, len(groups))
	resolvedBy := make([]int, len(groups)) // the resolved group that dropped an open one, +1
	var openPairs [][2]int
	run.pairs(groups, theta, compatible, func(i, j int) {
		a, b := groups[i], groups[j]
		// The index finds every pair alike enough; a pair naming
		// different things ("/users" and "/posts", "v1.2" and "v1.3") is
		// still two follow-ups.
		if !a.ident.agrees(b.ident) {
			return
		}
		switch {
		case a.resolved && !b.resolved:
			dropped[j] = true
			if resolvedBy[j] == 0 {
				resolvedBy[j] = i + 1
			}
		case b.resolved && !a.resolved:
			dropped[i] = true
			if resolvedBy[i] == 0 {
				resolvedBy[i] = j + 1
			}
		default:
			openPairs = append(openPairs, [2]int{i, j})
		}
	})
	// Resolved groups only ever drop open ones; they are not items.
	for i, g := range groups {
		if g.resolved {
			dropped[i] = true
		}
	}
	// Union-find over the open groups; a cluster keeps the one project its
	// members name, so an untagged item never bridges two projects, and
	// two clusters join only when their first groups name the same
	// things too, so no chain of near-duplicates bridges two identifiers.
	parent := make([]int, len(groups))
	project := make([]string, len(groups))
	for i := range parent {
		parent[i] = i
		project[i] = groups[i].project
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, p := range openPairs {
		if dropped[p[0]] || dropped[p[1]] {
			continue
		}
		a, b := find(p[0]), find(p[1])
		if a == b || (project[a] != "" && project[b] != "" && project[a] != project[b]) || !groups[a].ident.agrees(groups[b].ident) {
			continue
		}
		root, child := min(a, b), max(a, b)
		parent[child] = root
		if project[root] == "" {
			project[root] = project[child]
		}
	}
	clusters := map[int][]int{}
	var roots []int
	for i, g := range groups {
		if dropped[i] {
			if !g.resolved {
				resolvedDropped += len(g.members)
				if r := resolvedBy[i]; r > 0 {
					merges = appendMerges(merges, mentions, g.members, mentions[groups[r-1].members[0]], true)
				}
			}
			continue
		}
		r := find(i)
		if clusters[r] == nil {
			roots = append(roots, r)
		}
		clusters[r] = append(clusters[r], g.members...)
	}
	its := make([]Priority, 0, len(roots))
	itMerges := make([][]Merge, 0, len(roots))
	recent := make([]recency, 0, len(roots))
	for _, r := range roots {
		ms := clusters[r]
		merged += len(ms) - 1
		p, rep := priorityOf(mentions, ms)
		its = append(its, p)
		itMerges = append(itMerges, appendMerges(nil, mentions, ms, rep, false))
		recent = append(recent, recencyOf(p.Time, p.Kind))
	}
	// By recency, then place (comparePlaces), each item's day and rank
	// worked out once, not per comparison.
	order := make([]int, len(its))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := recent[a].compare(recent[b]); c != 0 {
			return c
		}
		return comparePlaces(its[a], its[b])
	})
	// Merges in dashboard order, then the resolutions.
	var itemMerges []Merge
	for _, i := range order {
		items = append(items, its[i])
		itemMerges = append(itemMerges, itMerges[i]...)
	}
	return items, resolvedDropped, merged, append(itemMerges, merges...)
}

// appendMerges records the members of one dashboard item (or of one group
// dropped as resolved) whose text is not into's: each distinct text once,
// at its first mention in file order.
func appendMerges(out []Merge, mentions []Followup, members []int, into Followup, resolved bool) []Merge {
	if len(members) == 1 && mentions[members[0]].Text == into.Text {
		return out // most items: one mention, shown in its own words
	}
	seen := map[string]bool{into.Text: true}
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b int) int {
		if c := strings.Compare(mentions[a].Path, mentions[b].Path); c != 0 {
			return c
		}
		return mentions[a].Line - mentions[b].Line
	})
	for _, m := range ms {
		f := mentions[m]
		if seen[f.Text] {
			continue
		}
		seen[f.Text] = true
		out = append(out, Merge{Text: f.Text, Project: f.Project, Path: f.Path, Line: f.Line,
			Into: into.Text, IntoPath: into.Path, IntoLine: into.Line, Resolved: resolved})
	}
	return out
}

// byRecency orders by the day (newest first), then source priority, then
// the exact time (newest first). Days first: "today's items, then
// yesterday's" is what a dashboard reader scans for, and a file touched
// again the same day does not reshuffle the list.
func byRecency(ta, tb time.Time, ka, kb SourceKind) int {
	if c := dayOf(tb).Compare(dayOf(ta)); c != 0 {
		return c
	}
	if c := ka.rank() - kb.rank(); c != 0 {
		return c
	}
	return tb.Compare(ta)
}

// recency is what byRecency compares of a time and a kind, worked out
// once: the calendar day as a number (ordered as dayOf's times are) and
// the kind's rank.
type recency struct {
	day  int64
	rank int
	t    time.Time
}

func recencyOf(t time.Time, k SourceKind) recency {
	y, m, d := t.Date() // the zero time's is dayOf's: January 1, year 1
	return recency{day: int64(y)*512 + int64(m)*32 + int64(d), rank: k.rank(), t: t}
}

// compare is byRecency(a's time, b's time, a's kind, b's kind).
func (a recency) compare(b recency) int {
	if a.day != b.day {
		if a.day > b.day {
			return -1
		}
		return 1
	}
	if c := a.rank - b.rank; c != 0 {
		return c
	}
	return b.t.Compare(a.t)
}

// dayOf is t's calendar day in its own location.
func dayOf(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// compareMentions orders mentions by recency and source priority, then
// path and line.
func compareMentions(a, b Followup) int {
	if c := byRecency(a.Time, b.Time, a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	return a.Line - b.Line
}

// priorityOf is the dashboard item of one cluster, and the mention whose
// text it shows.
func priorityOf(mentions []Followup, members []int) (Priority, Followup) {
	ms := make([]Followup, len(members))
	for i, m := range members {
		ms[i] = mentions[m]
	}
	slices.SortStableFunc(ms, compareMentions)
	rep := ms[0]
	p := Priority{Text: rep.Text, Project: rep.Project, Time: rep.Time, Kind: rep.Kind}
	for _, m := range ms {
		if p.Project == "" && m.Project != "" {
			p.Project = m.Project
		}
		if m.Kind.rank() < p.Kind.rank() {
			p.Kind = m.Kind
		}
		p.Sources = append(p.Sources, SourceRef{Kind: m.Kind, Path: m.Path, Line: m.Line, Time: m.Time})
	}
	// A tag written on the item beats one derived from where it sits.
	for _, m := range ms {
		if m.TagFrom == TagExplicit {
			p.Project = m.Project
			break
		}
	}
	return p, rep
}

// comparePlaces orders priorities alike in recency (byRecency): by the
// first source's path and line, then text.
func comparePlaces(a, b Priority) int {
	if c := strings.Compare(a.Sources[0].Path, b.Sources[0].Path); c != 0 {
		return c
	}
	if c := a.Sources[0].Line - b.Sources[0].Line; c != 0 {
		return c
	}
	return strings.Compare(a.Text, b.Text)
}

// ActiveStatusHeading is the first line of ACTIVE-STATUS.md.
const ActiveStatusHeading = "# Active Status"

// ActiveStatusLint is ACTIVE-STATUS.md's markdownlint inline
// configuration, after its generated-file comment: each follow-up is one
// line however long (its text, up to 240 characters, then its sources), so
// that a line is an item, and MD013 (line length) is off. The follow-ups'
// text is escaped (markdown.EscapeItem), so a URL or a "<" in a source
// lints clean.
const ActiveStatusLint = "<!-- markdownlint-disable-file MD013 -->"

// Render writes ACTIVE-STATUS.md. The text depends only on the sources (no
// clock), so regenerating twice gives the same bytes and concurrent
// regenerations agree.
func (d Dashboard) Render() string {
	var b strings.Builder
	b.WriteString(ActiveStatusHeading + "\n\n")
	b.WriteString("<!-- Generated by git-scribe from durable sources only: journal \"### Next\",\n" +
		"projects' todos.md and PROGRESS.md \"## Next Session\", actives' open\n" +
		"checkboxes. Edits here are overwritten; edit a source, then run\n" +
		"`git scribe status regenerate`. -->\n" + ActiveStatusLint + "\n\n")
	b.WriteString("## Priorities\n\n")
	if d.Shown == 0 {
		b.WriteString("No open follow-ups.\n")
		writeUnread(&b, d.Audit.Unread)
		return b.String()
	}
	for _, p := range d.Items[:d.Shown] {
		b.WriteString("- " + markdown.EscapeItem(p.Line()) + "\n")
	}
	if more := len(d.Items) - d.Shown; more > 0 {
		fmt.Fprintf(&b, "\n%d more open follow-up%s %s only in %s sources (the dashboard shows %d).\n",
			more, notes.Plural(more), map[bool]string{true: "is", false: "are"}[more == 1], map[bool]string{true: "its", false: "their"}[more == 1], d.Shown)
	}
	if n := len(d.Audit.Untagged); n > 0 {
		fmt.Fprintf(&b, "\n%d follow-up%s untagged: add a \"(project)\" prefix so it can be routed.\n", n, map[bool]string{true: " is", false: "s are"}[n == 1])
	}
	writeUnread(&b, d.Audit.Unread)
	return b.String()
}

// writeUnread names the sources that could not be read: their follow-ups
// are not on the dashboard, and it says so.
func writeUnread(b *strings.Builder, unread []UnreadSource) {
	if len(unread) == 0 {
		return
	}
	b.WriteString("\nNot read, so their follow-ups are missing here:\n\n")
	for _, u := range unread {
		fmt.Fprintf(b, "- %s: %s\n", u.Path, u.Reason)
	}
}
