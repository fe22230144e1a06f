package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func manRoot() *cobra.Command {
	return NewRootCmd(&Factory{IO: NewIOStreams(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})})
}

// TestManPagesKeepPlaceholders pins what cobra/doc lost (cobra#2330): the
// <placeholder> names of the help text, and how users type the command.
func TestManPagesKeepPlaceholders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files, err := WriteManPages(manRoot(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 || filepath.Base(files[len(files)-1]) != "git-scribe.1" {
		t.Fatalf("wrote %d pages, last %s; want every command and git-scribe.1 last", len(files), files[len(files)-1])
	}
	trap, err := os.ReadFile(filepath.Join(dir, "git-scribe-trap-propose.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<project>,", "<path>,", "<host>,", "<url>,", "<email>,", "<user>", `.B "git scribe trap propose `} {
		if !strings.Contains(string(trap), want) {
			t.Errorf("trap propose page lacks %q:\n%s", want, trap)
		}
	}
	wrap, _ := os.ReadFile(filepath.Join(dir, "git-scribe-wrap.1"))
	if !strings.Contains(string(wrap), ".nf\n\\-\\-loop keep ") {
		t.Errorf("wrap's dispatch table is not kept as an unfilled block:\n%s", wrap)
	}
	if strings.Contains(string(wrap), "\t") {
		t.Errorf("wrap page has tabs")
	}
}

// TestManPagesMandocLint runs the real mandoc linter on every page.
func TestManPagesMandocLint(t *testing.T) {
	t.Parallel()
	mandoc, err := exec.LookPath("mandoc")
	if err != nil {
		t.Skip("mandoc not installed (Debian: apt-get install mandoc); man pages not linted")
	}
	dir := t.TempDir()
	files, err := WriteManPages(manRoot(), dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mandoc, append([]string{"-Tlint", "-W", "style"}, files...)...).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("mandoc -Tlint -W style: %v\n%s", err, out)
	}
}

func TestRoffText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`a\b`:      `a\eb`,
		"--flag":   `\-\-flag`,
		"1–2 → ok": `1\(en2 \(-> ok`,
		"<host>":   "<host>",
		"다":        `\[uB2E4]`,
	} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := roffLine(".hidden"); got != `\&.hidden` {
		t.Errorf("roffLine: %q", got)
	}
}
