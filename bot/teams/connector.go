package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/httpretry"
)

// Connector retries (Teams docs, 'Optimize your bot with rate limiting in
// Teams'): 429 (throttled) is retried after its
// Retry-After, 412, 502 and 504 after an exponential backoff with jitter from
// firstBackoff, at most maxRetries times, and only while the wait is at most
// config.MaxRetryWait. A 401 or 403 is retried once with a fresh token.
const (
	maxRetries   = 3
	firstBackoff = time.Second
	maxReplyBody = 64 << 10
)

// retryable reports the connector failures worth another try: 429
// (throttled), 412, 502 and 504. Network errors are not retried.
func retryable(err error) bool {
	var se *httpretry.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
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
// and returns the id of the activity in the answer. A failed answer is a
// *httpretry.StatusError; a wait beyond config.MaxRetryWait or ctx ending while
// waiting is a *httpretry.WaitError around it.
func (b *Bot) send(ctx context.Context, method, url string, payload []byte) (string, error) {
	p := httpretry.Policy{
		MaxRetries: maxRetries,
		Retryable:  retryable,
		Backoff:    httpretry.Exponential(firstBackoff, config.MaxRetryWait, 0.5),
		MaxWait:    config.MaxRetryWait,
		OnRetry: func(err error, wait time.Duration, retry int) {
			b.log.Warn("teams connector throttled or failing; waiting", "method", method, "status", httpretry.StatusOf(err),
				"retry_after", wait, "attempt", retry)
		},
	}
	var id string
	refreshed := false
	err := p.Do(ctx, func(ctx context.Context) error {
		tok, err := b.tokens.token(ctx)
		if err != nil {
			return err
		}
		id, err = b.do(ctx, method, url, tok, payload)
		if s := httpretry.StatusOf(err); (s == http.StatusUnauthorized || s == http.StatusForbidden) && !refreshed {
			b.tokens.invalidate(tok)
			refreshed = true
			b.log.Warn("teams connector refused the token; fetching a new one", "method", method, "status", s)
			if tok, err = b.tokens.token(ctx); err != nil {
				return err
			}
			id, err = b.do(ctx, method, url, tok, payload)
		}
		return err
	})
	return id, err
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
	se := httpretry.NewStatusError(resp, method, url, r.Error.Code, bot.Cut(r.Error.Message, 300), b.cfg.Now())
	return "", fmt.Errorf("connector: %w", se)
}
