package gitops

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// HooksDir is the directory git really runs hooks from (core.hooksPath,
// Husky's .husky/_, or .git/hooks), as git itself reports it.
func (r *Repo) HooksDir(ctx context.Context) (string, error) {
	out, err := r.Git(ctx, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", fmt.Errorf("find the hooks directory: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// CommitInfo is what the journal needs of one commit.
type CommitInfo struct {
	SHA     string
	Subject string
	Body    string
	Files   []string
	Stats   []FileStat // per file, parallel to Files
	Added   int
	Deleted int
	Time    int64    // committer time, Unix seconds
	Parents []string // full ids, first parent first
	Missing bool     // the object is gone (gc after an amend)
}

// FileStat is one file's numstat in a commit (-1 for binary files).
type FileStat struct{ Added, Deleted int }

// ResolveCommits resolves many commit ids, full or abbreviated, with one
// `git cat-file --batch-check`: the full id of each that names a commit;
// one that is missing, ambiguous or not a commit is left out. Each id is
// one line of git's input, never an argument.
func (r *Repo) ResolveCommits(ctx context.Context, ids []string) (map[string]string, error) {
	full := map[string]string{}
	var in strings.Builder
	var asked []string
	for _, id := range ids {
		if id == "" || strings.ContainsAny(id, "\n\r") {
			continue
		}
		in.WriteString(id + "\n")
		asked = append(asked, id)
	}
	if len(asked) == 0 {
		return full, nil
	}
	out, err := r.gitIn(ctx, runOpts{stdin: []byte(in.String())}, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if i >= len(asked) {
			break
		}
		if oid, typ, ok := strings.Cut(line, " "); ok && typ == "commit" && isObjectID(oid) {
			full[asked[i]] = oid
		}
	}
	return full, nil
}

// CommitInfos reads subject, message body and numstat of many commits with
// one git process.
func (r *Repo) CommitInfos(ctx context.Context, shas []string) (map[string]CommitInfo, error) {
	infos := map[string]CommitInfo{}
	if len(shas) == 0 {
		return infos, nil
	}
	// The commits are nearly always there: read them at once, and only
	// when git cannot (one is gone: gc after an amend) find out which.
	if out, err := r.showCommits(ctx, shas); err == nil {
		return parseCommitInfos(out, infos), nil
	}
	full, err := r.ResolveCommits(ctx, shas)
	if err != nil {
		return nil, fmt.Errorf("check recorded commits: %w", err)
	}
	var present []string
	for _, sha := range shas {
		if full[sha] != "" {
			present = append(present, sha)
		} else {
			infos[sha] = CommitInfo{SHA: sha, Missing: true}
		}
	}
	if len(present) == 0 {
		return infos, nil
	}
	out, err := r.showCommits(ctx, present)
	if err != nil {
		return nil, fmt.Errorf("read recorded commits: %w", err)
	}
	return parseCommitInfos(out, infos), nil
}

const commitInfoSep = "\x1e"

// showCommits is one `git show` of the commits' ids, times, parents,
// subjects, bodies and numstats.
func (r *Repo) showCommits(ctx context.Context, shas []string) ([]byte, error) {
	args := append([]string{"-c", "core.bigFileThreshold=" + BigFileThreshold, "show", "--no-walk=unsorted", "-z", "--numstat", "--no-renames",
		"--format=" + commitInfoSep + "%H%x00%ct%x00%P%x00%s%x00%b%x00"}, shas...)
	args = append(args, "--")
	return r.Git(ctx, args...)
}

// parseCommitInfos adds showCommits' records to infos.
func parseCommitInfos(out []byte, infos map[string]CommitInfo) map[string]CommitInfo {
	sep := commitInfoSep
	for _, rec := range strings.Split(string(out), sep) {
		if rec == "" {
			continue
		}
		parts := strings.SplitN(rec, "\x00", 6)
		if len(parts) < 5 {
			continue
		}
		ci := CommitInfo{SHA: parts[0], Parents: strings.Fields(parts[2]), Subject: parts[3], Body: parts[4]}
		ci.Time, _ = strconv.ParseInt(parts[1], 10, 64)
		if len(parts) == 6 {
			for _, ns := range strings.Split(parts[5], "\x00") {
				ns = strings.TrimLeft(ns, "\n")
				f := strings.SplitN(ns, "\t", 3)
				if len(f) != 3 {
					continue
				}
				ci.Files = append(ci.Files, f[2])
				a, _ := strconv.Atoi(f[0])
				d, _ := strconv.Atoi(f[1])
				ci.Stats = append(ci.Stats, FileStat{Added: a, Deleted: d})
				ci.Added += a
				ci.Deleted += d
			}
		}
		infos[ci.SHA] = ci
	}
	return infos
}
