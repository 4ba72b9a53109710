package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Retry timing of OpenAI-compatible requests.
const (
	openAIBackoffBase = 500 * time.Millisecond // first computed wait; doubles on each retry
	openAIBackoffMax  = 30 * time.Second       // cap on one computed wait
	openAIRetryAfter  = 2 * time.Minute        // cap on a server's Retry-After
	maxErrorBody      = 512                    // bytes of a failed response quoted in errors
	maxResponseBody   = 256 << 20              // bytes read of a response at most
)

// apiClient posts JSON to an OpenAI-compatible API (embeddings, chat
// completions) with a bearer key, retrying rate limits, server errors and
// network errors. It is safe for concurrent use.
type apiClient struct {
	what       string // "openai embedder text-embedding-3-small", the start of every error
	baseURL    string // API root, e.g. "https://api.openai.com/v1"
	apiKey     string // "" sends no Authorization header; never in errors
	client     *http.Client
	maxRetries int // retries after the first attempt; <= 0 means none
	// sleep waits d or until ctx is done; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// checkBaseURL accepts an absolute http(s) URL.
func checkBaseURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: base url %q: want an absolute http(s) URL", what, redactedURL(raw))
	}
	return nil
}

// StatusError is a failed request to an OpenAI-compatible API: the HTTP
// status and the server's message, with the API key removed.
type StatusError struct {
	Status     int
	Message    string
	RetryAfter time.Duration // the server's Retry-After, 0 when absent
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("status %d: %s", e.Status, e.Message)
}

// retryable reports statuses worth retrying: rate limits, timeouts and
// server errors.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500
}

// postJSON posts req as JSON to baseURL+path and decodes the 200 answer
// into resp. A 429, 408, 5xx or network error is retried up to maxRetries
// times, after the server's Retry-After (capped at openAIRetryAfter) or else
// 0.5 s, 1 s, 2 s, ... (capped at openAIBackoffMax). Errors start with what,
// name the endpoint and carry the server's message; ctx ending is wrapped.
func (c *apiClient) postJSON(ctx context.Context, path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: %w", c.what, err)
	}
	endpoint := strings.TrimRight(c.baseURL, "/") + path
	for attempt := 0; ; attempt++ {
		wait, err := c.try(ctx, endpoint, body, resp)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", c.what, ctx.Err())
		}
		if wait < 0 || attempt >= c.maxRetries {
			return fmt.Errorf("%s at %s: %w", c.what, redactedURL(endpoint), err)
		}
		if wait == 0 {
			wait = min(openAIBackoffBase<<attempt, openAIBackoffMax)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: waiting to retry: %w", c.what, err)
		}
	}
}

// try sends one request. wait is -1 when the error is final, 0 when it is
// retryable after the computed backoff, and the server's Retry-After when it
// sent one.
func (c *apiClient) try(ctx context.Context, endpoint string, body []byte, resp any) (wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	r, err := c.client.Do(req)
	if err != nil {
		return 0, errors.New(c.redact(err.Error())) // network errors are worth a retry
	}
	defer r.Body.Close()
	data, err := io.ReadAll(io.LimitReader(r.Body, maxResponseBody))
	if err != nil {
		return 0, errors.New(c.redact(err.Error()))
	}
	if r.StatusCode != http.StatusOK {
		se := &StatusError{Status: r.StatusCode, Message: c.errorMessage(data), RetryAfter: retryAfter(r.Header, time.Now())}
		if !retryable(r.StatusCode) {
			return -1, se
		}
		return min(se.RetryAfter, openAIRetryAfter), se
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return -1, fmt.Errorf("decode response: %w", err)
	}
	return 0, nil
}

// apiError is the error body of OpenAI-compatible servers:
// {"error": {"message": "...", "type": "...", "code": ...}}.
type apiError struct {
	Error struct {
		Message string `json:"message"`
	} `json:"error"`
}

// errorMessage is the server's message for a failed request: the "error"
// object's message when the body has one, else the body's first bytes;
// the API key is removed either way (OpenAI quotes part of a wrong key back).
func (c *apiClient) errorMessage(body []byte) string {
	var ae apiError
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &ae) == nil && ae.Error.Message != "" {
		msg = ae.Error.Message
	}
	if len(msg) > maxErrorBody {
		msg = msg[:maxErrorBody] + "..."
	}
	if msg == "" {
		msg = "(empty body)"
	}
	return c.redact(msg)
}

// redact removes the API key from s, and, for keys of 16 bytes or more, its
// first and last 8 bytes, which is what masked keys quoted back keep.
func (c *apiClient) redact(s string) string {
	k := c.apiKey
	if k == "" {
		return s
	}
	s = strings.ReplaceAll(s, k, "[redacted]")
	if len(k) >= 16 {
		s = strings.ReplaceAll(s, k[:8], "[redacted]")
		s = strings.ReplaceAll(s, k[len(k)-8:], "[redacted]")
	}
	return s
}

// retryAfter reads the server's wait: OpenAI's "retry-after-ms" (what the
// official openai-python client reads first), else RFC 9110 §10.2.3
// Retry-After as seconds or an HTTP date. 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// redactedURL hides the user information of a URL ("user:pass@"); a URL
// that does not parse is not quoted at all.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "(unparsable URL)"
	case u.User == nil:
		return raw
	}
	return u.Redacted()
}
