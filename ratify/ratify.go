// Package ratify owns the engine's ratification inbox (seed 002, SPEC §7).
// `ratify --mine` collects the "Introduced candidates" sections of landed
// drafts and reviews into the inbox (control/inbox.md) as pending "- [ ]"
// lines, each with a via-link to its source artifact — the marker that makes
// a second mine a no-op — conflicts with already-ratified facts first.
// `ratify` moves the items a person ticked into the "## Ratified facts"
// ledger and commits the inbox, the person's uncommitted ticks included.
//
// A person's tick is the only verdict: nothing here ticks a box, and the
// dispatcher only ever invokes Mine. The package never calls an agent and
// never imports dispatch; it writes only the inbox, through gitops' branch
// write.
package ratify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/git-scribe/git-scribe/config"
	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// Options are what mining and ratifying need.
type Options struct {
	Repo   *gitops.Repo
	Config config.Config
	// Redact removes secrets from candidate text before it reaches the inbox.
	Redact func(string) string
}

// Source is one landed artifact.
type Source struct {
	Path string
	Text string
}

// Item is one inbox line mining adds.
type Item struct {
	Text string `json:"text"`
	// Via is the source artifact's path.
	Via string `json:"via"`
	// Conflict is the ratified fact it contradicts, if any.
	Conflict string `json:"conflict,omitempty"`
}

// Section names.
const (
	PendingHeading  = "## Pending"
	RatifiedHeading = "## Ratified facts"
)

// DefaultInbox is a new inbox before anything is mined into it.
const DefaultInbox = "# Inbox\n\nCandidates mined from drafts and reviews. Tick what is true (`- [x]`), then run `git scribe ratify`.\n\n" +
	PendingHeading + "\n\n" + RatifiedHeading + "\n"

var (
	viaRE       = lazyre.New(`\(via \[\[([^\]\n]+)\]\]\)`)
	headingRE   = lazyre.New(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	bulletRE    = lazyre.New(`^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*\S)\s*$`)
	tickedRE    = lazyre.New(`^\s*[-*+]\s+\[[xX]\]\s+(.*\S)\s*$`)
	conflictPre = lazyre.New(`^⚠ conflicts with ratified "[^"\n]*": `)
)

// Candidates returns the bullets of a note's "Introduced candidates"
// section (any heading level, or a bold or plain "Introduced candidates:"
// line), one line each; "None." and the like are not candidates.
func Candidates(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	in := false
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if m := headingRE().FindStringSubmatch(t); m != nil {
			in = isCandidatesTitle(m[2])
			continue
		}
		if isCandidatesTitle(strings.Trim(t, "*_")) {
			in = true
			continue
		}
		if !in {
			continue
		}
		m := bulletRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		c := strings.Join(strings.Fields(m[1]), " ")
		switch strings.ToLower(strings.TrimRight(c, ".")) {
		case "", "none", "n/a", "na", "nothing", "-":
			continue
		}
		c = viaRE().ReplaceAllString(c, "")
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func isCandidatesTitle(s string) bool {
	s = strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ":")))
	return s == "introduced candidates"
}

// link is the via-link target of a repo-relative path.
func link(path string) string { return strings.TrimSuffix(path, ".md") }

// key is the subject a candidate or fact is about: the text before its
// first " — ", " – ", " - " or ": ", lower-cased.
func key(s string) string {
	best := len(s)
	for _, sep := range []string{" — ", " – ", " - ", ": "} {
		if i := strings.Index(s, sep); i > 0 && i < best {
			best = i
		}
	}
	return strings.ToLower(strings.TrimSpace(s[:best]))
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// factText strips a ledger or inbox line to its fact: no bullet, box,
// conflict note or via-link.
func factText(line string) string {
	m := bulletRE().FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	s := conflictPre().ReplaceAllString(m[1], "")
	return strings.TrimSpace(viaRE().ReplaceAllString(s, ""))
}

// span is a section: its heading line and the first line after it.
type span struct{ start, end int }

func sectionOf(lines []string, heading string) (span, bool) {
	for i, l := range lines {
		if strings.EqualFold(strings.TrimSpace(l), heading) {
			end := len(lines)
			for j := i + 1; j < len(lines); j++ {
				if m := headingRE().FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil && len(m[1]) <= 2 {
					end = j
					break
				}
			}
			return span{i, end}, true
		}
	}
	return span{}, false
}

// MineText adds the candidates of sources not yet mined (no via-link to
// them anywhere in inbox) to the Pending section: conflicts with ratified
// facts first, then the rest in source order. A candidate already ratified
// word for word is not added again. The other lines are left as they are.
func MineText(inbox string, sources []Source) (string, []Item) {
	if strings.TrimSpace(inbox) == "" {
		inbox = DefaultInbox
	}
	lines := strings.Split(strings.TrimSuffix(inbox, "\n"), "\n")
	mined := map[string]bool{}
	for _, m := range viaRE().FindAllStringSubmatch(inbox, -1) {
		mined[strings.TrimSpace(m[1])] = true
	}
	facts := map[string]string{} // key → fact
	known := map[string]bool{}   // normalised text already in the inbox
	if sp, ok := sectionOf(lines, RatifiedHeading); ok {
		for _, l := range lines[sp.start+1 : sp.end] {
			if f := factText(l); f != "" {
				facts[key(f)] = f
				known[norm(f)] = true
			}
		}
	}
	for _, l := range lines {
		if f := factText(l); f != "" {
			known[norm(f)] = true
		}
	}
	var conflicts, plain []Item
	for _, src := range sources {
		if mined[link(src.Path)] {
			continue
		}
		for _, c := range Candidates(src.Text) {
			if known[norm(c)] {
				continue
			}
			known[norm(c)] = true
			it := Item{Text: c, Via: src.Path}
			if f, ok := facts[key(c)]; ok {
				it.Conflict = f
				conflicts = append(conflicts, it)
			} else {
				plain = append(plain, it)
			}
		}
	}
	added := append(conflicts, plain...)
	if len(added) == 0 {
		return inbox, nil
	}
	render := func(it Item) string {
		s := "- [ ] "
		if it.Conflict != "" {
			s += fmt.Sprintf("⚠ conflicts with ratified %q: ", strings.ReplaceAll(it.Conflict, `"`, "'"))
		}
		return s + it.Text + " (via [[" + link(it.Via) + "]])"
	}
	sp, ok := sectionOf(lines, PendingHeading)
	if !ok {
		// A Pending section goes before the ledger, or at the end.
		at := len(lines)
		if r, ok := sectionOf(lines, RatifiedHeading); ok {
			at = r.start
		}
		ins := []string{PendingHeading, ""}
		if at > 0 && strings.TrimSpace(lines[at-1]) != "" {
			ins = append([]string{""}, ins...)
		}
		if at < len(lines) {
			ins = append(ins, "")
		}
		lines = slices.Insert(lines, at, ins...)
		sp, _ = sectionOf(lines, PendingHeading)
	}
	// Conflicts right under the heading (after a blank line), the rest at
	// the section's end, before its trailing blank lines.
	top := sp.start + 1
	for top < sp.end && strings.TrimSpace(lines[top]) == "" {
		top++
	}
	end := sp.end
	for end > top && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	var head, tail []string
	for _, it := range conflicts {
		head = append(head, render(it))
	}
	for _, it := range plain {
		tail = append(tail, render(it))
	}
	out := append([]string{}, lines[:top]...)
	if top == sp.start+1 {
		out = append(out, "")
	}
	out = append(out, head...)
	out = append(out, lines[top:end]...)
	out = append(out, tail...)
	rest := lines[end:]
	if len(rest) > 0 && strings.TrimSpace(rest[0]) != "" {
		out = append(out, "")
	}
	out = append(out, rest...)
	return strings.Join(out, "\n") + "\n", added
}

// RatifyText moves every ticked "- [x]" line outside the ledger into the
// "## Ratified facts" section (created at the end if missing), as "- fact
// (via [[source]])": the box and any conflict note go, the via-link stays so
// the source is never mined again. It returns the new inbox and the facts
// moved.
func RatifyText(inbox string) (string, []string) {
	lines := strings.Split(strings.TrimSuffix(inbox, "\n"), "\n")
	led, hasLedger := sectionOf(lines, RatifiedHeading)
	var keep, moved []string
	var facts []string
	// gap: a moved line left a blank line above it, so a blank line right
	// after the moved lines would make two (a section emptied of its items).
	gap := false
	for i, l := range lines {
		if hasLedger && i > led.start && i < led.end {
			keep = append(keep, l)
			continue
		}
		m := tickedRE().FindStringSubmatch(l)
		if m == nil {
			if gap && strings.TrimSpace(l) == "" {
				gap = false
				continue
			}
			gap = false
			keep = append(keep, l)
			continue
		}
		gap = len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == ""
		text := strings.TrimSpace(conflictPre().ReplaceAllString(m[1], ""))
		moved = append(moved, "- "+text)
		facts = append(facts, strings.TrimSpace(viaRE().ReplaceAllString(text, "")))
	}
	if len(moved) == 0 {
		return inbox, nil
	}
	led, hasLedger = sectionOf(keep, RatifiedHeading)
	if !hasLedger {
		for len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == "" {
			keep = keep[:len(keep)-1]
		}
		keep = append(keep, "", RatifiedHeading, "")
		led, _ = sectionOf(keep, RatifiedHeading)
	}
	end := led.end
	for end > led.start+1 && strings.TrimSpace(keep[end-1]) == "" {
		end--
	}
	out := append([]string{}, keep[:end]...)
	if end == led.start+1 {
		out = append(out, "")
	}
	out = append(out, moved...)
	if rest := keep[led.end:]; len(rest) > 0 {
		out = append(out, "")
		out = append(out, rest...)
	}
	return strings.Join(out, "\n") + "\n", facts
}

// Report is what a mine or ratify did.
type Report struct {
	// Status is committed, nothing or deferred.
	Status string               `json:"status"`
	Reason string               `json:"reason"`
	Inbox  string               `json:"inbox"`
	Added  []Item               `json:"added,omitempty"`
	Facts  []string             `json:"ratified,omitempty"`
	Commit *gitops.CommitResult `json:"commit,omitempty"`
	// Landed says the ratify commit holds the person's uncommitted ticks;
	// OtherEdits that the inbox also had edits besides ticks, committed
	// with them.
	Landed     bool `json:"landed_uncommitted,omitempty"`
	OtherEdits bool `json:"other_edits,omitempty"`
}

// Mine collects candidates from the landed artifacts (every note under the
// drafts and reviews dirs) into the inbox and commits it. Mining again finds
// every source's via-link and adds nothing.
func Mine(ctx context.Context, o Options) (Report, error) {
	inbox := o.Config.Paths.Inbox
	rep := Report{Inbox: inbox}
	sources, err := artifacts(ctx, o)
	if err != nil {
		return rep, err
	}
	var added []Item
	res, err := o.Repo.CommitPaths(ctx, gitops.CommitRequest{
		Paths:       []string{inbox},
		Locks:       []string{"inbox"},
		LockOptions: gitops.LockOptions{Timeout: o.Config.LockTimeout, Purpose: "ratify --mine"},
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			var text string
			text, added = MineText(string(cur[inbox]), sources)
			if len(added) == 0 {
				return map[string][]byte{}, nil
			}
			return map[string][]byte{inbox: []byte(text)}, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: mine %d candidate(s) into %s\n\n%s: ratify\n", len(added), inbox, gitops.TrailerMode)
		},
	})
	return finish(rep, res, err, func(r *Report) { r.Added = added },
		"no new candidates: every landed draft and review is already mined")
}

// Ratify moves the items a person ticked into the ledger and commits the
// inbox on the current branch, ticks and all: the inbox as the person left
// it in the work tree, committed or not. Ratify is run by the person and the
// inbox is theirs, so their ticks need no commit of their own first
// (principle 3's person's decision); nothing else of their work is
// committed or touched (gitops' Adopt). A staged inbox that differs from the
// work tree defers it: which of the two is meant is the person's to say.
func Ratify(ctx context.Context, o Options) (Report, error) {
	inbox := o.Config.Paths.Inbox
	rep := Report{Inbox: inbox}
	var facts []string
	var input []byte
	res, err := o.Repo.CommitPaths(ctx, gitops.CommitRequest{
		Paths:       []string{inbox},
		Adopt:       []string{inbox},
		Locks:       []string{"inbox"},
		LockOptions: gitops.LockOptions{Timeout: o.Config.LockTimeout, Purpose: "ratify"},
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			var text string
			input = cur[inbox]
			text, facts = RatifyText(string(input))
			if len(facts) == 0 {
				return map[string][]byte{}, nil
			}
			return map[string][]byte{inbox: []byte(text)}, nil
		},
		Message: func([]string) string {
			var b strings.Builder
			fmt.Fprintf(&b, "progress: ratify %d fact(s)\n\n", len(facts))
			for _, f := range facts {
				fmt.Fprintf(&b, "- %s\n", f)
			}
			fmt.Fprintf(&b, "\n%s: ratify\n", gitops.TrailerMode)
			return b.String()
		},
	})
	if err == nil && res.SHA != "" {
		before, rerr := o.Repo.ReadFiles(ctx, res.Parent, []string{inbox})
		if rerr == nil && !bytes.Equal(before[inbox], input) {
			rep.Landed = true
			rep.OtherEdits = !onlyTicks(string(before[inbox]), string(input))
		}
	}
	return finish(rep, res, err, func(r *Report) { r.Facts = facts },
		"nothing ticked: tick the pending items that are true (- [x]) in the inbox, then run git scribe ratify")
}

var boxRE = lazyre.New(`^(\s*[-*+]\s+)\[[ xX]\](.*)$`)

// onlyTicks reports whether after differs from before in boxes alone.
func onlyTicks(before, after string) bool {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		mb, ma := boxRE().FindStringSubmatch(b[i]), boxRE().FindStringSubmatch(a[i])
		if mb == nil || ma == nil || mb[1] != ma[1] || mb[2] != ma[2] {
			return false
		}
	}
	return true
}

func finish(rep Report, res gitops.CommitResult, err error, fill func(*Report), nothing string) (Report, error) {
	var de *gitops.DeferredError
	if errors.As(err, &de) {
		rep.Status, rep.Reason = "deferred", de.Reason
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	if res.SHA == "" {
		rep.Status, rep.Reason = "nothing", nothing
		return rep, nil
	}
	fill(&rep)
	rep.Status, rep.Commit = "committed", &res
	return rep, nil
}

// artifacts reads every note under the drafts and reviews dirs from the
// work tree, redacted.
func artifacts(ctx context.Context, o Options) ([]Source, error) {
	p := o.Config.Paths
	out, err := o.Repo.Git(ctx, "ls-files", "-z", "-c", "-o", "--exclude-standard", "--deduplicate", "--", p.Drafts, p.Reviews)
	if err != nil {
		return nil, fmt.Errorf("list landed drafts and reviews: %w", err)
	}
	var srcs []Source
	for _, rel := range strings.Split(string(out), "\x00") {
		if !strings.HasSuffix(rel, ".md") {
			continue
		}
		abs, err := o.Repo.Abs(rel)
		if err != nil {
			return nil, err
		}
		fi, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		if fi.Size() > 1<<20 {
			continue
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		text := string(data)
		if o.Redact != nil {
			text = o.Redact(text)
		}
		srcs = append(srcs, Source{Path: rel, Text: text})
	}
	slices.SortFunc(srcs, func(a, b Source) int { return strings.Compare(a.Path, b.Path) })
	return srcs, nil
}
