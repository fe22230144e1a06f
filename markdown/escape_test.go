package markdown

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscapeText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain text, no change", "plain text, no change"},
		{"see https://example.com/x.", "see <https://example.com/x>."},
		{"(https://example.com/a_(b)) and [http://a.b/c]", "(<https://example.com/a_(b)>) and [<http://a.b/c>]"},
		{"HTTPS://EXAMPLE.COM/X, then", "<HTTPS://EXAMPLE.COM/X>, then"},
		{"mail ada@example.com or Ada.L+x@mail.example.co.uk.", "mail <ada@example.com> or <Ada.L+x@mail.example.co.uk>."},
		{"an odd domain ada@ex_ample.com", `an odd domain ada\@ex_ample.com`},
		{"no domain ada@localhost", "no domain ada@localhost"},
		{"db postgres://admin:s3cret@db.example.com:5432/a and x/ada@example.com", "db postgres://admin:s3cret@db.example.com:5432/a and x/ada@example.com"},
		{"redis://:pa55@cache_1.example.com", "redis://:pa55@cache_1.example.com"},
		{"go to www.example.com or WWW.EXAMPLE.COM", `go to www\.example.com or WWW\.EXAMPLE.COM`},
		{"not an address: awww.x and www.", "not an address: awww.x and www."},
		{"<div> a < b <= c </p> <!-- c --> <?x?>", `\<div> a < b <= c \</p> \<!-- c --> \<?x?>`},
		{"a person's autolink <https://example.com>", `a person's autolink \<<https://example.com>>`},
		{`a person's escape \<div> and \\<b>`, `a person's escape \\\<div> and \\\\\<b>`},
		{`a backslash \ alone, C:\dir\ and \www.x`, `a backslash \ alone, C:\dir\ and \www.x`},
		{`before a link \https://a.b and an @: \@`, `before a link \\<https://a.b> and an @: \\@`},
		{"code `<div> https://x.y` stays", "code `<div> https://x.y` stays"},
		{"an open ` tick <b>", "an open ` tick \\<b>"},
		{"https:// alone and http://", "https:// alone and http://"},
		{"안내: https://예시.한국/경로 참고", "안내: <https://예시.한국/경로> 참고"},
	}
	for _, tt := range tests {
		got := EscapeText(tt.in)
		if got != tt.want {
			t.Errorf("EscapeText(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
		if back := UnescapeText(got); back != tt.in {
			t.Errorf("UnescapeText(%q) = %q, want %q", got, back, tt.in)
		}
	}
}

func TestEscapeItem(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain, <b> and https://a.b", `plain, \<b> and <https://a.b>`},
		{"# not a heading", `\# not a heading`},
		{"> not a quote", `\> not a quote`},
		{"- not a sublist", `\- not a sublist`},
		{"1. not a list", `1\. not a list`},
		{"12) nor this", `12\) nor this`},
		{"```go not a fence", "\\```go not a fence"},
		{"---", `\---`},
		{"| a | b |", `\| a | b |`},
		{"#hashtag, -x, 1.5 and 2026. stay", "#hashtag, -x, 1.5 and 2026. stay"},
		{`\# a person's escape`, `\\\# a person's escape`},
		{`1\. a person's escape`, `1\\\. a person's escape`},
		{`\1. literal`, `\1. literal`},
	}
	for _, tt := range tests {
		got := EscapeItem(tt.in)
		if got != tt.want {
			t.Errorf("EscapeItem(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if back := UnescapeItem(got); back != tt.in {
			t.Errorf("UnescapeItem(%q) = %q, want %q", got, back, tt.in)
		}
		var c classifier
		if k := c.next("- " + got); k != kindItem || blockStart(got) {
			t.Errorf("- %s holds a block of its own", got)
		}
	}
}

// FuzzEscapeItem: UnescapeItem undoes EscapeItem exactly, and an escaped
// item (its text trimmed, as the callers give it) starts no block.
func FuzzEscapeItem(f *testing.F) {
	for _, s := range []string{"# a", `\\> b`, "1. c", `2\\) d`, "--- e", "```", "- <x> https://a.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapeItem(s)
		if back := UnescapeItem(e); back != s {
			t.Fatalf("UnescapeItem(EscapeItem(%q)) = %q (escaped %q)", s, back, e)
		}
		if e == "" || blank(e[0]) {
			return
		}
		if listMarker(e) > 0 || strings.IndexByte(itemStarters, e[0]) >= 0 && blockStart(e) {
			t.Fatalf("EscapeItem(%q) = %q starts a block", s, e)
		}
	})
}

func TestUnescapeTextOfMarkdown(t *testing.T) {
	t.Parallel()
	// A person's markdown reads as the text it shows, as far as the escapes
	// EscapeText writes go; other markdown is left as it is.
	tests := []struct{ in, want string }{
		{"<https://a.b/c> and <ada@example.com>", "https://a.b/c and ada@example.com"},
		{`\<div> <div> <ftp://a.b>`, "<div> <div> <ftp://a.b>"},
		{`*emphasis* \* and \_`, `*emphasis* \* and \_`},
		{"`<https://a.b>`", "`<https://a.b>`"},
	}
	for _, tt := range tests {
		if got := UnescapeText(tt.in); got != tt.want {
			t.Errorf("UnescapeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEscapeText: EscapeText is undone exactly by UnescapeText, and what
// it writes has no bare URL or "<" that could open HTML outside code.
func FuzzEscapeText(f *testing.F) {
	for _, s := range []string{"https://a.b/c <div>", `\\<x`, "www.a.b ada@b.co", "`x` <y> `z", "a@b_c.d", `www\\.x`, "((https://a.b)))", "<<https://a.b>>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EscapeText(s)
		if back := UnescapeText(e); back != s {
			t.Fatalf("UnescapeText(EscapeText(%q)) = %q (escaped %q)", s, back, e)
		}
		spans := codeSpans(e)
		inSpan := func(i int) bool {
			for _, sp := range spans {
				if sp[0] <= i && i < sp[1] {
					return true
				}
			}
			return false
		}
		for i := 0; i+1 < len(e); i++ {
			if e[i] != '<' || inSpan(i) || !opensTag(e[i+1]) {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && e[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				if end := strings.IndexByte(e[i+1:], '>'); end < 0 || autolinkEnd(e[i+1:i+1+end], 0, end) != end {
					t.Fatalf("EscapeText(%q) = %q: a %q at %d opens a tag", s, e, e[i:], i)
				}
			}
		}
	})
}

func TestWrap(t *testing.T) {
	t.Parallel()
	rule := "Always run go vet and the race detector before saying done - 1. never say done on a red build # not a heading > not a quote | not a row === not a rule, and 10) keep going."
	lines := Wrap(rule, 40, "- ", "  ")
	if len(lines) < 4 {
		t.Fatalf("Wrap did not wrap: %q", lines)
	}
	for i, l := range lines {
		if Columns(l) > 40 {
			t.Errorf("line %d is %d columns: %q", i, Columns(l), l)
		}
		if i > 0 && (!strings.HasPrefix(l, "  ") || !continues(strings.TrimLeft(l, " ")) || blockStart(strings.TrimLeft(l, " "))) {
			t.Errorf("continuation line %d %q would not continue the item", i, l)
		}
	}
	if got := Unwrap(lines); len(got) != 1 || got[0] != "- "+rule {
		t.Errorf("Unwrap(Wrap) = %q", got)
	}
	long := strings.Repeat("x", 100)
	if got := Wrap("see "+long+" then", 80, "", ""); len(got) != 3 || got[1] != long {
		t.Errorf("a word longer than the width: %q", got)
	}
	// Double spaces and a word ending in a backslash are never break points.
	if got := Wrap(`aaaa  bbbb cccc\ dddd`, 5, "", ""); strings.Join(got, "|") != `aaaa  bbbb|cccc\ dddd` {
		t.Errorf("Wrap broke at a double space or after a backslash: %q", got)
	}
	// Columns are UTF-16 code units, as markdownlint counts.
	if got := Wrap(strings.Repeat("가 ", 30), 20, "- ", "  "); Columns(got[0]) > 20 || len(got) < 3 {
		t.Errorf("Wrap of Hangul: %q", got)
	}
}

func TestUnwrap(t *testing.T) {
	t.Parallel()
	in := []string{
		"- a rule wrapped",
		"  by hand, continued",
		"lazily",
		"- next",
		"  - nested",
		"    continued",
		"",
		"    code stays",
		"    apart",
		"",
		"para  ",
		"after a hard break\\",
		"and another",
		"```",
		"- in code",
		"  stays",
		"```",
		"# heading",
		"text",
		"---",
		"| a | b |",
	}
	want := []string{
		"- a rule wrapped by hand, continued lazily",
		"- next",
		"  - nested continued",
		"",
		"    code stays",
		"    apart",
		"",
		"para  ",
		"after a hard break\\",
		"and another",
		"```",
		"- in code",
		"  stays",
		"```",
		"# heading",
		"text",
		"---",
		"| a | b |",
	}
	got := Unwrap(in)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Unwrap:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if again := Unwrap(got); strings.Join(again, "\n") != strings.Join(got, "\n") {
		t.Errorf("Unwrap is not idempotent:\n%s", strings.Join(again, "\n"))
	}
}

func TestFormatText(t *testing.T) {
	t.Parallel()
	text := "Tests froze time in UTC while production ran in KST, so date arithmetic near midnight broke; see https://example.com/issues/42 and the <tz> notes.\n" +
		"It was caught by hand.\n\n" +
		"- a list item long enough to need wrapping once it passes the eighty columns markdownlint allows\n" +
		"- 2. not a sublist\n\n" +
		"```go\nconst tz = \"<Asia/Seoul> https://x.y\" // a code line stays as it is, however long it is, in a fence\n```"
	md := FormatText(text, Width)
	for i, l := range strings.Split(md, "\n") {
		if Columns(l) > Width && !strings.HasPrefix(l, "const tz") {
			t.Errorf("line %d is %d columns: %q", i+1, Columns(l), l)
		}
	}
	for _, want := range []string{"<https://example.com/issues/42>", `\<tz>`, "\n  ", "\"<Asia/Seoul> https://x.y\""} {
		if !strings.Contains(md, want) {
			t.Errorf("FormatText lacks %q:\n%s", want, md)
		}
	}
	canon := CanonicalText(text)
	if strings.Contains(canon, "KST, so date arithmetic near midnight broke; see https://example.com/issues/42 and the <tz> notes.\nIt") {
		t.Errorf("CanonicalText kept a soft line break:\n%s", canon)
	}
	if got := ReadText(md); got != canon {
		t.Errorf("ReadText(FormatText) =\n%s\nwant\n%s", got, canon)
	}
}

// FuzzFormatText: ReadText(FormatText(text)) is CanonicalText(text), which
// is stable, and FormatText's prose lines fit the width unless one word
// does not.
func FuzzFormatText(f *testing.F) {
	for _, s := range []string{"a b c", "- x https://a.b <c>\n  y", "p  \nq\n\n    code\n", "```\n<x>\n```\n- a\n  - b", "1. a\n2) b\n# h\n> q\n|t|"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, text string, width int) {
		if !utf8.ValidString(text) || width < 4 || width > 200 {
			return
		}
		canon := CanonicalText(text)
		if again := CanonicalText(canon); again != canon {
			t.Fatalf("CanonicalText is not stable: %q -> %q -> %q", text, canon, again)
		}
		md := FormatText(text, width)
		if got := ReadText(md); got != canon {
			t.Fatalf("ReadText(FormatText(%q, %d)) = %q, want %q\n%s", text, width, got, canon, md)
		}
	})
}

// UnwrapAt gives Unwrap's lines and the line each starts at.
func TestUnwrapAt(t *testing.T) {
	t.Parallel()
	out, at := UnwrapAt([]string{"# h", "", "- [ ] a wrapped", "  item", "- next", "para", "lazy"})
	if !slices.Equal(out, []string{"# h", "", "- [ ] a wrapped item", "- next para lazy"}) || !slices.Equal(at, []int{0, 1, 2, 4}) {
		t.Errorf("UnwrapAt = %q %v", out, at)
	}
}
