package teams

import (
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/bot"
)

// An Activity is the part of a Bot Framework activity the bot reads
// (Bot Framework Activity schema; Teams docs, 'Channel and group chat
// conversations with a bot').
type Activity struct {
	Type         string          `json:"type"` // "message", or "invoke" (Name says which); others are acknowledged and ignored
	Name         string          `json:"name"` // of an invoke: "composeExtension/query"
	ID           string          `json:"id"`
	ChannelID    string          `json:"channelId"`  // "msteams"; must be endorsed by the signing key
	ServiceURL   string          `json:"serviceUrl"` // the connector to reply through; must equal the token's serviceurl claim
	From         Account         `json:"from"`
	Recipient    Account         `json:"recipient"` // the bot: "28:<app id>"
	Conversation Conversation    `json:"conversation"`
	Text         string          `json:"text"`
	ReplyToID    string          `json:"replyToId"`
	Entities     []Entity        `json:"entities"`
	Value        json.RawMessage `json:"value"` // Action.Submit data, or an invoke's payload
	ChannelData  ChannelData     `json:"channelData"`
}

// An Account is a user or bot.
type Account struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	AADObjectID string `json:"aadObjectId"`
	Role        string `json:"role"` // "bot" on messages from bots
}

// A Conversation is a channel thread, a group chat or a personal chat.
type Conversation struct {
	ID               string `json:"id"` // channels: "19:…@thread.tacv2;messageid=<root>"
	ConversationType string `json:"conversationType"`
	IsGroup          bool   `json:"isGroup"`
	TenantID         string `json:"tenantId"`
}

// Conversation types.
const (
	convChannel   = "channel"
	convGroupChat = "groupChat"
	convPersonal  = "personal"
)

// An Entity is a mention (others are ignored).
type Entity struct {
	Type      string  `json:"type"`
	Text      string  `json:"text"`
	Mentioned Account `json:"mentioned"`
}

// ChannelData is Teams' extra data on an activity.
type ChannelData struct {
	TeamsChannelID string `json:"teamsChannelId"`
	Channel        struct {
		ID string `json:"id"`
	} `json:"channel"`
}

// place returns where a reply to a goes: the access key (the Teams channel
// id in channels, the conversation id in chats) as Channel, and the id of
// the message to reply under as TS. Every question is its own bot.Thread;
// the channel thread it is in is its conversation id (see inThread).
func (a *Activity) place() bot.Thread {
	conv, _, _ := strings.Cut(a.Conversation.ID, ";messageid=")
	if a.Conversation.ConversationType == convChannel {
		if id := a.ChannelData.TeamsChannelID; id != "" {
			conv = id
		} else if id := a.ChannelData.Channel.ID; id != "" {
			conv = id
		}
	}
	return bot.Thread{Channel: conv, TS: a.ID}
}

// inThread reports whether a is a reply in a channel thread: its
// conversation id names a root message ("…;messageid=<root>") other than a.
func (a *Activity) inThread() bool {
	_, root, ok := strings.Cut(a.Conversation.ID, ";messageid=")
	return ok && root != "" && root != a.ID
}

// users are the ids of a's sender: from.id, and from.aadObjectId when set.
func (a *Activity) users() []string {
	if a.From.AADObjectID == "" {
		return []string{a.From.ID}
	}
	return []string{a.From.ID, a.From.AADObjectID}
}

// mentionsBot reports whether a mentions the recipient (the bot).
func (a *Activity) mentionsBot() bool {
	return slices.ContainsFunc(a.Entities, func(e Entity) bool { return e.Type == "mention" && e.Mentioned.ID == a.Recipient.ID })
}

// atTag matches what is left of <at>…</at> markup once the bot's mentions
// are cut: the tags around other people's names.
var atTag = regexp.MustCompile(`(?i)</?at[^>]*>`)

// question returns the text of a without the bot's mentions. A mention
// entity is the bot's when its mentioned.id is the recipient's (Teams docs,
// 'Channel and group chat conversations with a bot'); its text
// ("<at>RagBot</at>", whatever display name it shows) is cut out, or, when
// the entity has no text, "<at>"+name+"</at>" for the entity's and the
// recipient's names. Other people's mentions keep their names as typed, the
// tags dropped without adding space ("<at>Pat</at>'s" is "Pat's"). HTML
// entities are unescaped and white space collapsed.
func (a *Activity) question() string {
	text := a.Text
	for _, e := range a.Entities {
		if e.Type != "mention" || e.Mentioned.ID != a.Recipient.ID {
			continue
		}
		for _, m := range []string{e.Text, atName(e.Mentioned.Name), atName(a.Recipient.Name)} {
			if m != "" && m != atName("") {
				text = strings.ReplaceAll(text, m, " ")
			}
		}
	}
	text = atTag.ReplaceAllString(text, "")
	text = html.UnescapeString(strings.ReplaceAll(text, "&nbsp;", " "))
	return strings.Join(strings.Fields(text), " ")
}

func atName(name string) string { return "<at>" + name + "</at>" }
