package markdown

import (
	"strings"
	"testing"
)

func TestHeading(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		level int
		text  string
		ok    bool
	}{
		{"## Next", 2, "Next", true},
		{"   ### Done ###", 3, "Done", true},
		{"#hashtag", 0, "", false},
		{"    ## code", 0, "", false},
		{"####### seven", 0, "", false},
		{"## C# notes", 2, "C# notes", true},
		{"## Project Rules\r", 2, "Project Rules", true},
		{"#", 1, "", true},
	}
	for _, tt := range tests {
		level, text, ok := Heading(tt.in)
		if level != tt.level || text != tt.text || ok != tt.ok {
			t.Errorf("Heading(%q) = %d, %q, %v; want %d, %q, %v", tt.in, level, text, ok, tt.level, tt.text, tt.ok)
		}
	}
}

func TestFences(t *testing.T) {
	t.Parallel()
	lines := []string{"a", "```go", "- [ ] in code", "````", "b", "~~~", "## x", "```", "~~~~", "c"}
	want := []bool{false, true, true, true, false, true, true, true, true, false}
	var f Fences
	for i, l := range lines {
		if got := f.Skip(l); got != want[i] {
			t.Errorf("line %d %q: Skip = %v, want %v", i, l, got, want[i])
		}
	}
}

func FuzzHeading(f *testing.F) {
	f.Add("## Next Session ##")
	f.Fuzz(func(t *testing.T, s string) {
		level, _, ok := Heading(s)
		if ok != (level > 0) || level > 6 {
			t.Fatalf("Heading(%q) level %d ok %v", s, level, ok)
		}
	})
}

func TestSection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		head, end  int
		ok         bool
	}{
		{"plain", "# T\n## Rules\n- a\n### sub\n- b\n## Next\n", 1, 5, true},
		{"to the end", "## Rules\n- a", 0, 2, true},
		{"missing", "# T\n## Other\n", -1, 2, false},
		{"fenced example first", "```\n## Rules\n```\n## rules\n- a\n# Top\n", 3, 5, true},
		{"heading in a tilde fence ends nothing", "## Rules\n~~~\n## Next\n~~~\n- a\n", 0, 5, true},
	}
	for _, tt := range tests {
		lines := strings.SplitAfter(tt.text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		head, end, ok := Section(lines, 2, "Rules")
		if head != tt.head || end != tt.end || ok != tt.ok {
			t.Errorf("%s: Section = %d, %d, %v; want %d, %d, %v", tt.name, head, end, ok, tt.head, tt.end, tt.ok)
		}
	}
}

func TestLintDirective(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{"<!-- markdownlint-disable-file MD013 MD024 -->", true},
		{"  <!--markdownlint-configure-file { \"MD024\": { \"siblings_only\": true } }-->\r", true},
		{"<!-- MarkdownLint-disable MD013 --> <!-- markdownlint-enable MD013 -->", true},
		{"<!-- scribe: commit=abc --> <!-- markdownlint-disable-file MD013 -->", false},
		{"<!-- markdownlint-disable-file MD013 --> text", false},
		{"<!-- markdownlint-disable-file MD013", false},
		{"<!-- scribe:entry 20261201T092842Z-b58ab33d -->", false},
		{"<!-- markdownlint", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := LintDirective(tt.in); got != tt.ok {
			t.Errorf("LintDirective(%q) = %v, want %v", tt.in, got, tt.ok)
		}
	}
}
