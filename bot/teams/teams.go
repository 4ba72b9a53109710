package teams

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

// Config wires the Teams surface.
type Config struct {
	// AppID is the bot's Microsoft App ID: the audience of incoming tokens
	// and the client id of the outgoing one (required).
	AppID string
	// AppPassword is the app's client secret (required).
	AppPassword config.Secret
	// TokenURL is the client-credentials endpoint, e.g.
	// https://login.microsoftonline.com/botframework.com/oauth2/v2.0/token (required).
	TokenURL string
	// OpenIDMetadataURL lists the signing keys' location.
	// [config.DefaultTeamsOpenIDURL]
	OpenIDMetadataURL string
	// Answerer answers questions (required).
	Answerer bot.Answerer
	// Access scopes every search to the sources of its channel or chat.
	Access bot.Access
	// Feedback stores votes; nil leaves the vote buttons out.
	Feedback bot.FeedbackSink
	// Turns keeps the questions answered in channel threads, so that a
	// reply in a thread is a follow-up (bot.FollowUp); nil searches every
	// question as asked.
	Turns TurnStore
	// Lister answers the "where is" message extension. [Answerer]
	Lister bot.Answerer
	// AnswerTimeout bounds the search part of one answer.
	// [config.DefaultAnswerTimeout, 30s]
	AnswerTimeout time.Duration
	// HTTPClient makes the token, key and connector calls. [a client with a 30 s timeout]
	HTTPClient *http.Client
	Logger     *slog.Logger     // [slog.Default()]
	Now        func() time.Time // [time.Now]; also the clock tokens are checked against
	Hooks      bot.Hooks        // metrics callbacks (bot.Config.Hooks)
	// Claims dedupes deliveries across serve replicas (bot.Config.Claims).
	Claims bot.ClaimStore
}

// TurnStore keeps the turns of channel threads (weaviate.Turns).
type TurnStore interface {
	Put(ctx context.Context, t retrieval.Turn) error
	// Earlier returns the turns of a thread (conversation id with its
	// ";messageid="), oldest first.
	Earlier(ctx context.Context, thread string) ([]retrieval.Turn, error)
}

// Bot is the Teams surface. Make it with New; it is safe for concurrent use.
// Shutdown waits for its background work.
type Bot struct {
	cfg    Config
	core   *bot.Bot
	log    *slog.Logger
	keys   *keyCache
	tokens *tokenSource
	refs   *refs
}

var _ bot.Surface = (*Bot)(nil)

// New checks the app's credentials by getting a token (which is then reused
// for the first replies) and returns the surface. Errors: a required field
// missing, the token endpoint unreachable or refusing the credentials.
func New(ctx context.Context, cfg Config) (*Bot, error) {
	if cfg.AppID == "" || cfg.AppPassword == "" || cfg.TokenURL == "" || cfg.Answerer == nil {
		return nil, errors.New("teams: AppID, AppPassword, TokenURL and Answerer are required")
	}
	cfg.Lister = cmp.Or(cfg.Lister, cfg.Answerer)
	cfg.OpenIDMetadataURL = cmp.Or(cfg.OpenIDMetadataURL, config.DefaultTeamsOpenIDURL)
	cfg.AnswerTimeout = cmp.Or(max(cfg.AnswerTimeout, 0), config.DefaultAnswerTimeout)
	cfg.HTTPClient = cmp.Or(cfg.HTTPClient, &http.Client{Timeout: 30 * time.Second})
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger.With("surface", "teams")
	b := &Bot{
		cfg:    cfg,
		log:    log,
		keys:   &keyCache{metadataURL: cfg.OpenIDMetadataURL, client: cfg.HTTPClient, now: cfg.Now, log: log},
		tokens: &tokenSource{url: cfg.TokenURL, clientID: cfg.AppID, secret: cfg.AppPassword, client: cfg.HTTPClient, now: cfg.Now},
		refs:   newRefs(cfg.Now),
	}
	if _, err := b.tokens.token(ctx); err != nil {
		return nil, fmt.Errorf("teams: check the app id and password: %w", err)
	}
	b.core = bot.New(bot.Config{Answerer: cfg.Answerer, Surface: b, Access: cfg.Access,
		Timeout: cfg.AnswerTimeout, Logger: log, Now: cfg.Now, Hooks: cfg.Hooks, Claims: cfg.Claims})
	log.Info("teams bot ready", "app_id", cfg.AppID, "messaging_endpoint", MessagesPath)
	return b, nil
}

// Wait blocks until no answer is in flight or ctx ends (see bot.Bot.Wait).
func (b *Bot) Wait(ctx context.Context) error { return b.core.Wait(ctx) }

// Shutdown stops taking activities and lets in-flight answers finish; when
// ctx ends first they are cancelled. Stop the HTTP server first.
func (b *Bot) Shutdown(ctx context.Context) error { return b.core.Shutdown(ctx) }
