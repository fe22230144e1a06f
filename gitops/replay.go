package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Resolver merges the three versions of one file whose replay conflicted
// (base is nil when the file was added on both sides). It returns the
// merged content; an error leaves the conflict standing.
type Resolver func(base, ours, theirs []byte) ([]byte, error)

// ReplayedCommit is one local commit rebuilt on the remote branch.
type ReplayedCommit struct {
	Old     string `json:"old"`
	New     string `json:"new,omitempty"` // empty when dropped
	Subject string `json:"subject"`
	// Resolved lists files whose conflict a resolver merged (the journal).
	Resolved []string `json:"resolved,omitempty"`
}

// ConflictError is a local commit that cannot be replayed onto the remote
// branch without a person: its files conflict and no resolver owns them.
type ConflictError struct {
	Commit  string
	Subject string
	Onto    string
	Paths   []string
	Details []string
}

func (e *ConflictError) Error() string {
	msg := fmt.Sprintf("replaying %s %q onto %s conflicts in %s", shortOID(e.Commit), e.Subject, e.Onto, strings.Join(e.Paths, ", "))
	if len(e.Details) > 0 {
		msg += " (" + strings.Join(e.Details, "; ") + ")"
	}
	return msg
}

func shortOID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// replay rebuilds commits (oldest first, each with one parent) on top of
// onto, like a rebase, but entirely in the object store: no work tree, no
// index, no ref is touched, so the user's staged and unstaged work cannot be
// affected and a conflict leaves nothing to clean up.
//
// Each step is a three-way merge of the commit's changes (base: its parent)
// into the tip, done by `git merge-tree --write-tree` (git ≥ 2.38; it runs
// merge drivers and .gitattributes like a real merge). git 2.39 has no
// --merge-base option, so the base is forced with a synthetic commit: the
// tip's tree with the picked commit's parent as its only parent, whose merge
// base with the picked commit is exactly that parent.
//
// Attributes come from a private directory holding the tip's .gitattributes
// files (never from the user's work tree or index), plus "-merge" for every
// path with a resolver, so git leaves those files to the resolver instead
// of a line-level union that would interleave journal entries.
func (r *Repo) replay(ctx context.Context, onto, ontoName string, commits []string, resolve map[string]Resolver) (string, []ReplayedCommit, error) {
	dir, err := os.MkdirTemp(r.ScribeDir(), "replay-")
	if err != nil {
		if err := os.MkdirAll(r.ScribeDir(), 0o755); err != nil {
			return "", nil, fmt.Errorf("replay: %w", err)
		}
		if dir, err = os.MkdirTemp(r.ScribeDir(), "replay-"); err != nil {
			return "", nil, fmt.Errorf("replay: %w", err)
		}
	}
	defer os.RemoveAll(dir)
	if err := r.writeReplayAttributes(ctx, dir, onto, resolve); err != nil {
		return "", nil, err
	}
	// merge-tree reads attributes from this "work tree" and an empty index;
	// merge drivers' temp files land here too, never in the user's tree.
	env := []string{"GIT_DIR=" + r.GitDir, "GIT_WORK_TREE=" + dir, "GIT_INDEX_FILE=" + filepath.Join(dir, ".index")}
	tip := onto
	var done []ReplayedCommit
	for _, c := range commits {
		info, err := r.readCommit(ctx, c)
		if err != nil {
			return "", nil, err
		}
		if len(info.parents) != 1 {
			return "", nil, fmt.Errorf("replay: %s is a merge or root commit", shortOID(c))
		}
		parent := info.parents[0]
		tipTree, err := r.treeOf(ctx, tip)
		if err != nil {
			return "", nil, err
		}
		synth, err := r.gitIn(ctx, runOpts{stdin: []byte("scribe replay base\n")}, "commit-tree", "--no-gpg-sign", tipTree, "-p", parent)
		if err != nil {
			return "", nil, fmt.Errorf("replay %s: %w", shortOID(c), err)
		}
		out, merr := git(ctx, dir, runOpts{env: append(append([]string(nil), r.env...), env...)},
			"merge-tree", "--write-tree", "-z", strings.TrimSpace(string(synth)), c)
		tree, conflicts, details := parseMergeTree(out)
		if merr != nil && exitCode(merr) != 1 {
			return "", nil, fmt.Errorf("replay %s: %w", shortOID(c), merr)
		}
		rc := ReplayedCommit{Old: c, Subject: info.subject}
		if merr != nil { // exit 1: conflicts
			tree, rc.Resolved, err = r.resolveConflicts(ctx, tree, conflicts, resolve)
			if err != nil {
				var ce *ConflictError
				if errors.As(err, &ce) {
					ce.Commit, ce.Subject, ce.Onto, ce.Details = c, info.subject, ontoName, details
				}
				return "", nil, err
			}
		}
		parentTree, err := r.treeOf(ctx, parent)
		if err != nil {
			return "", nil, err
		}
		if tree == tipTree && info.tree != parentTree {
			done = append(done, rc) // already upstream: nothing left to replay
			continue
		}
		cenv := []string{"GIT_AUTHOR_NAME=" + info.authorName, "GIT_AUTHOR_EMAIL=" + info.authorEmail, "GIT_AUTHOR_DATE=" + info.authorDate}
		nc, err := r.gitIn(ctx, runOpts{stdin: []byte(info.message), env: cenv}, "commit-tree", tree, "-p", tip, "-F", "-")
		if err != nil {
			return "", nil, fmt.Errorf("replay %s: %w", shortOID(c), err)
		}
		tip = strings.TrimSpace(string(nc))
		rc.New = tip
		done = append(done, rc)
	}
	return tip, done, nil
}

// mergeConflict is one path's stages in merge-tree's conflicted file info.
type mergeConflict struct {
	modes  [4]string
	stages [4]string // 1 base, 2 ours, 3 theirs
}

// parseMergeTree reads `merge-tree --write-tree -z` output: the tree, the
// conflicted file info (mode oid stage TAB path) and the messages.
func parseMergeTree(out []byte) (string, map[string]*mergeConflict, []string) {
	fields := strings.Split(string(out), "\x00")
	conflicts := map[string]*mergeConflict{}
	if len(fields) == 0 {
		return "", conflicts, nil
	}
	tree := strings.TrimSpace(fields[0])
	i := 1
	for ; i < len(fields) && fields[i] != ""; i++ {
		meta, p, ok := strings.Cut(fields[i], "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || len(f[2]) != 1 || f[2][0] < '1' || f[2][0] > '3' {
			continue
		}
		st := int(f[2][0] - '0')
		mc := conflicts[p]
		if mc == nil {
			mc = &mergeConflict{}
			conflicts[p] = mc
		}
		mc.modes[st], mc.stages[st] = f[0], f[1]
	}
	// Messages: <count> NUL <path>… NUL <type> NUL <message> NUL, repeated.
	var details []string
	for i++; i < len(fields); {
		var n int
		if _, err := fmt.Sscan(fields[i], &n); err != nil || i+n+2 >= len(fields) {
			break
		}
		paths := fields[i+1 : i+1+n]
		typ, msg := fields[i+1+n], fields[i+2+n]
		i += n + 3
		if strings.HasPrefix(typ, "Auto-merging") || strings.HasPrefix(msg, "Auto-merging") {
			continue
		}
		for _, p := range paths {
			if conflicts[p] == nil && strings.HasPrefix(msg, "CONFLICT") {
				conflicts[p] = &mergeConflict{} // a conflict without stages: never resolvable
			}
		}
		details = append(details, strings.TrimSpace(msg))
	}
	return tree, conflicts, details
}

// resolveConflicts merges every conflicted path with its resolver and
// returns the merge result tree with those paths replaced. Any path without
// a resolver (or not a plain file on both sides) is a *ConflictError.
func (r *Repo) resolveConflicts(ctx context.Context, tree string, conflicts map[string]*mergeConflict, resolve map[string]Resolver) (string, []string, error) {
	var paths, unresolved []string
	for p := range conflicts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	merged := map[string][]byte{}
	for _, p := range paths {
		mc := conflicts[p]
		fn := resolve[p]
		if fn == nil || !regularBlob(mc.modes[2]) || !regularBlob(mc.modes[3]) || (mc.stages[1] != "" && !regularBlob(mc.modes[1])) {
			unresolved = append(unresolved, p)
			continue
		}
		var v [4][]byte
		for st := 1; st <= 3; st++ {
			if mc.stages[st] == "" {
				continue
			}
			b, err := r.Git(ctx, "cat-file", "blob", mc.stages[st])
			if err != nil {
				return "", nil, fmt.Errorf("read %s (stage %d): %w", p, st, err)
			}
			v[st] = b
		}
		out, err := fn(v[1], v[2], v[3])
		if err != nil {
			unresolved = append(unresolved, p+": "+err.Error())
			continue
		}
		merged[p] = out
	}
	if len(unresolved) > 0 {
		return "", nil, &ConflictError{Paths: unresolved}
	}
	if len(merged) == 0 {
		return tree, nil, nil
	}
	oids, err := r.hashObjects(ctx, paths, merged)
	if err != nil {
		return "", nil, err
	}
	nt, err := r.buildTree(ctx, tree, paths, oids)
	if err != nil {
		return "", nil, fmt.Errorf("build merged tree: %w", err)
	}
	return nt, paths, nil
}

func regularBlob(mode string) bool { return mode == "100644" || mode == "100755" }

// writeReplayAttributes fills dir with the .gitattributes files of commit
// and marks every resolver path "-merge" at the deepest level (its own
// directory), which takes precedence over the tree's own lines.
func (r *Repo) writeReplayAttributes(ctx context.Context, dir, commit string, resolve map[string]Resolver) error {
	out, err := r.Git(ctx, "ls-tree", "-r", "-z", "--full-tree", commit)
	if err != nil {
		return fmt.Errorf("list attributes of %s: %w", shortOID(commit), err)
	}
	files := map[string][]byte{}
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); !ok || len(f) != 3 || f[1] != "blob" || path.Base(p) != ".gitattributes" {
			continue
		}
		b, err := r.Git(ctx, "cat-file", "blob", strings.Fields(meta)[2])
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		files[p] = b
	}
	for p := range resolve {
		if CheckRelPath(p) != nil {
			continue
		}
		d, base := path.Split(p)
		at := d + ".gitattributes"
		b := files[at]
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		files[at] = append(b, attrPattern(base)+" -merge\n"...)
	}
	for p, b := range files {
		if CheckRelPath(p) != nil {
			continue
		}
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("replay attributes: %w", err)
		}
		if err := os.WriteFile(abs, b, 0o644); err != nil {
			return fmt.Errorf("replay attributes: %w", err)
		}
	}
	return nil
}

// attrPattern anchors a file name as a gitattributes pattern, escaping glob
// characters and quoting names with blanks.
func attrPattern(name string) string {
	var b strings.Builder
	for _, c := range name {
		if strings.ContainsRune(`\*?[`, c) {
			b.WriteByte('\\')
		}
		if c == '"' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	p := "/" + b.String()
	if strings.ContainsAny(name, " \t\"") {
		return `"` + p + `"`
	}
	return p
}

// commitInfo is what replay needs of a commit.
type commitInfo struct {
	tree, subject, message              string
	parents                             []string
	authorName, authorEmail, authorDate string
}

// readCommit parses a commit object (message bytes kept exactly).
func (r *Repo) readCommit(ctx context.Context, c string) (commitInfo, error) {
	out, err := r.Git(ctx, "cat-file", "commit", c)
	if err != nil {
		return commitInfo{}, fmt.Errorf("read commit %s: %w", shortOID(c), err)
	}
	head, msg, _ := strings.Cut(string(out), "\n\n")
	ci := commitInfo{message: msg}
	for _, line := range strings.Split(head, "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "tree":
			ci.tree = v
		case "parent":
			ci.parents = append(ci.parents, v)
		case "author":
			// Name <email> 1700000000 +0000
			lt, gt := strings.Index(v, "<"), strings.LastIndex(v, ">")
			if lt > 0 && gt > lt {
				ci.authorName = strings.TrimSpace(v[:lt])
				ci.authorEmail = v[lt+1 : gt]
				ci.authorDate = strings.TrimSpace(v[gt+1:])
			}
		}
	}
	ci.subject, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
	return ci, nil
}

// treeOf returns a commit's tree.
func (r *Repo) treeOf(ctx context.Context, commit string) (string, error) {
	out, err := r.Git(ctx, "rev-parse", commit+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("read tree of %s: %w", shortOID(commit), err)
	}
	return strings.TrimSpace(string(out)), nil
}
