package gitops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Repo is a discovered repository with a work tree.
type Repo struct {
	// WorkTree is the absolute top-level directory of the work tree.
	WorkTree string
	// GitDir is this work tree's git dir (differs from CommonDir in a linked worktree).
	GitDir string
	// CommonDir holds refs, objects and scribe's runtime state.
	CommonDir string
	// RemoteLock, when set, names the remote on which every CommitPaths
	// also takes its locks (`--remote-lock`, sync.remote_lock); a
	// CommitRequest's own RemoteLock wins.
	RemoteLock string
	// Redact, when set, removes secrets from every string of a queued
	// record before it is written under the scribe dir (Enqueue,
	// RecordOnce): a deferred write must not leave on disk what the vault
	// would never hold.
	Redact func(string) string
	// NetworkTimeout bounds each remote operation a remote lock runs
	// (sync.network_timeout; default DefaultNetworkTimeout).
	NetworkTimeout time.Duration

	env []string // absolute GIT_DIR/GIT_WORK_TREE when the caller set them
	// objectFormat is the repository's (`--show-object-format`: sha1 or
	// sha256); "" when unknown.
	objectFormat string
	goOnce       sync.Once
	// emptyOnce memoizes the empty tree's id (EmptyTreeID).
	emptyOnce sync.Once
	emptyTree string
	emptyErr  error
	// scratchOnce runs removeStaleScratch at this process's first write.
	scratchOnce sync.Once
	goStore     *filesystem.Storage // nil when go-git cannot read the object store

	// cfg is the config file as scanConfig read it (config()).
	cfgOnce    sync.Once
	cfg        repoConfig
	keptLogMu  sync.Mutex
	keptLog    *keptLog // the vault history the last read found (vaultLogLoose)
	keptLogNew bool     // keptLog is not in its file yet

	// noLoose turns off reading loose objects in process (the tests
	// compare the readers).
	noLoose bool
	// noUntrackedMemo turns off keeping the untracked scan (untracked.go;
	// the tests compare with and without).
	noUntrackedMemo bool
	// ident is the identities PrepareIdent is reading.
	ident identState
	// spec is the vault write made beside the reads (SpeculateVault).
	spec speculation
	// packsWritten counts this process's unpack-objects (the tests').
	packsWritten atomic.Int64

	// imm memoizes reads of immutable objects (gitImmutable).
	immMu      sync.Mutex
	imm        map[string]any
	immRunning map[string]*immCall
	ancestry   map[string]bool
	// worktree is the work tree's read PrefetchWorktree started.
	worktree *worktreeAhead
	// vaultReads memoizes readVault by commit id.
	vaultReads map[string]*vaultRead
	vaultOrder []string // vaultReads' commits, oldest first
}

// Discover finds the repository containing dir the way git does (any
// subdirectory, linked worktrees, GIT_DIR/GIT_WORK_TREE), by asking git itself:
// that also covers repositories go-git refuses, such as ones with
// extensions.worktreeConfig.
func Discover(ctx context.Context, dir string) (*Repo, error) {
	if r, ok := discoverFast(dir); ok {
		return r, nil
	}
	return discoverGit(ctx, dir)
}

// discoverGit is Discover by `git rev-parse`.
func discoverGit(ctx context.Context, dir string) (*Repo, error) {
	// GIT_DIR and GIT_WORK_TREE are relative to the caller's directory, not
	// to dir (scribe's own -C): pass them on absolute.
	env := absGitEnv()
	out, err := git(ctx, dir, runOpts{env: env}, "rev-parse", "--path-format=absolute",
		"--show-toplevel", "--git-dir", "--git-common-dir", "--show-object-format")
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "not a git repository") {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotARepo)
		}
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "must be run in a work tree") {
			return nil, fmt.Errorf("%s is a bare repository; git scribe needs a work tree: %w", dir, ErrNotARepo)
		}
		return nil, fmt.Errorf("discover repository: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 4 || lines[0] == "" {
		return nil, fmt.Errorf("%s: no work tree: %w", dir, ErrNotARepo)
	}
	r := &Repo{WorkTree: lines[0], GitDir: lines[1], CommonDir: lines[2], objectFormat: lines[3]}
	if t, ok := emptyTrees[lines[3]]; ok {
		r.emptyOnce.Do(func() { r.emptyTree = t })
	}
	if wt, ok := impliedWorkTree(ctx, dir, r.GitDir, env); ok {
		r.WorkTree = wt
	}
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		// They may be relative to the caller's directory; every later git
		// call runs in the work tree, so pass them on absolute.
		r.env = []string{"GIT_DIR=" + r.GitDir, "GIT_WORK_TREE=" + r.WorkTree}
	}
	return r, nil
}

// absGitEnv is GIT_DIR and GIT_WORK_TREE made absolute against the
// process's directory, for those that are set and relative.
func absGitEnv() []string {
	var env []string
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE"} {
		if v := os.Getenv(k); v != "" && !filepath.IsAbs(v) {
			if abs, err := filepath.Abs(v); err == nil {
				env = append(env, k+"="+abs)
			}
		}
	}
	return env
}

// impliedWorkTree is the work tree a GIT_DIR set without GIT_WORK_TREE (or
// core.worktree) means when it is an ordinary repository's ".git"
// directory and dir lies inside that repository: its parent. Git alone
// would take the current directory as the top of the work tree, so from a
// subdirectory (`git --git-dir=../.git scribe`) every other file would look
// deleted and the vault would be written under the subdirectory.
func impliedWorkTree(ctx context.Context, dir, gitDir string, env []string) (string, bool) {
	if os.Getenv("GIT_DIR") == "" || os.Getenv("GIT_WORK_TREE") != "" || filepath.Base(gitDir) != ".git" {
		return "", false
	}
	out, err := git(ctx, dir, runOpts{env: env}, "config", "--get-regexp", `^core\.(worktree|bare)$`)
	if err != nil && exitCode(err) != 1 {
		return "", false
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if k, v, _ := strings.Cut(l, " "); k == "core.worktree" || k == "core.bare" && v == "true" {
			return "", false
		}
	}
	top := filepath.Dir(gitDir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if rel, err := filepath.Rel(top, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return top, true
}

// Git runs git in the work tree and returns its stdout.
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) {
	return git(ctx, r.WorkTree, runOpts{env: r.env}, args...)
}

// gitIn runs git with extra options.
func (r *Repo) gitIn(ctx context.Context, o runOpts, args ...string) ([]byte, error) {
	o.env = append(append([]string(nil), r.env...), o.env...)
	return git(ctx, r.WorkTree, o, args...)
}

// ScribeDir is the runtime directory under the common git dir; never committed.
func (r *Repo) ScribeDir() string { return filepath.Join(r.CommonDir, "scribe") }

// WorkTreeKey names this work tree's own state under the shared scribe
// dir (the view's, the follow-up cache's, the untracked memo's): linked
// worktrees share the dir, each has its git dir.
func (r *Repo) WorkTreeKey() string {
	h := sha256.Sum256([]byte(r.GitDir))
	return hex.EncodeToString(h[:6])
}

// objects opens the object store with go-git once. Only go-git's storage
// and object packages are used: its top-level package pulls in its network
// transports, and its repository checks refuse repositories git handles
// (extensions.worktreeConfig, index.skipHash) — object reads need neither.
// Nil means callers fall back to plumbing.
func (r *Repo) objects() *filesystem.Storage {
	r.goOnce.Do(func() {
		if fi, err := os.Stat(filepath.Join(r.CommonDir, "objects")); err != nil || !fi.IsDir() {
			return
		}
		if _, err := os.Stat(filepath.Join(r.CommonDir, "objects", "info", "alternates")); err == nil {
			return // objects borrowed from elsewhere: let git resolve them
		}
		if largePacks(filepath.Join(r.CommonDir, "objects", "pack")) {
			return
		}
		r.goStore = filesystem.NewStorageWithOptions(osfs.New(r.CommonDir), cache.NewObjectLRUDefault(), filesystem.Options{})
	})
	return r.goStore
}

// goGitIdxLimit is the pack-index size past which go-git's first read costs
// more than a git process: go-git parses every .idx whole on first use
// (git/git's 23 MB index: ~180 ms of a 220 ms bridge), `git cat-file
// --batch` maps it (2–5 ms). docs/BENCHMARKS.md has the measurement.
const goGitIdxLimit = 4 << 20

// largePacks reports pack indexes over goGitIdxLimit in all, or a partial
// clone's promisor pack (go-git cannot fetch what it lacks): reads then go
// through git plumbing.
func largePacks(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var total int64
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, ".promisor") {
			return true
		}
		if strings.HasSuffix(name, ".idx") {
			if fi, err := e.Info(); err == nil {
				total += fi.Size()
			}
		}
	}
	return total > goGitIdxLimit
}

// Head describes what HEAD points at.
type Head struct {
	// Ref is the branch ref ("refs/heads/main"), empty when detached.
	Ref string
	// Commit is the commit HEAD resolves to, empty on an unborn branch.
	Commit string
}

// Head resolves HEAD: the branch from the HEAD file itself (as git reads
// it), the commit with one git call.
func (r *Repo) Head(ctx context.Context) (Head, error) {
	var h Head
	b, err := os.ReadFile(filepath.Join(r.GitDir, "HEAD"))
	if err != nil {
		return h, fmt.Errorf("read HEAD: %w", err)
	}
	if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); ok {
		h.Ref = ref
	}
	if v := strings.TrimSpace(string(b)); h.Ref == "" && isObjectID(v) {
		h.Commit = v // detached
		return h, nil
	}
	if h.Ref != "" {
		if id, found, ok := r.refFromFiles(h.Ref); ok {
			if found {
				h.Commit = id
			}
			return h, nil
		}
	}
	out, err := r.Git(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err == nil {
		h.Commit = strings.TrimSpace(string(out))
	} else if exitCode(err) != 1 {
		return h, fmt.Errorf("resolve HEAD: %w", err)
	}
	return h, nil
}

// Busy reports why a scribe commit must not be made right now (an operation
// in progress or the index locked), or "" when the repository is free.
func (r *Repo) Busy() string {
	checks := []struct{ path, why string }{
		{"MERGE_HEAD", "a merge is in progress"},
		{"rebase-merge", "a rebase is in progress"},
		{"rebase-apply", "a rebase or am is in progress"},
		{"CHERRY_PICK_HEAD", "a cherry-pick is in progress"},
		{"REVERT_HEAD", "a revert is in progress"},
		{"BISECT_LOG", "a bisect is in progress"},
		{"index.lock", "the index is locked by another git process (index.lock)"},
	}
	for _, c := range checks {
		if _, err := os.Stat(filepath.Join(r.GitDir, c.path)); err == nil {
			return c.why
		}
	}
	return ""
}

// Abs returns the absolute path of a repo-relative path after checking that
// it stays inside the work tree (no "..", no absolute paths, no symlinked
// parent leading out).
func (r *Repo) Abs(rel string) (string, error) {
	if err := CheckRelPath(rel); err != nil {
		return "", err
	}
	abs := filepath.Join(r.WorkTree, filepath.FromSlash(rel))
	// Resolve the deepest existing parent and make sure it is still inside.
	dir := filepath.Dir(abs)
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", rel, err)
	}
	root, err := filepath.EvalSymlinks(r.WorkTree)
	if err != nil {
		return "", fmt.Errorf("resolve work tree: %w", err)
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", fmt.Errorf("%s leads outside the repository through a symlink; refusing to write", rel)
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", fmt.Errorf("%s is a symlink; refusing to write through it", rel)
	}
	return abs, nil
}

// AbsNoLinks is Abs for files scribe renders on its own account (the
// vault's view): no component of the path may be a symlink at all, even
// one that stays inside the repository (a committed .claude -> docs/notes
// would put the view into the person's tracked docs/).
func (r *Repo) AbsNoLinks(rel string) (string, error) {
	abs, err := r.Abs(rel)
	if err != nil {
		return "", err
	}
	dir := r.WorkTree
	segs := strings.Split(rel, "/")
	for _, seg := range segs[:len(segs)-1] {
		dir = filepath.Join(dir, seg)
		fi, err := os.Lstat(dir)
		if err != nil {
			break // the rest does not exist yet
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%s goes through the symlink %s; the view is not written through symlinks", rel, strings.TrimPrefix(dir, r.WorkTree+string(filepath.Separator)))
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s: %s is a file, not a directory; the view is not written there", rel, strings.TrimPrefix(dir, r.WorkTree+string(filepath.Separator)))
		}
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		return "", fmt.Errorf("%s is a directory, not a file; the view is not written there", rel)
	}
	return abs, nil
}

// AbsRead is Abs for reading: a symlink whose target is inside the
// repository is followed (moby ships CLAUDE.md -> AGENTS.md; a read-only
// check must read it). Writing through a symlink stays refused (Abs).
func (r *Repo) AbsRead(rel string) (string, error) {
	abs, err := r.Abs(rel)
	if err == nil {
		return abs, nil
	}
	link := filepath.Join(r.WorkTree, filepath.FromSlash(rel))
	if fi, lerr := os.Lstat(link); lerr != nil || fi.Mode()&os.ModeSymlink == 0 || CheckRelPath(rel) != nil {
		return "", err
	}
	real, rerr := filepath.EvalSymlinks(link)
	if rerr != nil {
		return "", fmt.Errorf("resolve %s: %w", rel, rerr)
	}
	root, rerr := filepath.EvalSymlinks(r.WorkTree)
	if rerr != nil {
		return "", fmt.Errorf("resolve work tree: %w", rerr)
	}
	if !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is a symlink leading outside the repository; not read", rel)
	}
	return real, nil
}

// CheckRelPath rejects paths scribe must never generate: absolute, "..",
// empty segments, NUL or ".git" components.
func CheckRelPath(rel string) error {
	if rel == "" || strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || strings.ContainsRune(rel, 0) || strings.Contains(rel, "\\") {
		return fmt.Errorf("invalid vault path %q: must be a relative slash-separated path inside the repository", rel)
	}
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case "", ".", "..":
			return fmt.Errorf("invalid vault path %q: no empty, . or .. segments", rel)
		}
		if strings.EqualFold(seg, ".git") {
			return fmt.Errorf("invalid vault path %q: scribe never writes inside .git", rel)
		}
	}
	return nil
}
