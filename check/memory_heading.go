package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-scribe/git-scribe/markdown"
)

// memoryHeading is SCR010: a generated file (a promoted memory) starts with
// its frontmatter and puts its H1 title right after it, so tools that strip
// the frontmatter still find the title first.
type memoryHeading struct{ meta }

func newMemoryHeading() Rule {
	return memoryHeading{meta{
		id: "SCR010", name: "generated-h1", severity: SeverityWarning,
		describe: "generated files (memory records) put their \"# \" title right after the frontmatter",
	}}
}

func (memoryHeading) Check(_ context.Context, in *Input) ([]Finding, error) {
	records, err := in.memoryRecords()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, r := range records {
		data, ok, err := in.ReadFile(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if line, why := h1AfterFrontmatter(string(data)); why != "" {
			out = append(out, Finding{File: r, Line: line, Message: why,
				Fix: "put the \"# Title\" line directly after the closing \"---\" of the frontmatter"})
		}
	}
	return out, nil
}

// h1AfterFrontmatter checks where the H1 of a generated file is. It returns
// the line to point at and what is wrong, or "" when it is right.
func h1AfterFrontmatter(text string) (int, string) {
	lines := strings.Split(strings.TrimPrefix(text, "\uFEFF"), "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	i := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		closed := false
		for i = 1; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
				closed = true
				i++
				break
			}
		}
		if !closed {
			return 1, "the frontmatter is never closed with \"---\""
		}
	}
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) {
		return max(1, len(lines)), "no \"# \" title after the frontmatter"
	}
	if level, _, _ := markdown.Heading(lines[i]); level != 1 {
		return i + 1, fmt.Sprintf("the first line after the frontmatter is %q, not a \"# \" title", shorten(lines[i], 80))
	}
	return 0, ""
}
