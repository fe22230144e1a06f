package cmd

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/git-scribe/git-scribe/check"
)

// bannedHelpTerms are words of git-scribe's own source and design documents
// that mean nothing to someone reading --help: each needs saying in the
// user's words instead (what it does for them).
var bannedHelpTerms = []struct {
	re, why string
}{
	{`(?i)\bseeds?\b`, "the design documents (\"seed 000\") are not the user's; say what the behaviour is"},
	{`(?i)sonmat`, "the name of the system the seeds came from; only the path .claude/sonmat/ is the user's"},
	{`(?i)\blanders?\b`, "an internal name for what commits queued writes; say it makes them"},
	{`(?i)\bfingerprints?\b`, "a SARIF internal"},
	{`(?i)\bdispatch table\b`, "the seed's name for wrap's table; show the table"},
	{`(?i)\bengine\b`, "the code's name for its core packages"},
	{`(?i)\breceipts?\b`, "say what is recorded (pack_sha: the checksum of what the agent read)"},
	{`(?i)\bderived state\b`, "say what is worked out, and from what"},
	{`(?i)\bdurable sources?\b`, "name the files that hold follow-ups"},
	{`(?i)\banaly[sz]ers?\b`, "the code's name; say what is looked for"},
	{`(?i)\bpromotion gate\b`, "the seed's name; say that each memory waits for a yes"},
	{`(?i)\bvia-link\b`, "say it is a link back to where the item came from"},
	{`\b(internal|cmd|gitops|notes|vault|dispatch|followups|memory|ratify|setup|check|skills|transcript|secrets|config)\.[A-Z]\w*`, "a Go identifier"},
	{`\b(gitops|go-git|lazyre|extool|gittest)\b`, "an internal package or library"},
	{`\binternal/`, "an internal package path"},
}

// explainedHelpTerms may be used only by a command whose help also says,
// in the user's words, what they are.
var explainedHelpTerms = []struct{ term, explanation *regexp.Regexp }{
	{regexp.MustCompile(`(?i)\bwitness\b`), regexp.MustCompile(`(?i)reviewer`)},
	{regexp.MustCompile(`--loop\b`), regexp.MustCompile(`(?i)try-review`)},
	{regexp.MustCompile(`(?i)\btraps?\b`), regexp.MustCompile(`(?i)lesson|mistake`)},
}

// helpText is one command's help as `git scribe CMD --help` shows it: use
// line, short and long text, examples and every flag's description.
func helpText(c *cobra.Command) string {
	var b strings.Builder
	for _, s := range []string{c.UseLine(), c.Short, c.Long, c.Example} {
		b.WriteString(s + "\n")
	}
	add := func(fl *pflag.Flag) { b.WriteString("--" + fl.Name + " " + fl.Usage + "\n") }
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return b.String()
}

func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		out = append(out, allCommands(sub)...)
	}
	return out
}

// TestHelpTextInUsersWords fails on a help text (every command's, hidden
// ones included, and what init prints) that uses an internal term, a term
// it does not explain, an SCR rule id without what the rule checks, or
// "git-scribe <command>" where a user types "git scribe <command>".
func TestHelpTextInUsersWords(t *testing.T) {
	t.Parallel()
	root := manRoot()
	var names []string
	for _, c := range root.Commands() {
		names = append(names, regexp.QuoteMeta(c.Name()))
	}
	binaryCommand := regexp.MustCompile(`\bgit-scribe (` + strings.Join(names, "|") + `)\b`)
	scr := regexp.MustCompile(`\bSCR\d{3}\b`)
	describe := map[string]string{}
	for _, r := range check.Rules() {
		describe[r.ID()] = r.Describe()
	}

	texts := map[string]string{}
	for _, c := range allCommands(root) {
		texts[c.CommandPath()+" --help"] = helpText(c)
		if !strings.HasPrefix(c.UseLine(), "git scribe") {
			t.Errorf("%s: usage line %q does not say git scribe", c.CommandPath(), c.UseLine())
		}
	}
	texts["git scribe init (its output)"] = initOutput(t)

	for where, text := range texts {
		plain := strings.NewReplacer(".claude/sonmat", "", "Novel trap detected", "").Replace(text)
		for _, b := range bannedHelpTerms {
			if m := regexp.MustCompile(b.re).FindString(plain); m != "" {
				t.Errorf("%s says %q: %s", where, m, b.why)
			}
		}
		for _, e := range explainedHelpTerms {
			if m := e.term.FindString(plain); m != "" && !e.explanation.MatchString(plain) {
				t.Errorf("%s says %q without saying what it is (want a text matching %s)", where, m, e.explanation)
			}
		}
		for _, id := range scr.FindAllString(text, -1) {
			if d, ok := describe[id]; !ok || !strings.Contains(text, d) {
				t.Errorf("%s names %s without what the rule checks", where, id)
			}
		}
		if m := binaryCommand.FindString(text); m != "" {
			t.Errorf("%s says %q: users type git scribe, as git runs it", where, m)
		}
	}
}

// initOutput is what `git scribe init` prints in a fresh repository, every
// option on, for Claude Code and then for Codex.
func initOutput(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	chkGit(t, dir, "", "init", "-q")
	chkGit(t, dir, "", "commit", "-q", "--allow-empty", "-m", "initial")
	var out strings.Builder
	for _, args := range [][]string{
		{"init", "--agent", "claude", "--hooks", "--ci", "github", "--mcp", "--dry-run"},
		{"init", "--agent", "claude", "--hooks", "--ci", "github", "--mcp"},
		{"init", "--agent", "codex"},
	} {
		code, o, e := chkRun(t, append([]string{"-C", dir}, args...)...)
		if code != 0 {
			t.Fatalf("git scribe %s: exit %d\n%s%s", strings.Join(args, " "), code, o, e)
		}
		out.WriteString(o + e)
	}
	return out.String()
}
