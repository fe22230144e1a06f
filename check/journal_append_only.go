package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/git-scribe/git-scribe/notes"
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

func (journalAppendOnly) reads() inputs { return readsVault }

func (journalAppendOnly) Check(ctx context.Context, in *Input) ([]Finding, error) {
	if in.Vault == "" {
		return newJournalWalk(in).run(ctx)
	}
	if in.late != nil {
		// --since is unresolved: the whole vault history first, when it
		// is loose. Clean, it is clean since --since too, and nothing
		// waits for the resolution; else the walk is redone from the
		// date --since resolves to.
		w := newJournalWalk(in)
		w.wholeLoose = true
		if found, err := w.run(ctx); err == nil && len(found) == 0 {
			return nil, nil
		} else if err != nil && !errors.Is(err, errVaultNotLoose) {
			return nil, err
		}
	}
	date, err := in.VaultSinceDate()
	if err != nil {
		return nil, err
	}
	w := newJournalWalk(in)
	w.sinceDate = date // "" walks the whole vault history
	return w.run(ctx)
}

// errVaultNotLoose is a whole-vault walk (wholeLoose) that met a packed
// commit, or more than wholeLooseMax of them.
var errVaultNotLoose = errors.New("the vault history is not a short loose chain")

// wholeLooseMax bounds the whole-vault walk that spares --since's
// resolution: ~80-100 us a loose vault commit (moby's bench vault, 100
// commits: 8-18 ms) against the 15 ms of CPU HEAD~500's resolution costs.
// A longer vault history waits for the date instead.
const wholeLooseMax = 128

// newJournalWalk is SCR001's walk of in: the vault ref's own history (its
// tip, and with --since every vault commit made since then; the view
// files are output, not versions: a person's edit is kept aside by the
// view itself), or the branch's, journal and archive, where there is no
// vault ref.
func newJournalWalk(in *Input) *journalWalk {
	w := &journalWalk{
		in:       in,
		jPath:    in.Config.Paths.Journal,
		aPath:    in.Config.Paths.JournalArchive,
		head:     in.Head,
		rng:      in.RevRange(),
		working:  true,
		blobs:    map[string]string{},
		parsed:   map[string][]jentry{},
		journals: map[string][]jentry{},
	}
	if in.Vault != "" {
		w.jPath, w.aPath, w.head, w.rng, w.working, w.prefix = notes.VaultJournal, notes.VaultArchive, in.Vault, in.Vault, false, VaultPrefix
	}
	return w
}

// journalWalk verifies the journal's history with one `git log --raw`,
// which names the blob of every version. Versions are not read one by one:
// in a clean history each is recognised, by its blob id, from the files at
// HEAD (journal_versions.go); only what is not recognised (an edit, a
// merge) is read, in-process through gitops.ReadFiles. Each version's
// entries are worked out once.
type journalWalk struct {
	in           *Input
	jPath, aPath string
	// head and rng are the commit whose files are the newest versions and
	// the history to walk ("" for none); working adds the work tree's files
	// as the newest versions; sinceDate bounds the walk by committer date;
	// prefix names the files in findings; wholeLoose reads the whole
	// history in process or fails with errNotLoose.
	head, rng, sinceDate, prefix string
	working, wholeLoose          bool
	hexLen                       int
	blobs                        map[string]string   // archive blob id → content
	parsed                       map[string][]jentry // archive blob id → entries of the whole blob
	journals                     map[string][]jentry // journal blob id → its entries
	ref                          archiveRef
	seq                          journalSeq
	reads                        int // blobs read rather than recognised
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

// fileVersions is one file before and after a change: its texts (ids are
// "" when a text is not a blob, as in the working tree) or, when whole is
// set, the entry lists of both versions.
type fileVersions struct {
	path         string
	oldID, newID string
	old, new     string

	whole                  bool
	oldEntries, newEntries []jentry
}

func (w *journalWalk) run(ctx context.Context) ([]Finding, error) {
	in := w.in
	// The history's versions are listed while the newest are read.
	var history *pending[[]rawCommit]
	var wg sync.WaitGroup
	if rng := w.rng; rng != "" {
		paths := []string{w.jPath, w.aPath}
		history = goRead(&wg, func() ([]rawCommit, error) {
			// The vault's newest commits are loose: its history is read
			// in process when it is a chain of them (most of a check
			// --since's vault walk was git's start and its object lookups).
			if w.prefix == VaultPrefix {
				limit := 0
				if w.wholeLoose {
					limit = wholeLooseMax
				}
				if cs, ok := in.Repo.VaultPathHistory(rng, w.sinceDate, paths, limit); ok {
					return cs, nil
				}
				if w.wholeLoose {
					return nil, errVaultNotLoose
				}
			}
			if w.sinceDate != "" {
				return logRaw(ctx, in, "--since="+w.sinceDate+"\x00"+rng, paths)
			}
			return logRaw(ctx, in, rng, paths)
		})
	}
	defer wg.Wait()
	var headJ, headA string
	if w.head != "" {
		w.hexLen = len(w.head)
		m, err := w.headFiles(ctx)
		if err != nil {
			return nil, fmt.Errorf("read the journal at HEAD: %w", err)
		}
		var jEntries, aEntries []jentry
		if b, ok := m[w.jPath]; ok {
			headJ = string(b)
			jEntries = parseEntries(headJ)
			w.journals[blobID(headJ, w.hexLen)] = jEntries
		}
		if b, ok := m[w.aPath]; ok {
			headA = string(b)
			aEntries = parseEntries(headA)
			w.blobs[blobID(headA, w.hexLen)] = headA
			w.ref = archiveRef{text: headA, hint: len(headA)}
		}
		w.seq = newJournalSeq(headJ, aEntries, jEntries)
	}
	var vs []violation
	if history != nil {
		commits, err := history.wait()
		if err != nil {
			return nil, err
		}
		if n := w.archiveVersions(commits); n >= prepareThreshold {
			w.ref.prepare(n, w.hexLen)
		}
		// Merges last: their other parents' versions are mainline versions
		// the walk has met by then. Findings keep the log's order.
		var order []int
		for pass := 0; pass < 2; pass++ {
			for i, c := range commits {
				if (len(c.Parents) > 1) == (pass == 1) {
					order = append(order, i)
				}
			}
		}
		found := make([][]violation, len(commits))
		for _, i := range order {
			if found[i], err = w.commit(ctx, commits[i]); err != nil {
				return nil, err
			}
		}
		for _, f := range found {
			vs = append(vs, f...)
		}
	}
	wj, wa := []byte(headJ), []byte(headA)
	if w.working {
		var err error
		if wj, _, err = in.ReadFile(w.jPath); err != nil {
			return nil, err
		}
		if wa, _, err = in.ReadFile(w.aPath); err != nil {
			return nil, err
		}
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

// headFiles reads the journal and the archive at w.head: from the vault
// tree the check reads once when w.head is the vault's tip.
func (w *journalWalk) headFiles(ctx context.Context) (map[string][]byte, error) {
	if w.head != w.in.Vault {
		return w.in.Repo.ReadFiles(ctx, w.head, []string{w.jPath, w.aPath})
	}
	t, err := w.in.vaultTree(ctx)
	if err != nil {
		return nil, err
	}
	m := map[string][]byte{}
	for _, p := range []string{w.jPath, w.aPath} {
		if b, ok := t.files[p]; ok {
			m[p] = b
		}
	}
	return m, nil
}

// prepareThreshold is how many archive versions make hashing them up front,
// in parallel, worth it.
const prepareThreshold = 16

// archiveVersions counts the archive versions the walk will need.
func (w *journalWalk) archiveVersions(commits []rawCommit) int {
	ids := map[string]bool{}
	for _, c := range commits {
		if ch, ok := c.Changes[w.aPath]; ok {
			ids[ch.Old], ids[ch.New] = true, true
		}
	}
	return len(ids)
}

// commit checks one commit's change against one parent.
func (w *journalWalk) commit(ctx context.Context, c rawCommit) ([]violation, error) {
	var files []fileVersions
	if ch, ok := c.Changes[w.jPath]; ok {
		if w.hexLen == 0 {
			w.hexLen = len(ch.New)
		}
		oldEntries, err := w.journal(ctx, ch.Old, c, c.Parents)
		if err != nil {
			return nil, err
		}
		newEntries, err := w.journal(ctx, ch.New, c, []string{c.SHA})
		if err != nil {
			return nil, err
		}
		files = append(files, fileVersions{path: w.jPath, whole: true, oldEntries: oldEntries, newEntries: newEntries})
	}
	if ch, ok := c.Changes[w.aPath]; ok {
		if w.hexLen == 0 {
			w.hexLen = len(ch.New)
		}
		oldText, err := w.archive(ctx, ch.Old, c, c.Parents)
		if err != nil {
			return nil, err
		}
		newText, err := w.archive(ctx, ch.New, c, []string{c.SHA})
		if err != nil {
			return nil, err
		}
		files = append(files, fileVersions{path: w.aPath, oldID: ch.Old, newID: ch.New, old: oldText, new: newText})
	}
	return w.compare(c.SHA, files), nil
}

// journal returns the entries of journal blob id: from the cache, as a run
// of consecutive entries of the journal's whole history, or read and parsed.
func (w *journalWalk) journal(ctx context.Context, id string, c rawCommit, at []string) ([]jentry, error) {
	if isZeroID(id) {
		return nil, nil
	}
	if es, ok := w.journals[id]; ok {
		return es, nil
	}
	if es, ok := w.seq.find(id, w.hexLen); ok {
		w.journals[id] = es
		return es, nil
	}
	text, err := w.read(ctx, w.jPath, id, c, at)
	if err != nil {
		return nil, err
	}
	es := parseEntries(text)
	w.journals[id] = es
	return es, nil
}

// archive returns the content of archive blob id: from the cache, as a
// prefix of a newer archive version, or read.
func (w *journalWalk) archive(ctx context.Context, id string, c rawCommit, at []string) (string, error) {
	if isZeroID(id) {
		return "", nil
	}
	if s, ok := w.blobs[id]; ok {
		return s, nil
	}
	if s, ok := w.ref.find(id, w.hexLen); ok {
		w.blobs[id] = s
		return s, nil
	}
	s, err := w.read(ctx, w.aPath, id, c, at)
	if err != nil {
		return "", err
	}
	w.blobs[id] = s
	w.ref = archiveRef{text: s, hint: len(s)}
	return s, nil
}

// read reads blob id of path from the one of the commits at that holds it.
// Reads are in-process (gitops.ReadFiles); the walk needs few of them.
func (w *journalWalk) read(ctx context.Context, path, id string, c rawCommit, at []string) (string, error) {
	w.reads++
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
		oldEntries, newEntries := f.oldEntries, f.newEntries
		if !f.whole {
			cut := unchangedCut(f.old, f.new)
			oldEntries, newEntries = w.entries(f.oldID, f.old, cut), w.entries(f.newID, f.new, cut)
		}
		for _, e := range oldEntries {
			olds = append(olds, taggedEntry{e, f.path})
		}
		for _, e := range newEntries {
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
			byKey[e.key] = place{w.prefix + f.path, line}
			byStamp[entryStamp(e.raw)] = place{w.prefix + f.path, line}
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
			at = place{file: w.prefix + v.from}
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
