package check

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/gitops"
)

// logSafety returns git log options that keep user configuration
// (signatures, colour, rename detection, external diff drivers) out of
// output scribe parses.
func logSafety() []string {
	return []string{"--no-color", "--no-show-signature", "--no-renames", "--no-ext-diff", "--no-textconv"}
}

// change is one path's change in one commit against one of its parents:
// the blob ids before and after (an all-zero id when the path is absent).
type change = gitops.PathChange

// rawCommit is one commit's changes to the watched paths against one
// parent. A merge appears once per parent it differs from.
type rawCommit = gitops.PathCommit

// isZeroID reports whether id is git's null object id.
func isZeroID(id string) bool { return strings.Trim(id, "0") == "" }

// logRaw lists the commits in revRange that changed any of paths, newest
// first, with the blob ids of each change: one `git log --raw` process, no
// blob read. Merges are compared with each parent (-m) and side branches are
// walked (--full-history), so an entry dropped anywhere is seen.
func logRaw(ctx context.Context, in *Input, revRange string, paths []string) ([]rawCommit, error) {
	args := append([]string{"log", "-z", "-m", "--raw", "--no-abbrev", "--full-history"}, logSafety()...)
	args = append(args, "--format=%x1e%H %P")
	args = append(args, strings.Split(revRange, "\x00")...) // "--since=…\x00tip" for the vault
	args = append(args, "--")
	args = append(args, paths...)
	out, err := in.Repo.Git(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", strings.Join(paths, ", "), err)
	}
	return gitops.ParseRawLog(string(out))
}

// patchCommit is one commit of `git log -p`: its message and the diff of
// each watched file it changed.
type patchCommit struct {
	SHA     string
	Parents []string
	Message string
	Files   []filePatch
}

// filePatch is one file's diff in a patchCommit.
type filePatch struct {
	Path string
	// OldAbsent and NewAbsent say the path did not exist before or after.
	OldAbsent, NewAbsent bool
	Hunks                []hunk
}

// File returns the commit's diff of path.
func (c patchCommit) File(path string) (filePatch, bool) {
	for _, f := range c.Files {
		if f.Path == path {
			return f, true
		}
	}
	return filePatch{}, false
}

// hunk is one hunk of a unified diff. Lines keep their ' ', '-', '+' or
// '\' prefix and lose their "\n".
type hunk struct {
	OldStart, NewStart int
	Lines              []string
}

const patchMarker = "\x00\x1eSCRIBE-COMMIT "

// wholeFile is a diff context larger than any file scribe reads, so one
// hunk holds the whole file and both versions can be rebuilt from it.
const wholeFile = 1 << 30

// scribeCommits is scribe's own commits on the branch (a Scribe-Mode
// trailer) in the checked range, with the whole-file diffs of the files the
// branch-history rules watch: CLAUDE.md, progress.md, the memory directory
// and the trap records. It is one `git log -p` for all of those rules,
// walked once per check however many of them run: each walk of a long
// history costs what `git log -p` over the same paths costs. NewInput
// starts it when its rules read it.
func (in *Input) scribeCommits(ctx context.Context) ([]patchCommit, error) {
	if in.scribePending != nil {
		return in.scribePending.wait()
	}
	in.scribeOnce.Do(func() {
		if rng := in.RevRange(); rng != "" {
			in.scribeLog, in.scribeErr = in.readScribeCommits(ctx, []string{rng})
		}
	})
	return in.scribeLog, in.scribeErr
}

// readScribeCommits runs scribeCommits' walk over revs.
func (in *Input) readScribeCommits(ctx context.Context, revs []string) ([]patchCommit, error) {
	return logPatch(ctx, in, revs, in.scribePathspecs(), wholeFile, "--grep=^"+gitops.TrailerMode+": ")
}

// scribePathspecs are the paths scribeCommits watches. The files wrap owns
// may share the trap directory (a journal of the old layout); their
// whole-file diffs nobody reads, so they are excluded. (A ":(glob)" for the
// trap records alone would double the walk: git cannot prune trees by it.)
func (in *Input) scribePathspecs() []string {
	p := in.Config.Paths
	memDir := strings.TrimSuffix(p.MemoryDir, "/")
	trapDir := strings.TrimSuffix(p.TrapDir, "/")
	specs := []string{":(literal)" + p.ClaudeMD, ":(literal)" + p.Progress, ":(literal)" + memDir, ":(literal)" + trapDir}
	for _, own := range []string{p.BridgeNote, p.Journal, p.JournalArchive, p.ActiveStatus} {
		if own != p.ClaudeMD && own != p.Progress && !strings.HasPrefix(own, memDir+"/") {
			specs = append(specs, ":(exclude,literal)"+own)
		}
	}
	return specs
}

// logPatch runs one `git log -p` over paths in the history revs name,
// newest first, with lines of context and extra options (e.g. --grep).
func logPatch(ctx context.Context, in *Input, revs []string, paths []string, lines int, extra ...string) ([]patchCommit, error) {
	args := append([]string{"-c", "core.quotePath=false", "log", "-p", "--text", "--full-index", "-U" + strconv.Itoa(lines)}, logSafety()...)
	args = append(args, "--src-prefix=a/", "--dst-prefix=b/", "--format=%x00%x1eSCRIBE-COMMIT %H %P%x00%B%x00")
	args = append(args, extra...)
	args = append(args, revs...)
	args = append(args, "--")
	args = append(args, paths...)
	out, err := in.Repo.Git(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", strings.Join(paths, ", "), err)
	}
	return parsePatchLog(string(out))
}

// parsePatchLog parses the output of logPatch.
func parsePatchLog(out string) ([]patchCommit, error) {
	var commits []patchCommit
	for _, rec := range strings.Split(out, patchMarker) {
		if rec == "" {
			continue
		}
		header, rest, ok := strings.Cut(rec, "\x00")
		if !ok {
			return nil, fmt.Errorf("parse git log output: truncated record %q", shorten(rec, 80))
		}
		ids := strings.Fields(header)
		if len(ids) == 0 {
			return nil, fmt.Errorf("parse git log output: record without a commit id")
		}
		msg, patch, _ := strings.Cut(rest, "\x00")
		c := patchCommit{SHA: ids[0], Parents: ids[1:], Message: msg}
		if err := c.parsePatch(patch); err != nil {
			return nil, fmt.Errorf("parse the diff of %s: %w", ids[0], err)
		}
		commits = append(commits, c)
	}
	return commits, nil
}

// diffPath reads the path of a "diff --git a/P b/P" header: without
// renames both sides name the same path, so P is half of what follows
// "diff --git "; a path git quoted ("a/tab\there") is unquoted.
func diffPath(header string) (string, error) {
	rest, ok := strings.CutPrefix(header, "diff --git ")
	if !ok {
		return "", fmt.Errorf("bad diff header %q", shorten(header, 80))
	}
	if strings.HasPrefix(rest, `"`) {
		end := 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(rest) {
			return "", fmt.Errorf("bad diff header %q", shorten(header, 80))
		}
		p, err := strconv.Unquote(rest[:end+1])
		if err != nil || !strings.HasPrefix(p, "a/") {
			return "", fmt.Errorf("bad diff header %q", shorten(header, 80))
		}
		return p[2:], nil
	}
	n := (len(rest) - len("a/ b/")) / 2
	if n < 1 || len(rest) != 2*n+len("a/ b/") || !strings.HasPrefix(rest, "a/") || rest[2+n:2+n+3] != " b/" || rest[2:2+n] != rest[2+n+3:] {
		return "", fmt.Errorf("bad diff header %q", shorten(header, 80))
	}
	return rest[2 : 2+n], nil
}

func (c *patchCommit) parsePatch(patch string) error {
	lines := strings.Split(patch, "\n")
	var f *filePatch
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "diff --git ") {
			p, err := diffPath(l)
			if err != nil {
				return err
			}
			c.Files = append(c.Files, filePatch{Path: p})
			f = &c.Files[len(c.Files)-1]
			continue
		}
		if f == nil {
			continue
		}
		switch {
		case strings.HasPrefix(l, "--- "):
			f.OldAbsent = l == "--- /dev/null"
		case strings.HasPrefix(l, "+++ "):
			f.NewAbsent = l == "+++ /dev/null"
		case strings.HasPrefix(l, "@@ "):
			h, oldN, newN, err := parseHunkHeader(l)
			if err != nil {
				return err
			}
			for i+1 < len(lines) && (oldN > 0 || newN > 0 || strings.HasPrefix(lines[i+1], `\`)) {
				i++
				body := lines[i]
				if body == "" { // an empty context line lost its space to an editor
					body = " "
				}
				switch body[0] {
				case ' ':
					oldN--
					newN--
				case '-':
					oldN--
				case '+':
					newN--
				case '\\':
				default:
					return fmt.Errorf("unexpected diff line %q", shorten(body, 80))
				}
				h.Lines = append(h.Lines, body)
			}
			f.Hunks = append(f.Hunks, h)
		}
	}
	return nil
}

// changes splits a whole-file hunk into the runs of changed lines a
// zero-context diff (-U0) would show, each with the line it starts at.
func (h hunk) changes() []hunk {
	var out []hunk
	oldLine, newLine := h.OldStart, h.NewStart
	var cur *hunk
	for _, l := range h.Lines {
		switch l[0] {
		case ' ':
			cur = nil
			oldLine++
			newLine++
			continue
		case '\\':
			if cur != nil {
				cur.Lines = append(cur.Lines, l)
			}
			continue
		}
		if cur == nil {
			out = append(out, hunk{OldStart: oldLine, NewStart: newLine})
			cur = &out[len(out)-1]
		}
		cur.Lines = append(cur.Lines, l)
		if l[0] == '-' {
			oldLine++
		} else {
			newLine++
		}
	}
	return out
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@…".
func parseHunkHeader(l string) (h hunk, oldN, newN int, err error) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return h, 0, 0, fmt.Errorf("bad hunk header %q", l)
	}
	rng := func(s string) (start, n int, err error) {
		a, b, ok := strings.Cut(s, ",")
		n = 1
		if ok {
			if n, err = strconv.Atoi(b); err != nil {
				return 0, 0, err
			}
		}
		start, err = strconv.Atoi(a)
		return start, n, err
	}
	var e1, e2 error
	h.OldStart, oldN, e1 = rng(f[1][1:])
	h.NewStart, newN, e2 = rng(f[2][1:])
	if e1 != nil || e2 != nil {
		return h, 0, 0, fmt.Errorf("bad hunk header %q", l)
	}
	return h, oldN, newN, nil
}

// sides rebuilds the old and new file texts from a whole-file hunk list
// (a patch made with context larger than the file).
func (f filePatch) sides() (oldText, newText string) {
	var o, n strings.Builder
	for _, h := range f.Hunks {
		var last *strings.Builder // the side(s) the previous line went to
		var both bool
		for _, l := range h.Lines {
			text := l[1:]
			switch l[0] {
			case ' ':
				o.WriteString(text + "\n")
				n.WriteString(text + "\n")
				last, both = &o, true
			case '-':
				o.WriteString(text + "\n")
				last, both = &o, false
			case '+':
				n.WriteString(text + "\n")
				last, both = &n, false
			case '\\': // "\ No newline at end of file": drop the "\n" just written
				if last != nil {
					trimLastNewline(last)
					if both {
						trimLastNewline(&n)
					}
				}
			}
		}
	}
	return o.String(), n.String()
}

func trimLastNewline(b *strings.Builder) {
	s := b.String()
	if strings.HasSuffix(s, "\n") {
		b.Reset()
		b.WriteString(s[:len(s)-1])
	}
}

// commitSubjects reads the subjects of commits with one git process.
func commitSubjects(ctx context.Context, in *Input, shas []string) map[string]string {
	subjects := map[string]string{}
	if len(shas) == 0 {
		return subjects
	}
	args := append([]string{"show", "-s", "--no-walk=unsorted", "--no-show-signature", "--format=%H%x00%s"}, shas...)
	out, err := in.Repo.Git(ctx, args...)
	if err != nil {
		return subjects // subjects only decorate messages
	}
	for _, line := range strings.Split(string(out), "\n") {
		if sha, subj, ok := strings.Cut(line, "\x00"); ok {
			subjects[sha] = subj
		}
	}
	return subjects
}

// shorten cuts s to at most n bytes for an error message.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// short abbreviates a commit id for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
