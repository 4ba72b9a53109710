package slack

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	slackgo "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// RunSocketMode receives events over Socket Mode until ctx ends
// (api.slack.com/apis/connections/socket). Config.API must carry the
// app-level token (slackgo.OptionAppLevelToken). slack-go opens the
// connection with apps.connections.open, answers pings, and reconnects with
// a fresh URL on a "disconnect" envelope (Slack sends one before it rotates
// the connection), on a read error and when no ping came for 30 s, backing
// off up to 5 minutes while Slack is unreachable. Every envelope is acked
// (envelope_id) right after it is handed to the bot. It returns nil when ctx
// ends, and an error only when Slack refuses the token.
func (b *Bot) RunSocketMode(ctx context.Context) error {
	client := socketmode.New(b.api, socketmode.OptionLog(slogAdapter{b.log}))
	runErr := make(chan error, 1)
	go func() { runErr <- client.RunContext(ctx) }() // exits when ctx ends or the token is refused
	defer b.socketUp.Store(false)
	for {
		select {
		case err := <-runErr:
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("slack socket mode: %w", err)
		case evt := <-client.Events:
			b.socketEvent(ctx, client, evt)
		}
	}
}

// SocketConnected reports whether RunSocketMode has a Socket Mode
// connection open right now: false before the first connection, while
// slack-go reconnects, and after RunSocketMode returned.
func (b *Bot) SocketConnected() bool { return b.socketUp.Load() }

func (b *Bot) socketEvent(ctx context.Context, client *socketmode.Client, evt socketmode.Event) {
	ack := func(payload any) {
		if evt.Request == nil {
			return
		}
		if err := client.AckCtx(ctx, evt.Request.EnvelopeID, payload); err != nil && ctx.Err() == nil {
			b.log.Warn("socket mode ack failed", "envelope_id", evt.Request.EnvelopeID, "err", err)
		}
	}
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		b.socketUp.Store(false) // slack-go connects again after every drop
		b.log.Debug("socket mode connecting")
	case socketmode.EventTypeConnected:
		b.socketUp.Store(true)
		if c, ok := evt.Data.(*socketmode.ConnectedEvent); ok {
			b.log.Info("socket mode connected", "connection", c.ConnectionCount)
		}
	case socketmode.EventTypeConnectionError:
		b.socketUp.Store(false)
		b.log.Warn("socket mode connection failed; retrying", "err", evt.Data)
	case socketmode.EventTypeInvalidAuth:
		b.log.Error("socket mode: Slack refused the app-level token")
	case socketmode.EventTypeIncomingError, socketmode.EventTypeErrorBadMessage, socketmode.EventTypeErrorWriteFailed:
		b.log.Warn("socket mode error", "type", evt.Type, "err", evt.Data)
	case socketmode.EventTypeEventsAPI:
		if ev, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
			if cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent); ok {
				if evt.Request != nil && evt.Request.RetryAttempt > 0 {
					b.log.Info("slack retried an event", "event_id", cb.EventID, "retry_num", evt.Request.RetryAttempt, "reason", evt.Request.RetryReason)
				}
				b.dispatch(cb.EventID, ev.InnerEvent)
			}
		}
		ack(nil)
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slackgo.SlashCommand)
		if !ok {
			ack(nil)
			return
		}
		ack(b.command(cmd))
	case socketmode.EventTypeInteractive:
		if cb, ok := evt.Data.(slackgo.InteractionCallback); ok {
			b.interact(cb)
		}
		ack(nil)
	default:
		b.log.Debug("socket mode event", "type", evt.Type)
	}
}

// slogAdapter lets slack-go's socketmode log through slog at debug level.
type slogAdapter struct{ log *slog.Logger }

func (a slogAdapter) Output(_ int, s string) error {
	a.log.Debug("socketmode: " + strings.TrimSpace(s))
	return nil
}
