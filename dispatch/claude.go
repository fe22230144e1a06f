package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Claude runs the Claude Code CLI headless: `claude -p --output-format json
// [--model M]` with the prompt on stdin, in the work tree. It reads the
// result object's "result"; "is_error": true is a failure whatever the
// subtype says. Claude Code reads its own credentials from the environment
// or its login; scribe never sees them.
type Claude struct {
	Model     string
	Env       []string
	Dir       string
	MaxOutput int
	// Command overrides the executable name (default "claude").
	Command string
}

// claudeResult is the object `claude -p --output-format json` prints.
type claudeResult struct {
	Type         string   `json:"type"`
	Subtype      string   `json:"subtype"`
	IsError      bool     `json:"is_error"`
	Result       string   `json:"result"`
	TotalCostUSD float64  `json:"total_cost_usd"`
	CostUSD      float64  `json:"cost_usd"` // older releases
	Errors       []string `json:"errors"`
	Usage        struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

// Generate runs claude once.
func (c *Claude) Generate(ctx context.Context, prompt string) (string, error) {
	out, _, err := c.GenerateUsage(ctx, prompt)
	return out, err
}

// GenerateUsage runs claude once and reports its tokens and cost.
func (c *Claude) GenerateUsage(ctx context.Context, prompt string) (string, Usage, error) {
	name := c.Command
	if name == "" {
		name = "claude"
	}
	args := []string{"-p", "--output-format", "json"}
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	res, runErr := procRun{Name: name, Args: args, Dir: c.Dir, Env: c.Env, Stdin: prompt, MaxOutput: jsonCap(c.MaxOutput)}.run(ctx)
	r, perr := parseClaude(res.Stdout)
	if perr != nil {
		if runErr != nil {
			return "", Usage{}, runErr
		}
		return "", Usage{}, fmt.Errorf("claude: %w", perr)
	}
	u := Usage{InputTokens: r.Usage.InputTokens + r.Usage.CacheCreationInputTokens + r.Usage.CacheReadInputTokens,
		OutputTokens: r.Usage.OutputTokens, CostUSD: r.TotalCostUSD}
	if u.CostUSD == 0 {
		u.CostUSD = r.CostUSD
	}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	if len(r.ModelUsage) == 1 {
		for m := range r.ModelUsage {
			u.Model = m
		}
	}
	if r.IsError {
		msg := r.Result
		if msg == "" {
			msg = strings.Join(r.Errors, "; ")
		}
		return "", u, fmt.Errorf("claude reported an error (subtype %s): %s", orDash(r.Subtype), snip(msg, 300))
	}
	if runErr != nil {
		return "", u, runErr
	}
	if strings.TrimSpace(r.Result) == "" {
		return "", u, fmt.Errorf("claude: %w (subtype %s)", ErrEmptyOutput, orDash(r.Subtype))
	}
	return r.Result, u, nil
}

// parseClaude reads the result object; an array of messages (as some
// releases print with --verbose) yields its last "result" element.
func parseClaude(out []byte) (claudeResult, error) {
	var r claudeResult
	t := bytes.TrimSpace(out)
	switch {
	case len(t) == 0:
		return r, errors.New("printed nothing on stdout")
	case t[0] == '[':
		var msgs []json.RawMessage
		if err := json.Unmarshal(t, &msgs); err != nil {
			return r, fmt.Errorf("output is not JSON: %v: %s", err, snip(string(t), 200))
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			var m claudeResult
			if json.Unmarshal(msgs[i], &m) == nil && m.Type == "result" {
				return m, nil
			}
		}
		return r, errors.New("the JSON output has no result message")
	}
	if err := json.Unmarshal(t, &r); err != nil {
		return r, fmt.Errorf("output is not the JSON result object (is this Claude Code?): %s", snip(string(t), 200))
	}
	if r.Type != "" && r.Type != "result" {
		return r, fmt.Errorf("output is a %q message, not a result", r.Type)
	}
	return r, nil
}

// jsonCap allows for JSON escaping and metadata around a capped text.
func jsonCap(n int) int {
	if n <= 0 {
		return 0
	}
	return 2*n + 64<<10
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// snip keeps an error message short and on one line.
func snip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
