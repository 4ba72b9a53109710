package confluence_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/httpretry"
)

// onePage is a Cloud v2 answer holding page 98391.
const onePage = `{"results":[{"id":"98391","status":"current","title":"Deploy runbook","spaceId":"98306",
 "version":{"number":7,"authorId":"","createdAt":"2024-05-01T10:00:00.000Z"},
 "body":{"storage":{"representation":"storage","value":"<h2>Steps</h2><p>go</p>"}},
 "_links":{"webui":"/spaces/OPS/pages/98391/Deploy+runbook"}}],"_links":{"base":"https://acme.atlassian.net/wiki"}}`

var deployRef = ingest.PageRef{ID: "98391", Title: "Deploy runbook", Path: "OPS/Deploy runbook", Version: "7"}

// failingServer answers the first fails requests with status, header and
// body, then onePage; it counts the requests.
type failingServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
}

func newFailingServer(t *testing.T, fails, status int, retryAfter, body string) *failingServer {
	s := &failingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		n := s.requests
		s.mu.Unlock()
		if n <= fails {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.WriteHeader(status)
			fmt.Fprint(w, strings.ReplaceAll(body, "{auth}", r.Header.Get("Authorization")))
			return
		}
		fmt.Fprint(w, onePage)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *failingServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// fetchOne fetches deployRef through a Cloud client on srv, recording
// waits instead of sleeping and logging into logs.
func fetchOne(t *testing.T, base string, logs *bytes.Buffer) (waits []time.Duration, pages int, err error) {
	t.Helper()
	c, err := confluence.NewClient(confluence.Options{
		BaseURL: base, Flavour: confluence.Cloud, Email: confluencetest.Email, Token: confluencetest.Token, MaxRetries: 2,
		Log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = confluence.NewSource(c, confluence.Scope{Spaces: []string{"OPS"}}).FetchPages(context.Background(), []ingest.PageRef{deployRef},
		func(ingest.Page) error { pages++; return nil })
	return waits, pages, err
}

// TestClientFailures tables the failure modes of a request: what is
// retried and after how long, and what the error says.
func TestClientFailures(t *testing.T) {
	const path = "/wiki/api/v2/pages?body-format=storage&id=98391&limit=1"
	tests := []struct {
		name       string
		fails      int
		status     int
		retryAfter string
		body       string
		wantWaits  []time.Duration // nil: no retry; a zero entry: a backoff of 1s..1.2s
		wantErr    string          // "" when the fetch ends well
		wantReason httpretry.Reason
	}{
		{name: "429 honours Retry-After seconds", fails: 1, status: 429, retryAfter: "3",
			wantWaits: []time.Duration{3 * time.Second}},
		{name: "503 without Retry-After backs off", fails: 1, status: 503, wantWaits: []time.Duration{0}},
		{name: "500 is retried", fails: 1, status: 500, wantWaits: []time.Duration{0}},
		{name: "502 twice then fine", fails: 2, status: 502, wantWaits: []time.Duration{0, 2 * time.Second}},
		{name: "503 outlasting the retries names the page", fails: 9, status: 503, retryAfter: "1",
			body:       `{"message":"Service Unavailable"}`,
			wantWaits:  []time.Duration{time.Second, time.Second},
			wantErr:    `confluence: fetch page 98391 "Deploy runbook": GET ` + path + `: status 503 Service Unavailable: Service Unavailable (Retry-After 1s)`,
			wantReason: "server_error"},
		{name: "429 asking for longer than MaxWait fails at once", fails: 1, status: 429, retryAfter: "3600",
			wantErr:    `confluence: fetch page 98391 "Deploy runbook": GET ` + path + `: status 429 Too Many Requests (Retry-After 1h0m0s)`,
			wantReason: "rate_limited"},
		{name: "404 is not retried and names the page", fails: 1, status: 404,
			body:       `{"errors":[{"status":404,"code":"NOT_FOUND","title":"Not Found","detail":"page 98391 is gone"}]}`,
			wantErr:    `confluence: fetch page 98391 "Deploy runbook": GET ` + path + `: status 404 Not Found: Not Found page 98391 is gone`,
			wantReason: "not_found"},
		{name: "401 is not retried", fails: 1, status: 401, body: "Unauthorized; scope does not match",
			wantErr:    `confluence: fetch page 98391 "Deploy runbook": GET ` + path + `: status 401 Unauthorized: Unauthorized; scope does not match`,
			wantReason: "unauthorized"},
		{name: "400 is not retried", fails: 1, status: 400, body: `{"statusCode":400,"message":"limit must be 1..250"}`,
			wantErr:    `confluence: fetch page 98391 "Deploy runbook": GET ` + path + `: status 400 Bad Request: limit must be 1..250`,
			wantReason: "client_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFailingServer(t, tt.fails, tt.status, tt.retryAfter, tt.body)
			var logs bytes.Buffer
			waits, pages, err := fetchOne(t, srv.URL+"/wiki", &logs)
			if len(waits) != len(tt.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tt.wantWaits)
			}
			for i, w := range tt.wantWaits {
				lo, hi := w, w
				if w == 0 {
					lo, hi = time.Second, 1200*time.Millisecond
				} else if i > 0 && tt.retryAfter == "" {
					hi = w + w/5 // backoff jitter
				}
				if waits[i] < lo || waits[i] > hi {
					t.Errorf("wait %d = %v, want %v..%v", i, waits[i], lo, hi)
				}
			}
			if tt.wantErr == "" {
				if err != nil || pages != 1 {
					t.Fatalf("fetch: %d pages, err %v; want the page", pages, err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error:\n%v\nwant:\n%s", err, tt.wantErr)
			}
			var se *httpretry.StatusError
			if !errors.As(err, &se) || se.Reason != tt.wantReason {
				t.Errorf("error %T, want a *httpretry.StatusError with reason %q", err, tt.wantReason)
			}
			if got, want := confluence.Retryable(err), tt.status == 429 || tt.status >= 500; got != want {
				t.Errorf("Retryable(%v) = %v, want %v", err, got, want)
			}
		})
	}
}

// TestSecretsNeverLeak fails requests in every way a client can see and
// checks that neither the token nor the basic-auth value appears in the
// error, the log lines or a formatted client, even when the server echoes
// the Authorization header back.
func TestSecretsNeverLeak(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte(confluencetest.Email + ":" + confluencetest.Token))
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name string
		base func(t *testing.T) string
	}{
		{"401 echoing the header", func(t *testing.T) string {
			return newFailingServer(t, 9, 401, "", `{"message":"bad credentials: {auth}"}`).URL + "/wiki"
		}},
		{"500 echoing the header until retries run out", func(t *testing.T) string {
			return newFailingServer(t, 9, 500, "", `proxy error for request with Authorization: {auth}`).URL + "/wiki"
		}},
		{"connection refused", func(*testing.T) string { return closed.URL + "/wiki" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			_, _, err := fetchOne(t, tt.base(t), &logs)
			if err == nil {
				t.Fatal("fetch succeeded, want an error")
			}
			c, _ := confluence.NewClient(confluence.Options{BaseURL: "https://acme.atlassian.net/wiki", Flavour: confluence.Cloud,
				Email: confluencetest.Email, Token: confluencetest.Token})
			opt := confluence.Options{BaseURL: "https://acme.atlassian.net/wiki", Flavour: confluence.Cloud, Email: confluencetest.Email, Token: confluencetest.Token}
			var logged bytes.Buffer
			slog.New(slog.NewJSONHandler(&logged, nil)).Info("configured", "client", c, "options", opt)
			for what, text := range map[string]string{
				"error": err.Error(), "logs": logs.String(), "%+v of the client": fmt.Sprintf("%+v", c), "%#v of the client": fmt.Sprintf("%#v", c),
				"%+v of the options": fmt.Sprintf("%+v", opt), "%#v of the options": fmt.Sprintf("%#v", opt), "a log line": logged.String(),
			} {
				if strings.Contains(text, confluencetest.Token) || strings.Contains(text, basic) {
					t.Errorf("%s holds the secret:\n%s", what, text)
				}
			}
		})
	}
}

// TestNextLinkStaysOnSite follows a next link that names another host: the
// client asks its own site for that path, so the credentials go nowhere else.
func TestNextLinkStaysOnSite(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI())
		mu.Unlock()
		if r.URL.Query().Get("cursor") == "" {
			fmt.Fprint(w, `{"results":[{"id":"98391","version":{"number":7}}],"_links":{"next":"https://evil.example/wiki/api/v2/pages?cursor=2"}}`)
			return
		}
		fmt.Fprint(w, onePage)
	}))
	defer srv.Close()
	var logs bytes.Buffer
	_, pages, err := fetchOneBatch(t, srv.URL+"/wiki", &logs)
	if err != nil || pages != 2 {
		t.Fatalf("fetch: %d pages, err %v", pages, err)
	}
	if len(seen) != 2 || seen[1] != "/wiki/api/v2/pages?cursor=2" {
		t.Errorf("requests %v, want the second on this server at /wiki/api/v2/pages?cursor=2", seen)
	}
}

// fetchOneBatch asks for two pages in one batch (so that a next link is
// followed).
func fetchOneBatch(t *testing.T, base string, logs *bytes.Buffer) ([]time.Duration, int, error) {
	t.Helper()
	c, err := confluence.NewClient(confluence.Options{BaseURL: base, Flavour: confluence.Cloud, Email: "e", Token: "t",
		Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	refs := []ingest.PageRef{deployRef, {ID: "98392", Title: "Database failover", Path: "OPS/Database failover", Version: "1"}}
	err = confluence.NewSource(c, confluence.Scope{Spaces: []string{"OPS"}}).FetchPages(context.Background(), refs,
		func(ingest.Page) error { pages++; return nil })
	return nil, pages, err
}
