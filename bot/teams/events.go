package teams

import (
	"github.com/ragbot/ragbot/bot"
)

// dispatch hands a verified activity to the bot: a message that mentions the
// bot in a channel or group chat, or any message in a personal chat, is a
// question; a card button click (a message with a value) is a vote.
// Everything else (other activity types, messages from bots, ours included,
// channel messages without our mention) is ignored. It does no I/O: the
// transport acks next. It reports whether work was started.
func (b *Bot) dispatch(a *Activity) bool {
	if a.Type != "message" {
		b.log.Debug("activity ignored", "type", a.Type, "activity_id", a.ID)
		return false
	}
	if a.From.ID == "" || a.From.ID == a.Recipient.ID || a.From.Role == "bot" {
		return false
	}
	t := a.place()
	if len(a.Value) > 0 && string(a.Value) != "null" {
		return b.submit(a, t)
	}
	if a.Conversation.ConversationType != convPersonal && !a.mentionsBot() {
		return false
	}
	b.refs.put(t, a.ServiceURL, a.Conversation.ID, a.users())
	return b.core.Handle(bot.Mention{
		// Teams redelivers an activity with the same id; ids are unique
		// within a conversation.
		DeliveryID: a.ChannelID + "|" + a.Conversation.ID + "|" + a.ID,
		Thread:     t,
		TS:         a.ID,
		InThread:   b.cfg.Turns != nil && a.inThread(),
		User:       a.From.ID,
		Private:    a.Conversation.ConversationType == convPersonal,
		Text:       a.question(),
	})
}
