package teams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// What an incoming token must say (Bot Framework REST API docs,
// 'Authentication with the Bot Connector API', "Connector to bot"): issued by the Bot Framework, signed with RS256/384/512,
// valid now give or take clockSkew.
const (
	botFrameworkIssuer = "https://api.botframework.com"
	clockSkew          = 5 * time.Minute
)

var signingAlgs = []string{"RS256", "RS384", "RS512"}

// tokenClaims are the claims of a channel -> bot token.
type tokenClaims struct {
	jwt.RegisteredClaims
	// ServiceURL is the connector the token vouches for; the activity's
	// serviceUrl must equal it, or a valid token could send our replies
	// (with our outgoing token) anywhere.
	ServiceURL string `json:"serviceurl"`
}

// An authError is why a request was refused: Status 401 (the caller's
// token or activity) or 503 (the signing keys could not be fetched).
type authError struct {
	Status int
	Reason string // for the log; never holds the token
	Err    error
}

func (e *authError) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *authError) Unwrap() error { return e.Err }

func unauthorized(reason string, err error) *authError {
	return &authError{Status: http.StatusUnauthorized, Reason: reason, Err: err}
}

// authenticate checks the Authorization header of an activity and the
// activity itself (body), and returns the activity. Every failure is an
// *authError; nothing about the request is trusted before it returns nil.
func (b *Bot) authenticate(ctx context.Context, h http.Header, body []byte) (*Activity, error) {
	raw, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	if !ok || strings.TrimSpace(raw) == "" {
		return nil, unauthorized("no Bearer token", nil)
	}
	var snap *keySnapshot
	var claims tokenClaims
	token, err := jwt.ParseWithClaims(strings.TrimSpace(raw), &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		s, err := b.keys.lookup(ctx, kid)
		if err != nil {
			return nil, err
		}
		snap = s
		return s.keyfunc.KeyfuncCtx(ctx)(t)
	},
		jwt.WithValidMethods(signingAlgs),
		jwt.WithIssuer(botFrameworkIssuer),
		jwt.WithAudience(b.cfg.AppID),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(clockSkew),
		jwt.WithTimeFunc(b.cfg.Now),
	)
	if err != nil {
		if errors.Is(err, errKeysUnavailable) { // our outage, not the caller's fault
			return nil, &authError{Status: http.StatusServiceUnavailable, Reason: "signing keys unavailable", Err: err}
		}
		return nil, unauthorized("invalid token", err)
	}
	var a Activity
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, &authError{Status: http.StatusBadRequest, Reason: "activity is not JSON", Err: err}
	}
	kid, _ := token.Header["kid"].(string)
	if !slices.Contains(snap.endorsements[kid], a.ChannelID) {
		return nil, unauthorized("signing key not endorsed for the activity's channel",
			fmt.Errorf("channelId %q, key %q endorses %q", a.ChannelID, kid, snap.endorsements[kid]))
	}
	if claims.ServiceURL == "" || strings.TrimSuffix(claims.ServiceURL, "/") != strings.TrimSuffix(a.ServiceURL, "/") {
		return nil, unauthorized("activity serviceUrl differs from the token's serviceurl claim",
			fmt.Errorf("serviceUrl %q, claim %q", a.ServiceURL, claims.ServiceURL))
	}
	return &a, nil
}
