package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStdio feeds the transport what clients send in practice: calls
// that are still running when input ends, lines that are not JSON-RPC
// messages, a batch, and a line over the size limit.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	type in struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		return nil, map[string]any{"slept": a.MS}, nil
	})
	var input strings.Builder
	input.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}` + "\n")
	input.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	input.WriteString("\n   \n")           // blank lines are skipped
	input.WriteString("not json at all\n") // parse error, id null
	input.WriteString(`{"jsonrpc":"2.0","id":"x","method":42}` + "\n")
	input.WriteString(`[{"jsonrpc":"2.0","id":"b","method":"ping"}]` + "\n")
	input.WriteString(`{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("a", mcpMaxLine) + `"}}` + "\n")
	for i, ms := range []int{300, 10, 200} {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
			"params": map[string]any{"name": "sleep", "arguments": map[string]any{"ms": ms}}})
		input.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := srv.Run(ctx, &mcpStdio{in: strings.NewReader(input.String()), out: &out})
	if err != nil && ctx.Err() != nil {
		t.Fatalf("the server did not end at end of input: %v", err)
	}
	got := map[string]map[string]any{}
	var anonymous []string // error answers with a null id
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %.200q", line)
		}
		if m["id"] == nil {
			e, _ := m["error"].(map[string]any)
			anonymous = append(anonymous, fmt.Sprint(e["code"], " ", e["message"]))
			continue
		}
		got[fmt.Sprint(m["id"])] = m
	}
	for _, id := range []string{"1", "2", "3"} {
		if got[id] == nil || got[id]["result"] == nil {
			t.Errorf("call %s was not answered: %v", id, got[id])
		}
	}
	if e, _ := got["x"]["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Errorf("an invalid request is not answered with -32600 and its id: %v", got["x"])
	}
	// "not json at all", the batch, and the cut-off oversized line.
	if len(anonymous) != 3 || !strings.Contains(strings.Join(anonymous, "\n"), "batches are not supported") {
		t.Errorf("error answers without an id: %q", anonymous)
	}
}
