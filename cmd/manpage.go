package cmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-scribe/git-scribe/gitops"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Man pages are rendered here, straight to roff, rather than with
// cobra/doc: its markdown step drops <placeholder> names as HTML
// (cobra#2330), turns indented blocks into tabbed filled text and writes a
// date mandoc cannot parse. These pages are `mandoc -Tlint` clean.

// manPageName is the file name of c's page: git-scribe-wrap.1.
func manPageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1" // "git scribe wrap" → git-scribe-wrap.1
}

// userCommandName is how a user types c: "git scribe wrap".
func userCommandName(c *cobra.Command) string {
	return c.CommandPath()
}

// manDate is the pages' date: the commit's time when the build knows it
// (reproducible), else SOURCE_DATE_EPOCH, else today.
func manDate() string {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC().Format("2006-01-02")
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return t.UTC().Format("2006-01-02")
				}
			}
		}
	}
	return time.Now().UTC().Format("2006-01-02")
}

// manCommands lists c and every visible command under it, depth first.
func manCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, s := range c.Commands() {
		if !s.IsAvailableCommand() || s.IsAdditionalHelpTopicCommand() {
			continue
		}
		out = append(out, manCommands(s)...)
	}
	return out
}

// WriteManPages writes one page per visible command of root into dir and
// returns the files written; git-scribe.1 is written last, so its presence
// means the set is complete.
func WriteManPages(root *cobra.Command, dir string) ([]string, error) {
	return writeManPagesAs(root, dir, "")
}

// writeManPagesAs is WriteManPages naming release (when not empty) as the
// version in the pages' footer.
func writeManPagesAs(root *cobra.Command, dir, release string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	date, ver := manDate(), version()
	if release != "" {
		ver = release
	}
	cmds := manCommands(root)
	var written []string
	for i := len(cmds) - 1; i >= 0; i-- {
		c := cmds[i]
		path := filepath.Join(dir, manPageName(c))
		if err := gitops.WriteFileAtomic(path, renderManPage(c, date, ver)); err != nil {
			return written, fmt.Errorf("write man page: %w", err)
		}
		written = append(written, path)
	}
	return written, nil
}

// renderManPage renders c's page.
func renderManPage(c *cobra.Command, date, ver string) []byte {
	var b bytes.Buffer
	title := strings.ToUpper(strings.TrimSuffix(manPageName(c), ".1"))
	fmt.Fprintf(&b, ".TH %s 1 %s %s \"Git Manual\"\n", roffQuote(title), date, roffQuote("git-scribe "+ver))
	b.WriteString(".SH NAME\n")
	writeRoffFilled(&b, strings.TrimSuffix(manPageName(c), ".1")+" - "+c.Short)

	b.WriteString(".SH SYNOPSIS\n")
	synopsis := userCommandName(c)
	if !c.HasParent() {
		synopsis += " [-C <path>] <command> [<args>]"
	} else if c.HasAvailableSubCommands() && !c.Runnable() {
		synopsis += " <command>"
	} else if u := strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name())); u != "" {
		synopsis += " " + u
	}
	if c.HasParent() && c.HasAvailableFlags() {
		synopsis += " [<options>]"
	}
	fmt.Fprintf(&b, ".B %s\n", roffQuote(synopsis))

	b.WriteString(".SH DESCRIPTION\n")
	desc := c.Long
	if strings.TrimSpace(desc) == "" {
		desc = c.Short + "."
	}
	writeRoffBody(&b, desc)

	if subs := visibleSubcommands(c); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range subs {
			fmt.Fprintf(&b, ".TP\n.BR %s (1)\n", roffText(strings.TrimSuffix(manPageName(s), ".1")))
			writeRoffFilled(&b, s.Short)
		}
	}
	if fs := c.NonInheritedFlags(); hasVisibleFlags(fs) {
		b.WriteString(".SH OPTIONS\n")
		writeRoffFlags(&b, fs)
	}
	if fs := c.InheritedFlags(); hasVisibleFlags(fs) {
		b.WriteString(".SH GLOBAL OPTIONS\n")
		writeRoffFlags(&b, fs)
	}
	if strings.TrimSpace(c.Example) != "" {
		b.WriteString(".SH EXAMPLES\n")
		writeRoffBlock(&b, strings.Split(strings.Trim(c.Example, "\n"), "\n"))
	}
	b.WriteString(".SH SEE ALSO\n")
	var see []string
	if c.HasParent() {
		see = append(see, strings.TrimSuffix(manPageName(c.Parent()), ".1"))
	}
	for _, s := range visibleSubcommands(c) {
		see = append(see, strings.TrimSuffix(manPageName(s), ".1"))
	}
	see = append(see, "git")
	for i, s := range see {
		sep := ","
		if i == len(see)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, ".BR %s (1)%s\n", roffText(s), sep)
	}
	return b.Bytes()
}

func visibleSubcommands(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() && !s.IsAdditionalHelpTopicCommand() {
			out = append(out, s)
		}
	}
	return out
}

func hasVisibleFlags(fs *pflag.FlagSet) bool {
	found := false
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			found = true
		}
	})
	return found
}

func writeRoffFlags(b *bytes.Buffer, fs *pflag.FlagSet) {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			flags = append(flags, f)
		}
	})
	sort.Slice(flags, func(i, j int) bool { return flags[i].Name < flags[j].Name })
	for _, f := range flags {
		name, usage := pflag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		var head string
		if f.Shorthand != "" {
			head = `\fB\-` + roffText(f.Shorthand) + `\fR, `
		}
		head += `\fB\-\-` + roffText(f.Name) + `\fR`
		if name != "" {
			head += ` \fI` + roffText(name) + `\fR`
		}
		b.WriteString(head + "\n")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			usage += " (default " + f.DefValue + ")"
		}
		writeRoffFilled(b, usage)
	}
}

// writeRoffBody renders help text: blank lines separate paragraphs;
// indented lines are kept as they are (command lists, tables, examples).
func writeRoffBody(b *bytes.Buffer, text string) {
	lines := strings.Split(strings.Trim(text, "\n"), "\n")
	first := true
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" {
			i++
			continue
		}
		indented := isIndented(lines[i])
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" && isIndented(lines[j]) == indented {
			j++
		}
		if !first || indented {
			b.WriteString(".PP\n")
		}
		first = false
		if indented {
			writeRoffBlock(b, lines[i:j])
		} else {
			writeRoffFilled(b, strings.Join(lines[i:j], " "))
		}
		i = j
	}
}

func isIndented(s string) bool { return strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t") }

// writeRoffFilled writes text as filled lines of at most 80 bytes.
func writeRoffFilled(b *bytes.Buffer, text string) {
	var line string
	for _, w := range strings.Fields(text) {
		w = roffText(w)
		if line != "" && len(line)+1+len(w) > 78 {
			b.WriteString(roffLine(line) + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		b.WriteString(roffLine(line) + "\n")
	}
}

// writeRoffBlock writes lines unfilled and indented, their common indent
// removed.
func writeRoffBlock(b *bytes.Buffer, lines []string) {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		l = strings.ReplaceAll(l, "\t", "        ")
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	b.WriteString(".RS 4\n.nf\n")
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\t", "        ")
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		l = strings.TrimRight(l, " ")
		if l == "" {
			b.WriteString(".sp\n")
			continue
		}
		b.WriteString(roffLine(roffText(l)) + "\n")
	}
	b.WriteString(".fi\n.RE\n")
}

// roffLine protects a line that would start with a control character.
func roffLine(s string) string {
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") || strings.HasPrefix(s, " ") {
		return `\&` + s
	}
	return s
}

// roffText escapes s for roff: backslashes, hyphens, and every non-ASCII
// character as \[uXXXX] so any man renderer shows it.
func roffText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t':
			b.WriteString("        ")
		case roffGlyphs[r] != "":
			b.WriteString(roffGlyphs[r])
		case r >= utf8.RuneSelf:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// roffGlyphs are the non-ASCII characters of the help text that every man
// renderer has a name for, even in the C locale.
var roffGlyphs = map[rune]string{
	'…': "...", '—': `\(em`, '–': `\(en`, '→': `\(->`, '←': `\(<-`, '≥': `\(>=`, '≤': `\(<=`,
	'·': `\(pc`, '×': `\(mu`, '“': `\(lq`, '”': `\(rq`, '‘': `\(oq`, '’': `\(cq`,
}

// roffQuote makes s one macro argument.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `\(dq`) + `"`
}
