package slack_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
)

// TestSocketMode runs the bot over a local Socket Mode WebSocket: hello,
// an events_api envelope acked with its envelope_id and answered in its
// thread; a disconnect envelope, after which the bot reconnects through a
// new apps.connections.open; there, a redelivery of the same event
// (retry_attempt 1) is acked but not answered again, a new event is, and a
// slash command's ack carries the immediate reply.
func TestSocketMode(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if h.bot.SocketConnected() {
		t.Error("SocketConnected before RunSocketMode")
	}
	go func() { done <- h.bot.RunSocketMode(ctx) }() // exits when ctx is cancelled below
	const wait = 15 * time.Second
	if err := h.fake.WaitConnections(1, wait); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(wait); !h.bot.SocketConnected(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("SocketConnected still false after the connection opened")
		}
	}

	ts1 := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	ev1 := slackfake.EventCallback("EvS1", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts1, ""))
	if err := h.fake.SendEvent("env-1", ev1, 0); err != nil {
		t.Fatal(err)
	}
	ack, err := h.fake.WaitAck("env-1", wait)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(ack)); got != `{"envelope_id":"env-1"}` {
		t.Errorf("ack %s, want {\"envelope_id\":\"env-1\"}", got)
	}
	h.wait(t)
	if a := theAnswer(t, h, chanPay, ts1); !strings.Contains(blockText(t, a.Blocks), "httpx/retry.go:10-14") {
		t.Errorf("socket mode answer:\n%s", blockText(t, a.Blocks))
	}

	if err := h.fake.Disconnect("refresh_requested"); err != nil {
		t.Fatal(err)
	}
	if err := h.fake.WaitConnections(2, wait); err != nil {
		t.Fatal(err)
	}
	if n := len(h.fake.Calls("apps.connections.open")); n != 2 {
		t.Errorf("apps.connections.open called %d times, want 2", n)
	}

	ts2 := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is OrdersHandler?"})
	frames := []struct {
		id    string
		body  []byte
		retry int
	}{
		{"env-2", ev1, 1}, // Slack redelivers EvS1
		{"env-3", slackfake.EventCallback("EvS2", slackfake.Mention(chanPay, user, "where is OrdersHandler?", ts2, "")), 0},
	}
	for _, f := range frames {
		if err := h.fake.SendEvent(f.id, f.body, f.retry); err != nil {
			t.Fatal(err)
		}
		if _, err := h.fake.WaitAck(f.id, wait); err != nil {
			t.Fatal(err)
		}
	}
	cmd := slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, h.fake.ResponseURL("sock"))
	payload := map[string]string{}
	for k := range cmd {
		payload[k] = cmd.Get(k)
	}
	if err := h.fake.Send(map[string]any{"type": "slash_commands", "envelope_id": "env-4", "payload": payload, "accepts_response_payload": true}); err != nil {
		t.Fatal(err)
	}
	ack, err = h.fake.WaitAck("env-4", wait)
	if err != nil {
		t.Fatal(err)
	}
	var cmdAck struct {
		Payload struct {
			ResponseType string `json:"response_type"`
			Text         string `json:"text"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(ack, &cmdAck); err != nil || cmdAck.Payload.ResponseType != "ephemeral" || !strings.HasPrefix(cmdAck.Payload.Text, "Searching for") {
		t.Errorf("slash command ack %s, want an ephemeral searching notice", ack)
	}
	h.wait(t)

	if a := theAnswer(t, h, chanPay, ts1); a.Updates != 1 {
		t.Errorf("the redelivered event was answered again: %d updates", a.Updates)
	}
	if a := theAnswer(t, h, chanPay, ts2); !strings.Contains(blockText(t, a.Blocks), "api/orders.go:20-23") {
		t.Errorf("answer after reconnecting:\n%s", blockText(t, a.Blocks))
	}
	if n := len(h.fake.Calls("chat.postMessage")); n != 2 {
		t.Errorf("%d messages posted, want 2", n)
	}
	if r := h.fake.Responses("sock"); len(r) != 1 || !strings.Contains(string(r[0]), "RetryOn503") {
		t.Errorf("slash command answer over socket mode: %s", r)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("RunSocketMode after cancel: %v", err)
		}
		if h.bot.SocketConnected() {
			t.Error("SocketConnected after RunSocketMode returned")
		}
	case <-time.After(wait):
		t.Fatal("RunSocketMode did not return after cancel")
	}
}
