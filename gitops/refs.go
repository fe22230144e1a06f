package gitops

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A hook or a command resolves HEAD and refs/scribe/vault several times
// (each engine step asks for what it needs), and each `git rev-parse` is a
// process: 1.5–2 ms, a tenth of a Stop hook. The files-backed ref store is
// a documented format (gitrepository-layout(5), git-pack-refs(1)) that git
// itself updates atomically (a lock file renamed over the ref, a whole new
// packed-refs), so a read of the files sees one value or the other, as a
// concurrent `git rev-parse` would. Whatever the files cannot answer for
// certain — a reftable store, a symbolic ref chain, a malformed value — is
// asked of git.

// refFromFiles resolves a branch or a scribe ref (refs/heads/…,
// refs/scribe/…) from the ref files: the loose ref, else packed-refs. Those
// refs hold commits (git commits onto branches only, scribe writes its own
// refs), so the id is the commit `rev-parse REF^{commit}` would give; a
// tag, which may be an annotated tag object, is always asked of git. found
// is false when the ref does not exist; ok is false when git must be asked.
func (r *Repo) refFromFiles(name string) (id string, found, ok bool) {
	if !strings.HasPrefix(name, "refs/heads/") && !strings.HasPrefix(name, "refs/scribe/") ||
		strings.Contains(name, "..") || r.CommonDir == "" {
		return "", false, false
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return "", false, false
	}
	dir := r.CommonDir
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	switch {
	case err == nil:
		v := strings.TrimSpace(string(b))
		if !isObjectID(v) {
			return "", false, false // "ref: …" (a symbolic ref) or garbage
		}
		return v, true, true
	case !os.IsNotExist(err):
		if fi, serr := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); serr == nil && fi.IsDir() {
			return "", false, true // refs/heads/a when only refs/heads/a/b exists
		}
		return "", false, false
	}
	return packedRef(filepath.Join(r.CommonDir, "packed-refs"), name)
}

// packedRef looks name up in a packed-refs file. A ref followed by a
// peeled line ("^id") is an annotated tag: not a commit, so git is asked.
func packedRef(path, name string) (id string, found, ok bool) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	suffix := []byte(" " + name)
	for sc.Scan() {
		line := sc.Bytes()
		if id != "" {
			if bytes.HasPrefix(line, []byte("^")) {
				return "", false, false
			}
			return id, true, true
		}
		if len(line) == 0 || line[0] == '#' || line[0] == '^' || !bytes.HasSuffix(line, suffix) {
			continue
		}
		v := string(line[:len(line)-len(suffix)])
		if !isObjectID(v) {
			return "", false, false
		}
		id = v
	}
	if sc.Err() != nil {
		return "", false, false
	}
	if id != "" {
		return id, true, true
	}
	return "", false, true
}

// isObjectID reports whether s is a full SHA-1 or SHA-256 object id in
// lower-case hex, as git writes them.
func isObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// resolveRef resolves a full ref name to the commit it names, "" when the
// ref does not exist: from the ref files where they answer, else by git.
func (r *Repo) resolveRef(ctx context.Context, name string) (string, error) {
	if id, found, ok := r.refFromFiles(name); ok {
		if !found {
			return "", nil
		}
		return id, nil
	}
	out, err := r.Git(ctx, "rev-parse", "-q", "--verify", name+"^{commit}")
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", fmt.Errorf("resolve %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// cached returns what gitImmutable holds for args, if it ran them.
func (r *Repo) cached(args []string) ([]byte, bool) {
	r.immMu.Lock()
	defer r.immMu.Unlock()
	out, ok := r.imm["git\x00"+strings.Join(args, "\x00")].([]byte)
	return out, ok
}

// gitImmutable runs a git read whose output depends only on the immutable
// objects its arguments name by full id (a commit's log, a tree's listing),
// once per Repo (immutable).
func (r *Repo) gitImmutable(ctx context.Context, args ...string) ([]byte, error) {
	v, err := r.immutable("git\x00"+strings.Join(args, "\x00"), func() (any, error) { return r.Git(ctx, args...) })
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// immutable is read's result for key, computed once per Repo: a read of
// what immutable objects named by full id hold (through git or from the
// object files), which the engine's steps ask for several times in one
// command. A read already running for key (a prefetch) is waited for, not
// repeated; callers share the result and must not change it.
func (r *Repo) immutable(key string, read func() (any, error)) (any, error) {
	r.immMu.Lock()
	if out, ok := r.imm[key]; ok {
		r.immMu.Unlock()
		return out, nil
	}
	if c, ok := r.immRunning[key]; ok {
		r.immMu.Unlock()
		<-c.done
		if c.err == nil {
			return c.out, nil
		}
		return read() // its error was its own (a cancelled prefetch): try once more
	}
	c := &immCall{done: make(chan struct{})}
	if r.immRunning == nil {
		r.immRunning = map[string]*immCall{}
	}
	r.immRunning[key] = c
	r.immMu.Unlock()
	c.out, c.err = read()
	r.immMu.Lock()
	delete(r.immRunning, key)
	if c.err == nil {
		if r.imm == nil || len(r.imm) >= maxImmutable {
			r.imm = map[string]any{} // a long-running process keeps few
		}
		r.imm[key] = c.out
	}
	r.immMu.Unlock()
	close(c.done)
	if c.err != nil {
		return nil, c.err
	}
	return c.out, nil
}

// immCall is one immutable read in flight.
type immCall struct {
	done chan struct{}
	out  any
	err  error
}

// maxImmutable bounds gitImmutable's memo: one command asks for a few
// dozen results; the MCP server lives for many commands.
const maxImmutable = 256
