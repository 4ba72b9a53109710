package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
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
}

// Bot is the Slack surface. Make it with New; it is safe for concurrent use.
// Shutdown waits for its background work.
type Bot struct {
	cfg       Config
	api       *slackgo.Client
	core      *bot.Bot
	log       *slog.Logger
	botUserID string // our own user id, from auth.test: mentions of it are stripped, its messages ignored
	botID     string // our bot id
}

var _ bot.Surface = (*Bot)(nil)

// New checks the bot token with auth.test (learning the bot's own user id)
// and returns the surface. Errors: the Web API unreachable or the token
// refused ("invalid_auth").
func New(ctx context.Context, cfg Config) (*Bot, error) {
	if cfg.API == nil || cfg.Answerer == nil {
		return nil, errors.New("slack: API and Answerer are required")
	}
	if cfg.Lister == nil {
		cfg.Lister = cfg.Answerer
	}
	if cfg.Command == "" {
		cfg.Command = config.DefaultSlashCommand
	}
	if cfg.AnswerTimeout <= 0 {
		cfg.AnswerTimeout = config.DefaultAnswerTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Bot{cfg: cfg, api: cfg.API, log: cfg.Logger.With("surface", "slack")}
	var auth *slackgo.AuthTestResponse
	err := withRetry(ctx, b.log, "auth.test", func() (err error) {
		auth, err = b.api.AuthTestContext(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("slack: auth.test with the bot token: %w", err)
	}
	b.botUserID, b.botID = auth.UserID, auth.BotID
	b.core = bot.New(bot.Config{Answerer: cfg.Answerer, Surface: b, Access: cfg.Access,
		Timeout: cfg.AnswerTimeout, Logger: b.log, Now: cfg.Now, Hooks: cfg.Hooks})
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
