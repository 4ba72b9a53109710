package teams

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/httpretry"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

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
	secret   config.Secret
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

// fetch asks the token endpoint for a new token: the OAuth 2.0 client
// credentials grant (RFC 6749 §4.4), the client id and secret in the form
// as the Microsoft identity platform documents it. Errors name the app and
// the endpoint, carry the endpoint's error code and description in a
// *httpretry.StatusError, and never the secret.
func (s *tokenSource) fetch(ctx context.Context) (accessToken, error) {
	cc := clientcredentials.Config{ClientID: s.clientID, ClientSecret: s.secret.Reveal(), TokenURL: s.url,
		Scopes: []string{tokenScope}, AuthStyle: oauth2.AuthStyleInParams}
	start := s.now()
	tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, s.client))
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re) && re.Response != nil:
		// AAD explains refusals in error_description ("AADSTS7000215:
		// Invalid client secret provided…"); it never echoes the secret, but
		// the secret is cut out anyway.
		se := &httpretry.StatusError{Method: http.MethodPost, URL: s.url, Status: re.Response.StatusCode,
			Reason: httpretry.StatusReason(re.Response.StatusCode), Code: re.ErrorCode,
			Message: bot.Cut(s.scrub(re.ErrorDescription), maxTokenErr)}
		return accessToken{}, fmt.Errorf("token for app %s: %w", s.clientID, se)
	case err != nil:
		if msg := err.Error(); strings.Contains(msg, s.secret.Reveal()) {
			err = errors.New(s.scrub(msg))
		}
		return accessToken{}, fmt.Errorf("token for app %s from %s: %w", s.clientID, s.url, err)
	}
	var life time.Duration // 0 when the answer had no expires_in: renew every time
	if !tok.Expiry.IsZero() {
		life = max(time.Until(tok.Expiry).Round(time.Second), 0)
	}
	renew := life - tokenMargin
	if life <= 2*tokenMargin {
		renew = life / 2
	}
	return accessToken{value: tok.AccessToken, renewAt: start.Add(renew)}, nil
}

// scrub cuts the client secret out of s.
func (s *tokenSource) scrub(msg string) string {
	if s.secret == "" {
		return msg
	}
	return strings.ReplaceAll(msg, s.secret.Reveal(), "[redacted]")
}
