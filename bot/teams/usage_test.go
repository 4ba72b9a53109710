package teams_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/teams/teamsfake"
)

// TestUsageShowAll asks who calls a function with 130 callers, as typed
// and in lowercase: the answer lists some of the calls and carries "Show
// all 130 uses"; clicking it gets, in the same thread, every call and the
// definition as citation lines, split over replies that each fit Teams'
// size limit. A click without a valid token gets 401 and nothing.
func TestUsageShowAll(t *testing.T) {
	const callers = 130
	extra := chattest.Callers(callers, time.Now().Add(-time.Hour))
	want := []string{"ledger/store.go:40-42](https://git.example.com/httpx/blob/" + sha + "/ledger/store.go#L40-L42)** · newLedgerStore (definition)"}
	for i := range callers {
		want = append(want, chattest.CallerSite(i)+"](")
	}
	h := newHarness(t, harnessOpts{extra: extra})
	for _, tt := range []struct {
		kind, chat, question string
	}{
		{teamsfake.Channel, chanPay, "Who calls newLedgerStore?"},
		{teamsfake.Personal, personal, "who calls newledgerstore"},
	} {
		t.Run(tt.question, func(t *testing.T) {
			code, m := h.send(t, teamsfake.Msg{Kind: tt.kind, Chat: tt.chat, Text: tt.question, Mention: tt.kind == teamsfake.Channel})
			if code != http.StatusOK {
				t.Fatalf("question: HTTP %d", code)
			}
			h.wait(t)
			answer := theAnswer(t, h, m)
			c := cardOf(t, answer)
			text := texts(c, "")
			if !strings.Contains(strings.ToLower(text), "newledgerstore is used in 130 places in 130 files") || strings.Contains(text, "caller129.go") {
				t.Errorf("answer does not count the uses, or lists them all:\n%s", text)
			}
			data := submitData(t, c, "Show all 130 uses")
			if data["action"] != "usage_show_all" {
				t.Errorf("show all carries %v", data)
			}
			click := teamsfake.Msg{Kind: tt.kind, Chat: tt.chat, RootID: m.ID, ReplyToID: answer.ID, From: "29:clicker", Value: data}
			body, forged := h.fake.Activity(click)
			if code, _ := h.post(t, "", body); code != http.StatusUnauthorized {
				t.Errorf("click without a token: HTTP %d, want 401", code)
			}
			code, click = h.send(t, click)
			if code != http.StatusOK {
				t.Fatalf("click: HTTP %d", code)
			}
			h.wait(t)
			if r := h.fake.Replies(forged.ConversationID(), forged.ID); len(r) != 0 {
				t.Errorf("the click without a token got %d replies", len(r))
			}
			replies := h.fake.Replies(click.ConversationID(), click.ID)
			if len(replies) < 2 {
				t.Fatalf("%d replies to the click, want the list split over at least 2", len(replies))
			}
			var all strings.Builder
			for _, r := range replies {
				all.WriteString(texts(cardOf(t, r), "") + "\n")
			}
			for _, w := range want {
				if n := strings.Count(all.String(), w); n != 1 {
					t.Errorf("the list has %s %d times, want once", w, n)
				}
			}
			for _, call := range h.fake.Calls(http.MethodPost) {
				if call.ActivityID == click.ID {
					t.Logf("a reply of %d UTF-16 bytes", call.Size)
				}
				if call.Status != http.StatusOK && call.Status != http.StatusCreated {
					t.Errorf("connector answered %d to a reply of %d UTF-16 bytes", call.Status, call.Size)
				}
			}
		})
	}
	m := h.ask(t, chanPay, "who calls caller007")
	h.wait(t)
	if c := cardOf(t, theAnswer(t, h, m)); !strings.Contains(texts(c, ""), "caller007: no callers indexed") || strings.Contains(fmt.Sprint(c["actions"]), "Show all") {
		t.Errorf("a usage answer showing everything: %s, actions %v; want no show all", texts(c, ""), c["actions"])
	}
}
