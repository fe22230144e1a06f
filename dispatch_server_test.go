package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdOpenAIServer (openaisrv) starts a tiny OpenAI-compatible
// chat-completions server for the rest of the script and puts its base URL
// in $NAME:
//
//	openaisrv NAME
//
// It answers in the shape the prompt's contract states ("Output shape:
// …") with recognisable "SERVER" text, echoes the requested model, and
// appends one JSON line per request (path, model, authorization, shape) to
// $WORK/openai-requests.jsonl. A prompt containing "FAIL-THIS" gets a 500.
func cmdOpenAIServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: openaisrv NAME")
	}
	shapeRE := regexp.MustCompile(`(?m)^Output shape: (\w+)`)
	logPath := filepath.Join(ts.Getenv("WORK"), "openai-requests.jsonl")
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &req)
		prompt := ""
		if len(req.Messages) > 0 {
			prompt = req.Messages[0].Content
		}
		shape := "draft"
		if m := shapeRE.FindStringSubmatch(prompt); m != nil {
			shape = m[1]
		}
		mu.Lock()
		line, _ := json.Marshal(map[string]string{"path": r.URL.Path, "model": req.Model, "authorization": r.Header.Get("Authorization"), "shape": shape})
		if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			f.Write(append(line, '\n'))
			f.Close()
		}
		mu.Unlock()
		if strings.Contains(prompt, "FAIL-THIS") {
			http.Error(w, `{"error":{"message":"the server refuses"}}`, http.StatusInternalServerError)
			return
		}
		var content string
		switch shape {
		case "review":
			content = "verdict: issues\n\n## Findings\n- SERVER REVIEW: the lantern steams too early\n\n## Introduced candidates\n- Lantern tithe — a fee for carrying fire across the Ashe\n"
		default:
			content = "SERVER DRAFT: Mira stamped the last receipt, and the ink steamed.\n\n## Introduced candidates\n- Mira Kade — a smuggler who keeps two ledgers\n"
		}
		reply, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": len(prompt) / 4, "completion_tokens": len(content) / 4, "total_tokens": (len(prompt) + len(content)) / 4}})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "%s", reply)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
