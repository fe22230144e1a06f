package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const chatOK = `{"id":"c1","object":"chat.completion","model":"gemma-3-27b","choices":[{"index":0,"message":{"role":"assistant","content":"verdict: clean\n\nFine."},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`

func TestOpenAIRequestShape(t *testing.T) {
	t.Parallel()
	var got struct {
		path, auth, ctype string
		body              map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth, got.ctype = r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		data, _ := io.ReadAll(r.Body)
		json.Unmarshal(data, &got.body)
		io.WriteString(w, chatOK)
	}))
	defer srv.Close()
	temp := 0.7
	o := &OpenAI{BaseURL: srv.URL, Model: "gemma-3-27b", Temperature: &temp, MaxTokens: 2048, APIKey: "sk-test-123"}
	out, u, err := o.GenerateUsage(context.Background(), "Write it.")
	if err != nil {
		t.Fatal(err)
	}
	if out != "verdict: clean\n\nFine." || u.InputTokens != 11 || u.OutputTokens != 7 || u.TotalTokens != 18 || u.Model != "gemma-3-27b" {
		t.Fatalf("out %q usage %+v", out, u)
	}
	if got.path != "/v1/chat/completions" || got.auth != "Bearer sk-test-123" || got.ctype != "application/json" {
		t.Fatalf("request: %+v", got)
	}
	msgs, _ := got.body["messages"].([]any)
	m0, _ := msgs[0].(map[string]any)
	if got.body["model"] != "gemma-3-27b" || got.body["temperature"] != 0.7 || got.body["max_tokens"] != 2048.0 ||
		got.body["stream"] != false || len(msgs) != 1 || m0["role"] != "user" || m0["content"] != "Write it." {
		t.Fatalf("body: %v", got.body)
	}
}

func TestOpenAIEndpoint(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":                          "http://127.0.0.1:8080/v1/chat/completions",
		"http://127.0.0.1:8080/":                         "http://127.0.0.1:8080/v1/chat/completions",
		"https://api.openai.com/v1":                      "https://api.openai.com/v1/chat/completions",
		"http://h:8000/v1/":                              "http://h:8000/v1/chat/completions",
		"http://h/openai/deployments/x/chat/completions": "http://h/openai/deployments/x/chat/completions",
	} {
		if got := (&OpenAI{BaseURL: in}).Endpoint(); got != want {
			t.Errorf("Endpoint(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		handler  func(n int32, w http.ResponseWriter)
		wantErr  string
		wantOut  string
		attempts int32
	}{
		{"429 then ok, honouring Retry-After", func(n int32, w http.ResponseWriter) {
			if n == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"error":{"message":"slow down"}}`)
				return
			}
			io.WriteString(w, chatOK)
		}, "", "verdict: clean\n\nFine.", 2},
		{"5xx until the retries run out", func(n int32, w http.ResponseWriter) {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "upstream down")
		}, "HTTP 502 Bad Gateway: upstream down", "", 3},
		{"4xx is not retried", func(n int32, w http.ResponseWriter) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"model 'x' not found","type":"invalid_request_error"}}`)
		}, "HTTP 400 Bad Request: model 'x' not found", "", 1},
		{"401 names the status", func(n int32, w http.ResponseWriter) {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"invalid api key"}}`)
		}, "HTTP 401", "", 1},
		{"not JSON", func(n int32, w http.ResponseWriter) { io.WriteString(w, "<html>proxy</html>") }, "not chat-completions JSON", "", 1},
		{"no choices", func(n int32, w http.ResponseWriter) { io.WriteString(w, `{"choices":[]}`) }, "no choices", "", 1},
		{"output cap", func(n int32, w http.ResponseWriter) {
			io.WriteString(w, `{"choices":[{"message":{"content":"`+strings.Repeat("a", 5000)+`"}}]}`)
		}, "exceeds the output cap", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.handler(n.Add(1), w)
			}))
			defer srv.Close()
			o := &OpenAI{BaseURL: srv.URL, APIKey: "sk-secret-key", Backoff: time.Millisecond, MaxOutput: 4096}
			out, err := o.Generate(context.Background(), "p")
			if tt.wantErr == "" {
				if err != nil || out != tt.wantOut {
					t.Fatalf("got %q, %v", out, err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "sk-secret-key") {
					t.Fatalf("the API key leaked into an error: %v", err)
				}
			}
			if got := n.Load(); got != tt.attempts {
				t.Fatalf("%d attempts, want %d", got, tt.attempts)
			}
		})
	}
}

// The run's timeout bounds the request, and the error says so.
func TestOpenAITimeout(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	start := time.Now()
	_, _, err := generate(context.Background(), &OpenAI{BaseURL: srv.URL, Backoff: time.Millisecond}, "p", Limits{Timeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "after 200ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("the timeout took %s", d)
	}
}

// A refused connection is retried, then reported without any header.
func TestOpenAIConnectionRefused(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := (&OpenAI{BaseURL: url, APIKey: "sk-secret-key", Backoff: time.Millisecond}).Generate(context.Background(), "p")
	if err == nil || !strings.Contains(err.Error(), "request failed") || strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("err = %v", err)
	}
}

// NewRunner reads the bearer key from the environment variable the route
// names, never from a file.
func TestOpenAIKeyFromEnv(t *testing.T) {
	t.Parallel()
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		io.WriteString(w, chatOK)
	}))
	defer srv.Close()
	r, err := NewRunner(Route{Runner: "openai", BaseURL: srv.URL, APIKeyEnv: "MY_KEY"}, []string{"MY_KEY=k-1", "OTHER=x"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Generate(context.Background(), "p"); err != nil || auth != "Bearer k-1" {
		t.Fatalf("auth %q, %v", auth, err)
	}
	if _, err := NewRunner(Route{Runner: "openai"}, nil, "", ""); err == nil || !strings.Contains(err.Error(), "base_url") {
		t.Fatalf("openai without a base_url: %v", err)
	}
}
