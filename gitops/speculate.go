package gitops

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// A Stop hook's write depends on the status scan for one line of the
// bridge note (the uncommitted work), and the scan is the longest read of
// all. So the write is made beside the scan for the line the last turn's
// note said (SpeculateVault): its objects are written, nothing is
// published. When the scan says the same, the write that follows builds
// the same files, and its objects are there already (the speculated
// write's own unpack-objects wrote them): only the ref transaction is
// left. When it does not, the write is made as always, and the objects of
// the guess are left for gc, unreachable.

// speculated is a vault write's objects, written and not published.
type speculated struct {
	tip, msg, parent  string // the tip it was built on, its message, a merge parent
	author, committer string
	next              map[string][]byte // the changed paths' contents
	changed           []string
	tree, sha         string
	built             map[string][]object.TreeEntry
	// txn moves the vault to sha, prepared (its locks verified free):
	// committed by the write, or aborted.
	txn   *refTxn
	locks []string
}

// speculation is the Repo's last speculated write.
type speculation struct {
	mu   sync.Mutex
	last *speculated
}

// SpeculateVault writes the objects of the vault write req would make now
// on the vault's tip, without moving any ref (above). It does nothing it
// cannot do as the write itself would (no identities ready, a tree built
// with a temporary index).
func (r *Repo) SpeculateVault(ctx context.Context, req CommitRequest) {
	author, committer, ok := r.peekIdent()
	if !ok || r.objectFormat != "sha1" {
		return
	}
	tip, err := r.VaultTip(ctx)
	if err != nil {
		return
	}
	current, trees, err := r.readVault(ctx, tip, req.Paths)
	if err != nil {
		return
	}
	next, err := req.Build(current)
	if err != nil {
		return
	}
	changed, err := changedPaths(req, current, next)
	if err != nil || len(changed) == 0 {
		return
	}
	msg := req.Message(changed)
	spec := &commitSpec{parents: []string{tip, req.MergeParent}, author: author, committer: committer, msg: msg}
	tree, sha, built, err := r.writeVaultTree(ctx, trees, changed, next, spec)
	if err != nil || sha == "" {
		return
	}
	s := &speculated{tip: tip, msg: msg, parent: req.MergeParent, author: author, committer: committer,
		next: map[string][]byte{}, changed: changed, tree: tree, sha: sha, built: built}
	for _, p := range changed {
		s.next[p] = next[p]
	}
	// The ref transaction is prepared too: the write that takes this
	// one then publishes with one line to a running git.
	if names, err := lockNames(req.Locks); err == nil && req.RemoteLock == "" && r.RemoteLock == "" {
		old := tip
		if old == "" {
			old = strings.Repeat("0", len(sha))
		}
		lines := fmt.Sprintf("update %s %s %s\n", VaultRef, sha, old)
		for _, n := range names {
			lines += fmt.Sprintf("verify %s%s\n", LockRefPrefix, n)
		}
		if t, err := r.prepareRefs(ctx, "scribe: vault commit", lines); err == nil {
			s.txn, s.locks = t, names
		}
	}
	r.DropSpeculation()
	r.spec.mu.Lock()
	r.spec.last = s
	r.spec.mu.Unlock()
}

// DropSpeculation lets a speculated write go: its prepared transaction is
// aborted (it holds the vault ref's lock), its objects left for gc.
func (r *Repo) DropSpeculation() {
	r.spec.mu.Lock()
	s := r.spec.last
	r.spec.last = nil
	r.spec.mu.Unlock()
	if s != nil && s.txn != nil {
		s.txn.abort()
	}
}

// takeSpeculated is the speculated write when it is exactly this one —
// the same tip, message, identities and changed files, byte for byte —
// once; nil otherwise.
func (r *Repo) takeSpeculated(tip, parent, msg string, spec *commitSpec, changed []string, next map[string][]byte) *speculated {
	r.spec.mu.Lock()
	s := r.spec.last
	r.spec.last = nil
	r.spec.mu.Unlock()
	if s == nil {
		return nil
	}
	same := spec != nil && s.tip == tip && s.parent == parent && s.msg == msg &&
		s.author == spec.author && s.committer == spec.committer && slices.Equal(s.changed, changed)
	for _, p := range changed {
		if !same || !bytes.Equal(s.next[p], next[p]) || (s.next[p] == nil) != (next[p] == nil) {
			same = false
			break
		}
	}
	if !same {
		if s.txn != nil {
			s.txn.abort() // before this write's own transaction needs the ref
		}
		return nil
	}
	return s
}

// publish commits s's prepared transaction when the write holds
// exactly the locks it verified, elided (ok false: the write publishes
// as always; the transaction is aborted first).
func (s *speculated) publish(held []*Lock) (ok bool, err error) {
	if s.txn == nil {
		return false, nil
	}
	names := make([]string, len(held))
	elided := true
	for i, l := range held {
		names[i], elided = l.Name, elided && l.OID == ""
	}
	if !elided || !slices.Equal(names, s.locks) {
		s.txn.abort()
		return false, nil
	}
	return true, s.txn.commit()
}
