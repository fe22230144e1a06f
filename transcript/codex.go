package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
)

// codexLine is a rollout line: {"timestamp","type","payload"}. Pre-envelope
// rollouts wrote a bare {"id","timestamp",…} first line and bare response
// items, so ID and the item fields are read from the line itself too.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	ID        string          `json:"id"`
}

// codexItem is a response_item payload (or a session_meta / turn_context
// payload: only ID and CWD are read from those).
type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	ID        string          `json:"id"`
	CWD       string          `json:"cwd"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

// codexContextPrefixes start role=user messages that Codex injects
// (environment, AGENTS.md, user instructions), not the person's words.
var codexContextPrefixes = []string{
	"<environment_context>",
	"<user_instructions>",
	"# AGENTS.md instructions",
	"<turn_aborted>",
}

type codexParser struct {
	toolNames map[string]string // call_id → tool name
}

func (p *codexParser) line(t *Transcript, line []byte, blank bool) {
	if blank {
		return
	}
	line = bytes.TrimSpace(line)
	if line[0] != '{' {
		t.Stats.Corrupt++
		return
	}
	var l codexLine
	if json.Unmarshal(line, &l) != nil {
		t.Stats.Corrupt++
		return
	}
	payload := l.Payload
	typ := l.Type
	if len(payload) == 0 || string(payload) == "null" {
		switch {
		case codexItemTypes[l.Type]:
			payload, typ = line, "response_item"
		case l.Type == "" && l.ID != "":
			if t.SessionID == "" {
				t.SessionID = l.ID
			}
			t.Stats.Ignored++
			return
		default:
			t.Stats.Ignored++
			return
		}
	}
	if typ != "session_meta" && typ != "turn_context" && typ != "response_item" {
		// event_msg mirrors response items (user_message, agent_message, …);
		// compacted and unknown types carry no turn either.
		t.Stats.Ignored++
		return
	}
	var it codexItem
	if payload[0] != '{' || json.Unmarshal(payload, &it) != nil {
		t.Stats.Corrupt++
		return
	}
	switch typ {
	case "session_meta":
		if t.SessionID == "" {
			t.SessionID = it.ID
		}
		if t.CWD == "" {
			t.CWD = it.CWD
		}
		t.Stats.Ignored++
		return
	case "turn_context":
		if t.CWD == "" {
			t.CWD = it.CWD
		}
		t.Stats.Ignored++
		return
	}
	if !p.item(t, &it, l.Timestamp) {
		t.Stats.Ignored++
	}
}

// item adds a response item to the turns; false when it carries no turn.
func (p *codexParser) item(t *Transcript, it *codexItem, ts string) bool {
	if p.toolNames == nil {
		p.toolNames = map[string]string{}
	}
	switch it.Type {
	case "message":
		blocks := codexContent(it.Content)
		if len(blocks) == 0 {
			return false
		}
		switch it.Role {
		case "user":
			text := ""
			for _, b := range blocks {
				if b.Kind == KindText {
					text = joinText(text, b.Text)
				}
			}
			t.Turns = append(t.Turns, Turn{
				Role:   RoleUser,
				Text:   text,
				Blocks: blocks,
				Time:   parseTime(ts),
				ID:     it.ID,
				Meta:   hasAnyPrefix(text, codexContextPrefixes),
			})
			return true
		case "assistant":
			p.assistant(t, blocks, ts, it.ID)
			return true
		}
		return false // developer and system: instructions, not the person
	case "reasoning":
		text := joinText(summaryText(it.Summary), summaryText(it.Content))
		p.assistant(t, []Block{{Kind: KindThinking, Text: text}}, ts, "")
		return true
	case "function_call":
		p.toolNames[it.CallID] = it.Name
		p.assistant(t, []Block{{Kind: KindToolUse, Text: stringOrRaw(it.Arguments), ToolName: it.Name}}, ts, "")
		return true
	case "custom_tool_call":
		p.toolNames[it.CallID] = it.Name
		p.assistant(t, []Block{{Kind: KindToolUse, Text: stringOrRaw(it.Input), ToolName: it.Name}}, ts, "")
		return true
	case "local_shell_call", "web_search_call":
		name := strings.TrimSuffix(it.Type, "_call")
		p.toolNames[it.CallID] = name
		p.assistant(t, []Block{{Kind: KindToolUse, Text: stringOrRaw(it.Action), ToolName: name}}, ts, "")
		return true
	case "function_call_output", "custom_tool_call_output":
		p.toolResult(t, Block{Kind: KindToolResult, Text: resultText(outputContent(it.Output)), ToolName: p.toolNames[it.CallID]}, ts)
		return true
	}
	return false
}

// assistant appends blocks to the current assistant turn, or starts one: a
// Codex response is spread over reasoning, tool call and message items.
func (p *codexParser) assistant(t *Transcript, blocks []Block, ts, id string) {
	text := ""
	for _, b := range blocks {
		if b.Kind == KindText {
			text = joinText(text, b.Text)
		}
	}
	if n := len(t.Turns); n > 0 && t.Turns[n-1].Role == RoleAssistant {
		turn := &t.Turns[n-1]
		turn.Blocks = append(turn.Blocks, blocks...)
		turn.Text = joinText(turn.Text, text)
		if turn.ID == "" {
			turn.ID = id
		}
		return
	}
	t.Turns = append(t.Turns, Turn{Role: RoleAssistant, Text: text, Blocks: blocks, Time: parseTime(ts), ID: id})
}

// toolResult appends tool output to the current tool-result turn, or starts
// one, mirroring Claude Code where tool output comes back as a user line.
func (p *codexParser) toolResult(t *Transcript, b Block, ts string) {
	if n := len(t.Turns); n > 0 && t.Turns[n-1].ToolResultOnly {
		t.Turns[n-1].Blocks = append(t.Turns[n-1].Blocks, b)
		return
	}
	t.Turns = append(t.Turns, Turn{Role: RoleUser, Blocks: []Block{b}, Time: parseTime(ts), ToolResultOnly: true})
}

// codexContent decodes message content: input_text / output_text blocks
// (text), input_image (image), others kept by kind; a bare string is text.
func codexContent(raw json.RawMessage) []Block {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
			return nil
		}
		return []Block{{Kind: KindText, Text: s}}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []Block
	for _, part := range parts {
		switch part.Type {
		case "input_text", "output_text", "text":
			out = append(out, Block{Kind: KindText, Text: part.Text})
		case "input_image":
			out = append(out, Block{Kind: "image"})
		case "":
			out = append(out, Block{Kind: "unknown", Text: part.Text})
		default:
			out = append(out, Block{Kind: part.Type, Text: part.Text})
		}
	}
	return out
}

// summaryText joins the text of reasoning summary or content parts.
func summaryText(raw json.RawMessage) string {
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	text := ""
	for _, part := range parts {
		text = joinText(text, part.Text)
	}
	return text
}

// stringOrRaw is a JSON string's value, or any other JSON value as text.
func stringOrRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return rawText(raw)
}

// outputContent unwraps a function_call_output written as an object
// {"content": …} to its content; strings and arrays pass through.
func outputContent(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return raw
	}
	var o struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil && len(o.Content) > 0 {
		return o.Content
	}
	return raw
}

func (p *codexParser) finish(*Transcript) {}
