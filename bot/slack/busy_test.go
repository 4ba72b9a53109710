package slack_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval"
)

// held answers once release is closed.
type held struct{ release chan struct{} }

func (h held) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	select {
	case <-h.release:
		return retrieval.Answer{Question: r.Question}, nil
	case <-ctx.Done():
		return retrieval.Answer{}, ctx.Err()
	}
}

// TestBusyWhenNoSlotFrees: with every search slot taken and no queue, a
// mention and a /where-is are acknowledged at once and answered with the
// busy reply (the mention's replacing its "Searching…" reply, once); after
// the slot frees, questions are answered again.
func TestBusyWhenNoSlotFrees(t *testing.T) {
	pool := bot.NewAdmission(bot.AdmissionConfig{Max: 1, Queue: 0, Wait: time.Minute})
	h := newHarness(t, harnessOpts{admission: pool})
	hold := held{release: make(chan struct{})}
	done := make(chan struct{})
	go func() { _, _ = pool.Wrap(hold).Ask(context.Background(), retrieval.Request{}); close(done) }()
	for r, _ := pool.Load(); r != 1; r, _ = pool.Load() {
		runtime.Gosched()
	}
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	if code := h.event(t, "EvBusy", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, ""), nil); code != http.StatusOK {
		t.Fatalf("event: HTTP %d", code)
	}
	h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, h.fake.ResponseURL("busy")))
	h.wait(t)
	const want = "I'm busy: 1 question ahead of yours. Try again in a minute."
	a := theAnswer(t, h, chanPay, ts)
	if !strings.Contains(a.Text, want) || a.Updates != 1 {
		t.Errorf("mention answer %q after %d updates, want %q replacing the searching reply", a.Text, a.Updates, want)
	}
	if r := h.fake.Responses("busy"); len(r) != 1 || !strings.Contains(string(r[0]), want) {
		t.Errorf("/where-is answer %s, want %q", r, want)
	}
	close(hold.release)
	<-done
	ts2 := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	h.event(t, "EvFree", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts2, ""), nil)
	h.wait(t)
	if a := theAnswer(t, h, chanPay, ts2); strings.Contains(a.Text, "busy") || !strings.Contains(a.Text, "RetryOn503") {
		t.Errorf("answer after the slot freed: %q", a.Text)
	}
}
