package vault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/git-scribe/git-scribe/notes"
)

// ReadVault returns the vault files at the vault's tip (absent ones are
// missing from the map) and the tip itself ("" before the first write).
func (v *Vault) ReadVault(ctx context.Context, paths ...string) (string, map[string][]byte, error) {
	v.Migrate(ctx)
	tip, err := v.vaultTip(ctx)
	if err != nil {
		return "", nil, err
	}
	files, err := v.Repo.ReadVaultFiles(ctx, tip, paths)
	if err != nil {
		return tip, nil, fmt.Errorf("read %s: %w", gitops.VaultRef, err)
	}
	return tip, files, nil
}

// vaultTip is refs/scribe/vault's tip as this command last saw or wrote
// it: the reads a command plans with resolve it once, not once each (the
// commit itself always builds on the ref's current value, by CAS).
func (v *Vault) vaultTip(ctx context.Context) (string, error) {
	if v.tipKnown {
		return v.tip, nil
	}
	tip, err := v.Repo.VaultTip(ctx)
	if err == nil {
		v.tip, v.tipKnown = tip, true
	}
	return tip, err
}

// forgetTip makes the next read resolve the vault's tip again.
func (v *Vault) forgetTip() { v.tipKnown = false }

// commitVault makes one commit on refs/scribe/vault and refreshes the
// working-tree view; the view's warnings ride on the result.
func (v *Vault) commitVault(ctx context.Context, req gitops.CommitRequest) (gitops.CommitResult, error) {
	v.Migrate(ctx)
	req.Vault = true
	if speculating(ctx) {
		v.Repo.SpeculateVault(ctx, req) // objects only: nothing published, no view
		return gitops.CommitResult{}, nil
	}
	res, err := v.Repo.CommitPaths(ctx, req)
	v.forgetTip()
	if err == nil && res.SHA != "" {
		v.tip, v.tipKnown = res.SHA, true
		res.Warnings = append(res.Warnings, v.RenderView(ctx)...)
	}
	return res, err
}

// ViewPaths maps the vault files the checked-out branch sees to their
// working-tree view paths.
func (v *Vault) ViewPaths(head gitops.Head) map[string]string {
	p := v.Config.Paths
	m := map[string]string{}
	for vp, wp := range map[string]string{
		notes.VaultJournal:              p.Journal,
		notes.VaultArchive:              p.JournalArchive,
		notes.VaultActiveStatus:         p.ActiveStatus,
		notes.BridgeVaultPath(head.Ref): p.BridgeNote,
	} {
		if wp != "" {
			m[vp] = wp
		}
	}
	return m
}

// viewState remembers what this work tree's view was last rendered as, so
// a person's edit of a view file is recognised (and kept) before the file
// is refreshed.
type viewState struct {
	Rendered map[string]string `json:"rendered"` // view path → sha256 of what scribe wrote
	// Tip and Ref are the vault commit and the branch the view was last
	// rendered from: a command killed between its vault commit and the
	// render leaves them behind, and the next command re-renders
	// (RefreshStaleView).
	Tip string `json:"tip,omitempty"`
	Ref string `json:"ref,omitempty"`
}

// RefreshStaleView renders the view when it was last rendered from another
// vault commit or branch than the current ones: the vault's record is
// refreshed after every vault write (SPEC principle 2), and a write killed
// between its commit and its render is caught up by the next command that
// finds it so. It costs a small file read when the view is current.
func (v *Vault) RefreshStaleView(ctx context.Context) []string {
	if !v.Config.View || v.ReadOnly {
		return nil
	}
	tip, err := v.vaultTip(ctx)
	if err != nil || tip == "" {
		return nil
	}
	var st viewState
	if b, err := os.ReadFile(v.viewStateFile()); err == nil {
		json.Unmarshal(b, &st)
	}
	if st.Tip == tip {
		head, err := v.Repo.Head(ctx)
		if err != nil || head.Ref == st.Ref && v.viewIntact(head, st) {
			return nil
		}
	}
	return v.RenderView(ctx)
}

// viewIntact reports whether every view file is as scribe last rendered it
// (read and hashed in-process, no git): a file the person edited or
// removed is rendered again, and an edit kept aside first, as RenderView
// does.
func (v *Vault) viewIntact(head gitops.Head, st viewState) bool {
	for _, wp := range v.ViewPaths(head) {
		abs, err := v.Repo.AbsNoLinks(wp)
		if err != nil {
			return false
		}
		want, ok := st.Rendered[wp]
		if !ok {
			// Not rendered: the vault had no such file at st.Tip (it
			// would be at another tip). Intact while nothing is there.
			if _, err := os.Lstat(abs); err == nil {
				return false
			}
			continue
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			return false
		}
		if sum(b) != want {
			return false
		}
	}
	return true
}

func (v *Vault) viewStateFile() string {
	return filepath.Join(v.Repo.ScribeDir(), "view", v.Repo.WorkTreeKey()+".json")
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// prefetchTracked starts the index listing RenderView needs (does the
// branch still track a view path?) so that it runs beside the command's
// other git reads: on moby it takes as long as four small git processes.
// The index holds no view path scribe writes (vault writes touch no
// index), so the early listing is the listing at render time.
func (v *Vault) prefetchTracked(ctx context.Context, head gitops.Head) {
	if !v.Config.View || v.ReadOnly || v.tracked != nil {
		return
	}
	var paths []string
	for _, wp := range v.ViewPaths(head) {
		paths = append(paths, wp)
	}
	sort.Strings(paths)
	l := &trackedListing{paths: paths, done: make(chan struct{})}
	v.tracked = l
	go func() {
		defer close(l.done)
		l.out, l.err = v.Repo.TrackedPaths(ctx, paths)
	}()
}

// trackedAmong lists which of the sorted wtPaths the index holds: the
// prefetched listing when it asked the same, else a listing now.
func (v *Vault) trackedAmong(ctx context.Context, wtPaths []string) ([]byte, error) {
	if l := v.tracked; l != nil && slices.Equal(l.paths, wtPaths) {
		<-l.done
		return l.out, l.err
	}
	return v.Repo.TrackedPaths(ctx, wtPaths)
}

// RenderView writes the vault's files into the working tree at their view
// paths (principle 2). The view is output, never input: a view file that
// differs from what scribe last rendered is the person's edit, copied
// aside under the git dir (and reported) before it is refreshed. Paths the
// branch still tracks (a repository from before the vault ref) are left
// alone until the person untracks them. It returns warnings; it never
// fails a command.
func (v *Vault) RenderView(ctx context.Context) []string {
	if !v.Config.View || v.ReadOnly {
		return nil
	}
	head, err := v.Repo.Head(ctx)
	if err != nil {
		return []string{"view not refreshed: " + err.Error()}
	}
	views := v.ViewPaths(head)
	var vaultPaths, wtPaths []string
	for vp, wp := range views {
		vaultPaths = append(vaultPaths, vp)
		wtPaths = append(wtPaths, wp)
	}
	sort.Strings(vaultPaths)
	sort.Strings(wtPaths)
	tip, files, err := v.ReadVault(ctx, vaultPaths...)
	if err != nil {
		return []string{"view not refreshed: " + err.Error()}
	}
	if bp := notes.BridgeVaultPath(head.Ref); views[bp] != "" {
		if _, ok := files[bp]; !ok {
			// No note for this branch yet: agents that read the file get
			// the newest note of the repository, saying whose it is.
			if other, text, found := v.newestBridge(ctx, tip); found {
				files[bp] = append(append([]byte{}, text...), fmt.Sprintf("\n(%s has no bridge note yet; this is the newest note of the repository, from branch %s.)\n",
					strings.TrimPrefix(head.Ref, "refs/heads/"), other)...)
			}
		}
	}
	var warns []string
	if err := v.excludeView(wtPaths); err != nil {
		warns = append(warns, "view: "+err.Error())
	}
	tracked := map[string]bool{}
	var trackedPaths []string
	if out, err := v.trackedAmong(ctx, wtPaths); err == nil {
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				tracked[p] = true
				trackedPaths = append(trackedPaths, p)
			}
		}
	}
	var committed map[string][]byte // a tracked copy as HEAD has it: in history, so not a loss
	if len(trackedPaths) > 0 && head.Commit != "" {
		committed, _ = v.Repo.ReadFiles(ctx, head.Commit, trackedPaths)
	}
	st := viewState{Rendered: map[string]string{}}
	stateFile := v.viewStateFile()
	if b, err := os.ReadFile(stateFile); err == nil {
		json.Unmarshal(b, &st)
		if st.Rendered == nil {
			st.Rendered = map[string]string{}
		}
	}
	for _, vp := range vaultPaths {
		wp := views[vp]
		if tracked[wp] {
			// The branch's own copy, from before the vault ref (Migrate
			// says so): left alone, and its committed text is no edit of
			// the person's once they untrack it.
			if b, ok := committed[wp]; ok {
				st.Rendered[wp] = sum(b)
			}
			continue
		}
		want, ok := files[vp]
		abs, err := v.Repo.AbsNoLinks(wp)
		if err != nil {
			if ok {
				warns = append(warns, fmt.Sprintf("view %s not written: %v", wp, err))
			}
			continue
		}
		cur, rerr := os.ReadFile(abs)
		exists := rerr == nil
		if exists && ok && bytes.Equal(cur, want) {
			st.Rendered[wp] = sum(want)
			continue
		}
		if exists && sum(cur) != st.Rendered[wp] {
			kept, err := v.keepAside(wp, cur)
			if err != nil {
				warns = append(warns, fmt.Sprintf("view %s has edits scribe could not keep (%v); left as it is", wp, err))
				continue
			}
			warns = append(warns, fmt.Sprintf("%s had edits that are not in the vault; kept at %s (the view is rewritten from %s: change the vault through git scribe commands)", wp, kept, gitops.VaultRef))
		}
		if !ok {
			if exists {
				os.Remove(abs)
			}
			delete(st.Rendered, wp)
			continue
		}
		if err := gitops.WriteFileReplace(abs, want); err != nil {
			warns = append(warns, fmt.Sprintf("view %s not written: %v", wp, err))
			continue
		}
		st.Rendered[wp] = sum(want)
	}
	st.Tip, st.Ref = tip, head.Ref
	if b, err := json.Marshal(st); err == nil {
		gitops.WriteFileReplace(stateFile, b)
	}
	return warns
}

// keepAside copies a person's edit of a view file under the git dir.
func (v *Vault) keepAside(wp string, data []byte) (string, error) {
	dir := filepath.Join(v.Repo.ScribeDir(), "view-kept")
	name := v.now().UTC().Format("20060102T150405Z") + "-" + strings.ReplaceAll(wp, "/", "_")
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := gitops.WriteFileAtomic(path, data); err != nil {
		return "", err
	}
	return path, nil
}

const excludeMarker = "# git-scribe: the working-tree view of refs/scribe/vault"

// excludeView makes sure the view paths are ignored in every clone's git
// dir (info/exclude), so the view never shows in git status even where
// init has not added them to .gitignore.
func (v *Vault) excludeView(paths []string) error {
	file := filepath.Join(v.Repo.CommonDir, "info", "exclude")
	cur, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(cur), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var add []string
	for _, p := range paths {
		if line := "/" + p; !have[line] {
			add = append(add, line)
		}
	}
	if len(add) == 0 {
		return nil
	}
	var b bytes.Buffer
	b.Write(cur)
	if len(cur) > 0 && !bytes.HasSuffix(cur, []byte("\n")) {
		b.WriteString("\n")
	}
	if !have[excludeMarker] {
		b.WriteString(excludeMarker + "\n")
	}
	for _, l := range add {
		b.WriteString(l + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return gitops.WriteFileAtomic(file, b.Bytes())
}

// Migrate imports the vault files a branch tracks from before the vault
// ref (journal, archive, ACTIVE-STATUS, bridge note at their configured
// paths at HEAD) into refs/scribe/vault verbatim, when the vault has no
// commit yet. It runs at most once per process and reports, once per
// repository, that the tracked copies can be removed.
func (v *Vault) Migrate(ctx context.Context) {
	if v.migrated || v.ReadOnly {
		return
	}
	v.migrated = true
	tip, err := v.Repo.VaultTip(ctx)
	if err != nil || tip != "" {
		return
	}
	head, err := v.Repo.Head(ctx)
	if err != nil || head.Commit == "" {
		return
	}
	p := v.Config.Paths
	from := map[string]string{p.Journal: notes.VaultJournal, p.JournalArchive: notes.VaultArchive,
		p.ActiveStatus: notes.VaultActiveStatus, p.BridgeNote: notes.BridgeVaultPath(head.Ref)}
	var wt []string
	for w := range from {
		if w != "" {
			wt = append(wt, w)
		}
	}
	sort.Strings(wt)
	old, err := v.Repo.ReadFiles(ctx, head.Commit, wt)
	if err != nil || len(old) == 0 {
		return
	}
	var imported, vaultPaths []string
	for _, w := range wt {
		if _, ok := old[w]; ok {
			imported = append(imported, w)
			vaultPaths = append(vaultPaths, from[w])
		}
	}
	req := gitops.CommitRequest{
		Vault:       true,
		Paths:       vaultPaths,
		Locks:       []string{"journal", "bridge", LockActiveStatus},
		LockOptions: v.lockOptions("vault import"),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			out := map[string][]byte{}
			for _, w := range imported {
				if _, ok := cur[from[w]]; !ok {
					out[from[w]] = old[w]
				}
			}
			return out, nil
		},
		Message: func([]string) string {
			return fmt.Sprintf("progress: vault imported from %s\n\n%s: import\nScribe-Imported-From: %s\n",
				strings.TrimPrefix(head.Ref, "refs/heads/"), gitops.TrailerMode, head.Commit)
		},
	}
	res, err := v.Repo.CommitPaths(ctx, req)
	v.forgetTip()
	if err != nil || res.SHA == "" {
		return
	}
	// Ignored from now on: once the person untracks the old copies they
	// are the view, not stray files for git add -A to pick up.
	v.excludeView(wt)
	notice := filepath.Join(v.Repo.ScribeDir(), "migrated")
	if _, err := os.Stat(notice); err == nil {
		return
	}
	os.MkdirAll(v.Repo.ScribeDir(), 0o755)
	gitops.WriteFileAtomic(notice, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"))
	v.notify(fmt.Sprintf("scribe's record now lives on %s (imported verbatim from %s); the tracked copies on your branch are no longer written and can go: git rm --cached %s && git commit -m 'Untrack git-scribe vault files'",
		gitops.VaultRef, strings.Join(imported, ", "), strings.Join(imported, " ")))
}

func (v *Vault) notify(msg string) {
	if v.Notify != nil {
		v.Notify(msg)
	}
}

// AppendEntry commits one journal entry onto the vault (the dispatcher's
// ledger line, a witness log): an entry whose id the journal already has
// is not written again.
func (v *Vault) AppendEntry(ctx context.Context, e notes.Entry, subject, mode string) (gitops.CommitResult, error) {
	req := gitops.CommitRequest{
		Paths:       []string{notes.VaultJournal, notes.VaultArchive},
		Locks:       []string{"journal"},
		LockOptions: v.lockOptions(mode),
		Build: func(cur map[string][]byte) (map[string][]byte, error) {
			out := map[string][]byte{}
			v.appendJournal(cur, out, []notes.Entry{e}, nil)
			return out, nil
		},
		Message: func([]string) string { return scribeMessage(subject, mode, "") },
	}
	return v.commitVault(ctx, req)
}

// appendJournal appends entries to the vault journal of a commit being
// built (cur: its files now; out: what it writes), archiving past
// journal_max; an entry whose id the journal has, or that skip says is
// covered, is left out. It reports whether anything was appended.
func (v *Vault) appendJournal(cur, out map[string][]byte, entries []notes.Entry, skip func(journal string, i int) bool) bool {
	journal, archive := string(cur[notes.VaultJournal]), string(cur[notes.VaultArchive])
	wrote := false
	for i, e := range entries {
		if coveredEntry(journal, e, false) || (skip != nil && skip(journal, i)) {
			continue
		}
		journal, archive = notes.Append(journal, archive, e, v.Config.JournalMax)
		wrote = true
	}
	if wrote {
		out[notes.VaultJournal] = []byte(journal)
		if archive != string(cur[notes.VaultArchive]) {
			out[notes.VaultArchive] = []byte(archive)
		}
	}
	return wrote
}
