package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// errNoAnswer means nobody answered: input is not a terminal or it closed.
var errNoAnswer = errors.New("no answer: input closed")

// prompter asks a person questions on the command's streams and opens
// $EDITOR. One per command: its reader buffers what was typed ahead.
type prompter struct {
	io      *IOStreams
	in      *bufio.Reader
	getenv  func(string) string
	editDir string // where files to edit are written (under the git dir)
}

func newPrompter(f *Factory, editDir string) *prompter {
	return &prompter{io: f.IO, in: bufio.NewReader(f.IO.In), getenv: f.getenv, editDir: editDir}
}

// line prints question and reads one line of answer, trimmed. End of input
// is errNoAnswer.
func (p *prompter) line(question string) (string, error) {
	fmt.Fprint(p.io.Out, question)
	s, err := p.in.ReadString('\n')
	if err != nil && (s == "" || !errors.Is(err, io.EOF)) {
		fmt.Fprintln(p.io.Out)
		if errors.Is(err, io.EOF) {
			return "", errNoAnswer
		}
		return "", fmt.Errorf("read answer: %w", err)
	}
	return strings.TrimSpace(s), nil
}

// choice asks until the answer is one of the options (matched by its first
// letter or whole word, case-insensitively); an empty answer returns def
// when def is not "". It returns the option's first letter, lowercase.
func (p *prompter) choice(question string, options []string, def string) (string, error) {
	for {
		a, err := p.line(question)
		if err != nil {
			return "", err
		}
		if a == "" && def != "" {
			return def, nil
		}
		low := strings.ToLower(a)
		for _, o := range options {
			ol := strings.ToLower(o)
			if low == ol || low == ol[:1] || strings.HasPrefix(ol, low) && len(low) > 1 {
				return ol[:1], nil
			}
		}
		fmt.Fprintf(p.io.Out, "please answer %s\n", strings.Join(options, ", "))
	}
}

// edit opens text in the person's editor ($VISUAL, $EDITOR, else vi) and
// returns what they saved. The file lives under the git dir and is removed
// afterwards.
func (p *prompter) edit(text, name string) (string, error) {
	if err := os.MkdirAll(p.editDir, 0o700); err != nil {
		return "", fmt.Errorf("prepare edit: %w", err)
	}
	f, err := os.CreateTemp(p.editDir, "*-"+name)
	if err != nil {
		return "", fmt.Errorf("prepare edit: %w", err)
	}
	path := f.Name()
	defer os.Remove(path)
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return "", fmt.Errorf("prepare edit: %w", errors.Join(werr, cerr))
	}
	editor := p.getenv("VISUAL")
	if editor == "" {
		editor = p.getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	c := exec.Command("sh", "-c", editor+` "$1"`, "sh", filepath.Clean(path))
	// The editor gets the terminal; a non-file reader is not handed over
	// (exec would drain it, eating the answers to later questions).
	if in, ok := p.io.In.(*os.File); ok {
		c.Stdin = in
	}
	c.Stdout, c.Stderr = p.io.Out, p.io.ErrOut
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("editor %q failed: %w", editor, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read edited text: %w", err)
	}
	return string(data), nil
}
