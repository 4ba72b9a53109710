// Package slackfake is a local Slack for tests, speaking the documented wire
// format (Slack API docs: 'Verifying requests from Slack', 'The Events API',
// 'Using Socket Mode', 'chat.postMessage') to the real slack-go client: the Web API
// methods ragbot calls (auth.test, chat.postMessage, chat.update,
// conversations.replies, apps.connections.open) with Slack's token checks,
// ok:false errors and Block Kit limits, response_url endpoints, injected 429s
// with Retry-After, and a Socket Mode WebSocket (hello, envelopes, acks,
// disconnect). It also signs requests and builds event payloads as Slack
// sends them.
package slackfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Identities of the fake workspace.
const (
	BotToken  = "xoxb-0000-1111-fakebottoken"
	AppToken  = "xapp-1-A0001-2222-fakeapptoken" // gitleaks:allow (fake)
	BotUserID = "U0BOT"
	BotID     = "B0BOT"
	TeamID    = "T0001"
	AppID     = "A0001"
)

// A Message is one message in the fake workspace.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // "" for a top-level message
	User     string
	BotID    string // set on messages the bot posted
	Text     string
	Blocks   json.RawMessage // as posted: a JSON array, or nil
	Updates  int             // chat.update calls on it
}

// A Call is one Web API request.
type Call struct {
	Method string
	At     time.Time
	Status int        // HTTP status answered
	Error  string     // the ok:false error, "" when ok
	Form   url.Values // the request's form (JSON bodies are flattened to strings)
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	URL string // http://127.0.0.1:port

	srv *httptest.Server

	mu        sync.Mutex
	seq       int
	msgs      []*Message
	calls     []Call
	responses map[string][]json.RawMessage
	limits    map[string][]int    // method -> Retry-After seconds for the next calls
	fails     map[string][]string // method -> ok:false errors for the next calls
	socket    socketState
}

// New starts a fake Slack that stops when the test ends.
func New(t testing.TB) *Server {
	s := Start()
	t.Cleanup(s.Close)
	return s
}

// Start starts a fake Slack on a loopback port outside a test (the load
// generator, tools/loadtest); Close stops it.
func Start() *Server {
	s := &Server{responses: map[string][]json.RawMessage{}, limits: map[string][]int{}, fails: map[string][]string{}}
	s.socket.init()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/{method}", s.serveAPI)
	mux.HandleFunc("POST /response/{id}", s.serveResponse)
	mux.HandleFunc("GET /socket", s.serveSocket)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close closes the Socket Mode connections and stops the server.
func (s *Server) Close() {
	s.socket.closeAll()
	s.srv.Close()
}

// APIURL is the base URL to give slack.OptionAPIURL (with its trailing slash).
func (s *Server) APIURL() string { return s.URL + "/api/" }

// ResponseURL returns a response_url whose posts are kept under id.
func (s *Server) ResponseURL(id string) string { return s.URL + "/response/" + id }

// RateLimit makes the next call of method answer HTTP 429 with Retry-After
// seconds; calls queue up.
func (s *Server) RateLimit(method string, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits[method] = append(s.limits[method], retryAfter)
}

// Fail makes the next call of method answer {"ok":false,"error":code}.
func (s *Server) Fail(method, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails[method] = append(s.fails[method], code)
}

// AddMessage stores a message as if a user had posted it and returns its ts
// (m.TS, or a new one when empty).
func (s *Server) AddMessage(m Message) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.TS == "" {
		m.TS = s.nextTS()
	}
	s.msgs = append(s.msgs, &m)
	return m.TS
}

// Messages returns copies of the messages of channel in posting order.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, m := range s.msgs {
		if m.Channel == channel {
			out = append(out, *m)
		}
	}
	return out
}

// Replies returns the replies in the thread under ts (not the root).
func (s *Server) Replies(channel, ts string) []Message {
	var out []Message
	for _, m := range s.Messages(channel) {
		if m.ThreadTS == ts && m.TS != ts {
			out = append(out, m)
		}
	}
	return out
}

// Calls returns the Web API calls of method ("" for all), in order.
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

// Responses returns the JSON bodies posted to ResponseURL(id), in order.
func (s *Server) Responses(id string) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.responses[id])
}

// nextTS returns a new message ts, "<seconds>.<6 digits>" like Slack's, and
// increasing. Callers hold mu.
func (s *Server) nextTS() string {
	s.seq++
	return fmt.Sprintf("%d.%06d", 1712345600+s.seq, s.seq%1000000)
}

func (s *Server) serveResponse(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "invalid_payload", http.StatusBadRequest)
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	if d := s.limits["response_url"]; len(d) > 0 {
		s.limits["response_url"] = d[1:]
		s.calls = append(s.calls, Call{Method: "response_url", At: time.Now(), Status: http.StatusTooManyRequests})
		s.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(d[0]))
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	s.responses[id] = append(s.responses[id], body)
	s.calls = append(s.calls, Call{Method: "response_url", At: time.Now(), Status: http.StatusOK})
	s.mu.Unlock()
	_, _ = w.Write([]byte("ok"))
}
