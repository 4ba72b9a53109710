package slackfake

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// SigningSecret is the fake app's signing secret.
const SigningSecret = "test-signing-secret"

// Sign returns X-Slack-Signature for body sent at ts: "v0=" and the hex
// HMAC-SHA256, keyed by secret, of "v0:<unix seconds>:<body>"
// (api.slack.com/authentication/verifying-requests-from-slack).
func Sign(secret string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + strconv.FormatInt(ts.Unix(), 10) + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// SignedRequest builds a POST of body to target as Slack sends it: content
// type, X-Slack-Request-Timestamp at, and a signature with secret.
func SignedRequest(target, contentType, secret string, at time.Time, body []byte) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(at.Unix(), 10))
	req.Header.Set("X-Slack-Signature", Sign(secret, at, body))
	return req
}

// Event is the inner event of an Events API delivery.
type Event struct {
	Type        string `json:"type"` // "app_mention" or "message"
	User        string `json:"user,omitempty"`
	BotID       string `json:"bot_id,omitempty"`
	Text        string `json:"text"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts,omitempty"`
	Channel     string `json:"channel"`
	ChannelType string `json:"channel_type,omitempty"` // "im" for direct messages
	SubType     string `json:"subtype,omitempty"`
}

// EventCallback returns the event_callback envelope Slack POSTs for e
// (Slack API docs, 'The Events API': the event_callback wrapper).
func EventCallback(eventID string, e Event) []byte {
	inner := map[string]any{"type": e.Type, "text": e.Text, "ts": e.TS, "channel": e.Channel, "event_ts": e.TS}
	for k, v := range map[string]string{"user": e.User, "bot_id": e.BotID, "thread_ts": e.ThreadTS, "channel_type": e.ChannelType, "subtype": e.SubType} {
		if v != "" {
			inner[k] = v
		}
	}
	body, _ := json.Marshal(map[string]any{
		"token": "legacyVerifToken", "team_id": TeamID, "api_app_id": AppID, "type": "event_callback",
		"event": inner, "event_id": eventID, "event_time": time.Now().Unix(),
		"authorizations":        []map[string]any{{"team_id": TeamID, "user_id": BotUserID, "is_bot": true, "is_enterprise_install": false}},
		"is_ext_shared_channel": false, "event_context": "4-eyJ0ZXN0IjoxfQ",
	})
	return body
}

// Mention returns an app_mention event: text is "<@U0BOT> " + question.
func Mention(channel, user, question, ts, threadTS string) Event {
	return Event{Type: "app_mention", User: user, Text: "<@" + BotUserID + "> " + question, TS: ts, ThreadTS: threadTS, Channel: channel}
}

// SlashCommand returns the form Slack POSTs for a slash command (Slack API docs,
// 'Enabling interactivity with Slash commands').
func SlashCommand(command, text, channel, user, responseURL string) url.Values {
	return url.Values{
		"token": {"legacyVerifToken"}, "team_id": {TeamID}, "team_domain": {"fake"}, "channel_id": {channel},
		"channel_name": {"eng"}, "user_id": {user}, "user_name": {"ann"}, "command": {command}, "text": {text},
		"response_url": {responseURL}, "trigger_id": {"123.456.abc"}, "api_app_id": {AppID}, "is_enterprise_install": {"false"},
	}
}

// BlockActions returns the form Slack POSTs when user clicks the button
// actionID (with value) on the message ts (Slack API docs, 'block_actions
// payload').
func BlockActions(channel, user, messageTS, threadTS, actionID, value, responseURL string, ephemeral bool) url.Values {
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "api_app_id": AppID, "token": "legacyVerifToken", "trigger_id": "123.456.abc",
		"team": map[string]any{"id": TeamID, "domain": "fake"},
		"user": map[string]any{"id": user, "username": "ann", "team_id": TeamID},
		"container": map[string]any{"type": "message", "message_ts": messageTS, "channel_id": channel,
			"is_ephemeral": ephemeral, "thread_ts": threadTS},
		"channel":      map[string]any{"id": channel, "name": "eng"},
		"message":      map[string]any{"ts": messageTS, "text": "…"},
		"response_url": responseURL,
		"actions": []map[string]any{{"type": "button", "action_id": actionID, "block_id": "b", "value": value,
			"text": map[string]any{"type": "plain_text", "text": "button"}, "action_ts": "1712345690.000300"}},
	})
	return url.Values{"payload": {string(payload)}}
}
