package gitops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// A vault commit's blobs and trees are built in this process and written
// by one git process: the tip's trees on the way to the changed paths are
// read with the paths' contents (one `cat-file --batch`, or go-git), the
// changed directories re-encoded here, and every new object handed to
// `git unpack-objects` as one pack (packStored: no deltas, no compression). git
// writes each object, loose, as hash-object does; where hash-object,
// read-tree, update-index and write-tree took four processes, this takes
// one. Anything unexpected (a SHA-256 repository, a file where the vault
// needs a directory) falls back to the temporary index (buildVaultTree).

// vaultTrees are a commit's trees by directory ("" is the root); a
// directory the commit does not have is absent.
type vaultTrees map[string][]object.TreeEntry

// errNoFastTree says the in-process build does not apply here.
var errNoFastTree = errors.New("the vault tree is built with a temporary index")

// treeDirs are the directories on the way to paths, the root first.
func treeDirs(paths []string) []string {
	seen := map[string]bool{"": true}
	dirs := []string{""}
	for _, p := range paths {
		for d := path.Dir(p); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs[1:])
	return dirs
}

// ReadVaultFiles is ReadFiles for the vault: what it reads at a commit id
// (files, and the trees on their way) is kept for this process, so the
// vault write that follows a command's reads of the same tip reads nothing
// again (one git process on a repository go-git does not open).
func (r *Repo) ReadVaultFiles(ctx context.Context, commit string, paths []string) (map[string][]byte, error) {
	if isObjectID(commit) {
		if files, _, ok := r.vaultMemo(commit, paths, nil); ok {
			return files, nil
		}
	}
	files, _, err := r.readVault(ctx, commit, paths)
	return files, err
}

// readVault reads paths' contents at commit and the trees on their way.
// trees is nil when they could not be read as trees (the fast build then
// does not apply); files is what ReadFiles returns.
func (r *Repo) readVault(ctx context.Context, commit string, paths []string) (map[string][]byte, vaultTrees, error) {
	if commit == "" {
		files, err := r.ReadFiles(ctx, commit, paths)
		return files, vaultTrees{}, err
	}
	if r.objectFormat != "sha1" || !isObjectID(commit) {
		files, err := r.ReadFiles(ctx, commit, paths)
		return files, nil, err
	}
	dirs := treeDirs(paths)
	if files, trees, ok := r.vaultMemo(commit, paths, dirs); ok {
		return files, trees, nil
	}
	if files, trees, ok := r.readVaultLoose(commit, dirs, paths); ok {
		r.keepVault(commit, paths, dirs, files, trees)
		return files, trees, nil
	}
	var files map[string][]byte
	var trees vaultTrees
	var err error
	if st := r.objects(); st != nil {
		var ok bool
		if trees, ok = readTreesGoGit(st, commit, dirs); ok {
			files, err = r.ReadFiles(ctx, commit, paths)
		} else {
			files, trees, err = r.readVaultPlumbing(ctx, commit, dirs, paths)
		}
	} else {
		files, trees, err = r.readVaultPlumbing(ctx, commit, dirs, paths)
	}
	if err == nil {
		r.keepVault(commit, paths, dirs, files, trees)
	}
	return files, trees, err
}

// vaultRead is what readVault read at one commit: each path's content and
// each directory's entries, absent ones too; odd when a file sat where a
// directory goes.
type vaultRead struct {
	files map[string][]byte // nil value: no file there
	dirs  map[string][]object.TreeEntry
	odd   bool
	// whole: what files and dirs lack is not there (the first vault
	// commit, known whole by the write that made it).
	whole bool
}

// vaultMemo serves a read from what was read at commit before (or written
// there, keepWritten), when all of it was: paths, and the trees of dirs.
func (r *Repo) vaultMemo(commit string, paths, dirs []string) (map[string][]byte, vaultTrees, bool) {
	r.immMu.Lock()
	defer r.immMu.Unlock()
	m := r.vaultReads[commit]
	if m == nil {
		return nil, nil, false
	}
	files := make(map[string][]byte, len(paths))
	for _, p := range paths {
		b, ok := m.files[p]
		if !ok && !m.whole {
			return nil, nil, false
		}
		if b != nil {
			files[p] = bytes.Clone(b) // a Build may append to what it is given
		}
	}
	trees := vaultTrees{}
	for _, d := range dirs {
		es, ok := m.dirs[d]
		if !ok && !m.whole {
			return nil, nil, false
		}
		if es != nil {
			trees[d] = es
		}
	}
	if m.odd {
		trees = nil
	}
	return files, trees, true
}

// keepWritten remembers what the vault holds at sha, the commit just made
// on tip with exactly the changed paths replaced by next: what was known at
// tip, those paths' new contents, and the trees the write built (dirs;
// nil when it built them with a temporary index). The view rendered from
// sha next then reads nothing.
func (r *Repo) keepWritten(sha, tip string, changed []string, next map[string][]byte, dirs map[string][]object.TreeEntry) {
	r.saveVaultLog()
	r.immMu.Lock()
	defer r.immMu.Unlock()
	if r.vaultReads == nil {
		r.vaultReads = map[string]*vaultRead{}
	}
	m := &vaultRead{files: map[string][]byte{}, dirs: map[string][]object.TreeEntry{}}
	if was := r.vaultReads[tip]; was != nil && tip != "" {
		for p, b := range was.files {
			m.files[p] = b
		}
		if dirs != nil && !was.odd {
			for d, es := range was.dirs {
				m.dirs[d] = es
			}
		}
	}
	for _, p := range changed {
		if b := next[p]; b != nil {
			m.files[p] = append([]byte{}, b...)
		} else {
			m.files[p] = nil
		}
	}
	for d, es := range dirs {
		m.dirs[d] = es
	}
	if dirs == nil {
		m.dirs = map[string][]object.TreeEntry{} // unknown: a write at sha reads them
	}
	m.whole = dirs != nil && (tip == "" || (r.vaultReads[tip] != nil && r.vaultReads[tip].whole))
	r.keepRead(sha, m)
}

// maxVaultReads bounds the commits whose reads a process keeps: a command
// needs the tip it read and the one it wrote; a long-running process (the
// MCP server) must not keep every journal it ever wrote.
const maxVaultReads = 4

// keepRead stores m as commit's read, forgetting the oldest beyond
// maxVaultReads. The caller holds immMu.
func (r *Repo) keepRead(commit string, m *vaultRead) {
	if _, ok := r.vaultReads[commit]; !ok {
		r.vaultOrder = append(r.vaultOrder, commit)
	}
	r.vaultReads[commit] = m
	for len(r.vaultOrder) > maxVaultReads {
		delete(r.vaultReads, r.vaultOrder[0])
		r.vaultOrder = r.vaultOrder[1:]
	}
}

// keepVault remembers a readVault at commit (an object id: what it holds
// never changes).
func (r *Repo) keepVault(commit string, paths, dirs []string, files map[string][]byte, trees vaultTrees) {
	r.immMu.Lock()
	defer r.immMu.Unlock()
	if r.vaultReads == nil {
		r.vaultReads = map[string]*vaultRead{}
	}
	m := r.vaultReads[commit]
	if m == nil {
		m = &vaultRead{files: map[string][]byte{}, dirs: map[string][]object.TreeEntry{}}
		r.keepRead(commit, m)
	}
	for _, p := range paths {
		b, ok := files[p]
		if ok {
			b = append([]byte{}, b...) // a copy: the caller's may change; an empty file is a file
		}
		m.files[p] = b
	}
	if trees == nil {
		m.odd = true
	}
	for _, d := range dirs {
		es, ok := trees[d]
		if ok && es == nil {
			es = []object.TreeEntry{}
		}
		m.dirs[d] = es
	}
}

// objectReader is an object store go-git's object decoding reads from:
// its filesystem storage, or the loose objects alone (looseObjects).
type objectReader interface {
	EncodedObject(plumbing.ObjectType, plumbing.Hash) (plumbing.EncodedObject, error)
}

// decodeCommit is the commit id read from st.
func decodeCommit(st objectReader, id string) (*object.Commit, bool) {
	if !plumbing.IsHash(id) {
		return nil, false
	}
	co, err := st.EncodedObject(plumbing.CommitObject, plumbing.NewHash(id))
	if err != nil {
		return nil, false
	}
	var c object.Commit
	if c.Decode(co) != nil {
		return nil, false
	}
	return &c, true
}

// readTreesGoGit reads the directories' trees with go-git; ok is false on
// anything but a clean read (go-git's "not found" is not trusted: git
// confirms).
func readTreesGoGit(st objectReader, commit string, dirs []string) (vaultTrees, bool) {
	c, ok := decodeCommit(st, commit)
	if !ok {
		return nil, false
	}
	return readTreesAt(st, c.TreeHash, dirs)
}

// readTreesAt is readTreesGoGit from the commit's root tree, root.
func readTreesAt(st objectReader, root plumbing.Hash, dirs []string) (vaultTrees, bool) {
	trees := vaultTrees{}
	hashes := map[string]plumbing.Hash{"": root}
	for _, d := range dirs {
		h, ok := hashes[d]
		if !ok {
			continue // its parent lacks it: a directory the commit does not have
		}
		to, err := st.EncodedObject(plumbing.TreeObject, h)
		if err != nil {
			return nil, false
		}
		var t object.Tree
		if t.Decode(to) != nil {
			return nil, false
		}
		trees[d] = t.Entries
		for _, e := range t.Entries {
			if e.Mode == filemode.Dir {
				hashes[path.Join(d, e.Name)] = e.Hash
			}
		}
	}
	return trees, true
}

// readVaultPlumbing is readVault through one `git cat-file --batch`: the
// root tree, each directory's tree, then each path's blob.
func (r *Repo) readVaultPlumbing(ctx context.Context, commit string, dirs, paths []string) (map[string][]byte, vaultTrees, error) {
	// The batch's requests are lines: a path with a newline in it would be
	// two requests, and every answer after it another path's. Such a path
	// is read on its own, and its directories leave the trees unread.
	var lined []string
	if slices.ContainsFunc(paths, func(p string) bool { return strings.Contains(p, "\n") }) {
		var batch []string
		for _, p := range paths {
			if strings.Contains(p, "\n") {
				lined = append(lined, p)
			} else {
				batch = append(batch, p)
			}
		}
		paths = batch
		dirs = slices.DeleteFunc(slices.Clone(dirs), func(d string) bool { return strings.Contains(d, "\n") })
	}
	files, trees, err := r.readVaultBatch(ctx, commit, dirs, paths)
	if err != nil || len(lined) == 0 {
		return files, trees, err
	}
	for _, p := range lined {
		if b, err := r.Git(ctx, "cat-file", "blob", commit+":"+p); err == nil {
			files[p] = b
		}
	}
	return files, nil, nil
}

// readVaultBatch is readVaultPlumbing's one `git cat-file --batch`, for
// paths without a newline.
func (r *Repo) readVaultBatch(ctx context.Context, commit string, dirs, paths []string) (map[string][]byte, vaultTrees, error) {
	var in bytes.Buffer
	for _, d := range dirs {
		if d == "" {
			fmt.Fprintf(&in, "%s^{tree}\n", commit)
		} else {
			fmt.Fprintf(&in, "%s:%s\n", commit, d)
		}
	}
	for _, p := range paths {
		fmt.Fprintf(&in, "%s:%s\n", commit, p)
	}
	out, err := r.gitIn(ctx, runOpts{stdin: in.Bytes()}, "cat-file", "--batch")
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReader(bytes.NewReader(out))
	next := func(what string) (string, []byte, error) {
		header, err := br.ReadString('\n')
		if err != nil {
			return "", nil, fmt.Errorf("read %s:%s: %w", commit, what, err)
		}
		if strings.HasSuffix(header, " missing\n") || strings.HasSuffix(header, " ambiguous\n") {
			return "", nil, nil
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			return "", nil, fmt.Errorf("read %s:%s: unexpected cat-file header %q", commit, what, header)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return "", nil, fmt.Errorf("read %s:%s: bad size in %q", commit, what, header)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", nil, err
		}
		br.Discard(1)
		return f[1], b, nil
	}
	trees := vaultTrees{}
	odd := false // a file where the vault needs a directory: no trees
	for _, d := range dirs {
		typ, b, err := next(d)
		if err != nil {
			return nil, nil, err
		}
		switch typ {
		case "":
		case "tree":
			if odd {
				continue // read to the end of its response all the same
			}
			obj := &plumbing.MemoryObject{}
			obj.SetType(plumbing.TreeObject)
			obj.Write(b)
			var t object.Tree
			if err := t.Decode(obj); err != nil {
				return nil, nil, fmt.Errorf("read %s:%s: %w", commit, d, err)
			}
			trees[d] = t.Entries
		default:
			odd = true
		}
	}
	if odd {
		trees = nil
	}
	files := make(map[string][]byte, len(paths))
	for _, p := range paths {
		typ, b, err := next(p)
		if err != nil {
			return nil, nil, err
		}
		if typ == "blob" {
			files[p] = b // a directory or submodule at a vault path is not a file we can read
		}
	}
	return files, trees, nil
}

// writeVaultTree writes the changed blobs and every tree they change, on
// top of trees (the base commit's), with one `git unpack-objects`, and
// returns the new root tree's id.
//
// With c, the commit object of the new tree goes in the same pack, and
// its id is returned too (commit-tree writes it otherwise: "").
func (r *Repo) writeVaultTree(ctx context.Context, trees vaultTrees, changed []string, next map[string][]byte, c *commitSpec) (string, string, map[string][]object.TreeEntry, error) {
	if trees == nil || r.objectFormat != "sha1" {
		return "", "", nil, errNoFastTree
	}
	built := map[string][]object.TreeEntry{}
	mem := memory.NewStorage()
	var written []plumbing.Hash
	put := func(o plumbing.EncodedObject) plumbing.Hash {
		h, _ := mem.SetEncodedObject(o) // the memory storer does not fail
		written = append(written, h)
		return h
	}
	entries := map[string]map[string]object.TreeEntry{}
	dirOf := func(d string) map[string]object.TreeEntry {
		m, ok := entries[d]
		if !ok {
			m = map[string]object.TreeEntry{}
			for _, e := range trees[d] {
				m[e.Name] = e
			}
			entries[d] = m
		}
		return m
	}
	for _, p := range changed {
		d, name := path.Split(p)
		d = strings.TrimSuffix(d, "/")
		m := dirOf(d)
		if old, ok := m[name]; ok && old.Mode == filemode.Dir {
			return "", "", nil, errNoFastTree // a directory where the vault writes a file
		}
		if next[p] == nil {
			delete(m, name)
			continue
		}
		o := mem.NewEncodedObject()
		o.SetType(plumbing.BlobObject)
		w, _ := o.Writer()
		w.Write(next[p])
		w.Close()
		m[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: put(o)}
	}
	// Every directory on the way to a changed path is rewritten, deepest
	// first; one left empty leaves its parent, as git has no empty trees.
	dirs := treeDirs(changed)
	depth := func(d string) int {
		if d == "" {
			return -1
		}
		return strings.Count(d, "/")
	}
	sort.Slice(dirs, func(i, j int) bool {
		if a, b := depth(dirs[i]), depth(dirs[j]); a != b {
			return a > b
		}
		return dirs[i] < dirs[j]
	})
	var root plumbing.Hash
	for _, d := range dirs {
		m := dirOf(d)
		es := make([]object.TreeEntry, 0, len(m))
		for _, e := range m {
			es = append(es, e)
		}
		sort.Slice(es, func(i, j int) bool { return treeOrder(es[i]) < treeOrder(es[j]) })
		o := mem.NewEncodedObject()
		if err := (&object.Tree{Entries: es}).Encode(o); err != nil {
			return "", "", nil, fmt.Errorf("encode vault tree %q: %w", d, err)
		}
		h := put(o)
		built[d] = es
		if len(es) == 0 {
			built[d] = nil // gone: git has no empty trees
		}
		if d == "" {
			root = h
			break
		}
		parent, name := path.Split(d)
		pm := dirOf(strings.TrimSuffix(parent, "/"))
		if old, ok := pm[name]; ok && old.Mode != filemode.Dir {
			return "", "", nil, errNoFastTree // a file where the vault needs a directory
		}
		if len(es) == 0 {
			delete(pm, name)
		} else {
			pm[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	commit := ""
	if c != nil {
		if raw, ok := commitObject(root.String(), c.parents, c.author, c.committer, c.msg); ok {
			o := mem.NewEncodedObject()
			o.SetType(plumbing.CommitObject)
			w, _ := o.Writer()
			w.Write(raw)
			w.Close()
			commit = put(o).String()
		}
	}
	if r.speculatedObjects(commit) {
		return root.String(), commit, built, nil // written beside the reads (SpeculateVault)
	}
	pack, err := packStored(mem, written)
	if err != nil {
		return "", "", nil, err
	}
	r.packsWritten.Add(1)
	if _, err := r.gitIn(ctx, runOpts{stdin: pack}, "unpack-objects", "-q"); err != nil {
		return "", "", nil, fmt.Errorf("write the vault commit's objects: %w", err)
	}
	return root.String(), commit, built, nil
}

// commitSpec is what a vault commit object holds besides its tree.
type commitSpec struct {
	parents           []string
	author, committer string
	msg               string
}

// treeOrder is git's order of tree entries: by name, a directory's name
// compared as if it ended in "/".
func treeOrder(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}
