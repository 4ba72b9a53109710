// Package teamsfake is a local Bot Framework for tests, speaking the
// documented wire format (Bot Framework REST API docs: the Connector API
// reference and 'Authentication with the Bot Connector API') to the real bot/teams
// client: the OpenID metadata and JWKS (RSA keys with endorsements) and
// tokens signed with them, the client-credentials token endpoint, and a
// connector that stores replies and updates per conversation, checks the
// bearer tokens it issued, refuses activities over 40 KB (UTF-16) with 413
// MessageSizeTooBig and answers injected 429s with Retry-After. It also
// builds activities as Teams sends them.
package teamsfake

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// Identities of the fake bot.
const (
	AppID       = "8e6f0a52-1c9d-4b8a-9d55-3f1c2d4e5a6b"
	AppPassword = "Xy8Q~fakeTEAMSpassword.s3cr3t" // the client secret the token endpoint accepts
	BotID       = "28:" + AppID                   // the bot's id in activities (recipient.id)
	BotName     = "RagBot"
	Tenant      = "botframework.com"
	Issuer      = "https://api.botframework.com"
	// KeyID is the kid of the key that signs tokens by default; it is
	// endorsed for "msteams" and "webchat".
	KeyID = "fake-key-1"
)

// Options configure a Server.
type Options struct {
	// Now is the fake's clock: token lifetimes and default JWT times.
	// [time.Now]
	Now func() time.Time
	// TokenLifetime is the expires_in of issued tokens. [3599 s]
	TokenLifetime time.Duration
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	URL string // http://127.0.0.1:port

	srv  *httptest.Server
	opts Options

	mu          sync.Mutex
	keys        map[string]*key // by kid
	keyOrder    []string
	metaFetches int
	keyFetches  int
	tokens      map[string]time.Time // issued access token -> expiry
	tokenCalls  []TokenCall
	tokenFails  []tokenFail
	seq         int
	msgs        []*Message
	calls       []Call
	limits      map[string][]int     // HTTP method -> Retry-After seconds for the next calls
	fails       map[string][]failure // HTTP method -> failures for the next calls
}

// A Message is one bot message in a conversation.
type Message struct {
	Conversation string          // the conversation id, as in the URL (unescaped)
	ID           string          // assigned by the fake
	ReplyToID    string          // the activity it replies to (the URL's activity id)
	Text         string          // text of the latest version
	TextFormat   string          // "plain", "markdown" or ""
	Summary      string          // notification text of a card
	Attachments  json.RawMessage // JSON array, or nil
	Body         json.RawMessage // the latest body as posted
	First        json.RawMessage // the body as first posted
	Updates      int             // PUTs on it
}

// A Call is one connector request.
type Call struct {
	Method       string // POST (reply), PUT (update)
	Path         string // the escaped path as sent
	Conversation string // unescaped
	ActivityID   string // unescaped; "" for a new conversation message
	Token        string // the bearer token
	Status       int    // HTTP status answered
	Size         int    // body size in UTF-16 bytes
	At           time.Time
}

// A TokenCall is one request to the token endpoint.
type TokenCall struct {
	At     time.Time
	Status int
}

type failure struct {
	status int
	code   string
}

type tokenFail struct {
	status     int
	code, desc string
}

// New starts a fake Bot Framework that stops when the test ends, with one
// published key (KeyID).
func New(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TokenLifetime == 0 {
		o.TokenLifetime = 3599 * time.Second
	}
	s := &Server{opts: o, keys: map[string]*key{}, tokens: map[string]time.Time{},
		limits: map[string][]int{}, fails: map[string][]failure{}}
	s.AddKey(KeyID, true, "msteams", "webchat")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/.well-known/openidconfiguration", s.serveMetadata)
	mux.HandleFunc("GET /v1/.well-known/keys", s.serveKeys)
	mux.HandleFunc("POST /{tenant}/oauth2/v2.0/token", s.serveToken)
	mux.HandleFunc("POST /emea/v3/conversations/{conv}/activities", s.serveActivity)
	mux.HandleFunc("POST /emea/v3/conversations/{conv}/activities/{id}", s.serveActivity)
	mux.HandleFunc("PUT /emea/v3/conversations/{conv}/activities/{id}", s.serveActivity)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// MetadataURL is the OpenID metadata URL to configure (teams.openid_metadata_url).
func (s *Server) MetadataURL() string { return s.URL + "/v1/.well-known/openidconfiguration" }

// TokenURL is the client-credentials endpoint to configure (teams.token_url).
func (s *Server) TokenURL() string { return s.URL + "/" + Tenant + "/oauth2/v2.0/token" }

// ServiceURL is the connector's serviceUrl, with a path and a trailing slash
// like Teams' regional ones ("https://smba.trafficmanager.net/emea/").
func (s *Server) ServiceURL() string { return s.URL + "/emea/" }

// Fetches returns how often the metadata and the key set were fetched.
func (s *Server) Fetches() (metadata, keys int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metaFetches, s.keyFetches
}

// TokenCalls returns the token endpoint's requests, in order.
func (s *Server) TokenCalls() []TokenCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tokenCalls)
}

// FailToken makes the next token request fail with status and an AAD error.
func (s *Server) FailToken(status int, code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenFails = append(s.tokenFails, tokenFail{status, code, description})
}

// RateLimit makes the next connector call with the HTTP method answer 429
// with Retry-After seconds; calls queue up.
func (s *Server) RateLimit(method string, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[method] = append(s.limits[method], retryAfter)
}

// Fail makes the next connector call with the HTTP method answer status
// with {"error":{"code":code}}.
func (s *Server) Fail(method string, status int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails[method] = append(s.fails[method], failure{status, code})
}

// Messages returns copies of the bot's messages in conversation, in order.
func (s *Server) Messages(conversation string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.msgs {
		if m.Conversation == conversation {
			out = append(out, *m)
		}
	}
	return out
}

// Replies returns the bot's replies to activity id in conversation.
func (s *Server) Replies(conversation, id string) []Message {
	var out []Message
	for _, m := range s.Messages(conversation) {
		if m.ReplyToID == id {
			out = append(out, m)
		}
	}
	return out
}

// Calls returns the connector calls with the HTTP method ("" for all), in order.
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (s *Server) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.metaFetches++
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                Issuer,
		"authorization_endpoint":                "https://invalid.botframework.com/v1/auth",
		"jwks_uri":                              s.URL + "/v1/.well-known/keys",
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"private_key_jwt"},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// newID returns a random hex id of n bytes.
func newID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// nextActivityID returns an id like Teams' message ids (milliseconds).
// Callers hold mu.
func (s *Server) nextActivityID() string {
	s.seq++
	return fmt.Sprintf("17123456%05d", s.seq)
}
