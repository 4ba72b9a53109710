package teamsfake

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"
)

// Conversation kinds.
const (
	Channel   = "channel"
	GroupChat = "groupChat"
	Personal  = "personal"
)

// A Msg describes a message activity as Teams sends it (Bot Framework
// Activity schema; Teams docs, 'Channel and group chat conversations with a
// bot').
type Msg struct {
	ID   string // activity id [generated]
	Kind string // Channel, GroupChat or Personal [Channel]
	// Chat is the Teams channel id ("19:abc@thread.tacv2") for a channel,
	// the conversation id for a chat ("19:…@thread.v2", "a:…").
	Chat string
	// RootID is the id of the channel thread's root message; [ID] (a root post).
	RootID string
	// Text is what the user typed after the mention.
	Text string
	// Mention puts "<at>MentionName</at> " before Text, with its mention
	// entity naming the bot (or MentionID).
	Mention     bool
	MentionName string // [BotName]
	MentionID   string // [BotID]
	// MentionNoText leaves the text field out of the bot's mention entity
	// (mentioned.id and .name only), as some clients send it.
	MentionNoText bool
	// People are other users mentioned in Text as "<at>Name</at>"; each
	// gets its mention entity.
	People     []Person
	From       string // user id [29:1a2b-user]
	FromRole   string // "bot" for a message from a bot
	ServiceURL string // [the fake's ServiceURL]
	ChannelID  string // [msteams]
	Type       string // [message]; "invoke" with Name
	Name       string // of an invoke, e.g. "composeExtension/query"
	ReplyToID  string
	Value      any // Action.Submit data (a card click), or an invoke's payload
}

// A Person is a mentioned user.
type Person struct{ ID, Name string }

// ConversationID is the conversation id of m as Teams sends it: with
// ";messageid=<root>" in channels.
func (m Msg) ConversationID() string {
	if m.Kind == Channel || m.Kind == "" {
		root := m.RootID
		if root == "" {
			root = m.ID
		}
		return m.Chat + ";messageid=" + root
	}
	return m.Chat
}

// Activity returns m's JSON, filling the defaults from s.
func (s *Server) Activity(m Msg) ([]byte, Msg) {
	if m.ID == "" {
		s.mu.Lock()
		m.ID = s.nextActivityID()
		s.mu.Unlock()
	}
	if m.Kind == "" {
		m.Kind = Channel
	}
	def := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	def(&m.MentionName, BotName)
	def(&m.MentionID, BotID)
	def(&m.From, "29:1a2b-user")
	def(&m.ServiceURL, s.ServiceURL())
	def(&m.ChannelID, "msteams")
	def(&m.Type, "message")
	text := m.Text
	var entities []any
	if m.Mention {
		at := "<at>" + m.MentionName + "</at>"
		text = at + " " + text
		e := map[string]any{"type": "mention", "text": at,
			"mentioned": map[string]string{"id": m.MentionID, "name": m.MentionName}}
		if m.MentionNoText {
			delete(e, "text")
		}
		entities = append(entities, e)
	}
	for _, p := range m.People {
		entities = append(entities, map[string]any{"type": "mention", "text": "<at>" + p.Name + "</at>",
			"mentioned": map[string]string{"id": p.ID, "name": p.Name}})
	}
	entities = append(entities, map[string]any{"type": "clientInfo", "locale": "en-US", "country": "US", "platform": "Web"})
	from := map[string]string{"id": m.From, "name": "Ann Lee", "aadObjectId": "6b1e0c8a-user"}
	if m.FromRole != "" {
		from["role"] = m.FromRole
	}
	a := map[string]any{
		"type": m.Type, "id": m.ID, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"channelId": m.ChannelID, "serviceUrl": m.ServiceURL, "from": from,
		"conversation": map[string]any{"isGroup": m.Kind != Personal, "conversationType": m.Kind,
			"tenantId": "72f988bf-tenant", "id": m.ConversationID()},
		"recipient":  map[string]string{"id": BotID, "name": BotName},
		"textFormat": "plain", "locale": "en-US", "entities": entities,
	}
	if text != "" {
		a["text"] = text + "\n"
		a["attachments"] = []any{map[string]string{"contentType": "text/html", "content": "<div><div>" + text + "</div></div>"}}
	}
	if m.ReplyToID != "" {
		a["replyToId"] = m.ReplyToID
	} else if m.Kind == Channel && m.RootID != "" && m.RootID != m.ID {
		a["replyToId"] = m.RootID
	}
	if m.Value != nil {
		a["value"] = m.Value
	}
	if m.Name != "" {
		a["name"] = m.Name
	}
	if m.Kind == Channel {
		a["channelData"] = map[string]any{"teamsChannelId": m.Chat, "teamsTeamId": "19:team@thread.tacv2",
			"channel": map[string]string{"id": m.Chat}, "team": map[string]string{"id": "19:team@thread.tacv2"},
			"tenant": map[string]string{"id": "72f988bf-tenant"}}
	} else {
		a["channelData"] = map[string]any{"tenant": map[string]string{"id": "72f988bf-tenant"}}
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return b, m
}

// Request builds the POST of body to the bot's messaging endpoint url with
// "Authorization: Bearer token" ("" sends no Authorization header).
func Request(url, token string, body []byte) *http.Request {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}
