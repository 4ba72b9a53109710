package slack_test

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval"
	slackgo "github.com/slack-go/slack"
)

// noAnswer is an Answerer the rejected requests must never reach.
type noAnswer struct{ t *testing.T }

func (a noAnswer) Ask(context.Context, retrieval.Request) (retrieval.Answer, error) {
	a.t.Error("a rejected request reached the answerer")
	return retrieval.Answer{}, errors.New("unreachable")
}

// watchedBody is a request body that records whether anyone read it.
type watchedBody struct {
	io.Reader
	mu   sync.Mutex
	read int
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	b.mu.Lock()
	b.read += n
	b.mu.Unlock()
	return n, err
}
func (b *watchedBody) Close() error { return nil }

// TestJudgeBeforeReading: a request without both signature headers, or
// with a timestamp more than 5 minutes off, gets 401 before a byte of its
// body is read; one announcing more than 1 MiB gets 413 unread; each
// refusal is reported with its route and reason.
func TestJudgeBeforeReading(t *testing.T) {
	fake := slackfake.New(t)
	var mu sync.Mutex
	var rejected []string
	now := time.Unix(1_800_000_000, 0)
	b, err := slack.New(context.Background(), slack.Config{
		API:           slackgo.New(slackfake.BotToken, slackgo.OptionAPIURL(fake.APIURL())),
		SigningSecret: slackfake.SigningSecret, Answerer: noAnswer{t},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return now },
		OnReject: func(route, reason string) { mu.Lock(); rejected = append(rejected, route+" "+reason); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	b.Routes(mux)
	ts := strconv.FormatInt(now.Unix(), 10)
	tests := []struct {
		name    string
		headers map[string]string
		length  int64 // Content-Length announced; 0 means the body's
		code    int
		reason  string
	}{
		{"no headers", nil, 0, http.StatusUnauthorized, slack.RejectMissingSignature},
		{"no signature", map[string]string{"X-Slack-Request-Timestamp": ts}, 0, http.StatusUnauthorized, slack.RejectMissingSignature},
		{"no timestamp", map[string]string{"X-Slack-Signature": "v0=00"}, 0, http.StatusUnauthorized, slack.RejectMissingSignature},
		{"stale timestamp", map[string]string{"X-Slack-Signature": "v0=00", "X-Slack-Request-Timestamp": strconv.FormatInt(now.Unix()-301, 10)}, 0,
			http.StatusUnauthorized, slack.RejectStaleTimestamp},
		{"future timestamp", map[string]string{"X-Slack-Signature": "v0=00", "X-Slack-Request-Timestamp": strconv.FormatInt(now.Unix()+301, 10)}, 0,
			http.StatusUnauthorized, slack.RejectStaleTimestamp},
		{"timestamp not a number", map[string]string{"X-Slack-Signature": "v0=00", "X-Slack-Request-Timestamp": "yesterday"}, 0,
			http.StatusUnauthorized, slack.RejectStaleTimestamp},
		{"over 1 MiB announced", map[string]string{"X-Slack-Signature": "v0=00", "X-Slack-Request-Timestamp": ts}, 2 << 20,
			http.StatusRequestEntityTooLarge, slack.RejectTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			rejected = nil
			mu.Unlock()
			body := &watchedBody{Reader: strings.NewReader(`{"type":"url_verification","challenge":"abc"}`)}
			req := httptest.NewRequest(http.MethodPost, slack.EventsPath, nil)
			req.Body = body
			req.ContentLength = cmp.Or(tc.length, 46)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("HTTP %d, want %d", rec.Code, tc.code)
			}
			if body.read != 0 {
				t.Errorf("%d body bytes read before the refusal, want none", body.read)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := slack.EventsPath + " " + tc.reason; len(rejected) != 1 || rejected[0] != want {
				t.Errorf("rejections %q, want [%q]", rejected, want)
			}
		})
	}
	t.Run("bad signature is judged after reading", func(t *testing.T) {
		mu.Lock()
		rejected = nil
		mu.Unlock()
		req := slackfake.SignedRequest("http://x"+slack.EventsPath, "application/json", "not-the-secret", now, []byte(`{"type":"url_verification","challenge":"abc"}`))
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		mu.Lock()
		defer mu.Unlock()
		if rec.Code != http.StatusUnauthorized || len(rejected) != 1 || rejected[0] != slack.EventsPath+" "+slack.RejectBadSignature {
			t.Errorf("HTTP %d, rejections %q; want 401 and one %s", rec.Code, rejected, slack.RejectBadSignature)
		}
	})
}
