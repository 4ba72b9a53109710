package teams

import (
	"context"
	"fmt"
	"net/http"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/internal/httpretry"
)

// Reply posts r under the question to.TS (POST …/activities/{to.TS}, which
// threads it in channels) when ts is "", else replaces the reply ts (PUT
// …/activities/{ts}), and returns the reply's id. When the connector refuses
// the card (400, or 413 MessageSizeTooBig) the same answer goes out as plain
// text, so a rendering mistake still leaves the user an answer.
func (b *Bot) Reply(ctx context.Context, to bot.Thread, ts string, r bot.Reply) (string, error) {
	a := b.render(to, r)
	id, err := b.post(ctx, to, ts, a)
	if err != nil && len(a.Attachments) > 0 && cardRefused(err) {
		b.log.Warn("teams refused the card; sending text only", "channel", to.Channel, "reply_to", to.TS, "err", err)
		return b.post(ctx, to, ts, plainActivity(a.fallback))
	}
	return id, err
}

// post sends a as a reply under to.TS, or as the new content of reply ts.
func (b *Bot) post(ctx context.Context, to bot.Thread, ts string, a outActivity) (string, error) {
	ref, ok := b.refs.get(to)
	if !ok {
		return "", fmt.Errorf("teams: reply to %s in %s: the conversation reference expired", to.TS, to.Channel)
	}
	a.ReplyToID = to.TS
	if ts != "" {
		a.ID = ts
		if _, err := b.send(ctx, http.MethodPut, activityURL(ref.serviceURL, ref.conversation, ts), marshal(a)); err != nil {
			return "", fmt.Errorf("teams: update reply %s in %s: %w", ts, to.Channel, err)
		}
		return ts, nil
	}
	id, err := b.send(ctx, http.MethodPost, activityURL(ref.serviceURL, ref.conversation, to.TS), marshal(a))
	if err != nil {
		return "", fmt.Errorf("teams: reply to %s in %s: %w", to.TS, to.Channel, err)
	}
	if id == "" {
		return "", fmt.Errorf("teams: reply to %s in %s: the connector returned no activity id", to.TS, to.Channel)
	}
	return id, nil
}

// cardRefused reports the connector errors that mean "this card cannot be
// posted": a bad request or a message too big.
func cardRefused(err error) bool {
	s := httpretry.StatusOf(err)
	return s == http.StatusBadRequest || s == http.StatusRequestEntityTooLarge
}

// Earlier returns nothing: the Bot Framework connector cannot read a Teams
// thread's earlier messages (that takes Microsoft Graph), so Teams
// questions are never marked InThread and are searched as asked.
func (b *Bot) Earlier(ctx context.Context, to bot.Thread, before string) ([]string, error) {
	return nil, nil
}
