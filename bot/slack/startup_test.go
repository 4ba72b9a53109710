package slack_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// A Web API that fails transiently at start is retried with backoff (and the
// retries are logged); a refused token is not retried.
func TestNewRetriesAuthTestAtStart(t *testing.T) {
	asker := chattest.Index(t, weaviatetest.URL(t), nil)
	fake := slackfake.New(t)
	api := slackgo.New(slackfake.BotToken, slackgo.OptionAPIURL(fake.APIURL()))
	logs := &chattest.SyncBuffer{}
	cfg := slack.Config{API: api, Answerer: asker, Logger: slog.New(slog.NewTextHandler(logs, nil))}

	fake.Fail("auth.test", "service_unavailable")
	fake.Fail("auth.test", "internal_error")
	start := time.Now()
	if _, err := slack.New(context.Background(), cfg); err != nil {
		t.Fatalf("New after two transient failures: %v", err)
	}
	if n := len(fake.Calls("auth.test")); n != 3 {
		t.Errorf("auth.test calls = %d, want 3", n)
	}
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("New took %v: want the backoff waits (about 1 s + 2 s)", d)
	}
	if got := logs.String(); strings.Count(got, "slack Web API unavailable at start; retrying") != 2 {
		t.Errorf("want two retry log lines, got:\n%s", got)
	}

	fake.Fail("auth.test", "invalid_auth")
	before := len(fake.Calls("auth.test"))
	_, err := slack.New(context.Background(), cfg)
	var se slackgo.SlackErrorResponse
	if !errors.As(err, &se) || se.Err != "invalid_auth" {
		t.Fatalf("New with a refused token: err = %v, want invalid_auth", err)
	}
	if n := len(fake.Calls("auth.test")) - before; n != 1 {
		t.Errorf("invalid_auth: %d auth.test calls, want 1 (no retry)", n)
	}
}
