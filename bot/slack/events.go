package slack

import (
	"strings"

	"github.com/slack-go/slack/slackevents"

	"github.com/ragbot/ragbot/bot"
)

// dispatch hands an Events API event to the bot: app_mention in channels, and
// message events in direct messages (channel_type "im"). Everything else is
// ignored, as are messages from bots (ours included, so replies cannot loop),
// edits and other message subtypes. It does no I/O: the transport acks next.
// It reports whether an answer was started.
func (b *Bot) dispatch(eventID string, ev slackevents.EventsAPIInnerEvent) bool {
	var m bot.Mention
	switch e := ev.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == "" || e.User == b.botUserID || e.Edited != nil {
			return false
		}
		m = mention(eventID, e.Channel, e.User, e.Text, e.TimeStamp, e.ThreadTimeStamp)
		m.Private = strings.HasPrefix(e.Channel, "D") // a mention inside a direct message
	case *slackevents.MessageEvent:
		if e.ChannelType != "im" || e.SubType != "" || e.BotID != "" || e.User == "" || e.User == b.botUserID {
			return false
		}
		m = mention(eventID, e.Channel, e.User, e.Text, e.TimeStamp, e.ThreadTimeStamp)
		m.Private = true // a direct message with the bot: only the user reads the answer
	default:
		b.log.Debug("event ignored", "event_id", eventID, "type", ev.Type)
		return false
	}
	return b.core.Handle(m)
}

// mention builds the question of a message: it is answered in its thread,
// or in a new thread under it.
func mention(eventID, channel, user, text, ts, threadTS string) bot.Mention {
	m := bot.Mention{DeliveryID: eventID, TS: ts, User: user, Text: plainText(text),
		Thread: bot.Thread{Channel: channel, TS: threadTS}}
	m.InThread = threadTS != "" && threadTS != ts
	if threadTS == "" {
		m.Thread.TS = ts
	}
	return m
}
