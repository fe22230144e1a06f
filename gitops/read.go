package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// EmptyTree is git's well-known empty tree object in a SHA-1 repository;
// EmptyTreeID gives the repository's own (SHA-256 repositories differ).
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// emptyTrees are the empty tree's ids by object format
// (`git rev-parse --show-object-format`); a format not listed is asked of git.
var emptyTrees = map[string]string{
	"sha1":   EmptyTree,
	"sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}

// EmptyTreeID is the empty tree's id in this repository's object format.
func (r *Repo) EmptyTreeID(ctx context.Context) (string, error) {
	r.emptyOnce.Do(func() {
		out, err := r.gitIn(ctx, runOpts{stdin: []byte{}}, "hash-object", "-t", "tree", "--stdin")
		if err != nil {
			r.emptyErr = fmt.Errorf("the empty tree's id: %w", err)
			return
		}
		r.emptyTree = strings.TrimSpace(string(out))
	})
	return r.emptyTree, r.emptyErr
}

// BigFileThreshold caps diffing: larger files are summarised as binary, never
// read into a diff.
const BigFileThreshold = "8m"

// FileChange is one changed path with its diffstat.
type FileChange struct {
	Path      string `json:"path"`
	OldPath   string `json:"old_path,omitempty"` // renames and copies
	Status    string `json:"status"`             // A, M, D, R, C, T, or ? for untracked
	Added     int    `json:"added"`
	Deleted   int    `json:"deleted"`
	Binary    bool   `json:"binary,omitempty"`
	Submodule bool   `json:"submodule,omitempty"`
}

// Changes is everything a session changed: commits since base, plus the
// staged, unstaged and untracked work in the tree.
type Changes struct {
	Base      string       `json:"base"`
	Head      string       `json:"head"`
	Commits   []Commit     `json:"commits,omitempty"`
	Committed []FileChange `json:"committed,omitempty"`
	Staged    []FileChange `json:"staged,omitempty"`
	Unstaged  []FileChange `json:"unstaged,omitempty"`
	Untracked []string     `json:"untracked,omitempty"`
}

// Commit is one commit's identity.
type Commit struct {
	SHA     string `json:"sha"`
	Subject string `json:"subject"`
	// Scribe marks scribe's own commits (they carry the Scribe-Mode trailer).
	Scribe bool `json:"scribe,omitempty"`
}

// Files returns the distinct paths touched anywhere in c, in first-seen order.
func (c Changes) Files() []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, set := range [][]FileChange{c.Committed, c.Staged, c.Unstaged} {
		for _, f := range set {
			add(f.Path)
		}
	}
	for _, p := range c.Untracked {
		add(p)
	}
	return out
}

// ReadChanges reads commits and file changes in base..head plus the work in
// the tree. An empty base means head's parent (or the empty tree for a root
// commit); an empty head means HEAD (unborn: nothing committed).
func (r *Repo) ReadChanges(ctx context.Context, base, head string, exclude []string) (Changes, error) {
	return r.ReadChangesOf(ctx, base, head, exclude, nil)
}

// ReadChangesOf is ReadChanges when the caller knows the commits of
// base..head already (non-nil: as CommitsBetween lists them); they are not
// listed again.
func (r *Repo) ReadChangesOf(ctx context.Context, base, head string, exclude []string, commits []Commit) (Changes, error) {
	c := Changes{Base: base, Head: head}
	empty, err := r.EmptyTreeID(ctx)
	if err != nil {
		return c, err
	}
	if c.Head != "" && c.Base == "" {
		out, err := r.Git(ctx, "rev-parse", "-q", "--verify", c.Head+"^1")
		if err == nil {
			c.Base = strings.TrimSpace(string(out))
		} else {
			c.Base = empty
		}
	}
	// The reads are independent git processes: run them side by side. The
	// work-tree scans (unstaged diff, untracked listing) dominate on large
	// repositories.
	var wg sync.WaitGroup
	errs := make([]error, 5)
	run := func(i int, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	stagedAgainst := c.Head
	if c.Head == "" {
		stagedAgainst = empty
	}
	if c.Head != "" && c.Base != c.Head && commits != nil && c.Base == base {
		c.Commits = commits
	} else if c.Head != "" && c.Base != c.Head {
		run(0, func() (err error) {
			if c.Base == empty {
				out, err := r.Git(ctx, "log", "-1", "--format=%H%x00%s", c.Head)
				if err != nil {
					return fmt.Errorf("read %s: %w", c.Head, err)
				}
				if sha, s, ok := strings.Cut(strings.TrimSpace(string(out)), "\x00"); ok {
					c.Commits = []Commit{{SHA: sha, Subject: s}}
				}
				return nil
			}
			c.Commits, err = r.CommitsBetween(ctx, c.Base, c.Head)
			return err
		})
	}
	if c.Head != "" && c.Base != c.Head {
		run(1, func() (err error) { c.Committed, err = r.diff(ctx, exclude, c.Base, c.Head); return err })
	}
	run(2, func() (err error) {
		if w := r.takeWorktree(exclude, stagedAgainst); w != nil {
			<-w.done
			c.Staged, c.Unstaged, c.Untracked = w.staged, w.unstaged, w.untracked
			return w.err
		}
		c.Staged, c.Unstaged, c.Untracked, err = r.worktreeChanges(ctx, exclude, stagedAgainst)
		return err
	})
	wg.Wait()
	return c, errors.Join(errs...)
}

// worktreeAhead is a worktreeChanges started early (PrefetchWorktree).
type worktreeAhead struct {
	key              string
	started          time.Time
	done             chan struct{}
	staged, unstaged []FileChange
	untracked        []string
	err              error
}

func worktreeKey(exclude []string, stagedAgainst string) string {
	return stagedAgainst + "\x00" + strings.Join(exclude, "\x00")
}

// PrefetchWorktree starts reading the work tree's state (the status scan,
// the largest read of a wrap or a Stop on a big repository) now, beside the
// reads that come first; the next ReadChanges with the same exclude and
// head (a commit id; "" when unborn) takes it. The state is the one of a
// moment earlier, as if the command had started reading there.
func (r *Repo) PrefetchWorktree(ctx context.Context, exclude []string, head string) {
	stagedAgainst := head
	if head == "" {
		empty, err := r.EmptyTreeID(ctx)
		if err != nil {
			return
		}
		stagedAgainst = empty
	}
	w := &worktreeAhead{key: worktreeKey(exclude, stagedAgainst), started: time.Now(), done: make(chan struct{})}
	r.immMu.Lock()
	if r.worktree != nil && time.Since(r.worktree.started) < worktreeFresh {
		r.immMu.Unlock()
		return
	}
	r.worktree = w
	r.immMu.Unlock()
	exclude = append([]string(nil), exclude...)
	go func() {
		defer close(w.done)
		w.staged, w.unstaged, w.untracked, w.err = r.worktreeChanges(ctx, exclude, stagedAgainst)
	}()
}

// worktreeFresh is how long a prefetched work-tree read stands for the
// work tree: a command's reads take milliseconds; a long-running process
// (the MCP server) reads again for a later request.
const worktreeFresh = 2 * time.Second

// takeWorktree is the prefetched read for these arguments, once, while
// fresh.
func (r *Repo) takeWorktree(exclude []string, stagedAgainst string) *worktreeAhead {
	r.immMu.Lock()
	defer r.immMu.Unlock()
	w := r.worktree
	if w == nil || w.key != worktreeKey(exclude, stagedAgainst) || time.Since(w.started) > worktreeFresh {
		return nil
	}
	r.worktree = nil
	return w
}

// maxLimitedDiff is the most changed paths worktreeChanges names to git
// diff; more, and it diffs the whole tree (a command line has its limits).
const maxLimitedDiff = 1000

// worktreeChanges reads the staged, unstaged and untracked work. One `git
// status` scans the index and the work tree once (the three diffs it
// replaces scanned them three times, the largest cost of a wrap on a big
// repository); only when it reports changed tracked files are their
// diffstats read, by diffs limited to those paths. --no-optional-locks
// keeps status from refreshing the user's index (a lock a concurrent
// `git commit` would fail on).
func (r *Repo) worktreeChanges(ctx context.Context, exclude []string, stagedAgainst string) (staged, unstaged []FileChange, untracked []string, err error) {
	// The untracked files are kept between commands while nothing they
	// depend on changed (untracked.go); a scan for a memo also lists the
	// directories git ignores, which the next walk does not enter.
	plan := r.planUntracked(exclude)
	scan := []string{"--untracked-files=all"}
	switch {
	case plan.kept != nil:
		scan = []string{"--untracked-files=no"}
	case plan.next != nil:
		scan = append(scan, "--ignored=matching")
	}
	args := append(append([]string{"--no-optional-locks", "status", "--porcelain=v2", "-z"}, scan...),
		"--ignore-submodules=dirty", "--no-renames", "--", ".")
	args = append(args, excludeSpecs(exclude)...)
	out, err := r.Git(ctx, args...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read the work tree's state: %w", err)
	}
	st, err := parseStatusV2(out)
	if err != nil {
		return nil, nil, nil, err
	}
	if plan.kept != nil {
		untracked = slices.Clone(plan.kept.Untracked)
		r.keepRestamped(plan)
	} else {
		untracked = st.untracked
		r.keepUntracked(plan, st.untracked, st.ignoredDirs)
	}
	var wg sync.WaitGroup
	var serr, uerr error
	if len(st.staged) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			staged, serr = r.diffPaths(ctx, exclude, st.staged, "--cached", stagedAgainst)
		}()
	}
	if len(st.unstaged) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unstaged, uerr = r.diffPaths(ctx, exclude, st.unstaged)
		}()
	}
	wg.Wait()
	return staged, unstaged, untracked, errors.Join(serr, uerr)
}

// statusV2 is what `git status --porcelain=v2 -z` says changed, and the
// directories it says are ignored (with --ignored=matching, "dir/").
type statusV2 struct {
	staged, unstaged, untracked []string
	ignoredDirs                 []string
}

// parseStatusV2 reads `git status --porcelain=v2 -z` (no --branch, no
// renames): ordinary ("1"), unmerged ("u") and untracked ("?") entries;
// ignored ("!") entries are skipped.
func parseStatusV2(out []byte) (statusV2, error) {
	var st statusV2
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		fields := 0
		switch rec[0] {
		case '1':
			fields = 8 // 1 XY sub mH mI mW hH hI path
		case 'u':
			fields = 10 // u XY sub m1 m2 m3 mW h1 h2 h3 path
		case '?':
			if len(rec) < 3 || rec[1] != ' ' {
				return st, fmt.Errorf("parse git status output: bad record %q", clip(rec, 80))
			}
			st.untracked = append(st.untracked, rec[2:])
			continue
		case '!':
			if len(rec) > 3 && rec[1] == ' ' && strings.HasSuffix(rec, "/") {
				st.ignoredDirs = append(st.ignoredDirs, rec[2:])
			}
			continue
		case '#':
			continue
		default:
			return st, fmt.Errorf("parse git status output: unexpected record %q", clip(rec, 80))
		}
		f := strings.SplitN(rec, " ", fields+1)
		if len(f) != fields+1 || len(f[1]) != 2 {
			return st, fmt.Errorf("parse git status output: bad record %q", clip(rec, 80))
		}
		path := f[fields]
		if f[1][0] != '.' {
			st.staged = append(st.staged, path)
		}
		if f[1][1] != '.' {
			st.unstaged = append(st.unstaged, path)
		}
	}
	return st, nil
}

// diffPaths reads the diffstats of the paths status found changed (args
// "--cached" TREE: staged against TREE; none: unstaged). It runs git's
// plumbing, diff-index --cached and diff-files, which never refresh or
// write the index: `git diff` writes refreshed stat data back under
// index.lock even with optional locks off (a cloned or copied work tree,
// touched files), and a person's `git commit` running at that moment
// fails on it. No refresh is needed: status has set aside the files whose
// stat data changed but whose content did not, so only its paths are
// named — or, when there are too many to name, the whole tree is diffed
// and what status did not report is dropped.
func (r *Repo) diffPaths(ctx context.Context, exclude, paths []string, args ...string) ([]FileChange, error) {
	cmd := "diff-files"
	if len(args) > 0 && args[0] == "--cached" {
		cmd = "diff-index"
	}
	if len(paths) > maxLimitedDiff {
		all, err := r.diffWith(ctx, cmd, append([]string{"."}, excludeSpecs(exclude)...), args...)
		if err != nil {
			return nil, err
		}
		want := make(map[string]bool, len(paths))
		for _, p := range paths {
			want[p] = true
		}
		var out []FileChange
		for _, f := range all {
			if want[f.Path] || (f.OldPath != "" && want[f.OldPath]) {
				out = append(out, f)
			}
		}
		return out, nil
	}
	specs := make([]string, len(paths))
	for i, p := range paths {
		specs[i] = ":(literal)" + p
	}
	return r.diffWith(ctx, cmd, specs, args...)
}

// clip cuts s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func excludeSpecs(exclude []string) []string {
	var s []string
	for _, e := range exclude {
		s = append(s, ":(exclude)"+e)
	}
	return s
}

// CommitsBetween lists commits reachable from head but not base, oldest first.
func (r *Repo) CommitsBetween(ctx context.Context, base, head string) ([]Commit, error) {
	out, err := r.Git(ctx, "log", "--reverse", "--format=%H%x00%s%x00%(trailers:key="+TrailerMode+",valueonly,separator=%x2C)", base+".."+head)
	if err != nil {
		return nil, fmt.Errorf("list commits %s..%s: %w", base, head, err)
	}
	var cs []Commit
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.SplitN(line, "\x00", 3)
		if len(f) >= 2 {
			cs = append(cs, Commit{SHA: f[0], Subject: f[1], Scribe: len(f) == 3 && strings.TrimSpace(f[2]) != ""})
		}
	}
	return cs, nil
}

// diff runs one `git diff --raw --numstat -z` and merges the two sections.
// Plumbing, not go-git: go-git cannot diff the index or the work tree, and its
// tree diff on large trees was slower (docs/BENCHMARKS.md).
func (r *Repo) diff(ctx context.Context, exclude []string, args ...string) ([]FileChange, error) {
	return r.diffSpecs(ctx, append([]string{"."}, excludeSpecs(exclude)...), args...)
}

// diffSpecs is diff over pathspecs.
func (r *Repo) diffSpecs(ctx context.Context, specs []string, args ...string) ([]FileChange, error) {
	return r.diffWith(ctx, "diff", specs, args...)
}

// diffWith runs one of git's diff commands (diff, diff-index, diff-files)
// with --raw --numstat -z over pathspecs.
func (r *Repo) diffWith(ctx context.Context, cmd string, specs []string, args ...string) ([]FileChange, error) {
	full := append([]string{"-c", "core.bigFileThreshold=" + BigFileThreshold, "-c", "diff.renames=true",
		cmd, "--raw", "--numstat", "-z", "-M", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}, args...)
	full = append(full, "--")
	full = append(full, specs...)
	out, err := r.Git(ctx, full...)
	if err != nil && IsFull(err) {
		// git diff writes the index back when it refreshed stat data, and
		// dies when the disk is full; a private copy elsewhere lets the
		// read go on (the user's index is left as it is).
		out, err = r.diffPrivateIndex(ctx, full, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read changes: %w", err)
	}
	return parseRawNumstat(out)
}

// diffPrivateIndex runs a diff against a copy of the index in the temp
// dir; failing that, it returns the first error (full).
func (r *Repo) diffPrivateIndex(ctx context.Context, args []string, full error) ([]byte, error) {
	index := os.Getenv("GIT_INDEX_FILE")
	if index == "" {
		index = filepath.Join(r.GitDir, "index")
	} else if !filepath.IsAbs(index) {
		index = filepath.Join(r.WorkTree, index)
	}
	data, err := os.ReadFile(index)
	if err != nil {
		return nil, full
	}
	f, err := os.CreateTemp("", "git-scribe-index-")
	if err != nil {
		return nil, full
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return nil, full
	}
	out, err := r.gitIn(ctx, runOpts{env: []string{"GIT_INDEX_FILE=" + f.Name()}}, args...)
	if err != nil {
		return nil, full
	}
	return out, nil
}

// parseRawNumstat parses `git diff --raw --numstat -z` output.
func parseRawNumstat(out []byte) ([]FileChange, error) {
	tok := strings.Split(string(out), "\x00")
	var files []FileChange
	index := map[string]int{}
	i := 0
	for i < len(tok) && strings.HasPrefix(tok[i], ":") {
		// :oldmode newmode oldsha newsha status
		f := strings.Fields(tok[i][1:])
		if len(f) != 5 {
			return nil, fmt.Errorf("parse diff output: bad raw record %q", tok[i])
		}
		fc := FileChange{Status: f[4][:1], Submodule: f[0] == "160000" || f[1] == "160000"}
		i++
		if fc.Status == "R" || fc.Status == "C" {
			if i+1 >= len(tok) {
				return nil, errors.New("parse diff output: truncated rename record")
			}
			fc.OldPath, fc.Path = tok[i], tok[i+1]
			i += 2
		} else {
			if i >= len(tok) {
				return nil, errors.New("parse diff output: truncated record")
			}
			fc.Path = tok[i]
			i++
		}
		index[fc.Path] = len(files)
		files = append(files, fc)
	}
	for i < len(tok) {
		rec := tok[i]
		i++
		if rec == "" {
			continue
		}
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("parse diff output: bad numstat record %q", rec)
		}
		path := parts[2]
		if path == "" { // rename: old and new paths follow
			if i+1 >= len(tok) {
				return nil, errors.New("parse diff output: truncated numstat rename")
			}
			path = tok[i+1]
			i += 2
		}
		k, ok := index[path]
		if !ok {
			continue
		}
		if parts[0] == "-" {
			files[k].Binary = true
			continue
		}
		files[k].Added, _ = strconv.Atoi(parts[0])
		files[k].Deleted, _ = strconv.Atoi(parts[1])
	}
	return files, nil
}

// ReadFiles returns the contents of paths at a commit; absent paths are
// missing from the map. go-git serves it in-process (one blob lookup per
// path, no process start); plumbing (`git cat-file --batch`) is the fallback.
func (r *Repo) ReadFiles(ctx context.Context, commit string, paths []string) (map[string][]byte, error) {
	if commit == "" {
		return map[string][]byte{}, nil
	}
	if st := r.objects(); st != nil {
		if m, err := readFilesGoGit(st, commit, paths); err == nil {
			if len(m) == len(paths) {
				return m, nil
			}
			// go-git reports any failure to load a tree as "file not found";
			// an absent path is confirmed by git before anyone relies on it
			// (appending to a journal that seems absent would drop it).
			var absent []string
			for _, p := range paths {
				if _, ok := m[p]; !ok {
					absent = append(absent, p)
				}
			}
			more, err := r.readFilesPlumbing(ctx, commit, absent)
			if err != nil {
				return nil, err
			}
			for p, b := range more {
				m[p] = b
			}
			return m, nil
		}
	}
	return r.readFilesPlumbing(ctx, commit, paths)
}

func readFilesGoGit(st storer.EncodedObjectStorer, commit string, paths []string) (map[string][]byte, error) {
	if !plumbing.IsHash(commit) {
		return nil, fmt.Errorf("not an object id: %q", commit)
	}
	h := plumbing.NewHash(commit)
	c, err := object.GetCommit(st, h)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	m := make(map[string][]byte, len(paths))
	// Each directory's tree is decoded once: tree.File per path decodes
	// every tree on the way again, so n files of one directory cost n² (500
	// session records: 80 ms of a Stop hook).
	dirs := map[string]*object.Tree{"": tree}
	dirOf := func(dir string) (*object.Tree, error) {
		if t, ok := dirs[dir]; ok {
			return t, nil
		}
		t, err := tree.Tree(dir)
		if err != nil {
			return nil, err
		}
		dirs[dir] = t
		return t, nil
	}
	for _, p := range paths {
		dir, base := path.Split(p)
		dt, err := dirOf(strings.TrimSuffix(dir, "/"))
		if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		f, err := dt.File(base)
		if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rd, err := f.Reader()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return nil, err
		}
		m[p] = b
	}
	return m, nil
}

// readFilesPlumbing reads paths at commit ("" for the index) with one
// `git cat-file --batch` (readVaultPlumbing without trees).
func (r *Repo) readFilesPlumbing(ctx context.Context, commit string, paths []string) (map[string][]byte, error) {
	if len(paths) == 0 {
		return map[string][]byte{}, nil
	}
	files, _, err := r.readVaultPlumbing(ctx, commit, nil, paths)
	return files, err
}
