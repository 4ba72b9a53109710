package teams

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Password is the app's client secret. It prints, logs and marshals as
// "[redacted]"; only the token request sends it.
type Password string

func (p Password) String() string {
	if p == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps %#v from printing the value.
func (p Password) GoString() string { return p.String() }

// LogValue keeps slog from printing the value.
func (p Password) LogValue() slog.Value { return slog.StringValue(p.String()) }

// MarshalJSON keeps encoding/json from writing the value.
func (p Password) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// Outgoing token (Bot Framework REST API docs, 'Authentication with the Bot
// Connector API', "Bot to Connector"): client credentials for the Bot
// Framework scope. Tokens last about an hour (expires_in 3599); one is
// reused until tokenMargin before it expires, so a reply never starts with a
// token about to lapse.
const (
	tokenScope  = "https://api.botframework.com/.default"
	tokenMargin = 5 * time.Minute
	maxTokenErr = 300 // bytes of an error description kept in an error
)

// accessToken is a bearer token for the connector. It logs as "[redacted]".
type accessToken struct {
	value   string
	renewAt time.Time // fetch a new one from here on
}

func (t accessToken) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// tokenSource gets and caches the bot's access token. It is safe for
// concurrent use: callers wait for one fetch rather than each doing their own.
type tokenSource struct {
	url      string
	clientID string
	secret   Password
	client   *http.Client
	now      func() time.Time

	mu      sync.Mutex
	tok     accessToken
	fetches int // tokens fetched, for tests and logs
}

// token returns a valid access token, fetching one when none is cached or
// the cached one is within tokenMargin of expiring.
func (s *tokenSource) token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok.value != "" && s.now().Before(s.tok.renewAt) {
		return s.tok.value, nil
	}
	tok, err := s.fetch(ctx)
	if err != nil {
		return "", err
	}
	s.tok = tok
	s.fetches++
	return tok.value, nil
}

// invalidate drops value from the cache (the connector refused it), so the
// next call fetches a new token.
func (s *tokenSource) invalidate(value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok.value == value {
		s.tok = accessToken{}
	}
}

func (s *tokenSource) fetch(ctx context.Context) (accessToken, error) {
	form := url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {s.clientID},
		"client_secret": {string(s.secret)},
		"scope":         {tokenScope},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(form.Encode()))
	if err != nil {
		return accessToken{}, fmt.Errorf("token request to %s: %w", s.url, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	start := s.now()
	resp, err := s.client.Do(req)
	if err != nil {
		return accessToken{}, fmt.Errorf("token for app %s from %s: %w", s.clientID, s.url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var r struct {
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &r)
	if resp.StatusCode != http.StatusOK || r.AccessToken == "" {
		// AAD explains refusals in error_description ("AADSTS7000215:
		// Invalid client secret provided…"); it never echoes the secret, but
		// the secret is cut out anyway.
		why := strings.TrimSpace(r.Error + ": " + strings.ReplaceAll(r.Description, string(s.secret), "[redacted]"))
		if r.Error == "" {
			why = "no access_token in the answer"
		}
		return accessToken{}, fmt.Errorf("token for app %s from %s: HTTP %d: %s", s.clientID, s.url, resp.StatusCode, cut(why, maxTokenErr))
	}
	life := time.Duration(r.ExpiresIn) * time.Second
	renew := life - tokenMargin
	if life <= 2*tokenMargin {
		renew = life / 2
	}
	return accessToken{value: r.AccessToken, renewAt: start.Add(renew)}, nil
}

// cut returns s cut to at most n bytes, on a rune boundary, with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
