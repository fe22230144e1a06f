package gitops

import (
	"context"
	"sync"
)

// A Stop hook's write depends on the status scan for one line of the
// bridge note (the uncommitted work), and the scan is the longest read of
// all. So the write is made beside the scan for the line the last turn's
// note said (SpeculateVault): its objects are written and its ref
// transaction is prepared, nothing is published. When the scan says the
// same, the write that follows builds the very commit — objects are named
// by their content, so an equal commit id means every object is there
// already — and sends the prepared transaction its `commit`. When it does
// not, the transaction is aborted, the write is made as always, and the
// objects of the guess are left for gc, unreachable.

// speculated is a vault write's objects, written and not published.
type speculated struct {
	sha string  // the commit: it and every object it names are written
	tx  string  // the ref transaction txn holds prepared ("" for none)
	txn *refTxn // moves the vault to sha, its locks verified free
}

// speculation is the Repo's last speculated write.
type speculation struct {
	mu   sync.Mutex
	last *speculated
}

// SpeculateVault writes the objects of the vault write req would make now
// on the vault's tip, and prepares its ref transaction, without moving
// any ref (above). It does nothing the write itself would not do (no
// identities ready: commit-tree would write the commit; a tree built with
// a temporary index).
func (r *Repo) SpeculateVault(ctx context.Context, req CommitRequest) {
	w, err := r.buildVaultWrite(ctx, req, r.peekIdent)
	if err != nil || w == nil || w.spec == nil {
		return
	}
	_, sha, _, err := r.writeVaultTree(ctx, w.trees, w.changed, w.next, w.spec)
	if err != nil || sha == "" {
		return
	}
	s := &speculated{sha: sha}
	if held, err := r.elidedLocks(req.Locks); err == nil && len(held) > 0 && req.RemoteLock == "" && r.RemoteLock == "" {
		s.tx = vaultTxn(sha, w.tip, held)
		if t, err := r.prepareRefs(ctx, vaultCommitMsg, s.tx); err == nil {
			s.txn = t
		}
	}
	r.DropSpeculation()
	r.spec.mu.Lock()
	r.spec.last = s
	r.spec.mu.Unlock()
}

// DropSpeculation lets a speculated write go: its prepared transaction is
// aborted (it holds the vault ref's lock), its objects left for gc.
func (r *Repo) DropSpeculation() { r.publishSpeculated("") }

// speculatedObjects reports whether commit's objects were written by the
// speculated write.
func (r *Repo) speculatedObjects(commit string) bool {
	r.spec.mu.Lock()
	defer r.spec.mu.Unlock()
	return commit != "" && r.spec.last != nil && r.spec.last.sha == commit
}

// publishSpeculated ends the speculated write, once: it commits the
// prepared transaction when that is tx, the write's own, and aborts it
// otherwise — before the write's own transaction needs the vault ref.
func (r *Repo) publishSpeculated(tx string) (published bool, err error) {
	r.spec.mu.Lock()
	s := r.spec.last
	r.spec.last = nil
	r.spec.mu.Unlock()
	if s == nil || s.txn == nil {
		return false, nil
	}
	if tx == "" || s.tx != tx {
		s.txn.abort()
		return false, nil
	}
	return true, s.txn.commit()
}
