package gitops

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A commit that concludes a conflicted merge or cherry-pick with a plain
// `git commit` looks like any other when post-commit runs: git has removed
// MERGE_HEAD and CHERRY_PICK_HEAD by then. Only HEAD's reflog says it
// ("commit (merge): …", "commit (cherry-pick): …"). The shell recorder
// reads no reflog — `tail` was its one program, ~1.3 ms of a commit
// (docs/BENCHMARKS.md) — so the records' readers ask here.

// reflogScanMax bounds what is read of the reflogs, from their ends: a record
// lands within a few commits of its own, and its reflog line with it. 1 MB
// is ~6,000 entries; reading it all, when a recorded commit is in none of
// them, takes ~1 ms (BenchmarkNotOwnCommitsMissing). A
// record older than that (kept for another branch's wrap) is taken as a
// person's own.
const reflogScanMax = 1 << 20

// NotOwnCommits reports which of shas a conflicted merge or cherry-pick
// made, concluded by `git commit`: the reflog line that created the commit
// in HEAD's reflog (this worktree's, the main one's or another linked
// worktree's) says "commit (merge)" or "commit (cherry-pick)". A commit
// whose line is not found (no reflog, expired) is a person's own, as the
// hook's check treated it.
func (r *Repo) NotOwnCommits(shas []string) map[string]bool {
	out, want := map[string]bool{}, map[string]bool{}
	for _, s := range shas {
		if s != "" {
			want[s] = true
		}
	}
	if len(want) == 0 {
		return out // no glob of the worktrees for a queue of no commits
	}
	logs := []string{filepath.Join(r.GitDir, "logs", "HEAD")}
	if r.CommonDir != r.GitDir {
		logs = append(logs, filepath.Join(r.CommonDir, "logs", "HEAD"))
	}
	if more, err := filepath.Glob(filepath.Join(r.CommonDir, "worktrees", "*", "logs", "HEAD")); err == nil {
		for _, m := range more {
			if filepath.Dir(filepath.Dir(m)) != filepath.Clean(r.GitDir) {
				logs = append(logs, m)
			}
		}
	}
	budget := int64(reflogScanMax) // across the worktrees' reflogs, this one's first
	for _, path := range logs {
		if len(want) == 0 || budget <= 0 {
			break
		}
		budget -= scanReflog(path, budget, func(id []byte) bool { return want[string(id)] }, func(newID, msg string) bool {
			if !strings.HasPrefix(msg, "commit") {
				return true
			}
			delete(want, newID)
			if strings.HasPrefix(msg, "commit (merge): ") || strings.HasPrefix(msg, "commit (cherry-pick): ") {
				out[newID] = true
			}
			return len(want) > 0
		})
	}
	return out
}

// scanReflog calls line with each entry's new id and message, newest
// first, until it returns false, the file's start or limit bytes read, and
// returns the bytes it read. An entry is "<old> <new> <ident> <time>
// <tz>\t<message>"; want, when not nil, skips unwanted entries before
// their message is cut out (a reflog can be megabytes, and most of it is
// not asked about).
func scanReflog(path string, limit int64, want func(newID []byte) bool, line func(newID, msg string) bool) (read int64) {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	const chunk = 64 << 10
	end := fi.Size()
	defer func() { read = fi.Size() - end }()
	var carry []byte // the start of the newest unfinished line read so far
	for end > 0 && fi.Size()-end < limit {
		start := max(end-chunk, 0)
		buf := make([]byte, end-start, end-start+int64(len(carry)))
		if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
			return
		}
		end = start
		buf = append(buf, carry...)
		// Every line but the first is whole; the first is whole only at
		// the file's start.
		for {
			i := bytes.LastIndexByte(buf[:max(len(buf)-1, 0)], '\n')
			if i < 0 {
				break
			}
			if !reflogEntry(buf[i+1:], want, line) {
				return
			}
			buf = buf[:i+1]
		}
		carry = buf
	}
	if end == 0 && len(carry) > 0 {
		reflogEntry(carry, want, line)
	}
	return
}

// reflogEntry parses one reflog line (with or without its newline) for line.
func reflogEntry(b []byte, want func([]byte) bool, line func(newID, msg string) bool) bool {
	b = bytes.TrimSuffix(b, []byte("\n"))
	old, rest, ok := bytes.Cut(b, []byte(" "))
	if !ok || len(old) == 0 {
		return true
	}
	id, rest, _ := bytes.Cut(rest, []byte(" "))
	if len(id) == 0 || want != nil && !want(id) {
		return true
	}
	_, msg, ok := bytes.Cut(rest, []byte("\t"))
	if !ok {
		return true
	}
	return line(string(id), string(msg))
}
