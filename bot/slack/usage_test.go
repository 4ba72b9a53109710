package slack_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
)

// TestUsageShowAll asks who calls a function with 8 callers: the answer
// shows the definition and 3 calls with code, lists the rest, and its
// "Show all 8 uses" button answers the clicker alone with every call.
func TestUsageShowAll(t *testing.T) {
	extra := chattest.Callers(8, time.Now().Add(-time.Hour))
	var wantLines []string
	for i := range 8 {
		wantLines = append(wantLines, chattest.CallerSite(i))
	}
	h := newHarness(t, harnessOpts{extra: extra})
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "who calls newledgerstore"})
	h.event(t, "EvUse", slackfake.Mention(chanPay, user, "who calls newledgerstore", ts, ""), nil)
	h.wait(t)
	a := theAnswer(t, h, chanPay, ts)
	if err := slackfake.CheckBlocks(a.Blocks); err != nil {
		t.Errorf("blocks: %v", err)
	}
	text := blockText(t, a.Blocks)
	if !strings.Contains(text, "newledgerstore is used in 8 places in 8 files") || !strings.Contains(text, "5 more uses") {
		t.Errorf("answer does not count the uses:\n%s", text)
	}
	value := buttonValue(t, a.Blocks, "usage_show_all")
	code, _ := h.form(t, slack.InteractivityPath, slackfake.BlockActions(chanPay, user, a.TS, ts, "usage_show_all", value, h.fake.ResponseURL("all"), false))
	if code != http.StatusOK {
		t.Fatalf("click: HTTP %d", code)
	}
	h.wait(t)
	posts := h.fake.Responses("all")
	if len(posts) != 1 {
		t.Fatalf("%d response_url posts, want 1", len(posts))
	}
	var msg struct {
		ResponseType    string          `json:"response_type"`
		ReplaceOriginal bool            `json:"replace_original"`
		Blocks          json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(posts[0], &msg); err != nil {
		t.Fatal(err)
	}
	if msg.ResponseType != "ephemeral" || msg.ReplaceOriginal {
		t.Errorf("show all is %q, replace_original %v; want ephemeral, the answer kept", msg.ResponseType, msg.ReplaceOriginal)
	}
	if err := slackfake.CheckBlocks(msg.Blocks); err != nil {
		t.Errorf("show all blocks: %v", err)
	}
	all := blockText(t, msg.Blocks)
	for _, l := range append(wantLines, "ledger/store.go:40-42") {
		if !strings.Contains(all, l+">") {
			t.Errorf("show all lacks %s:\n%s", l, all)
		}
	}
}
