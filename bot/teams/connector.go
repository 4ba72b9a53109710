package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Connector retries (Teams docs, 'Optimize your bot with rate limiting in
// Teams'): 429 (throttled) is retried after its
// Retry-After, 412, 502 and 504 after an exponential backoff with jitter from
// firstBackoff, at most maxRetries times, and only while the wait is at most
// maxRetryWait: a longer one means the conversation's budget is spent, and
// an error in the log serves better than an answer minutes late. A 401 or
// 403 is retried once with a fresh token.
const (
	maxRetries   = 3
	maxRetryWait = 30 * time.Second
	firstBackoff = time.Second
	maxReplyBody = 64 << 10
)

// A ConnectorError is a connector call that failed.
type ConnectorError struct {
	Method     string
	URL        string // the activity URL; it holds no credentials
	Status     int
	Code       string        // the body's error.code, e.g. "MessageSizeTooBig"
	Message    string        // the body's error.message, cut
	RetryAfter time.Duration // from a 429's Retry-After, 0 when absent
}

func (e *ConnectorError) Error() string {
	s := fmt.Sprintf("connector %s %s: HTTP %d", e.Method, e.URL, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// retryable reports the statuses worth another try.
func (e *ConnectorError) retryable() bool {
	switch e.Status {
	case http.StatusTooManyRequests, http.StatusPreconditionFailed, http.StatusBadGateway, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// activityURL is {serviceUrl}v3/conversations/{conversation}/activities[/{activity}],
// with the ids percent-encoded (conversation ids hold ':', ';', '=' and '@').
func activityURL(serviceURL, conversation, activity string) string {
	u := strings.TrimSuffix(serviceURL, "/") + "/v3/conversations/" + escapeSegment(conversation) + "/activities"
	if activity != "" {
		u += "/" + escapeSegment(activity)
	}
	return u
}

// escapeSegment percent-encodes every byte of s but the unreserved ones
// (RFC 3986 §2.3), as the SDKs' encodeURIComponent does for ':' ';' '=' '@'.
func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// send makes one connector call (POST a reply, PUT an update) with retries,
// and returns the id of the activity in the answer.
func (b *Bot) send(ctx context.Context, method, url string, payload []byte) (string, error) {
	refreshed := false
	for attempt := 1; ; attempt++ {
		tok, err := b.tokens.token(ctx)
		if err != nil {
			return "", err
		}
		id, err := b.do(ctx, method, url, tok, payload)
		ce, ok := err.(*ConnectorError)
		switch {
		case err == nil || !ok:
			return id, err
		case (ce.Status == http.StatusUnauthorized || ce.Status == http.StatusForbidden) && !refreshed:
			b.tokens.invalidate(tok)
			refreshed = true
			b.log.Warn("teams connector refused the token; fetching a new one", "method", method, "status", ce.Status)
			continue
		case !ce.retryable() || attempt > maxRetries:
			return "", err
		}
		wait := ce.RetryAfter
		if wait <= 0 {
			backoff := firstBackoff << (attempt - 1)
			wait = backoff + rand.N(backoff/2)
		}
		if wait > maxRetryWait {
			return "", fmt.Errorf("%w (asked to wait %s, longer than the %s ragbot waits)", err, wait, maxRetryWait)
		}
		b.log.Warn("teams connector throttled or failing; waiting", "method", method, "status", ce.Status, "retry_after", wait, "attempt", attempt)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("%w; then waiting to retry: %w", err, context.Cause(ctx))
		case <-t.C:
		}
	}
}

func (b *Bot) do(ctx context.Context, method, url, token string, payload []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(payload))
	if err != nil {
		return "", fmt.Errorf("connector %s %s: %w", method, url, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := b.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("connector %s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxReplyBody))
	if resp.StatusCode/100 == 2 {
		var r struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(body, &r) // an update may answer without a body
		return r.ID, nil
	}
	var r struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &r)
	return "", &ConnectorError{Method: method, URL: url, Status: resp.StatusCode, Code: r.Error.Code,
		Message: cut(r.Error.Message, 300), RetryAfter: retryAfter(resp.Header.Get("Retry-After"), b.cfg.Now())}
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
