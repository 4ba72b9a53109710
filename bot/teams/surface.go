package teams

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/internal/httpretry"
	"github.com/ragbot/ragbot/retrieval"
)

// Reply posts r under the question to.TS (POST …/activities/{to.TS}, which
// threads it in channels) when ts is "", else replaces the reply ts (PUT
// …/activities/{ts}), and returns the reply's id. When the connector refuses
// the card (400, or 413 MessageSizeTooBig) the same answer goes out as plain
// text, so a rendering mistake still leaves the user an answer. A posted
// answer in a channel thread is remembered for the thread's follow-ups
// (Earlier).
func (b *Bot) Reply(ctx context.Context, to bot.Thread, ts string, r bot.Reply) (string, error) {
	a := b.render(to, r)
	id, err := b.post(ctx, to, ts, a)
	if err != nil && len(a.Attachments) > 0 && cardRefused(err) {
		b.log.Warn("teams refused the card; sending text only", "channel", to.Channel, "reply_to", to.TS, "err", err)
		id, err = b.post(ctx, to, ts, plainActivity(a.fallback))
	}
	if err == nil && r.Kind == bot.Answered {
		b.remember(ctx, to, r)
	}
	return id, err
}

// remember stores the answered question to.TS as a turn of its channel
// thread (Config.Turns); a failure is logged and the answer stands.
func (b *Bot) remember(ctx context.Context, to bot.Thread, r bot.Reply) {
	ref, ok := b.refs.get(to)
	if b.cfg.Turns == nil || !ok || !strings.Contains(ref.conversation, ";messageid=") {
		return
	}
	t := retrieval.Turn{Thread: ref.conversation, MessageID: to.TS, Users: ref.users, Asked: r.Asked,
		Shown: retrieval.Shown(r.Answer.Snippets), Time: b.cfg.Now()}
	if err := b.cfg.Turns.Put(ctx, t); err != nil {
		b.log.Warn("thread turn not remembered; follow-ups will be searched as asked", "channel", to.Channel, "err", err)
	}
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

// Earlier returns the questions answered earlier in the channel thread of
// the question to (Config.Turns), oldest first, without before. The Bot
// Framework connector cannot read a thread's messages (that takes
// Microsoft Graph), so these are the questions put to the bot, not what
// people said to each other.
func (b *Bot) Earlier(ctx context.Context, to bot.Thread, before string) ([]string, error) {
	ref, ok := b.refs.get(to)
	if b.cfg.Turns == nil || !ok {
		return nil, nil
	}
	turns, err := b.cfg.Turns.Earlier(ctx, ref.conversation)
	var out []string
	for _, t := range turns {
		if t.MessageID != before {
			out = append(out, t.Asked)
		}
	}
	return out, err
}
