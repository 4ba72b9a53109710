package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ragbot/ragbot/internal/httpretry"
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

// newChatClient checks the settings of a chat model's client and returns
// it; kind ("llm summary") and the model start its errors. A nil client
// is a new one with timeout, or def when timeout <= 0.
func newChatClient(kind, baseURL, model, apiKey string, timeout, def time.Duration, client *http.Client, retries int) (*apiClient, error) {
	what := kind + " " + model
	if err := checkBaseURL(what, baseURL); err != nil {
		return nil, err
	}
	if model == "" {
		return nil, errors.New(kind + ": model must be set")
	}
	if client == nil {
		client = &http.Client{Timeout: cmp.Or(max(timeout, 0), def)}
	}
	return &apiClient{what: what, baseURL: baseURL, apiKey: apiKey, client: client, maxRetries: retries, sleep: httpretry.Sleep}, nil
}

// retryableErr reports the errors of try worth retrying: a status of a
// rate limit, a timeout or a server error, or a network error (try marks
// the others httpretry.Permanent).
func retryableErr(err error) bool {
	var se *httpretry.StatusError
	if errors.As(err, &se) {
		return se.Status == http.StatusTooManyRequests || se.Status == http.StatusRequestTimeout || se.Status >= 500
	}
	return true
}

// postJSON posts req as JSON to baseURL+path and decodes the 200 answer
// into resp. A 429, 408, 5xx or network error is retried up to maxRetries
// times, after the server's retry-after-ms or Retry-After (capped at
// openAIRetryAfter) or else 0.5 s, 1 s, 2 s, ... (capped at
// openAIBackoffMax). Errors start with what, name the endpoint and carry
// the server's message in a *httpretry.StatusError; ctx ending is wrapped.
func (c *apiClient) postJSON(ctx context.Context, path string, req, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s: %w", c.what, err)
	}
	endpoint := strings.TrimRight(c.baseURL, "/") + path
	p := httpretry.Policy{
		MaxRetries: max(c.maxRetries, 0),
		Retryable:  retryableErr,
		Backoff:    httpretry.Exponential(openAIBackoffBase, openAIBackoffMax, 0),
		MaxWait:    openAIRetryAfter,
		CapWait:    true,
		Sleep:      c.sleep,
	}
	err = p.Do(ctx, func(ctx context.Context) error { return c.try(ctx, endpoint, body, resp) })
	var we *httpretry.WaitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &we):
		return fmt.Errorf("%s: waiting to retry: %w", c.what, we.Cause)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", c.what, ctx.Err())
	}
	return fmt.Errorf("%s at %s: %w", c.what, redactedURL(endpoint), err)
}

// try sends one request. Errors other than a status or the network are
// marked httpretry.Permanent.
func (c *apiClient) try(ctx context.Context, endpoint string, body []byte, resp any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return httpretry.Permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	r, err := c.client.Do(req)
	if err != nil {
		return errors.New(c.redact(err.Error())) // network errors are worth a retry
	}
	defer r.Body.Close()
	data, err := io.ReadAll(io.LimitReader(r.Body, maxResponseBody))
	if err != nil {
		return errors.New(c.redact(err.Error()))
	}
	if r.StatusCode != http.StatusOK {
		return httpretry.NewStatusError(r, "", "", "", c.errorMessage(data), time.Now())
	}
	if err := json.Unmarshal(data, resp); err != nil {
		return httpretry.Permanent(fmt.Errorf("decode response: %w", err))
	}
	return nil
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
