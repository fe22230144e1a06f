package gitops

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Every command starts by finding its repository, and `git rev-parse`
// was the first process on every path a user or a hook waits for. For the
// layout nearly every repository has — a work tree with a .git directory
// (or a linked worktree's .git file) somewhere above, a plain config, the
// files owned by this user — the answer is read here, as git's discovery
// finds it (setup.c: the nearest directory holding a valid .git, stopping
// at a filesystem boundary). Anything else is git's to answer: an
// environment that steers discovery, a config that sets core.worktree,
// core.bare, extensions or includes, another owner (safe.directory), a
// bare repository on the way, another filesystem, Windows.

// discoverEnv are the variables that change where or how git finds the
// repository.
var discoverEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_INDEX_FILE", "GIT_NAMESPACE"}

// discoverFast is Discover without git, where the layout is plain; ok
// false means git is asked.
func discoverFast(dir string) (*Repo, bool) {
	if runtime.GOOS == "windows" {
		return nil, false
	}
	for _, k := range discoverEnv {
		if _, set := os.LookupEnv(k); set {
			return nil, false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	cur, err := filepath.EvalSymlinks(abs) // git works from the physical directory
	if err != nil {
		return nil, false
	}
	st, err := os.Stat(cur)
	if err != nil {
		return nil, false
	}
	dev, uid, ok := devOwner(st)
	if !ok || uid != os.Geteuid() {
		return nil, false
	}
	ceilings, ok := ceilingDirs(cur)
	if !ok {
		return nil, false
	}
	for {
		if isGitDir(cur) {
			return nil, false // inside a git dir, or a bare repository
		}
		dotgit := filepath.Join(cur, ".git")
		if fi, err := os.Lstat(dotgit); err == nil {
			return plainRepo(cur, dotgit, fi, uid)
		}
		parent := filepath.Dir(cur)
		if parent == cur || underCeiling(parent, ceilings) {
			return nil, false // no repository: git says so, in its words
		}
		pst, err := os.Stat(parent)
		if err != nil {
			return nil, false
		}
		if d, _, ok := devOwner(pst); !ok || d != dev {
			return nil, false // a filesystem boundary
		}
		cur = parent
	}
}

// ceilingDirs are GIT_CEILING_DIRECTORIES' entries that lie above start
// (git never moves up into them); ok is false for a list git reads in a way
// not followed here (an empty entry, which stops symlink resolution for
// the rest, or a relative one).
func ceilingDirs(start string) ([]string, bool) {
	v, set := os.LookupEnv("GIT_CEILING_DIRECTORIES")
	if !set || v == "" {
		return nil, true
	}
	var out []string
	for _, c := range filepath.SplitList(v) {
		if c == "" || !filepath.IsAbs(c) {
			return nil, false
		}
		if real, err := filepath.EvalSymlinks(c); err == nil {
			c = real
		}
		c = filepath.Clean(c)
		if strings.HasPrefix(start, strings.TrimSuffix(c, string(filepath.Separator))+string(filepath.Separator)) {
			out = append(out, c)
		}
	}
	return out, true
}

// underCeiling reports whether d is a ceiling, or above one.
func underCeiling(d string, ceilings []string) bool {
	for _, c := range ceilings {
		if c == d || strings.HasPrefix(c, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// plainRepo is the repository whose work tree is top, from its .git entry.
func plainRepo(top, dotgit string, fi os.FileInfo, uid int) (*Repo, bool) {
	gitDir := dotgit
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(dotgit)
		if err != nil {
			return nil, false
		}
		target, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
		if !ok || target == "" || strings.ContainsAny(target, "\n\r") {
			return nil, false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(top, target)
		}
		gitDir = target
	default:
		return nil, false // a symlink: git's to follow
	}
	gitDir, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return nil, false
	}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimRight(string(b), "\r\n")
		if c == "" || strings.ContainsAny(c, "\n\r") {
			return nil, false
		}
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		if common, err = filepath.EvalSymlinks(c); err != nil {
			return nil, false
		}
	} else if !os.IsNotExist(err) {
		return nil, false
	}
	if !validHead(gitDir) || !isDir(filepath.Join(common, "objects")) || !isDir(filepath.Join(common, "refs")) {
		return nil, false
	}
	owned := []string{top, gitDir, common}
	if !fi.IsDir() {
		owned = append(owned, dotgit)
	}
	for _, d := range owned {
		st, err := os.Stat(d)
		if err != nil {
			return nil, false
		}
		if _, owner, ok := devOwner(st); !ok || owner != uid {
			return nil, false
		}
	}
	cfg := scanConfig(filepath.Join(common, "config"))
	if !cfg.plain {
		return nil, false
	}
	r := &Repo{WorkTree: top, GitDir: gitDir, CommonDir: common, objectFormat: "sha1"}
	r.emptyOnce.Do(func() { r.emptyTree = emptyTrees["sha1"] })
	r.cfgOnce.Do(func() { r.cfg = cfg })
	return r, true
}

// repoConfig is what one read of a repository's config file says.
type repoConfig struct {
	// plain: nothing in it moves the work tree, makes the repository bare,
	// changes the object format or pulls in other files.
	plain bool
	// ignoreCase: core.ignorecase is on (pathspecs then match without
	// case).
	ignoreCase bool
}

// scanConfig reads the config file at path.
func scanConfig(path string) repoConfig {
	b, err := os.ReadFile(path)
	if err != nil {
		return repoConfig{}
	}
	var c repoConfig
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.ToLower(strings.TrimSpace(sc.Text()))
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			return repoConfig{} // a continued line
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return repoConfig{}
			}
			section = strings.TrimSpace(line[1:end])
			if section == "extensions" || strings.HasPrefix(section, "include") {
				return repoConfig{}
			}
			if line = strings.TrimSpace(line[end+1:]); line == "" {
				continue
			}
		}
		if section != "core" {
			continue
		}
		key, val, hasVal := strings.Cut(line, "=")
		val = strings.TrimSpace(val)
		switch strings.TrimSpace(key) {
		case "worktree":
			return repoConfig{}
		case "bare":
			if val != "false" {
				return repoConfig{}
			}
		case "ignorecase":
			c.ignoreCase = !hasVal || val == "true" || val == "yes" || val == "on" || val == "1"
		}
	}
	c.plain = sc.Err() == nil
	return c
}

// config is the repository's config as scanConfig reads it, once.
func (r *Repo) config() repoConfig {
	r.cfgOnce.Do(func() { r.cfg = scanConfig(filepath.Join(r.CommonDir, "config")) })
	return r.cfg
}

// isGitDir is git's is_git_directory, as far as a work tree's parents
// need it: a directory holding HEAD, objects and refs.
func isGitDir(d string) bool {
	return fileExists(filepath.Join(d, "HEAD")) && isDir(filepath.Join(d, "objects")) && isDir(filepath.Join(d, "refs"))
}

// validHead is a HEAD git accepts: a symbolic ref to refs/, or an id.
func validHead(gitDir string) bool {
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return false
	}
	s := strings.TrimRight(string(b), "\n")
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		return strings.HasPrefix(strings.TrimSpace(ref), "refs/")
	}
	return isObjectID(s)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
