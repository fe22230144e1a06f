package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-scribe/git-scribe/internal/lazyre"
)

// Codex runs the Codex CLI non-interactively: `codex exec --ephemeral -s
// read-only -o FILE [-m M] -` with the prompt on stdin, in the work tree, and
// reads the agent's last message from FILE (a scratch file under the git
// dir, removed afterwards). Codex reads its own credentials.
type Codex struct {
	Model     string
	Env       []string
	Dir       string
	Scratch   string
	MaxOutput int
	// Command overrides the executable name (default "codex").
	Command string
}

// Generate runs codex once.
func (c *Codex) Generate(ctx context.Context, prompt string) (string, error) {
	out, _, err := c.GenerateUsage(ctx, prompt)
	return out, err
}

var codexTokens = lazyre.New(`(?i)tokens used:?\s*([\d,]+)`)

// GenerateUsage runs codex once; the total tokens are read from its
// "tokens used" line when it prints one.
func (c *Codex) GenerateUsage(ctx context.Context, prompt string) (string, Usage, error) {
	name := c.Command
	if name == "" {
		name = "codex"
	}
	dir := c.Scratch
	if dir == "" {
		return "", Usage{}, errors.New("codex: no scratch directory for its output file")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", Usage{}, fmt.Errorf("codex: create %s: %w", dir, err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	outFile := filepath.Join(dir, "codex-last-"+hex.EncodeToString(b)+".txt")
	defer os.Remove(outFile)
	args := []string{"exec", "--ephemeral", "-s", "read-only", "-o", outFile}
	if c.Model != "" {
		args = append(args, "-m", c.Model)
	}
	args = append(args, "-")
	res, err := procRun{Name: name, Args: args, Dir: c.Dir, Env: c.Env, Stdin: prompt, MaxOutput: jsonCap(c.MaxOutput)}.run(ctx)
	var u Usage
	if m := codexTokens().FindStringSubmatch(res.StderrTail + "\n" + string(res.Stdout)); m != nil {
		u.TotalTokens, _ = strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	}
	if err != nil {
		return "", u, err
	}
	fi, serr := os.Stat(outFile)
	if errors.Is(serr, fs.ErrNotExist) {
		return "", u, fmt.Errorf("codex: %w (it wrote no last-message file): %s", ErrEmptyOutput, orNone(res.StderrTail))
	}
	if serr != nil {
		return "", u, fmt.Errorf("codex: read its output: %w", serr)
	}
	if c.MaxOutput > 0 && fi.Size() > int64(c.MaxOutput) {
		return "", u, fmt.Errorf("codex: %w (%d bytes, cap %d)", ErrOutputTooLarge, fi.Size(), c.MaxOutput)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		return "", u, fmt.Errorf("codex: read its output: %w", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", u, fmt.Errorf("codex: %w", ErrEmptyOutput)
	}
	return string(data), u, nil
}
