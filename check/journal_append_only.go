package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// journalAppendOnly is SCR001: a journal entry, once committed, is never
// edited or deleted (SPEC principle 8). It is verified against history:
// every commit since --since that touched the journal or its archive, and the
// uncommitted changes, must keep every entry of the version before it byte
// for byte (trailing blank lines aside) in the journal or the archive.
// Entries moved from the journal to the archive in the same commit are fine.
type journalAppendOnly struct{ meta }

func newJournalAppendOnly() Rule {
	return journalAppendOnly{meta{
		id: "SCR001", name: "journal-append-only", severity: SeverityError,
		describe: "journal entries are never edited or deleted, in any commit since --since or in uncommitted changes; archiving moves them verbatim",
	}}
}

func (journalAppendOnly) Check(ctx context.Context, in *Input) ([]Finding, error) {
	w := &journalWalk{
		in:     in,
		jPath:  in.Config.Paths.Journal,
		aPath:  in.Config.Paths.JournalArchive,
		blobs:  map[string]string{},
		parsed: map[string][]jentry{},
	}
	return w.run(ctx)
}

// journalWalk verifies the journal's history. Every version of the journal
// and the archive is read once, by blob id: `git log --raw` names them, the
// journal's are read in-process (gitops.ReadFiles), and archive versions,
// which only ever grow, are recognised as prefixes of a newer version by
// their object id, so most of them are never read at all.
type journalWalk struct {
	in           *Input
	jPath, aPath string
	hexLen       int
	blobs        map[string]string   // blob id → content
	parsed       map[string][]jentry // blob id → entries of the whole blob
	ref          archiveRef
}

// violation is one entry lost by one commit.
type violation struct {
	commit string // "" for uncommitted changes
	from   string // the file the entry was in
	lost   jentry
	edited *jentry // the entry's new text when it was edited, not deleted
	// reverted says a later change put the entry back as it was, in
	// revertedBy ("" for uncommitted changes).
	reverted   bool
	revertedBy string
}

// fileVersions is one file before and after a change. Ids are "" when the
// text is not a blob (the working tree).
type fileVersions struct {
	path         string
	oldID, newID string
	old, new     string
}

func (w *journalWalk) run(ctx context.Context) ([]Finding, error) {
	in := w.in
	var headJ, headA string
	if in.Head != "" {
		w.hexLen = len(in.Head)
		m, err := in.Repo.ReadFiles(ctx, in.Head, []string{w.jPath, w.aPath})
		if err != nil {
			return nil, fmt.Errorf("read the journal at HEAD: %w", err)
		}
		if b, ok := m[w.jPath]; ok {
			headJ = string(b)
			w.blobs[blobID(headJ, w.hexLen)] = headJ
		}
		if b, ok := m[w.aPath]; ok {
			headA = string(b)
			w.blobs[blobID(headA, w.hexLen)] = headA
			w.ref = archiveRef{text: headA, hint: len(headA)}
		}
	}
	var vs []violation
	if rng := in.RevRange(); rng != "" {
		commits, err := logRaw(ctx, in, rng, []string{w.jPath, w.aPath})
		if err != nil {
			return nil, err
		}
		for _, c := range commits {
			found, err := w.commit(ctx, c)
			if err != nil {
				return nil, err
			}
			vs = append(vs, found...)
		}
	}
	wj, _, err := in.ReadFile(w.jPath)
	if err != nil {
		return nil, err
	}
	wa, _, err := in.ReadFile(w.aPath)
	if err != nil {
		return nil, err
	}
	var uncommitted []fileVersions
	if string(wj) != headJ {
		uncommitted = append(uncommitted, fileVersions{path: w.jPath, old: headJ, new: string(wj)})
	}
	if string(wa) != headA {
		uncommitted = append(uncommitted, fileVersions{path: w.aPath, old: headA, new: string(wa)})
	}
	// Newest first: the uncommitted changes, then history in log order.
	vs = dropReverts(append(w.compare("", uncommitted), vs...))
	if len(vs) == 0 {
		return nil, nil
	}
	return w.findings(ctx, vs, string(wj), string(wa)), nil
}

// commit checks one commit's change against one parent.
func (w *journalWalk) commit(ctx context.Context, c rawCommit) ([]violation, error) {
	var files []fileVersions
	for _, path := range []string{w.jPath, w.aPath} {
		ch, ok := c.Changes[path]
		if !ok {
			continue
		}
		if w.hexLen == 0 {
			w.hexLen = len(ch.New)
		}
		oldText, err := w.blob(ctx, path, ch.Old, c, c.Parents)
		if err != nil {
			return nil, err
		}
		newText, err := w.blob(ctx, path, ch.New, c, []string{c.SHA})
		if err != nil {
			return nil, err
		}
		files = append(files, fileVersions{path: path, oldID: ch.Old, newID: ch.New, old: oldText, new: newText})
	}
	return w.compare(c.SHA, files), nil
}

// blob returns the content of blob id of path, which one of the commits at
// holds: from the cache, as a prefix of a newer archive version, or read.
func (w *journalWalk) blob(ctx context.Context, path, id string, c rawCommit, at []string) (string, error) {
	if isZeroID(id) {
		return "", nil
	}
	if s, ok := w.blobs[id]; ok {
		return s, nil
	}
	if path == w.aPath {
		if s, ok := w.ref.find(id, w.hexLen); ok {
			w.blobs[id] = s
			return s, nil
		}
	}
	for _, commit := range at {
		m, err := w.in.Repo.ReadFiles(ctx, commit, []string{path})
		if err != nil {
			return "", fmt.Errorf("read %s at %s: %w", path, short(commit), err)
		}
		b, ok := m[path]
		if !ok {
			continue
		}
		s := string(b)
		// A merge is compared with each parent; only the content says which.
		if len(at) > 1 && blobID(s, len(id)) != id {
			continue
		}
		w.blobs[id] = s
		if path == w.aPath {
			w.ref = archiveRef{text: s, hint: len(s)}
		}
		return s, nil
	}
	return "", fmt.Errorf("read %s of commit %s: blob %s not found in %v", path, short(c.SHA), short(id), at)
}

// entries returns the entries of text from offset cut, using the parse
// cache when the whole blob is wanted.
func (w *journalWalk) entries(id, text string, cut int) []jentry {
	if cut != 0 || id == "" {
		return parseEntries(text[cut:])
	}
	if es, ok := w.parsed[id]; ok {
		return es
	}
	es := parseEntries(text)
	w.parsed[id] = es
	return es
}

// taggedEntry is an entry and the file it is in.
type taggedEntry struct {
	jentry
	path string
}

// compare finds the entries of the old versions that the new versions lost:
// old (journal + archive) must be a sub-multiset of new (journal + archive).
// Files that did not change cancel out and are not looked at.
func (w *journalWalk) compare(commit string, files []fileVersions) []violation {
	var olds, news []taggedEntry
	for _, f := range files {
		cut := unchangedCut(f.old, f.new)
		for _, e := range w.entries(f.oldID, f.old, cut) {
			olds = append(olds, taggedEntry{e, f.path})
		}
		for _, e := range w.entries(f.newID, f.new, cut) {
			news = append(news, taggedEntry{e, f.path})
		}
	}
	if len(olds) == 0 {
		return nil
	}
	newCount := map[string]int{}
	for _, e := range news {
		newCount[e.key]++
	}
	oldCount := map[string]int{}
	var lost []taggedEntry
	for _, e := range olds {
		if newCount[e.key] > 0 {
			newCount[e.key]--
			continue
		}
		lost = append(lost, e)
	}
	if len(lost) == 0 {
		return nil
	}
	for _, e := range olds {
		oldCount[e.key]++
	}
	var added []taggedEntry
	for _, e := range news {
		if oldCount[e.key] > 0 {
			oldCount[e.key]--
			continue
		}
		added = append(added, e)
	}
	var vs []violation
	for _, l := range lost {
		v := violation{commit: commit, from: l.path, lost: l.jentry}
		// An entry whose heading timestamp survives was edited, not deleted.
		if i := slices.IndexFunc(added, func(a taggedEntry) bool { return entryStamp(a.raw) == entryStamp(l.raw) }); i >= 0 {
			ed := added[i].jentry
			v.edited = &ed
			added = slices.Delete(added, i, i+1)
		}
		vs = append(vs, v)
	}
	return vs
}

// dropReverts removes the edits that put an entry back as it was: a later
// edit of entry text B back to A, where an earlier commit edited A into B.
// The earlier edit stays a finding and remembers what undid it; undoing it is
// the fix, not a new violation. vs is newest first.
func dropReverts(vs []violation) []violation {
	type edit struct{ from, to string }
	earlier := map[edit][]int{}
	keep := make([]bool, len(vs))
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		keep[i] = true
		if v.edited == nil {
			continue
		}
		undo := edit{v.edited.key, v.lost.key}
		if olds := earlier[undo]; len(olds) > 0 {
			first := olds[0]
			earlier[undo] = olds[1:]
			vs[first].revertedBy, vs[first].reverted = v.commit, true
			keep[i] = false
			continue
		}
		e := edit{v.lost.key, v.edited.key}
		earlier[e] = append(earlier[e], i)
	}
	var out []violation
	for i, v := range vs {
		if keep[i] {
			out = append(out, v)
		}
	}
	return out
}

// place is a file:line.
type place struct {
	file string
	line int
}

// findings turns violations into findings pointing at the entry as it is
// now in the working tree's journal or archive, when it is still there.
func (w *journalWalk) findings(ctx context.Context, vs []violation, journal, archive string) []Finding {
	byKey, byStamp := map[string]place{}, map[string]place{}
	// The archive first, so that the journal wins where both hold an entry.
	for _, f := range []struct{ path, text string }{{w.aPath, archive}, {w.jPath, journal}} {
		line := 1
		prev := 0
		for _, e := range parseEntries(f.text) {
			line += countLines(f.text[prev:e.offset])
			prev = e.offset
			byKey[e.key] = place{f.path, line}
			byStamp[entryStamp(e.raw)] = place{f.path, line}
		}
	}
	var shas []string
	for _, v := range vs {
		if v.commit != "" && !slices.Contains(shas, v.commit) {
			shas = append(shas, v.commit)
		}
	}
	subjects := commitSubjects(ctx, w.in, shas)
	out := make([]Finding, 0, len(vs))
	for _, v := range vs {
		at, ok := place{}, false
		back := false
		if v.edited != nil {
			at, ok = byKey[v.edited.key]
		}
		if !ok {
			at, ok = byKey[v.lost.key]
			back = ok
		}
		if !ok {
			at, ok = byStamp[entryStamp(v.lost.raw)]
		}
		if !ok {
			at = place{file: v.from}
		}
		what := "journal entry"
		if v.from == w.aPath {
			what = "archived journal entry"
		}
		how := "deleted"
		if v.edited != nil {
			how = "edited"
		}
		where := "uncommitted changes"
		fix := fmt.Sprintf("restore the entry byte for byte (git diff -- %s shows the change) and record any correction as a new entry with git scribe wrap", v.from)
		if v.commit != "" {
			where = "commit " + short(v.commit)
			if s := subjects[v.commit]; s != "" {
				where += fmt.Sprintf(" (%q)", shorten(s, 72))
			}
			fix = fmt.Sprintf("restore the entry byte for byte as it was before %s (git show %s shows the change) and record any correction as a new entry; the journal is append-only",
				short(v.commit), short(v.commit))
			switch {
			case v.reverted && v.revertedBy == "":
				fix = "commit the restored entry; the edit stays in history, so from then on verify only what came after it (git scribe check --since <the restoring commit>)"
			case v.reverted:
				fix = fmt.Sprintf("the entry was restored by %s; the edit stays in history, so verify only what came after it: git scribe check --since %s",
					short(v.revertedBy), short(v.revertedBy))
			case back:
				fix = "the entry is back; the change stays in history, so verify only what came after the commit that restored it (git scribe check --since <that commit>)"
			}
		}
		msg := fmt.Sprintf("%s %q was %s in %s", what, entryTitle(v.lost.raw), how, where)
		if back {
			msg += "; it is back now, but the commit that changed it stays in history"
		}
		out = append(out, Finding{
			File: at.file, Line: at.line, Commit: v.commit, Message: msg, Fix: fix,
		})
	}
	return out
}

// countLines counts "\n" in s.
func countLines(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	return n
}

// archiveRef is a known archive text. The archive only grows, so an older
// version is normally a prefix of it ending where a later entry begins:
// find recognises such a version by its blob id without reading it.
type archiveRef struct {
	text string
	hint int // where the last version found here ended
}

// maxPrefixTries bounds the hashing spent on one blob before it is read.
const maxPrefixTries = 8

// find returns the prefix of the reference whose blob id is id.
func (r *archiveRef) find(id string, hexLen int) (string, bool) {
	if r.text == "" {
		return "", false
	}
	try := func(k int) bool { return k > 0 && k <= len(r.text) && blobID(r.text[:k], hexLen) == id }
	// Versions are met newest first: look just below the last match, then
	// just above it (history is not always walked in that order).
	tries := 0
	for end := min(r.hint, len(r.text)); tries < maxPrefixTries; {
		h := headingBefore(r.text, end)
		if h <= 0 {
			break
		}
		// The version may stop at the heading or up to two line breaks
		// before it (Append adds a blank line before moved entries).
		for k := h; k >= h-2 && k > 0 && (k == h || r.text[k] == '\n' || r.text[k] == '\r'); k-- {
			tries++
			if try(k) {
				r.hint = k
				return r.text[:k], true
			}
		}
		end = h
	}
	for pos, n := r.hint, 0; n < maxPrefixTries/2; n++ {
		k := headingAfter(r.text, pos)
		if k < 0 {
			k = len(r.text)
		}
		if try(k) {
			r.hint = k
			return r.text[:k], true
		}
		if k == len(r.text) {
			break
		}
		pos = k
	}
	return "", false
}

// headingAfter returns the start of the first entry heading line that
// begins strictly after pos, or -1.
func headingAfter(text string, pos int) int {
	for from := pos; from < len(text); {
		i := indexFrom(text, "\n## ", from)
		if i < 0 {
			return -1
		}
		start := i + 1
		if start > pos {
			line := text[start:]
			if e := indexFrom(text, "\n", start); e >= 0 {
				line = text[start:e]
			}
			if isEntryHeading(line) {
				return start
			}
		}
		from = start
	}
	return -1
}

// indexFrom is strings.Index starting at from, returning an absolute offset.
func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	if j := strings.Index(s[from:], sub); j >= 0 {
		return from + j
	}
	return -1
}
