package gitops

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The vault's newest objects are loose: unpack-objects writes every
// object of a vault commit as its own file, and they stay so until git
// packs them. A read at the vault tip — the session records, the files a
// write and the view need, the trees on their way — then opens a few
// small files here instead of starting `git ls-tree` and `git cat-file`
// (go-git's loose-object reader; each object's id is checked against its
// content). One object not loose, and the read goes through git as
// before, whole.

// looseObjects reads the loose objects of an objects directory.
type looseObjects struct{ dir string }

// loose is the repository's own objects directory, or nil where objects
// may live elsewhere (GIT_OBJECT_DIRECTORY; SHA-256, which go-git v5 does
// not read).
func (r *Repo) loose() *looseObjects {
	if r.objectFormat != "sha1" || r.noLoose || os.Getenv("GIT_OBJECT_DIRECTORY") != "" {
		return nil
	}
	return &looseObjects{dir: filepath.Join(r.CommonDir, "objects")}
}

// maxLoose bounds what is read of one loose object: a vault file is small
// (the journal keeps 50 entries); a larger one is git's to read.
const maxLoose = 8 << 20

var errNotLoose = errors.New("not a loose object")

// EncodedObject is the loose object h of type t.
func (l *looseObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, b, err := l.read(h)
	if err != nil {
		return nil, err
	}
	return asObject(t, h, typ, b)
}

// asObject is object h, of type typ and content b, as go-git reads it;
// an error when t names another type.
func asObject(t plumbing.ObjectType, h plumbing.Hash, typ plumbing.ObjectType, b []byte) (plumbing.EncodedObject, error) {
	if t != plumbing.AnyObject && typ != t {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, typ, t)
	}
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.Write(b)
	return o, nil
}

// hashesTo reports whether an object of type typ and content b has id h.
func hashesTo(typ plumbing.ObjectType, b []byte, h plumbing.Hash) bool {
	sum := sha1.New()
	fmt.Fprintf(sum, "%s %d\x00", typ, len(b))
	sum.Write(b)
	return bytes.Equal(sum.Sum(nil), h[:])
}

// read is the type and content of loose object h, checked against h.
func (l *looseObjects) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	id := h.String()
	f, err := os.Open(filepath.Join(l.dir, id[:2], id[2:]))
	if err != nil {
		return 0, nil, errNotLoose
	}
	defer f.Close()
	zr, err := objfile.NewReader(f)
	if err != nil {
		return 0, nil, err
	}
	defer zr.Close()
	typ, size, err := zr.Header()
	if err != nil {
		return 0, nil, err
	}
	if size < 0 || size > maxLoose {
		return 0, nil, errNotLoose
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(zr, b); err != nil {
		return 0, nil, err
	}
	if !hashesTo(typ, b, h) {
		return 0, nil, fmt.Errorf("loose object %s does not hash to its name", id)
	}
	return typ, b, nil
}

// readVaultLoose is readVault from loose objects alone; ok is false when
// one it needs is not loose (or not readable so).
func (r *Repo) readVaultLoose(commit string, dirs, paths []string) (map[string][]byte, vaultTrees, bool) {
	l := r.loose()
	if l == nil {
		return nil, nil, false
	}
	trees, ok := readTreesGoGit(l, commit, dirs)
	if !ok {
		return nil, nil, false
	}
	files := make(map[string][]byte, len(paths))
	for _, p := range paths {
		d, name := path.Split(p)
		var blob plumbing.Hash
		for _, e := range trees[path.Clean("/" + d)[1:]] {
			if e.Name == name && e.Mode != filemode.Dir && e.Mode != filemode.Submodule {
				blob = e.Hash
			}
		}
		if blob.IsZero() {
			continue // not there, or not a file
		}
		typ, b, err := l.read(blob)
		if err != nil || typ != plumbing.BlobObject {
			return nil, nil, false
		}
		files[p] = b
	}
	return files, trees, true
}

// listLoose is ListFiles from loose objects alone: the paths under dir
// (every one when ""), as `git ls-tree -r --name-only` lists them.
func (r *Repo) listLoose(commit, dir string) ([]string, bool) {
	l := r.loose()
	if l == nil {
		return nil, false
	}
	c, ok := decodeCommit(l, commit)
	if !ok {
		return nil, false
	}
	h := c.TreeHash
	prefix := ""
	if dir = path.Clean("/" + dir)[1:]; dir != "" {
		trees, ok := readTreesGoGit(l, commit, treeDirs([]string{dir + "/x"}))
		if !ok {
			return nil, false
		}
		parent, name := path.Split(dir)
		found := false
		for _, e := range trees[path.Clean("/" + parent)[1:]] {
			if e.Name == name && e.Mode == filemode.Dir {
				h, found = e.Hash, true
			}
		}
		if !found {
			return nil, true // no such directory: nothing listed
		}
		prefix = dir + "/"
	}
	var out []string
	var walk func(h plumbing.Hash, prefix string) bool
	walk = func(h plumbing.Hash, prefix string) bool {
		to, err := l.EncodedObject(plumbing.TreeObject, h)
		if err != nil {
			return false
		}
		var t object.Tree
		if t.Decode(to) != nil {
			return false
		}
		for _, e := range t.Entries {
			if e.Mode == filemode.Dir {
				if !walk(e.Hash, prefix+e.Name+"/") {
					return false
				}
				continue
			}
			out = append(out, prefix+e.Name)
		}
		return true
	}
	if !walk(h, prefix) {
		return nil, false
	}
	return out, true
}

// vaultLogLoose is VaultLog from loose objects alone, for a history that
// is a chain (no merge within the n commits: git's date order is the
// chain's order then) of commits whose subject git prints as their first
// line; ok is false otherwise, and git is asked. The commits the last
// read found are kept (keptVaultLog): a wrap reads 50, the next finds all
// but its own new ones there.
func (r *Repo) vaultLogLoose(tip string, n int) ([]VaultCommit, bool) {
	l := r.loose()
	if l == nil || !plumbing.IsHash(tip) {
		return nil, false
	}
	kept := r.keptVaultLog()
	var chain []keptCommit
	read := false
	for cur := tip; len(chain) < n && cur != ""; {
		if known := kept.from(cur, n-len(chain)); len(known) > 0 {
			chain = append(chain, known...)
			cur = chain[len(chain)-1].Parent
			continue
		}
		c, ok := decodeCommit(l, cur)
		if !ok || len(c.ParentHashes) > 1 || (c.Encoding != "" && !strings.EqualFold(string(c.Encoding), "utf-8")) {
			return nil, false
		}
		subject, ok := plainSubject(c.Message)
		if !ok {
			return nil, false
		}
		k := keptCommit{VaultCommit: VaultCommit{SHA: cur, Subject: subject,
			Date: c.Committer.When.Format("2006-01-02T15:04:05-07:00"), Trailers: ParseTrailers(c.Message)}}
		if len(c.ParentHashes) == 1 {
			k.Parent = c.ParentHashes[0].String()
		}
		chain = append(chain, k)
		read = true
		cur = k.Parent
	}
	if read {
		r.keepVaultLog(chain, kept)
	}
	out := make([]VaultCommit, len(chain))
	for i, k := range chain {
		out[i] = k.VaultCommit
	}
	return out, true
}

// keptLog is the vault history the last read found, newest first.
type keptLog struct {
	Commits []keptCommit
	at      map[string]int // by id, built when read
}

// keptCommit is one commit of a kept history and its parent ("" for the
// root).
type keptCommit struct {
	VaultCommit
	Parent string
}

func (r *Repo) vaultLogPath() string { return filepath.Join(r.ScribeDir(), "vaultlog.cache") }

// keptVaultLog is the kept history: read once a process (ReadKept), then
// what this process kept last. A snapshot: never changed once returned.
func (r *Repo) keptVaultLog() *keptLog {
	r.keptLogMu.Lock()
	defer r.keptLogMu.Unlock()
	if r.keptLog == nil {
		k := &keptLog{}
		if !ReadKept(r.vaultLogPath(), k) {
			k.Commits = nil
		}
		r.keptLog = k.indexed()
	}
	return r.keptLog
}

// from is the kept chain from commit sha, up to n commits.
func (k *keptLog) from(sha string, n int) []keptCommit {
	i, ok := k.at[sha]
	if !ok || n <= 0 {
		return nil
	}
	j := i + 1
	for j < len(k.Commits) && j-i < n && k.Commits[j-1].Parent == k.Commits[j].SHA {
		j++
	}
	return k.Commits[i:j:j]
}

// indexed is k with its index by id.
func (k *keptLog) indexed() *keptLog {
	k.at = make(map[string]int, len(k.Commits))
	for i, c := range k.Commits {
		k.at[c.SHA] = i
	}
	return k
}

// keptLogMax bounds a kept history: VaultLog's callers read 50.
const keptLogMax = 64

// keepVaultLog keeps chain, and what was kept of its history beyond it,
// for this process's next read and, once it writes the vault
// (saveVaultLog), for the next command: a read-only command leaves no file.
func (r *Repo) keepVaultLog(chain []keptCommit, kept *keptLog) {
	if last := chain[len(chain)-1]; last.Parent != "" {
		chain = append(chain, kept.from(last.Parent, keptLogMax-len(chain))...)
	}
	k := (&keptLog{Commits: chain}).indexed()
	r.keptLogMu.Lock()
	r.keptLog, r.keptLogNew = k, true
	r.keptLogMu.Unlock()
}

// saveVaultLog writes what keepVaultLog kept, if anything, when this
// process has written the vault; a failure to write is a read not saved.
func (r *Repo) saveVaultLog() {
	r.keptLogMu.Lock()
	k, ok := r.keptLog, r.keptLogNew
	r.keptLogNew = false
	r.keptLogMu.Unlock()
	if ok {
		_ = WriteKept(r.vaultLogPath(), k)
	}
}

// plainSubject is a message's subject as git's %s prints it, for the
// messages where that is simply the first line: one line, then a blank
// line or the end, with no carriage return, no trailing or leading blank.
func plainSubject(msg string) (string, bool) {
	line, rest, _ := strings.Cut(msg, "\n")
	if line == "" || strings.TrimSpace(line) != line || strings.ContainsAny(line, "\r\x00") {
		return "", false
	}
	if rest != "" && !strings.HasPrefix(rest, "\n") {
		return "", false // a second line of the first paragraph: git joins them
	}
	return line, true
}

// PathChange is one path's blob before and after a commit: an all-zero id
// where the path is absent.
type PathChange struct{ Old, New string }

// PathCommit is a commit that changed one of the paths a history asked
// for, and how.
type PathCommit struct {
	SHA     string
	Parents []string
	Changes map[string]PathChange
}

// ParseRawLog parses `git log -z -m --raw --no-abbrev --format=%x1e%H %P`
// output: the commits it lists, newest first, each with the changes of the
// paths it names.
func ParseRawLog(out string) ([]PathCommit, error) {
	var commits []PathCommit
	for _, rec := range strings.Split(out, "\x1e") {
		if rec == "" {
			continue
		}
		header, rest, _ := strings.Cut(rec, "\x00")
		ids := strings.Fields(header)
		if len(ids) == 0 {
			return nil, fmt.Errorf("parse git log output: record without a commit id: %q", rec[:min(len(rec), 80)])
		}
		c := PathCommit{SHA: ids[0], Changes: map[string]PathChange{}}
		if len(ids) > 1 {
			c.Parents = ids[1:]
		}
		tok := strings.Split(strings.TrimLeft(rest, "\n"), "\x00")
		for i := 0; i+1 < len(tok); i += 2 {
			meta := tok[i]
			if !strings.HasPrefix(meta, ":") {
				break
			}
			// :oldmode newmode oldid newid status
			f := strings.Fields(meta[1:])
			if len(f) != 5 {
				return nil, fmt.Errorf("parse git log output: bad raw record %q", meta)
			}
			c.Changes[tok[i+1]] = PathChange{Old: f[2], New: f[3]}
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// maxPathHistory bounds the commits VaultPathHistory reads itself; a
// longer history is git's to walk.
const maxPathHistory = 1000

// VaultPathHistory is what `git log -m --raw --full-history
// [--since=since] tip -- paths` lists, read from loose objects alone: the
// commits from tip, newest first, that changed one of paths (regular files
// at the vault's top level or below), with their blob ids before and after.
// since is an RFC 3339 date ("" for the whole history): the walk stops at
// the first commit older, as git's does. ok is false — ask git — for a
// history that is not a chain of at most limit loose commits
// (maxPathHistory when limit is 0), or where a path is not a plain file.
func (r *Repo) VaultPathHistory(tip, since string, paths []string, limit int) (out []PathCommit, ok bool) {
	if limit <= 0 || limit > maxPathHistory {
		limit = maxPathHistory
	}
	l := r.loose()
	if l == nil || !plumbing.IsHash(tip) {
		return nil, false
	}
	var after int64 = -1 << 62
	if since != "" {
		t, err := time.Parse(time.RFC3339, since)
		if err != nil {
			return nil, false
		}
		after = t.Unix()
	}
	dirs := treeDirs(paths)
	// entries is the paths' entries in c's tree; false for one that is
	// not a plain file (a directory, link or submodule: git's to show).
	entries := func(c *object.Commit) (map[string]object.TreeEntry, bool) {
		trees, ok := readTreesAt(l, c.TreeHash, dirs)
		if !ok {
			return nil, false
		}
		m := map[string]object.TreeEntry{}
		for _, p := range paths {
			d, name := path.Split(p)
			for _, e := range trees[path.Clean("/" + d)[1:]] {
				if e.Name != name {
					continue
				}
				if e.Mode != filemode.Regular && e.Mode != filemode.Executable {
					return nil, false
				}
				m[p] = e
			}
		}
		return m, true
	}
	blob := func(e object.TreeEntry, ok bool) string {
		if !ok {
			return plumbing.ZeroHash.String()
		}
		return e.Hash.String()
	}
	id := tip
	c, ok := decodeCommit(l, id)
	var cur map[string]object.TreeEntry
	if ok {
		cur, ok = entries(c)
	}
	for n := 0; ok && n < limit && len(c.ParentHashes) <= 1; n++ {
		if c.Committer.When.Unix() < after {
			return out, true
		}
		var parent *object.Commit
		prev, pid := map[string]object.TreeEntry{}, ""
		if len(c.ParentHashes) == 1 {
			pid = c.ParentHashes[0].String()
			if parent, ok = decodeCommit(l, pid); !ok {
				break
			}
			if prev, ok = entries(parent); !ok {
				break
			}
		}
		changes := map[string]PathChange{}
		for _, p := range paths {
			old, had := prev[p]
			now, has := cur[p]
			if old != now {
				changes[p] = PathChange{Old: blob(old, had), New: blob(now, has)}
			}
		}
		if len(changes) > 0 {
			pc := PathCommit{SHA: id, Changes: changes}
			if pid != "" {
				pc.Parents = []string{pid}
			}
			out = append(out, pc)
		}
		if parent == nil {
			return out, true
		}
		id, c, cur = pid, parent, prev
	}
	return nil, false
}
