package transcript

import (
	"bytes"
	"encoding/json"
)

// detector settles a transcript's format from its first non-blank lines.
type detector struct {
	f       Format
	decided bool
	sawLine bool
}

// probe holds the few fields that tell the JSONL formats apart.
type probe struct {
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	SessionID string          `json:"sessionId"`
	Message   json.RawMessage `json:"message"`
	Role      string          `json:"role"`
}

var (
	codexEnvelopeTypes = map[string]bool{
		"session_meta": true, "response_item": true, "event_msg": true,
		"turn_context": true, "compacted": true,
	}
	// Pre-envelope rollouts wrote response items bare.
	codexItemTypes = map[string]bool{
		"message": true, "reasoning": true, "function_call": true,
		"function_call_output": true, "custom_tool_call": true,
		"custom_tool_call_output": true, "local_shell_call": true,
		"web_search_call": true,
	}
	claudeTypes = map[string]bool{
		"user": true, "assistant": true, "system": true, "summary": true,
		"progress": true, "file-history-snapshot": true, "queue-operation": true,
	}
)

func (d *detector) done() bool { return d.decided }

func (d *detector) add(line []byte) {
	if d.decided {
		return
	}
	line = bytes.TrimSpace(line)
	if !d.sawLine {
		d.sawLine = true
		if len(line) == 0 || line[0] != '{' {
			d.f, d.decided = FormatText, true
			return
		}
	}
	var p probe
	if json.Unmarshal(line, &p) != nil {
		return
	}
	switch {
	case codexEnvelopeTypes[p.Type] && len(p.Payload) > 0:
		d.f, d.decided = FormatCodex, true
	case codexItemTypes[p.Type] && len(p.Message) == 0 && (p.Type != "message" || p.Role != ""):
		d.f, d.decided = FormatCodex, true
	case claudeTypes[p.Type] || p.SessionID != "":
		d.f, d.decided = FormatClaude, true
	}
}

func (d *detector) format() Format {
	switch {
	case d.decided:
		return d.f
	case d.sawLine:
		return FormatClaude
	default:
		return FormatText
	}
}
