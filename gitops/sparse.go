package gitops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// A sparse checkout (`git sparse-checkout set src`) leaves tracked files
// outside its patterns out of the work tree, their index entries marked
// skip-worktree. A branch write must leave them so: written in the work
// tree, git takes the file as checked out again (it clears the bit of a
// present file when it reads the index), and `update-index --add --remove`
// of a skip-worktree entry whose file it does not find removes the entry —
// a staged deletion the user's next commit would carry. Paths outside the
// checkout are therefore written into the index alone, from their blob,
// with the bit kept.

// indexEntry is the stage-0 entry of one path in the real index.
type indexEntry struct {
	mode, oid string
	skip      bool // marked skip-worktree
}

// indexEntries reads the real index's entries of paths (absent paths are
// missing), with one `git ls-files`.
func (r *Repo) indexEntries(ctx context.Context, paths []string) (map[string]indexEntry, error) {
	m := map[string]indexEntry{}
	if len(paths) == 0 {
		return m, nil
	}
	out, err := r.Git(ctx, append([]string{"ls-files", "-s", "-t", "-z", "--full-name", "--"}, literal(paths)...)...)
	if err != nil {
		return nil, fmt.Errorf("read index entries: %w", err)
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		// "<tag> <mode> <oid> <stage>\t<path>"
		meta, name, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[3] != "0" {
			continue
		}
		m[name] = indexEntry{mode: f[1], oid: f[2], skip: f[0] == "S"}
	}
	return m, nil
}

// literal makes paths literal pathspecs: a vault path holding a glob
// character names that one file.
func literal(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}

// sparseCheckout is a work tree's sparse-checkout definition.
type sparseCheckout struct {
	cone bool
	// dirs are a cone's directories (recursive); patterns the non-cone
	// mode's gitignore-style lines.
	dirs    []string
	matcher gitignore.Matcher
}

// sparse reads the work tree's sparse-checkout definition; nil when the
// work tree is not sparse. A work tree that was never made sparse has no
// info/sparse-checkout file, which costs a stat and no git process.
func (r *Repo) sparse(ctx context.Context) (*sparseCheckout, error) {
	if _, err := os.Stat(filepath.Join(r.GitDir, "info", "sparse-checkout")); err != nil {
		return nil, nil
	}
	out, err := r.Git(ctx, "config", "--type=bool", "--get-regexp", `^core\.sparsecheckout(cone)?$`)
	if err != nil && exitCode(err) != 1 {
		return nil, fmt.Errorf("read the sparse-checkout config: %w", err)
	}
	on, cone := false, false
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch strings.ToLower(k) {
		case "core.sparsecheckout":
			on = v == "true"
		case "core.sparsecheckoutcone":
			cone = v == "true"
		}
	}
	if !on {
		return nil, nil
	}
	out, err = r.Git(ctx, "sparse-checkout", "list")
	if err != nil {
		return nil, fmt.Errorf("read the sparse-checkout patterns: %w", err)
	}
	sc := &sparseCheckout{cone: cone}
	var ps []gitignore.Pattern
	sc2 := bufio.NewScanner(bytes.NewReader(out))
	for sc2.Scan() {
		line := strings.TrimRight(sc2.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cone {
			sc.dirs = append(sc.dirs, strings.Trim(unquoteC(line), "/"))
		} else {
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	if !cone {
		sc.matcher = gitignore.NewMatcher(ps)
	}
	return sc, nil
}

// unquoteC undoes git's C-style quoting of a path ("a\"b" and octal
// escapes), which `sparse-checkout list` applies to unusual names.
func unquoteC(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; {
		case e >= '0' && e <= '7' && i+2 < len(s):
			b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
			i += 2
		case e == 'n':
			b.WriteByte('\n')
		case e == 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

// includes reports whether the sparse checkout holds path (slash
// separated, from the top of the work tree). In cone mode the files at the
// top, in a listed directory or under one, and directly in a parent of
// one are checked out; in the non-cone mode (which git deprecates) the
// patterns are matched as gitignore lines are, a match meaning included.
func (s *sparseCheckout) includes(p string) bool {
	if s == nil {
		return true
	}
	if !s.cone {
		return s.matcher.Match(strings.Split(p, "/"), false)
	}
	dir := path.Dir(p)
	if dir == "." {
		return true
	}
	for _, d := range s.dirs {
		if dir == d || strings.HasPrefix(dir, d+"/") || strings.HasPrefix(d, dir+"/") {
			return true
		}
	}
	return false
}

// outsideCheckout returns, of paths, those whose work-tree file a branch
// write must not touch, with their index entries: an entry marked
// skip-worktree whose file is absent (a sparse checkout leaves it out), and
// a path the index does not hold yet that the sparse checkout does not
// include. present lists skip-worktree entries whose file is there (the
// bit set by hand, to keep local edits out of git status).
func (r *Repo) outsideCheckout(ctx context.Context, paths []string) (outside map[string]indexEntry, present map[string]indexEntry, err error) {
	outside, present = map[string]indexEntry{}, map[string]indexEntry{}
	entries, err := r.indexEntries(ctx, paths)
	if err != nil {
		return nil, nil, err
	}
	var sc *sparseCheckout
	scRead := false
	for _, p := range paths {
		e, tracked := entries[p]
		if tracked && !e.skip {
			continue
		}
		abs, err := r.Abs(p)
		if err != nil {
			return nil, nil, err
		}
		_, serr := os.Lstat(abs)
		exists := serr == nil
		if serr != nil && !errors.Is(serr, fs.ErrNotExist) {
			return nil, nil, serr
		}
		switch {
		case tracked && exists:
			present[p] = e
		case tracked:
			outside[p] = e
		case !exists:
			if !scRead {
				if sc, err = r.sparse(ctx); err != nil {
					return nil, nil, err
				}
				scRead = true
			}
			if !sc.includes(p) {
				outside[p] = indexEntry{mode: "100644", skip: true}
			}
		}
	}
	return outside, present, nil
}

// ReadIndexFiles returns the contents of paths as the real index holds
// them (stage 0); absent paths are missing from the map.
func (r *Repo) ReadIndexFiles(ctx context.Context, paths []string) (map[string][]byte, error) {
	return r.readFilesPlumbing(ctx, "", paths)
}

// SkippedFiles lists the tracked files matching the glob patterns (path.Match
// syntax, from the top of the work tree) that a sparse checkout leaves out of
// the work tree: their content is the index's (ReadIndexFiles). It runs no
// git when the work tree was never made sparse.
func (r *Repo) SkippedFiles(ctx context.Context, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, nil
	}
	if sc, err := r.sparse(ctx); err != nil || sc == nil {
		return nil, err
	}
	specs := make([]string, len(patterns))
	for i, p := range patterns {
		specs[i] = ":(glob)" + p
	}
	out, err := r.Git(ctx, append([]string{"ls-files", "-t", "-z", "--full-name", "--"}, specs...)...)
	if err != nil {
		return nil, fmt.Errorf("list files outside the sparse checkout: %w", err)
	}
	var files []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if tag, name, ok := strings.Cut(rec, " "); ok && tag == "S" {
			if abs, err := r.Abs(name); err == nil {
				if _, err := os.Lstat(abs); errors.Is(err, fs.ErrNotExist) {
					files = append(files, name)
				}
			}
		}
	}
	return files, nil
}

// ReadCheckedOut returns a tracked file as the person's checkout holds it:
// the work-tree file, or — for a file a sparse checkout leaves out of the
// work tree (skip-worktree, absent) — the index's copy. ok is false when
// neither holds it.
func (r *Repo) ReadCheckedOut(ctx context.Context, rel string) ([]byte, bool, error) {
	abs, err := r.AbsRead(rel)
	if err != nil {
		return nil, false, err
	}
	b, err := os.ReadFile(abs)
	if err == nil {
		return b, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	if sc, serr := r.sparse(ctx); serr != nil || sc == nil {
		return nil, false, serr
	}
	entries, err := r.indexEntries(ctx, []string{rel})
	if err != nil {
		return nil, false, err
	}
	if e, ok := entries[rel]; !ok || !e.skip {
		return nil, false, nil
	}
	files, err := r.ReadIndexFiles(ctx, []string{rel})
	if err != nil {
		return nil, false, err
	}
	b, ok := files[rel]
	return b, ok, nil
}

// checkedOut is what the person's checkout holds at each path: the
// work-tree file, else the index's blob of a skip-worktree entry (a path
// outside a sparse checkout). Paths neither holds are missing.
func (r *Repo) checkedOut(ctx context.Context, paths []string) (map[string][]byte, error) {
	m := map[string][]byte{}
	var skipped []string
	entries, err := r.indexEntries(ctx, paths)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		abs, err := r.Abs(p)
		if err != nil {
			return nil, err
		}
		b, rerr := os.ReadFile(abs)
		switch {
		case rerr == nil:
			m[p] = b
		case errors.Is(rerr, fs.ErrNotExist) && entries[p].skip:
			skipped = append(skipped, p)
		}
	}
	if len(skipped) > 0 {
		idx, err := r.ReadIndexFiles(ctx, skipped)
		if err != nil {
			return nil, err
		}
		for p, b := range idx {
			m[p] = b
		}
	}
	return m, nil
}
