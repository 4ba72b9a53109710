package teams_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/bot/teams/teamsfake"
)

// searched returns what the answer to m says it searched (the card's
// "searched:" note), or "" when it searched the question as asked.
func searched(t *testing.T, h *harness, m teamsfake.Msg) string {
	t.Helper()
	_, s, _ := strings.Cut(texts(cardOf(t, theAnswer(t, h, m)), "RichTextBlock"), " · searched: ")
	s, _, _ = strings.Cut(s, "\n")
	return strings.ToLower(s)
}

// TestFollowUpInChannelThread: a reply in a channel thread is a follow-up,
// searched with the terms of the question answered earlier in that thread
// (remembered in Weaviate, since the connector cannot read the thread), and
// not with those of another thread; a new post is searched as asked; a
// restarted bot still knows the thread; once the asker's turns are deleted
// (what `ragbot forget --user` does, by from.aadObjectId here) a follow-up
// is searched as asked.
func TestFollowUpInChannelThread(t *testing.T) {
	h := newHarness(t, harnessOpts{turns: true})
	retry := h.ask(t, chanPay, "where is the retry for 503 errors decided?")
	notice := h.ask(t, chanPay, "Where is DeployNotice?")
	h.wait(t)
	followUp := func(root teamsfake.Msg, text string) string {
		t.Helper()
		code, m := h.send(t, teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, RootID: root.ID, Mention: true, Text: text})
		if code != http.StatusOK {
			t.Fatalf("follow-up: HTTP %d", code)
		}
		h.wait(t)
		got := searched(t, h, m)
		t.Logf("follow-up %q in the thread of %q searched %q", text, root.Text, got)
		return got
	}

	if got := followUp(retry, "and for 429?"); !strings.Contains(got, "and for 429?") || !strings.Contains(got, "retry") || !strings.Contains(got, "503") {
		t.Errorf("follow-up in the retry thread searched %q, want the question with retry and 503", got)
	}
	if got := followUp(notice, "and for 429?"); !strings.Contains(got, "deploynotice") || strings.Contains(got, "503") {
		t.Errorf("follow-up in the notice thread searched %q, want DeployNotice and nothing of the retry thread", got)
	}
	post := h.ask(t, chanPay, "and for 429?")
	h.wait(t)
	if got := searched(t, h, post); got != "" {
		t.Errorf("a new post searched %q, want it as asked", got)
	}

	h.start(t) // a restart: nothing of the threads is in the new bot's memory
	if got := followUp(retry, "and the backoff?"); !strings.Contains(got, "503") {
		t.Errorf("after a restart, follow-up searched %q, want the retry thread's terms", got)
	}

	n, err := h.turns.DeleteUser(context.Background(), "6b1e0c8a-user", false) // the fake's from.aadObjectId
	if err != nil || n != 6 {
		t.Fatalf("DeleteUser: %d turns, %v; want the 6 questions answered in channels", n, err)
	}
	if got := followUp(retry, "and for 429?"); got != "" {
		t.Errorf("after the turns were deleted, follow-up searched %q, want it as asked", got)
	}
}
