package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// OpenAI calls any OpenAI-compatible chat-completions endpoint (vLLM,
// llama.cpp's server, Ollama, OpenAI itself) with plain net/http. The bearer
// key comes from the environment only and is never logged or put in an
// error; 429 and 5xx replies and connection failures are retried a bounded
// number of times, honouring Retry-After.
type OpenAI struct {
	// BaseURL is the server, e.g. http://127.0.0.1:8080 or
	// https://api.openai.com/v1; "/v1/chat/completions" is added as needed.
	BaseURL     string
	Model       string
	Temperature *float64
	MaxTokens   int
	APIKey      string
	MaxOutput   int
	// Client defaults to an http.Client without its own timeout (the run's
	// context carries the deadline).
	Client *http.Client
	// Retries after the first attempt (default 2); Backoff is the first
	// wait (default 1s), doubled each time; MaxBackoff caps any wait,
	// Retry-After included (default 30s).
	Retries    int
	Backoff    time.Duration
	MaxBackoff time.Duration
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model,omitempty"`
	Messages    []chatMessage `json:"messages"`
	Temperature *float64      `json:"temperature,omitempty"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Stream      bool          `json:"stream"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Endpoint is the chat-completions URL for BaseURL.
func (o *OpenAI) Endpoint() string {
	u := strings.TrimRight(o.BaseURL, "/")
	switch {
	case strings.HasSuffix(u, "/chat/completions"):
		return u
	case strings.HasSuffix(u, "/v1"):
		return u + "/chat/completions"
	}
	return u + "/v1/chat/completions"
}

// Generate asks the server once (plus bounded retries).
func (o *OpenAI) Generate(ctx context.Context, prompt string) (string, error) {
	out, _, err := o.GenerateUsage(ctx, prompt)
	return out, err
}

// statusError is a non-2xx reply.
type statusError struct {
	Code       int
	Msg        string
	RetryAfter time.Duration
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.Code, http.StatusText(e.Code), orDash(e.Msg))
}

func (e *statusError) retryable() bool { return e.Code == http.StatusTooManyRequests || e.Code >= 500 }

// transportError is a request that got no reply (refused, reset): retried.
type transportError struct{ err error }

func (e *transportError) Error() string { return "request failed: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// GenerateUsage asks the server and reports the usage it returns.
func (o *OpenAI) GenerateUsage(ctx context.Context, prompt string) (string, Usage, error) {
	body, err := json.Marshal(chatRequest{Model: o.Model, Messages: []chatMessage{{Role: "user", Content: prompt}},
		Temperature: o.Temperature, MaxTokens: o.MaxTokens})
	if err != nil {
		return "", Usage{}, fmt.Errorf("openai: encode request: %w", err)
	}
	retries, backoff, maxBackoff := o.Retries, o.Backoff, o.MaxBackoff
	if retries == 0 {
		retries = 2
	}
	if retries < 0 {
		retries = 0
	}
	if backoff <= 0 {
		backoff = time.Second
	}
	if maxBackoff <= 0 {
		maxBackoff = 30 * time.Second
	}
	var lastErr error
	for attempt := 0; ; attempt++ {
		out, u, err := o.once(ctx, body)
		if err == nil {
			return out, u, nil
		}
		lastErr = err
		var se *statusError
		var te *transportError
		retry := ctx.Err() == nil && attempt < retries &&
			((errors.As(err, &se) && se.retryable()) || errors.As(err, &te))
		if !retry {
			break
		}
		wait := backoff << attempt
		if se != nil && se.RetryAfter > 0 {
			wait = se.RetryAfter
		}
		wait = min(wait, maxBackoff)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			break // the wait alone would pass the deadline
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", Usage{}, fmt.Errorf("openai %s: %w (last reply: %v)", o.Endpoint(), context.Cause(ctx), lastErr)
		case <-t.C:
		}
	}
	if ctx.Err() != nil {
		return "", Usage{}, fmt.Errorf("openai %s: %w", o.Endpoint(), context.Cause(ctx))
	}
	return "", Usage{}, fmt.Errorf("openai %s: %w", o.Endpoint(), lastErr)
}

func (o *OpenAI) once(ctx context.Context, body []byte) (string, Usage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return "", Usage{}, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "git-scribe")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	client := o.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		// Never wrap *url.Error's text blindly: keep it to the method, URL
		// and cause, which carry no header.
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap()
		}
		return "", Usage{}, &transportError{err}
	}
	defer resp.Body.Close()
	limit := int64(jsonCap(o.MaxOutput))
	if limit <= 0 {
		limit = 64 << 20
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return "", Usage{}, fmt.Errorf("read reply: %w", err)
	}
	if int64(len(data)) > limit {
		return "", Usage{}, fmt.Errorf("%w (the reply passed %d bytes)", ErrOutputTooLarge, limit)
	}
	var cr chatResponse
	jerr := json.Unmarshal(data, &cr)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &statusError{Code: resp.StatusCode, Msg: snip(string(data), 300)}
		if jerr == nil && cr.Error != nil {
			se.Msg = snip(cr.Error.Message, 300)
		}
		if s := resp.Header.Get("Retry-After"); s != "" {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
				se.RetryAfter = time.Duration(n) * time.Second
			} else if t, err := http.ParseTime(s); err == nil {
				se.RetryAfter = time.Until(t)
			}
		}
		return "", Usage{}, se
	}
	if jerr != nil {
		return "", Usage{}, fmt.Errorf("reply is not chat-completions JSON: %v: %s", jerr, snip(string(data), 200))
	}
	if cr.Error != nil {
		return "", Usage{}, fmt.Errorf("server error: %s", snip(cr.Error.Message, 300))
	}
	u := Usage{InputTokens: cr.Usage.PromptTokens, OutputTokens: cr.Usage.CompletionTokens, TotalTokens: cr.Usage.TotalTokens, Model: cr.Model}
	if len(cr.Choices) == 0 || cr.Choices[0].Message.Content == nil {
		return "", u, errors.New("reply has no choices[0].message.content")
	}
	out := *cr.Choices[0].Message.Content
	if o.MaxOutput > 0 && len(out) > o.MaxOutput {
		return "", u, fmt.Errorf("%w (%d bytes, cap %d)", ErrOutputTooLarge, len(out), o.MaxOutput)
	}
	return out, u, nil
}
