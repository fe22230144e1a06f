package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Format names a transcript format.
type Format string

// The transcript formats Read understands.
const (
	FormatClaude Format = "claude"
	FormatCodex  Format = "codex"
	FormatText   Format = "text"
)

// Role says who produced a turn.
type Role string

// The two roles a turn can have.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Block kinds. Content blocks of other kinds (image, redacted_thinking, …)
// keep their kind as written in the transcript.
const (
	KindText       = "text"
	KindThinking   = "thinking"
	KindToolUse    = "tool_use"
	KindToolResult = "tool_result"
)

// Errors returned at this package's boundary.
var (
	// ErrUnknownFormat is returned by Read for a Format it does not know.
	ErrUnknownFormat = errors.New("unknown transcript format")
)

// Block is one content block of a turn.
type Block struct {
	Kind     string `json:"kind"`
	Text     string `json:"text,omitempty"`      // text, thinking, tool input (JSON) or tool output
	ToolName string `json:"tool_name,omitempty"` // tool_use, and tool_result when its call is known
}

// Turn is one message of a transcript: what the person (or the tool on their
// behalf) sent, or one response of the assistant.
type Turn struct {
	Index int  `json:"index"` // 0-based turn index in the transcript
	Role  Role `json:"role"`
	// Text is the human-meaningful text: for user turns what the person
	// typed (never tool_result output), for assistant turns the text blocks
	// joined by a blank line (thinking and tool_use excluded).
	Text      string    `json:"text"`
	Blocks    []Block   `json:"blocks,omitempty"`
	Time      time.Time `json:"time,omitzero"`      // zero if unknown
	ID        string    `json:"id,omitempty"`       // message.id / uuid when available
	Sidechain bool      `json:"sidechain,omitzero"` // Claude Code isSidechain or subagent transcript
	// ToolResultOnly marks a user line that is only tool_result blocks: tool
	// output, not something the person said.
	ToolResultOnly bool `json:"tool_result_only,omitzero"`
	// Meta marks a turn written by the tool rather than by the person or the
	// model: injected context, command output, compaction summaries,
	// interruption markers, API error stand-ins.
	Meta bool `json:"meta,omitzero"`
}

// Stats counts what Read saw. Lines counts non-blank lines; each is Corrupt
// (not a JSON object, or a field of the wrong type), Ignored (parsed but
// contributing no turn) or part of a turn.
type Stats struct {
	Lines   int `json:"lines"`
	Corrupt int `json:"corrupt"`
	Ignored int `json:"ignored"`
	Turns   int `json:"turns"`
}

// Transcript is a parsed session transcript.
type Transcript struct {
	Format    Format `json:"format"`
	SessionID string `json:"session_id,omitempty"`
	CWD       string `json:"cwd,omitempty"`
	Turns     []Turn `json:"turns"`
	Stats     Stats  `json:"stats"`
}

// detectLines is how many non-blank lines Read looks at, at most, to detect
// the format when none is given.
const detectLines = 32

// Read parses a transcript from r. With f == "" the format is detected from
// the first parseable lines (see Detect). Malformed lines are skipped and
// counted; only a read error from r is returned.
func Read(r io.Reader, f Format) (*Transcript, error) {
	switch f {
	case FormatClaude, FormatCodex, FormatText, "":
	default:
		return nil, fmt.Errorf("read transcript as %q: %w", f, ErrUnknownFormat)
	}
	lr := newLineReader(r)
	var (
		pending [][]byte
		eof     bool
	)
	if f == "" {
		// Hold the first lines until they settle the format, then replay them.
		var det detector
		seen := 0
		for !det.done() && seen < detectLines {
			line, err := lr.next()
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("read transcript: %w", err)
			}
			if line != nil {
				pending = append(pending, bytes.Clone(line))
				if !isBlank(line) {
					seen++
					det.add(line)
				}
			}
			if err == io.EOF {
				eof = true
				break
			}
		}
		f = det.format()
	}
	p := newParser(f)
	t := &Transcript{Format: f}
	for _, line := range pending {
		t.feed(p, line)
	}
	for !eof {
		line, err := lr.next()
		if line != nil {
			t.feed(p, line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript line %d: %w", t.Stats.Lines+1, err)
		}
	}
	p.finish(t)
	for i := range t.Turns {
		t.Turns[i].Index = i
	}
	t.Stats.Turns = len(t.Turns)
	return t, nil
}

// ReadFile reads the transcript at path. Files ending in .md, .markdown or
// .txt are read as text; others are detected from their content. A Claude
// Code subagent transcript (<session>/subagents/agent-*.jsonl) has every turn
// marked Sidechain.
func ReadFile(path string) (*Transcript, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	defer fh.Close()
	var f Format
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".txt":
		f = FormatText
	}
	t, err := Read(fh, f)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	if isSubagentPath(path) {
		for i := range t.Turns {
			t.Turns[i].Sidechain = true
		}
	}
	return t, nil
}

func isSubagentPath(path string) bool {
	base := filepath.Base(path)
	return filepath.Base(filepath.Dir(path)) == "subagents" &&
		strings.HasPrefix(base, "agent-") && strings.HasSuffix(base, ".jsonl")
}

// Detect guesses the format from the first lines of a transcript: Codex when
// a line is a rollout envelope ({"type","payload"}) or a bare Codex response
// item, Claude when a line is a Claude Code record; text when the first
// non-blank line is not a JSON object. JSON lines that settle nothing are
// read as Claude, whose reader ignores records it does not know. A truncated
// last line is fine.
func Detect(firstLines []byte) Format {
	var det detector
	for len(firstLines) > 0 && !det.done() {
		var line []byte
		line, firstLines, _ = bytes.Cut(firstLines, []byte{'\n'})
		if !isBlank(line) {
			det.add(line)
		}
	}
	return det.format()
}

// Conversation returns what keyword extraction scans: user turns that are
// something a person said (no tool results, no injected or tool-written
// text) and assistant turns with text, in order. Sidechain turns (a subagent
// talking to the main agent) are left out.
func (t *Transcript) Conversation() []Turn {
	if t == nil {
		return nil
	}
	var out []Turn
	for _, turn := range t.Turns {
		if turn.Sidechain || turn.Meta || turn.ToolResultOnly || strings.TrimSpace(turn.Text) == "" {
			continue
		}
		out = append(out, turn)
	}
	return out
}

// Last returns the last n turns (all of them when there are fewer). The
// result shares the transcript's backing array but cannot grow into it.
func (t *Transcript) Last(n int) []Turn {
	if t == nil || n <= 0 {
		return nil
	}
	if n > len(t.Turns) {
		n = len(t.Turns)
	}
	l := len(t.Turns)
	return t.Turns[l-n : l : l]
}

// parser consumes the lines of one format. line is called for every line,
// blank ones included (text keeps them inside a turn), and may keep line only
// until it returns.
type parser interface {
	line(t *Transcript, line []byte, blank bool)
	finish(t *Transcript)
}

func (t *Transcript) feed(p parser, line []byte) {
	blank := isBlank(line)
	if !blank {
		t.Stats.Lines++
	}
	p.line(t, line, blank)
}

func newParser(f Format) parser {
	switch f {
	case FormatCodex:
		return &codexParser{}
	case FormatText:
		return &textParser{}
	default:
		return &claudeParser{byID: map[string]int{}, toolNames: map[string]string{}}
	}
}

// lineReader yields lines of any length without their line terminator.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64*1024)}
}

// next returns the next line, valid until the following call. At the end of
// input it returns the last unterminated line (if any) with io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	frag, err := lr.br.ReadSlice('\n')
	if err == nil {
		return trimEOL(frag), nil
	}
	// Long line: accumulate the fragments into our own buffer.
	lr.buf = append(lr.buf[:0], frag...)
	for err == bufio.ErrBufferFull {
		frag, err = lr.br.ReadSlice('\n')
		lr.buf = append(lr.buf, frag...)
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(lr.buf) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	return trimEOL(lr.buf), err
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

func isBlank(b []byte) bool {
	return len(bytes.TrimSpace(b)) == 0
}

// joinText appends s to acc, separated by a blank line.
func joinText(acc, s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return acc
	case acc == "":
		return s
	default:
		return acc + "\n\n" + s
	}
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return ts
}

// hasAnyPrefix reports whether s, leading space trimmed, starts with one of
// prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
