package gitops

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The untracked scan — git status reading every directory of the work
// tree and matching each name against the index and the ignore rules — is
// a third of a Stop's `git status` on git/git (10 of 32 ms of CPU), and a
// turn that changed files, even by writing each anew and renaming it over
// the old one (Claude Code's Edit), leaves the same untracked files as
// before. git's own untracked cache (core.untrackedCache) keeps the scan's
// answer in the index, which scribe never writes; so scribe keeps it
// beside its other state (untrackedMemo), with what it depends on, and
// asks git for the tracked changes alone (--untracked-files=no) while
// none of that changed:
//
//   - every directory the scan reads, by inode and modification time; a
//     directory whose time moved is read again and stands while its
//     entries' names and types are the same (a rename over a file changes
//     the time, not the names). One changed within a second of the walk
//     (whose next change could carry the same time) is read each time.
//   - the tracked paths (the index's names and stages): `git add` and `git
//     rm --cached` change what is untracked and touch no directory.
//   - the ignore rules: every .gitignore the walk met, info/exclude and
//     the default excludes file, by time and inode (one changed within a
//     second is not kept at all); the config files and the
//     variables git reads (configSources), for core.ignoreCase and the
//     rest; the pathspecs excluded.
//
// When something changed, git scans, and the memo is brought up to date
// before it does: a directory whose names changed is read again, a new
// one walked, a gone one dropped (all of them on the first walk), so that
// a change git's scan may have missed is a change since the memo's read,
// seen by the next check. The walk does not enter .git, a nested
// repository, a submodule, an excluded path or a directory git reported
// ignored; if git stops reporting one so, the memo starts over. What
// this cannot vouch for — a config that includes another file or names
// core.excludesFile, an index this package does not read (indexfiles.go),
// a case-insensitive work tree, more than untrackedMemoMaxDirs
// directories — and the scan runs every time.

// untrackedMemo is a scan's untracked files and what they depend on.
// Walked is false for a memo that knows only which directories git
// ignores (the first scan's, before any walk could skip them).
type untrackedMemo struct {
	Key    string
	Walked bool
	GaveUp time.Time // a walk this tree's memo cannot be made from

	Dirs        []memoDir // parents before their subdirectories
	Untracked   []string
	IgnoredDirs []string // as git reported them ("dir/")
}

// memoDir is one directory of the work tree as the memo last read it.
type memoDir struct {
	Path   string // from the top, "" for the top
	MTime  int64
	Ino    uint64
	Names  uint64 // FNV-1a of its entries' names and types
	Racy   bool   // changed within a second of the read: read each time
	Ignore bool   // it holds a .gitignore
}

// untrackedMemoMaxDirs bounds the directories a memo checks: past it the
// check would cost much of the scan it saves.
const untrackedMemoMaxDirs = 10000

// memoRetry is how long a tree whose memo could not be made is scanned
// without trying again.
const memoRetry = time.Hour

// memoRestampAt is how many directories read again for their times
// make a check that stands keep the memo anew.
const memoRestampAt = 8

// memoRacy is how close to a read a directory's time may be before its
// names are compared each time (timestamps are coarser than the clock).
const memoRacy = time.Second

func (r *Repo) untrackedMemoPath() string {
	return filepath.Join(r.ScribeDir(), "untracked-"+r.WorkTreeKey()+".memo")
}

// memoUsable reports whether this repository's untracked files can be
// kept at all: their tracked paths are read in process.
func (r *Repo) memoUsable() bool {
	return !r.noUntrackedMemo && runtime.GOOS != "windows" && r.indexInProcess()
}

// trackedState is the sha256 of the index's paths and stages, and the
// submodules' paths (which the walk does not enter).
func (r *Repo) trackedState() (sum [32]byte, gitlinks map[string]bool, ok bool) {
	gitlinks = map[string]bool{}
	b, release, err := mapFile(filepath.Join(r.GitDir, "index"))
	switch {
	case err != nil && os.IsNotExist(err):
		return sum, gitlinks, true
	case err != nil:
		return sum, nil, false
	}
	defer release()
	h := sha256.New()
	buf := make([]byte, 0, 32<<10)
	if !eachIndexEntry(b, func(name []byte, mode uint32, flags uint16) indexStep {
		if len(buf)+len(name)+2 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(append(buf, name...), 0, byte(flags>>12&3))
		if mode&0o170000 == 0o160000 {
			gitlinks[string(name)] = true
		}
		return indexNext
	}) {
		return sum, nil, false
	}
	h.Write(buf)
	h.Sum(sum[:0])
	return sum, gitlinks, true
}

// untrackedKey is the sha256 of what the untracked files depend on but the
// directories: the excluded pathspecs, the config (cfg, as configSources
// names it), the ignore files (by time and inode; one changed within
// memoRacy is not vouched for) and the tracked paths.
func (r *Repo) untrackedKey(cfg string, exclude []string, dirs []memoDir, tracked [32]byte) (string, bool) {
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(os.Getenv("HOME"), ".config")
	}
	files := []string{filepath.Join(r.CommonDir, "info", "exclude"), filepath.Join(xdg, "git", "ignore")}
	for _, d := range dirs {
		if d.Ignore {
			files = append(files, filepath.Join(r.WorkTree, filepath.FromSlash(d.Path), ".gitignore"))
		}
	}
	buf := fmt.Appendf(nil, "%s\x00%s\x00%x\x00", cfg, strings.Join(exclude, "\x00"), tracked)
	racy := time.Now().Add(-memoRacy).UnixNano()
	for _, p := range files {
		mt, ino, _, regular, err := lstatStamp(p)
		switch {
		case err != nil && os.IsNotExist(err):
			buf = append(buf, p+" -\x00"...)
			continue
		case err != nil || !regular:
			return "", false // a symlinked .gitignore: git's rules for it are its own
		case mt >= racy:
			return "", false // changed just now: its next change could keep its time
		}
		buf = fmt.Appendf(buf, "%s %d %d\x00", p, mt, ino)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), true
}

// loadUntrackedMemo is the kept memo, if any.
func (r *Repo) loadUntrackedMemo() *untrackedMemo {
	var m untrackedMemo
	if !ReadKept(r.untrackedMemoPath(), &m) {
		return nil
	}
	return &m
}

// excludedPath reports whether rel is one of exclude or lies under one.
func excludedPath(rel string, exclude []string) bool {
	for _, e := range exclude {
		e = strings.Trim(e, "/")
		if rel == e || strings.HasPrefix(rel, e+"/") {
			return true
		}
	}
	return false
}

// memoWalk reads directories for a memo: which it enters, and what it
// has read.
type memoWalk struct {
	r        *Repo
	exclude  []string
	ignored  map[string]bool // "dir/", as git reported them
	gitlinks map[string]bool
	racy     int64 // a time from which a directory is racy
	dirs     []memoDir
	ok       bool
	// restamped counts the directories read again that hold what they
	// held, under a newer time or no longer racy.
	restamped int
}

// read reads the directory rel and records it, and returns the
// subdirectories to enter; nested is true for a nested repository (or
// worktree), which git shows whole and the memo does not enter.
func (w *memoWalk) read(rel string) (subdirs []string, nested bool) {
	d := memoDir{Path: rel}
	var err error
	d.MTime, d.Ino, d.Names, err = scanDir(filepath.Join(w.r.WorkTree, filepath.FromSlash(rel)), func(name []byte, typ byte) {
		switch {
		case string(name) == ".git":
			nested = rel != ""
		case string(name) == ".gitignore":
			if typ != dtReg {
				w.ok = false // a symlinked .gitignore: git's rules for it are its own
			}
			d.Ignore = true
		case typ == dtDir:
			child := string(name)
			if rel != "" {
				child = rel + "/" + child
			}
			if !w.gitlinks[child] && !w.ignored[child+"/"] && !excludedPath(child, w.exclude) {
				subdirs = append(subdirs, child)
			}
		}
	})
	if err != nil || len(w.dirs) == untrackedMemoMaxDirs {
		w.ok = false
	}
	if nested || !w.ok {
		return nil, nested
	}
	d.Racy = d.MTime >= w.racy
	w.dirs = append(w.dirs, d)
	return subdirs, false
}

// walk reads the directory rel and every one under it that it enters.
func (w *memoWalk) walk(rel string) {
	stack := []string{rel}
	for len(stack) > 0 && w.ok {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		subdirs, _ := w.read(rel)
		for i := len(subdirs) - 1; i >= 0; i-- {
			stack = append(stack, subdirs[i])
		}
	}
}

// refresh brings m's directories up to date (above); changed says whether
// any of them changed in what they hold. A directory is looked at when its
// parent holds the same as before, or was read again and still enters it.
func (w *memoWalk) refresh(m *untrackedMemo) (changed bool) {
	known := make(map[string]bool, len(m.Dirs))
	for _, d := range m.Dirs {
		known[d.Path] = true
	}
	same := map[string]bool{}  // directories that hold what they held
	enter := map[string]bool{} // subdirectories of those read again
	for _, d := range m.Dirs {
		if !w.ok {
			return true
		}
		if d.Path != "" && !same[path.Dir("/" + d.Path)[1:]] && !enter[d.Path] {
			continue // gone, walked anew, or no longer entered
		}
		abs := filepath.Join(w.r.WorkTree, filepath.FromSlash(d.Path))
		mt, ino, dir, _, err := lstatStamp(abs)
		if err != nil || !dir || ino != d.Ino {
			changed = true
			if err == nil && dir {
				w.walk(d.Path) // another directory by that name
			}
			continue
		}
		if !d.Racy && mt == d.MTime {
			w.dirs, same[d.Path] = append(w.dirs, d), true
			continue
		}
		mt, ino, names, err := scanDir(abs, nil)
		if err != nil {
			w.ok = false
			return true
		}
		if names == d.Names && ino == d.Ino {
			if d.Racy && mt < w.racy || d.MTime != mt {
				w.restamped++
			}
			d.MTime, d.Racy = mt, mt >= w.racy
			w.dirs, same[d.Path] = append(w.dirs, d), true
			continue
		}
		changed = true
		subdirs, nested := w.read(d.Path)
		if nested || !w.ok {
			continue
		}
		for _, sd := range subdirs {
			if known[sd] {
				enter[sd] = true
			} else {
				w.walk(sd) // new here
			}
		}
	}
	return changed
}

// untrackedScan is a worktreeChanges' plan for the untracked files: kept
// (the memo holds) or scanned, the memo brought up to date before git's
// scan when one is to be kept.
type untrackedScan struct {
	kept      *untrackedMemo // the memo that holds: no scan
	restamped *untrackedMemo // kept, its directories' new times to keep
	next      *untrackedMemo // the memo being made, nil when none is
	// was is the memo next was brought up to date from: the ignored
	// directories the walk did not enter, the paths already checked
	// (namesSecret).
	was *untrackedMemo
}

// planUntracked checks the kept memo and, when it does not hold, brings
// it up to date for the scan.
func (r *Repo) planUntracked(exclude []string) untrackedScan {
	if !r.memoUsable() {
		return untrackedScan{}
	}
	cfg, ok := r.configSources("include", "excludesfile")
	if !ok {
		return untrackedScan{}
	}
	m := r.loadUntrackedMemo()
	if m == nil {
		// No walk yet: this scan says which directories git ignores.
		return untrackedScan{next: &untrackedMemo{}}
	}
	if !m.GaveUp.IsZero() && time.Since(m.GaveUp) < memoRetry {
		return untrackedScan{}
	}
	tracked, gitlinks, ok := r.trackedState()
	if !ok {
		return untrackedScan{}
	}
	w := &memoWalk{r: r, exclude: exclude, ignored: map[string]bool{}, gitlinks: gitlinks,
		racy: time.Now().Add(-memoRacy).UnixNano(), ok: true}
	for _, d := range m.IgnoredDirs {
		w.ignored[d] = true
	}
	changed := true
	if m.Walked {
		changed = w.refresh(m)
	} else {
		w.walk("")
	}
	if !w.ok {
		// Too many directories, a symlinked .gitignore, one unreadable:
		// the walk would fail the same way at every check for a while.
		_ = WriteKept(r.untrackedMemoPath(), &untrackedMemo{GaveUp: time.Now(), IgnoredDirs: m.IgnoredDirs})
		return untrackedScan{}
	}
	key, ok := r.untrackedKey(cfg, exclude, w.dirs, tracked)
	if !ok {
		return untrackedScan{}
	}
	if !changed && key == m.Key {
		// Directories that hold what they held are read again at each
		// check until their new times are kept: all of a fresh clone's,
		// racy at the first walk, and those a turn's edits renamed files
		// in. A few are cheaper to read than the memo is to write.
		s := untrackedScan{kept: m}
		if w.restamped > memoRestampAt {
			s.restamped = &untrackedMemo{Key: m.Key, Walked: true, Dirs: w.dirs, Untracked: m.Untracked, IgnoredDirs: m.IgnoredDirs}
		}
		return s
	}
	return untrackedScan{next: &untrackedMemo{Key: key, Walked: true, Dirs: w.dirs}, was: m}
}

// keepRestamped saves a memo that stood with its directories' new times.
func (r *Repo) keepRestamped(s untrackedScan) {
	if s.restamped != nil {
		_ = WriteKept(r.untrackedMemoPath(), s.restamped)
	}
}

// keepUntracked saves the memo a scan made, with its untracked files and
// the directories git reported ignored. If git no longer ignores one the
// memo did not enter, the memo starts over: only the ignored directories
// are kept, for the next walk. Nothing is written where scribe keeps no
// state yet, or where a path would put a secret there (namesSecret).
func (r *Repo) keepUntracked(s untrackedScan, untracked, ignoredDirs []string) {
	m := s.next
	if m == nil {
		return
	}
	if _, err := os.Stat(r.ScribeDir()); err != nil {
		return
	}
	now := map[string]bool{}
	for _, d := range ignoredDirs {
		now[d] = true
	}
	var prior []string
	if s.was != nil {
		prior = s.was.IgnoredDirs
	}
	for _, d := range prior {
		_, _, dir, _, err := lstatStamp(filepath.Join(r.WorkTree, filepath.FromSlash(d)))
		if !now[d] && err == nil && dir {
			m = &untrackedMemo{}
			break
		}
	}
	m.Untracked, m.IgnoredDirs = untracked, ignoredDirs
	if r.namesSecret(m, s.was) {
		return
	}
	_ = WriteKept(r.untrackedMemoPath(), m)
}

// namesSecret reports whether a path m would keep holds what the
// redactor removes (a token as a file's name): no secret is written
// under the scribe dir, so such a tree is scanned each time. The paths of
// the memo m was made from (was) were checked when it was kept: only the
// new ones are (the redactor over all of git/git's took 1.9 ms a Stop).
func (r *Repo) namesSecret(m, was *untrackedMemo) bool {
	if r.Redact == nil {
		return false
	}
	checked := map[string]bool{}
	if was != nil {
		for _, p := range memoPaths(was) {
			checked[p] = true
		}
	}
	var b strings.Builder
	for _, p := range memoPaths(m) {
		if !checked[p] {
			b.WriteString(p + "\n")
		}
	}
	return b.Len() > 0 && r.Redact(b.String()) != b.String()
}

// memoPaths are the paths a memo keeps.
func memoPaths(m *untrackedMemo) []string {
	ps := make([]string, 0, len(m.Dirs)+len(m.Untracked)+len(m.IgnoredDirs))
	for _, d := range m.Dirs {
		ps = append(ps, d.Path)
	}
	return append(append(ps, m.Untracked...), m.IgnoredDirs...)
}

// The FNV-1a hash of directory listings (scanDir): a change of a listing
// it misses takes 2^-64 luck.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// Entry types as scanDir gives them (the values of Linux's DT_).
const (
	dtDir = 4
	dtReg = 8
	dtLnk = 10
)
