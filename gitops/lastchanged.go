package gitops

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// lastChangedDepth and lastChangedSpan bound how far back LastChanged
// walks: a path not touched in that many commits, or in that long, is
// simply old. --max-count counts matching commits, not commits walked, so
// only the time bound stops git's walk early: without it, a source
// committed once years ago made every wrap walk all of history (1.06 s on
// git/git, 0.03 s with it).
const (
	lastChangedDepth = 2000
	lastChangedSpan  = 365 * 24 * time.Hour
)

// LastChanged returns, for each of paths, the committer time of the newest
// commit reachable from HEAD that touched it. A path (callers pass tracked ones)
// no commit of the last year changed gets that year's start (it is at
// least that old); paths no
// commit changed within the newest 2,000 touching any of them are missing
// from the map. One
// `git log` streams history newest first and is stopped as soon as every
// path has been seen — git plumbing, because go-git's path-filtered log
// walks and diffs every commit in-process.
func (r *Repo) LastChanged(ctx context.Context, paths []string) (map[string]time.Time, error) {
	found := make(map[string]time.Time, len(paths))
	if len(paths) == 0 {
		return found, nil
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	since := time.Now().Add(-lastChangedSpan).Truncate(time.Second)
	args := append([]string{"log", "--format=%x01%ct", "-z", "--name-only", "--no-renames",
		"--max-count=" + strconv.Itoa(lastChangedDepth), "--since=" + since.UTC().Format(time.RFC3339), "HEAD", "--"}, paths...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.WorkTree
	cmd.Env = append(append(os.Environ(), ActiveEnv+"=1", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"), r.env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("read file history: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("read file history: %w", err)
	}
	br := bufio.NewReader(out)
	var cur time.Time
	stopped, matched := false, 0
	for {
		tok, rerr := br.ReadBytes(0)
		tok = bytes.TrimSuffix(tok, []byte{0})
		if t, ok := bytes.CutPrefix(tok, []byte{1}); ok {
			matched++
			if sec, err := strconv.ParseInt(strings.TrimSpace(string(t)), 10, 64); err == nil {
				cur = time.Unix(sec, 0)
			}
		} else if p := strings.TrimLeft(string(tok), "\n"); p != "" && want[p] {
			if _, seen := found[p]; !seen {
				found[p] = cur
			}
			if len(found) == len(want) {
				stopped = true
				cancel()
				break
			}
		}
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return nil, fmt.Errorf("read file history: %w", rerr)
			}
			break
		}
	}
	werr := cmd.Wait()
	if stopped {
		return found, nil
	}
	if werr != nil {
		msg := errb.String()
		// An unborn branch has no history: nothing was ever committed.
		if strings.Contains(msg, "does not have any commits") || strings.Contains(msg, "unknown revision") || strings.Contains(msg, "bad revision 'HEAD'") {
			return found, nil
		}
		return nil, &GitError{Args: args[:8], Stderr: msg, Err: werr}
	}
	if matched < lastChangedDepth {
		// The walk ended at the year's start, not at the match bound: what
		// it did not see is older than that.
		for _, p := range paths {
			if _, ok := found[p]; !ok {
				found[p] = since
			}
		}
	}
	return found, nil
}
