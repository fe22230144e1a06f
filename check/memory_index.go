package check

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
	"github.com/git-scribe/git-scribe/markdown"
)

// memoryIndex is SCR009: MEMORY.md, the index agents load, lists every
// promoted memory exactly once as "- [name](path) — description", each link
// resolves, and the index stays within 200 lines.
type memoryIndex struct{ meta }

func newMemoryIndex() Rule {
	return memoryIndex{meta{
		id: "SCR009", name: "memory-index", severity: SeverityWarning,
		describe: "MEMORY.md index lines read \"- [name](path) — description\" (1–150 chars), every link resolves, every memory file is indexed, at most 200 lines",
	}}
}

// MemoryIndexFile is the index's name inside memory_dir.
const MemoryIndexFile = "MEMORY.md"

// maxIndexLines is where MEMORY.md stops being cheap to load.
const maxIndexLines = 200

var indexLine = lazyre.New(`^- \[([^\]]+)\]\(([^)]+)\) — (.{1,150})$`)

func (memoryIndex) Check(_ context.Context, in *Input) ([]Finding, error) {
	dir := in.Config.Paths.MemoryDir
	file := path.Join(dir, MemoryIndexFile)
	data, ok, err := in.ReadFile(file)
	if err != nil || !ok {
		return nil, err
	}
	text := strings.TrimSuffix(string(data), "\n")
	lines := strings.Split(text, "\n")
	var out []Finding
	indexed := map[string]bool{}
	for i, raw := range lines {
		line := strings.TrimSuffix(raw, "\r")
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "- ") && !strings.HasPrefix(trimmed, "* ") && !strings.HasPrefix(trimmed, "+ ") {
			continue // headings, prose and blank lines are fine
		}
		m := indexLine().FindStringSubmatch(line)
		if m == nil {
			out = append(out, Finding{File: file, Line: i + 1,
				Message: fmt.Sprintf("malformed index line %q", shorten(line, 100)),
				Fix:     "write it as \"- [name](path) — description\" with a description of 1 to 150 characters"})
			continue
		}
		target, ok := resolveLink(dir, m[2])
		if !ok {
			continue // a URL: nothing to resolve in the repository
		}
		indexed[target] = true
		if _, exists, err := in.ReadFile(target); err != nil || !exists {
			out = append(out, Finding{File: file, Line: i + 1,
				Message: fmt.Sprintf("index link %q does not resolve (%s does not exist)", m[2], target),
				Fix:     "point the link at the memory file, relative to " + dir + ", or remove the line"})
		}
	}
	// A line of markdownlint configuration alone is for the linter, not
	// the agents that load the index: it is not counted.
	n := 0
	for _, l := range lines {
		if !markdown.LintDirective(l) {
			n++
		}
	}
	if n > maxIndexLines {
		out = append(out, Finding{File: file, Line: maxIndexLines + 1,
			Message: fmt.Sprintf("MEMORY.md has %d lines, more than %d", n, maxIndexLines),
			Fix:     "merge or retire memories so the index stays short enough to load every session"})
	}
	records, err := in.memoryRecords()
	if err != nil {
		return nil, err
	}
	for _, r := range records {
		if !indexed[r] {
			out = append(out, Finding{File: r, Line: 1,
				Message: fmt.Sprintf("memory %s is not listed in %s", r, file),
				Fix:     fmt.Sprintf("add \"- [name](%s) — description\" to %s", strings.TrimPrefix(r, dir+"/"), file)})
		}
	}
	return out, nil
}

// resolveLink turns an index link into a repo-relative path; ok is false
// for URLs and links that leave the repository.
func resolveLink(dir, link string) (string, bool) {
	link = strings.TrimSpace(link)
	if i := strings.IndexAny(link, " \t"); i >= 0 { // [x](path "title")
		link = link[:i]
	}
	link = strings.Trim(link, "<>")
	if u, err := url.Parse(link); err == nil && u.Scheme != "" {
		return "", false
	}
	if i := strings.IndexByte(link, '#'); i >= 0 {
		link = link[:i]
	}
	if unescaped, err := url.PathUnescape(link); err == nil {
		link = unescaped
	}
	var p string
	if strings.HasPrefix(link, "/") {
		p = path.Clean(strings.TrimPrefix(link, "/"))
	} else {
		p = path.Join(dir, link)
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}
