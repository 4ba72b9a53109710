package slack

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/httpretry"
)

// Config wires the Slack surface.
type Config struct {
	// API is the Web API client made with the bot token (xoxb-), and for
	// Socket Mode slackgo.OptionAppLevelToken (xapp-). Tests point it at a
	// local server with slackgo.OptionAPIURL.
	API *slackgo.Client
	// SigningSecret verifies HTTP requests (Routes); unused in Socket Mode.
	SigningSecret string
	// Answerer answers mentions and direct messages (required).
	Answerer bot.Answerer
	// Lister answers /where-is; it may return more snippets than Answerer.
	// [Answerer]
	Lister bot.Answerer
	// Access scopes every search to the sources of its channel.
	Access bot.Access
	// Feedback stores votes; nil turns the buttons off.
	Feedback bot.FeedbackSink
	// Command is the slash command answered with a list.
	// [config.DefaultSlashCommand, "/where-is"]
	Command string
	// AnswerTimeout bounds the search part of one answer.
	// [config.DefaultAnswerTimeout, 30s]
	AnswerTimeout time.Duration
	// HTTPClient posts to response_url. [a client with a 15 s timeout]
	HTTPClient *http.Client
	Logger     *slog.Logger     // [slog.Default()]
	Now        func() time.Time // [time.Now]
	Hooks      bot.Hooks        // metrics callbacks (bot.Config.Hooks)
	// Claims dedupes deliveries across serve replicas (bot.Config.Claims).
	Claims bot.ClaimStore
	// OnReject, when set, is told about each HTTP request refused before
	// it reached the bot: its route (EventsPath, ...) and why (Reject*).
	OnReject func(route, reason string)
}

// Bot is the Slack surface. Make it with New; it is safe for concurrent use.
// Shutdown waits for its background work.
type Bot struct {
	cfg       Config
	api       *slackgo.Client
	core      *bot.Bot
	log       *slog.Logger
	botUserID string      // our own user id, from auth.test: mentions of it are stripped, its messages ignored
	botID     string      // our bot id
	socketUp  atomic.Bool // a Socket Mode connection is open (RunSocketMode)
}

var _ bot.Surface = (*Bot)(nil)

// New checks the bot token with auth.test (learning the bot's own user id)
// and returns the surface. While the Web API is unreachable or answers a
// transient failure (see startRetry) auth.test is tried again, with
// exponential backoff, for about a minute and a half. Errors: the Web API
// still unreachable after that, or the token refused ("invalid_auth", not
// retried).
func New(ctx context.Context, cfg Config) (*Bot, error) {
	if cfg.API == nil || cfg.Answerer == nil {
		return nil, errors.New("slack: API and Answerer are required")
	}
	cfg.Lister = cmp.Or(cfg.Lister, cfg.Answerer)
	cfg.Command = cmp.Or(cfg.Command, config.DefaultSlashCommand)
	cfg.AnswerTimeout = cmp.Or(max(cfg.AnswerTimeout, 0), config.DefaultAnswerTimeout)
	cfg.HTTPClient = cmp.Or(cfg.HTTPClient, &http.Client{Timeout: 15 * time.Second})
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bot{cfg: cfg, api: cfg.API, log: cfg.Logger.With("surface", "slack")}
	var auth *slackgo.AuthTestResponse
	start := startRetry
	start.OnRetry = func(err error, wait time.Duration, retry int) {
		b.log.Warn("slack Web API unavailable at start; retrying", "method", "auth.test", "err", err, "wait", wait, "attempt", retry, "of", start.MaxRetries)
	}
	err := start.Do(ctx, func(ctx context.Context) error {
		return withRetry(ctx, b.log, "auth.test", func() (err error) {
			auth, err = b.api.AuthTestContext(ctx)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("slack: auth.test with the bot token: %w", err)
	}
	b.botUserID, b.botID = auth.UserID, auth.BotID
	b.core = bot.New(bot.Config{Answerer: cfg.Answerer, Surface: b, Access: cfg.Access,
		Timeout: cfg.AnswerTimeout, Logger: b.log, Now: cfg.Now, Hooks: cfg.Hooks, Claims: cfg.Claims})
	b.log.Info("slack bot ready", "bot_user_id", b.botUserID, "team", auth.Team)
	return b, nil
}

// BotUserID returns the bot's own user id.
func (b *Bot) BotUserID() string { return b.botUserID }

// Wait blocks until no answer is in flight or ctx ends (for tests and
// benchmarks; see bot.Bot.Wait).
func (b *Bot) Wait(ctx context.Context) error { return b.core.Wait(ctx) }

// Shutdown stops taking events and lets in-flight answers finish; when ctx
// ends first they are cancelled. Stop the transports (HTTP server, Socket
// Mode) first.
func (b *Bot) Shutdown(ctx context.Context) error { return b.core.Shutdown(ctx) }

// startRetry is the policy of New's auth.test: a process that starts while
// Slack (or the network path to it) is briefly down waits for it instead of
// exiting. 6 retries after 1, 2, 4, 8, 16 and 30 s (plus or minus 20%)
// bound the wait to about 61 s, plus the attempts themselves. Retried:
// network errors, HTTP 5xx, and the Web API's transient error codes
// (api.slack.com/web, "Errors": internal_error, fatal_error,
// service_unavailable, request_timeout); not retried: anything else, such as
// invalid_auth.
var startRetry = httpretry.Policy{
	MaxRetries: 6,
	Retryable:  transientAtStart,
	ServerWait: func(error) time.Duration { return 0 },
	Backoff:    httpretry.Exponential(time.Second, 30*time.Second, 0.2),
}

func transientAtStart(err error) bool {
	var se slackgo.SlackErrorResponse
	if errors.As(err, &se) {
		return slices.Contains([]string{"internal_error", "fatal_error", "service_unavailable", "request_timeout"}, se.Err)
	}
	var sc slackgo.StatusCodeError
	if errors.As(err, &sc) {
		return sc.Code >= 500
	}
	var rl *slackgo.RateLimitedError // withRetry gave up on it
	return !errors.As(err, &rl) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}
