package slack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval"
)

// theAnswer returns the single reply the bot left in the thread under ts.
func theAnswer(t *testing.T, h *harness, channel, ts string) slackfake.Message {
	t.Helper()
	replies := h.fake.Replies(channel, ts)
	if len(replies) != 1 {
		t.Fatalf("%d replies in the thread %s/%s, want exactly 1: %+v", len(replies), channel, ts, replies)
	}
	return replies[0]
}

func TestMentionAnswersInThread(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> where is the retry for 503 errors decided?"})
	if code := h.event(t, "Ev1", slackfake.Mention(chanPay, user, "where is the retry for 503 errors decided?", ts, ""), nil); code != http.StatusOK {
		t.Fatalf("event: HTTP %d", code)
	}
	h.wait(t)

	got := theAnswer(t, h, chanPay, ts)
	if got.BotID != slackfake.BotID || got.Updates != 1 {
		t.Errorf("reply by %q updated %d times, want the bot's searching reply updated once", got.BotID, got.Updates)
	}
	text := blockText(t, got.Blocks)
	// The citation fields: link to the lines at the commit, symbol, short
	// commit, author and age (the fixture was indexed 40 minutes ago).
	wantLine := "<https://git.example.com/httpx/blob/" + sha + "/httpx/retry.go#L10-L14|httpx/retry.go:10-14> · `RetryOn503` · httpx@3f1c2d4 · Ann Lee · indexed 40 minutes ago"
	if !strings.Contains(text, wantLine) {
		t.Errorf("answer lacks the citation line\n%s\ngot:\n%s", wantLine, text)
	}
	if !strings.Contains(text, "return status == 503 || status == 429") {
		t.Errorf("answer lacks the snippet:\n%s", text)
	}
	posts := h.fake.Calls("chat.postMessage")
	if len(posts) != 1 || posts[0].Form.Get("thread_ts") != ts || posts[0].Form.Get("unfurl_links") != "false" {
		t.Errorf("chat.postMessage calls %+v, want one in thread %s without unfurls", posts, ts)
	}
	if !strings.Contains(posts[0].Form.Get("text"), "Searching") {
		t.Errorf("first reply %q, want the searching notice", posts[0].Form.Get("text"))
	}
}

func TestDirectMessagesAndBots(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	dm := slackfake.Event{Type: "message", ChannelType: "im", Channel: "D0DM", User: user, Text: "where is RetryOn503?"}
	dm.TS = h.fake.AddMessage(slackfake.Message{Channel: "D0DM", User: user, Text: dm.Text})
	ignored := []slackfake.Event{
		{Type: "message", ChannelType: "im", Channel: "D0DM", BotID: "B0OTHER", Text: "where is RetryOn503?", TS: "1712340000.000001"},
		{Type: "message", ChannelType: "im", Channel: "D0DM", User: slackfake.BotUserID, Text: "where is RetryOn503?", TS: "1712340000.000002"},
		{Type: "message", ChannelType: "im", Channel: "D0DM", User: user, SubType: "message_changed", Text: "where?", TS: "1712340000.000003"},
		{Type: "message", ChannelType: "channel", Channel: chanPay, User: user, Text: "where is RetryOn503?", TS: "1712340000.000004"},
		{Type: "app_mention", Channel: chanPay, User: "U0OTHERBOT", BotID: "B0OTHER", Text: "<@U0BOT> where?", TS: "1712340000.000005"},
		{Type: "reaction_added", User: user, TS: "1712340000.000006"},
	}
	for i, e := range append(ignored, dm) {
		if code := h.event(t, "EvDM"+string(rune('a'+i)), e, nil); code != http.StatusOK {
			t.Fatalf("event %d: HTTP %d", i, code)
		}
	}
	h.wait(t)
	if n := len(h.fake.Calls("chat.postMessage")); n != 1 {
		t.Errorf("%d messages posted, want 1: bots, edits and channel messages are ignored", n)
	}
	got := theAnswer(t, h, "D0DM", dm.TS)
	if !strings.Contains(blockText(t, got.Blocks), "httpx/retry.go:10-14") {
		t.Errorf("DM answer lacks RetryOn503:\n%s", blockText(t, got.Blocks))
	}
}

// TestRetryOfSameEvent re-sends the same body with X-Slack-Retry-Num and a
// fresh signature, while the first delivery is answered and after it was.
func TestRetryOfSameEvent(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	e := slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, "")
	retry := func(n string) http.Header {
		return http.Header{"X-Slack-Retry-Num": {n}, "X-Slack-Retry-Reason": {"http_timeout"}}
	}
	for _, hdr := range []http.Header{nil, retry("1")} { // immediate retry, first still in flight
		if code := h.event(t, "EvR", e, hdr); code != http.StatusOK {
			t.Fatalf("HTTP %d", code)
		}
	}
	h.wait(t)
	// Slack's second retry comes about a minute later, with a new timestamp
	// and signature (api.slack.com/apis/events-api#retries): sign it then.
	later := time.Now().Add(time.Minute)
	if code, _, _ := h.post(t, slack.EventsPath, "application/json", slackfake.SigningSecret, later,
		slackfake.EventCallback("EvR", e), retry("2")); code != http.StatusOK {
		t.Fatalf("HTTP %d", code)
	}
	h.wait(t)
	got := theAnswer(t, h, chanPay, ts)
	if got.Updates != 1 || len(h.fake.Calls("chat.postMessage")) != 1 {
		t.Errorf("retries produced %d posts and %d updates, want 1 and 1", len(h.fake.Calls("chat.postMessage")), got.Updates)
	}
}

// TestUnsignedRequestsRejected checks that bad, missing and stale signatures
// get 401 and cause nothing, on every route.
func TestUnsignedRequestsRejected(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	event := slackfake.EventCallback("EvBad", slackfake.Mention(chanPay, user, "where is RetryOn503?", "1712340000.000100", ""))
	form := []byte(slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, h.fake.ResponseURL("bad")).Encode())
	now := time.Now()
	tests := []struct {
		name   string
		secret string
		at     time.Time
		mutate func(*http.Request)
	}{
		{name: "wrong secret", secret: "not-the-secret", at: now},
		{name: "stale timestamp", secret: slackfake.SigningSecret, at: now.Add(-6 * time.Minute)},
		{name: "future timestamp", secret: slackfake.SigningSecret, at: now.Add(6 * time.Minute)},
		{name: "no signature", secret: slackfake.SigningSecret, at: now, mutate: func(r *http.Request) { r.Header.Del("X-Slack-Signature") }},
		{name: "no timestamp", secret: slackfake.SigningSecret, at: now, mutate: func(r *http.Request) { r.Header.Del("X-Slack-Request-Timestamp") }},
		{name: "timestamp changed after signing", secret: slackfake.SigningSecret, at: now, mutate: func(r *http.Request) {
			r.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(now.Unix()-1, 10))
		}},
	}
	for _, route := range []struct {
		path, ct string
		body     []byte
	}{{slack.EventsPath, "application/json", event}, {slack.CommandsPath, "application/x-www-form-urlencoded", form}} {
		for _, tt := range tests {
			t.Run(route.path+"/"+tt.name, func(t *testing.T) {
				req := slackfake.SignedRequest(h.url+route.path, route.ct, tt.secret, tt.at, route.body)
				if tt.mutate != nil {
					tt.mutate(req)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("HTTP %d, want 401", resp.StatusCode)
				}
			})
		}
	}
	// A body changed after signing (same headers).
	req := slackfake.SignedRequest(h.url+slack.EventsPath, "application/json", slackfake.SigningSecret, now, event)
	tampered := slackfake.SignedRequest(h.url+slack.EventsPath, "application/json", slackfake.SigningSecret, now,
		[]byte(strings.Replace(string(event), "RetryOn503", "ExportSalaries", 1)))
	tampered.Header = req.Header
	if resp, err := http.DefaultClient.Do(tampered); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("tampered body: %v %v, want 401", resp.StatusCode, err)
	}
	h.wait(t)
	if calls := h.fake.Calls(""); len(calls) != 1 || calls[0].Method != "auth.test" {
		t.Errorf("Slack calls after rejected requests: %+v, want only the startup auth.test", calls)
	}
	if got := h.fake.Responses("bad"); len(got) != 0 {
		t.Errorf("response_url posts after rejected commands: %s", got)
	}
}

func TestURLVerification(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	body := []byte(`{"token":"legacyVerifToken","challenge":"3eZbrw1aBm2rZgRNFdxV","type":"url_verification"}`)
	code, got, _ := h.post(t, slack.EventsPath, "application/json", slackfake.SigningSecret, time.Now(), body, nil)
	if code != http.StatusOK || got != "3eZbrw1aBm2rZgRNFdxV" {
		t.Errorf("url_verification: HTTP %d %q, want 200 and the challenge", code, got)
	}
}

// TestSlashCommand: ack at once, the list through response_url (definitions
// first), then "Share in channel" posts it for everyone.
func TestSlashCommand(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	form := slackfake.SlashCommand("/where-is", "OrdersV2Handler", chanPay, user, h.fake.ResponseURL("cmd"))
	code, body, took := h.post(t, slack.CommandsPath, "application/x-www-form-urlencoded", slackfake.SigningSecret, time.Now(), []byte(form.Encode()), nil)
	if code != http.StatusOK || took > 3*time.Second {
		t.Fatalf("slash command: HTTP %d after %s", code, took)
	}
	var ack struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal([]byte(body), &ack); err != nil || ack.ResponseType != "ephemeral" || !strings.HasPrefix(ack.Text, "Searching for `OrdersV2Handler`") {
		t.Errorf("ack %q (%v), want an ephemeral searching notice", body, err)
	}
	h.wait(t)
	posts := h.fake.Responses("cmd")
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
	if msg.ResponseType != "ephemeral" || !msg.ReplaceOriginal {
		t.Errorf("answer is %q, replace_original %v; want ephemeral replacing the ack", msg.ResponseType, msg.ReplaceOriginal)
	}
	if err := slackfake.CheckBlocks(msg.Blocks); err != nil {
		t.Errorf("blocks: %v", err)
	}
	text := blockText(t, msg.Blocks)
	def := regexp.MustCompile("(?s)^\\*Defined in\\*\n• `OrdersV2Handler` — <https://git.example.com/httpx/blob/" + sha + "/api/orders_v2.go#L30-L33\\|api/orders_v2.go:30>")
	if !strings.Contains(text, "*Defined in*") || !def.MatchString(firstSection(t, msg.Blocks)) {
		t.Errorf("list does not start with the definition:\n%s", firstSection(t, msg.Blocks))
	}

	share := buttonValue(t, msg.Blocks, "where_is_share")
	code, _ = h.form(t, slack.InteractivityPath, slackfake.BlockActions(chanPay, user, "1712345690.000100", "", "where_is_share", share, h.fake.ResponseURL("cmd"), true))
	if code != http.StatusOK {
		t.Fatalf("share click: HTTP %d", code)
	}
	h.wait(t)
	posts = h.fake.Responses("cmd")
	if len(posts) != 3 {
		t.Fatalf("%d response_url posts after sharing, want 3 (list, shared list, delete)", len(posts))
	}
	var shared struct {
		ResponseType string          `json:"response_type"`
		Blocks       json.RawMessage `json:"blocks"`
	}
	var del map[string]any
	_ = json.Unmarshal(posts[1], &shared)
	_ = json.Unmarshal(posts[2], &del)
	if st := blockText(t, shared.Blocks); shared.ResponseType != "in_channel" || !strings.Contains(st, "Shared by <@"+user+">") ||
		!strings.Contains(st, "api/orders_v2.go:30") || strings.Contains(string(shared.Blocks), "where_is_share") {
		t.Errorf("shared message %s, want the list in_channel, shared by the user, without a share button", posts[1])
	}
	if del["delete_original"] != true {
		t.Errorf("third post %s, want delete_original", posts[2])
	}
}

func firstSection(t *testing.T, raw json.RawMessage) string {
	var blocks []struct {
		Type string `json:"type"`
		Text struct {
			Text string `json:"text"`
		} `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.Type == "section" {
			return b.Text.Text
		}
	}
	return ""
}

// TestAccess checks against the real Weaviate that a source a channel may
// not see is never in its answers, by mention or by /where-is, while a
// channel that may see it gets it (so the check can fail).
func TestAccess(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	q := "where is the salary export to payroll?"
	for _, ch := range []string{chanPay, chanAll, chanNone} {
		ts := h.fake.AddMessage(slackfake.Message{Channel: ch, User: user, Text: q})
		h.event(t, "EvAcc"+ch, slackfake.Mention(ch, user, q, ts, ""), nil)
		h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "ExportSalaries", ch, user, h.fake.ResponseURL("acc"+ch)))
	}
	h.wait(t)
	seen := func(ch string) (mention, list string) {
		ts := h.fake.Messages(ch)[0].TS
		a := theAnswer(t, h, ch, ts)
		mention = a.Text + string(a.Blocks)
		for _, p := range h.fake.Responses("acc" + ch) {
			list += string(p)
		}
		return mention, list
	}
	for _, ch := range []string{chanPay, chanNone} {
		m, l := seen(ch)
		if strings.Contains(m, "hr/salary.go") || strings.Contains(l, "hr/salary.go") {
			t.Errorf("%s may not see repo:hr but its answers show hr/salary.go:\n%s\n%s", ch, m, l)
		}
	}
	m, l := seen(chanAll)
	if !strings.Contains(m, "hr/salary.go") || !strings.Contains(l, "hr/salary.go") {
		t.Errorf("%s may see repo:hr but its answers lack hr/salary.go:\n%s\n%s", chanAll, m, l)
	}
	if m, _ := seen(chanNone); !strings.Contains(m, "no sources to search") {
		t.Errorf("%s: %s, want the no-sources reply", chanNone, m)
	}
}

func TestSnippetEscaped(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is DeployNotice?"})
	h.event(t, "EvEsc", slackfake.Mention(chanPay, user, "where is DeployNotice?", ts, ""), nil)
	h.wait(t)
	text := blockText(t, theAnswer(t, h, chanPay, ts).Blocks)
	for _, want := range []string{"&lt;!channel&gt; deploy now: &lt;https://evil.example|click here&gt;", `"&lt;!here&gt; &amp; &lt;@U0ADMIN&gt;"`} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"<!channel>", "<!here>", "<https://evil", "<@U0ADMIN>"} {
		if strings.Contains(text, bad) {
			t.Errorf("answer carries %q unescaped:\n%s", bad, text)
		}
	}
}

func TestHugeFunctionTrimmed(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "HugeGeneratedTable"})
	h.event(t, "EvHuge", slackfake.Mention(chanPay, user, "where is HugeGeneratedTable?", ts, ""), nil)
	h.wait(t)
	a := theAnswer(t, h, chanPay, ts)
	if a.Blocks == nil {
		t.Fatalf("answer has no blocks (Slack refused them?): %q", a.Text)
	}
	if err := slackfake.CheckBlocks(a.Blocks); err != nil {
		t.Errorf("Slack would refuse the blocks: %v", err)
	}
	if n := slackfake.TextLen(a.Blocks); n >= 13000 {
		t.Errorf("blocks hold %d characters, want under 13,000", n)
	}
	m := regexp.MustCompile("(?s)```\n(// HugeGeneratedTable[^`]*)\n```\n_… ([0-9]+) more lines_").FindStringSubmatch(blockText(t, a.Blocks))
	if m == nil {
		t.Fatalf("no trimmed HugeGeneratedTable section in:\n%s", blockText(t, a.Blocks))
	}
	if kept := strings.Count(m[1], "\n") + 1; m[2] != strconv.Itoa(5000-kept) {
		t.Errorf("kept %d lines and says %s more, want %d", kept, m[2], 5000-kept)
	}
}

// TestRateLimited: a 429 with Retry-After: 1 on chat.postMessage, chat.update
// and response_url is waited out, and the answer still arrives once.
func TestRateLimited(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.fake.RateLimit("chat.postMessage", 1)
	h.fake.RateLimit("chat.update", 1)
	h.fake.RateLimit("response_url", 1)
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	h.event(t, "EvRL", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, ""), nil)
	h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, h.fake.ResponseURL("rl")))
	h.wait(t)
	for _, method := range []string{"chat.postMessage", "chat.update", "response_url"} {
		calls := h.fake.Calls(method)
		if len(calls) != 2 || calls[0].Status != http.StatusTooManyRequests || calls[1].Status != http.StatusOK {
			t.Errorf("%s: %d calls %+v, want a 429 then a success", method, len(calls), calls)
			continue
		}
		if gap := calls[1].At.Sub(calls[0].At); gap < time.Second {
			t.Errorf("%s retried after %s, before Retry-After: 1", method, gap)
		}
	}
	if a := theAnswer(t, h, chanPay, ts); a.Updates != 1 || !strings.Contains(string(a.Blocks), "RetryOn503") {
		t.Errorf("answer after rate limits: %d updates, %s", a.Updates, a.Blocks)
	}
	if len(h.fake.Responses("rl")) != 1 {
		t.Errorf("%d /where-is answers, want 1", len(h.fake.Responses("rl")))
	}
	if !strings.Contains(h.logs.String(), "slack rate limited; waiting") {
		t.Errorf("the waits were not logged")
	}
}

func TestWeaviateDown(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.proxy.Down.Store(true)
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	h.event(t, "EvDown", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, ""), nil)
	h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, h.fake.ResponseURL("down")))
	h.wait(t)
	const want = "Search is temporarily unavailable"
	if a := theAnswer(t, h, chanPay, ts); !strings.Contains(a.Text, want) {
		t.Errorf("mention answer %q, want %q", a.Text, want)
	}
	if r := h.fake.Responses("down"); len(r) != 1 || !strings.Contains(string(r[0]), want) {
		t.Errorf("/where-is answer %s, want %q", r, want)
	}
	if !strings.Contains(h.logs.String(), "level=ERROR msg=\"search failed; told the user it is unavailable\"") {
		t.Errorf("the failure is not in the operator's log:\n%s", h.logs.String())
	}
}

// TestWeaviateDownRequestID: the failed answer names a request id, and the
// operator's JSON log line of that failure carries the same id, for the
// mention and the slash command alike.
func TestWeaviateDownRequestID(t *testing.T) {
	h := newHarness(t, harnessOpts{jsonLogs: true})
	h.proxy.Down.Store(true)
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	h.event(t, "EvDownID", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, ""), nil)
	h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, h.fake.ResponseURL("downid")))
	h.wait(t)

	failed := map[string]bool{} // request ids of the logged failures
	for _, line := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
		var rec struct {
			Level     string `json:"level"`
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, line)
		}
		if rec.Level == "ERROR" && rec.Msg == "search failed; told the user it is unavailable" {
			if rec.RequestID == "" {
				t.Errorf("failure logged without request_id: %s", line)
			}
			failed[rec.RequestID] = true
		}
	}
	idIn := regexp.MustCompile(`\(request ([0-9a-f]{6})\)`)
	mention := idIn.FindStringSubmatch(theAnswer(t, h, chanPay, ts).Text)
	if mention == nil {
		t.Fatalf("mention answer %q names no request id", theAnswer(t, h, chanPay, ts).Text)
	}
	if mention[1] != bot.RequestID("EvDownID") || !failed[mention[1]] {
		t.Errorf("mention answer names request %s; want %s, logged as failed (logged: %v)", mention[1], bot.RequestID("EvDownID"), failed)
	}
	r := h.fake.Responses("downid")
	if len(r) != 1 {
		t.Fatalf("/where-is responses %s, want 1", r)
	}
	cmd := idIn.FindStringSubmatch(string(r[0]))
	if cmd == nil || !failed[cmd[1]] {
		t.Errorf("/where-is answer %s names no request id logged as failed (logged: %v)", r[0], failed)
	}
}

// TestThreadFollowUp: a short question inside a thread is searched with the
// thread's first question, so "and for the v2 endpoint?" finds the orders
// v2 handler; the same words as a new question find the invoices one.
func TestThreadFollowUp(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	root := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> where is the handler for the orders endpoint?"})
	h.fake.AddMessage(slackfake.Message{Channel: chanPay, ThreadTS: root, User: slackfake.BotUserID, BotID: slackfake.BotID, Text: "RetryOn503 handler v2 is irrelevant bot text"})
	ask := h.fake.AddMessage(slackfake.Message{Channel: chanPay, ThreadTS: root, User: user, Text: "<@U0BOT> and for the v2 endpoint?"})
	h.event(t, "EvThread", slackfake.Mention(chanPay, user, "and for the v2 endpoint?", ask, root), nil)
	alone := h.fake.AddMessage(slackfake.Message{Channel: chanAll, User: user, Text: "<@U0BOT> and for the v2 endpoint?"})
	h.event(t, "EvAlone", slackfake.Mention(chanAll, user, "and for the v2 endpoint?", alone, ""), nil)
	h.wait(t)

	replies := h.fake.Calls("conversations.replies")
	if len(replies) != 1 || replies[0].Form.Get("ts") != root || replies[0].Form.Get("latest") != ask {
		t.Fatalf("conversations.replies calls %+v, want one for thread %s before %s", replies, root, ask)
	}
	var answer slackfake.Message
	for _, m := range h.fake.Replies(chanPay, root) {
		if m.BotID == slackfake.BotID && m.Updates > 0 {
			answer = m
		}
	}
	text := blockText(t, answer.Blocks)
	if !strings.Contains(firstCitation(text), "api/orders_v2.go") {
		t.Errorf("follow-up's first citation is %q, want api/orders_v2.go:\n%s", firstCitation(text), text)
	}
	if !strings.Contains(text, "searched: _and for the v2 endpoint? handler orders_") {
		t.Errorf("answer does not show what was searched:\n%s", text)
	}
	if strings.Contains(text, "irrelevant bot text") || strings.Contains(text, "RetryOn503") {
		t.Errorf("the bot's own thread message leaked into the search:\n%s", text)
	}
	// Without the thread the same words pick the other v2 endpoint: the
	// thread is what made the difference.
	aloneText := blockText(t, theAnswer(t, h, chanAll, alone).Blocks)
	if got := firstCitation(aloneText); !strings.Contains(got, "billing/invoices_v2.go") || strings.Contains(aloneText, "searched:") {
		t.Errorf("the question outside the thread: first citation %q, want billing/invoices_v2.go and no widening:\n%s", got, aloneText)
	}
}

// firstCitation returns the first "path:start-end" link label in text.
func firstCitation(text string) string {
	return regexp.MustCompile(`\|([^|>]+:[0-9]+-[0-9]+)>`).FindStringSubmatch(text + "|none:0-0>")[1]
}

// TestFeedbackStored clicks 👍 on an answer and finds the vote in Weaviate.
func TestFeedbackStored(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	h.event(t, "EvFb", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, ""), nil)
	h.wait(t)
	a := theAnswer(t, h, chanPay, ts)
	value := buttonValue(t, a.Blocks, "feedback_up")
	before := time.Now()
	code, _ := h.form(t, slack.InteractivityPath, slackfake.BlockActions(chanPay, "U0VOTER", a.TS, ts, "feedback_up", value, h.fake.ResponseURL("vote"), false))
	if code != http.StatusOK {
		t.Fatalf("click: HTTP %d", code)
	}
	h.wait(t)
	votes, err := h.votes.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(votes) != 1 {
		t.Fatalf("%d votes stored, want 1", len(votes))
	}
	v := votes[0]
	if v.Vote != retrieval.VoteUp || v.User != "U0VOTER" || v.Channel != chanPay || v.MessageTS != a.TS ||
		v.Question != "where is RetryOn503?" || v.Time.Before(before.Add(-time.Second)) {
		t.Errorf("stored vote %+v", v)
	}
	if len(v.Shown) == 0 || v.Shown[0].String() != "httpx/retry.go:10-14@3f1c2d4" || v.Shown[0].Source != "repo:httpx" {
		t.Errorf("stored citations %+v, want RetryOn503 first", v.Shown)
	}
	if r := h.fake.Responses("vote"); len(r) != 1 || !strings.Contains(string(r[0]), "Thanks") || !strings.Contains(string(r[0]), `"ephemeral"`) {
		t.Errorf("voter was told %s", r)
	}
}

// TestNoSecretsInLogs fails Slack calls and checks that neither the tokens,
// the signing secret nor a response_url reach the log.
func TestNoSecretsInLogs(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.fake.Fail("chat.postMessage", "invalid_auth")
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is RetryOn503?"})
	h.event(t, "EvSec", slackfake.Mention(chanPay, user, "where is RetryOn503?", ts, ""), nil)
	h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "RetryOn503", chanPay, user, "http://127.0.0.1:1/hooks/T0001/B0001/SECRETHOOK"))
	h.post(t, slack.EventsPath, "application/json", "wrong", time.Now(), []byte(`{}`), nil)
	h.wait(t)
	logs := h.logs.String()
	if !strings.Contains(logs, "invalid_auth") || !strings.Contains(logs, "response_url") {
		t.Fatalf("the failures were not logged:\n%s", logs)
	}
	for _, secret := range []string{slackfake.BotToken, slackfake.AppToken, slackfake.SigningSecret, "SECRETHOOK"} {
		if strings.Contains(logs, secret) {
			t.Errorf("log leaks %q:\n%s", secret, logs)
		}
	}
}

// TestACLGroups checks against the real Weaviate that a chunk of an ACL
// group is shown to a member only where the member alone reads the answer
// (a direct message, the private /where-is list) and to everyone in a
// channel listed in the group, never in another channel, not even when a
// member asks there or shares the private list there.
func TestACLGroups(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	q := "where are the quarterly bonus payouts computed?"
	dm := func(ch, u string) string {
		e := slackfake.Event{Type: "message", ChannelType: "im", Channel: ch, User: u, Text: q}
		e.TS = h.fake.AddMessage(slackfake.Message{Channel: ch, User: u, Text: q})
		h.event(t, "EvACL"+ch, e, nil)
		return e.TS
	}
	mention := func(ch, u string) string {
		ts := h.fake.AddMessage(slackfake.Message{Channel: ch, User: u, Text: q})
		h.event(t, "EvACL"+ch+u, slackfake.Mention(ch, u, q, ts, ""), nil)
		return ts
	}
	dmMember, dmOther := dm("D0PAYROLL", userPayroll), dm("D0OTHER", user)
	inPay, inPayroll := mention(chanPay, userPayroll), mention(chanPayroll, user)
	h.form(t, slack.CommandsPath, slackfake.SlashCommand("/where-is", "PayBonuses", chanPay, userPayroll, h.fake.ResponseURL("acl")))
	h.wait(t)

	shows := func(ch, ts string) bool {
		a := theAnswer(t, h, ch, ts)
		return strings.Contains(a.Text+string(a.Blocks), "bonus/bonus.go")
	}
	for _, tt := range []struct {
		name, ch, ts string
		want         bool
	}{
		{"member, direct message", "D0PAYROLL", dmMember, true},
		{"non-member, direct message", "D0OTHER", dmOther, false},
		{"member, mention in another channel", chanPay, inPay, false},
		{"non-member, mention in the group's channel", chanPayroll, inPayroll, true},
	} {
		if got := shows(tt.ch, tt.ts); got != tt.want {
			t.Errorf("%s: shows bonus/bonus.go %v, want %v", tt.name, got, tt.want)
		}
	}

	posts := h.fake.Responses("acl")
	if len(posts) != 1 {
		t.Fatalf("%d response_url posts, want the private list", len(posts))
	}
	var list struct {
		Blocks json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(posts[0], &list); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(list.Blocks), "bonus/bonus.go") {
		t.Fatalf("the member's private /where-is list lacks bonus/bonus.go:\n%s", posts[0])
	}
	share := buttonValue(t, list.Blocks, "where_is_share")
	h.form(t, slack.InteractivityPath, slackfake.BlockActions(chanPay, userPayroll, "1712345690.000200", "", "where_is_share", share, h.fake.ResponseURL("acl"), true))
	h.wait(t)
	posts = h.fake.Responses("acl")
	if len(posts) < 2 {
		t.Fatalf("%d response_url posts after sharing, want the shared list or a notice", len(posts))
	}
	if strings.Contains(string(posts[1]), "bonus/bonus.go") {
		t.Errorf("sharing in %s posted the member-only chunk to the channel:\n%s", chanPay, posts[1])
	}
}

// TestTopKShown: an answer with more snippets than get their code shown
// (retrieval.top_k above 5) counts them all in its heading and lists the
// rest under it, within Block Kit's limits (Slack docs, 'Reference: blocks');
// what does not fit is counted, with where to see it.
func TestTopKShown(t *testing.T) {
	for _, n := range []int{12, 40} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			h := newHarness(t, harnessOpts{ledger: n, topK: n})
			ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: chattest.LedgerQuestion})
			h.event(t, "EvTopK", slackfake.Mention(chanPay, user, chattest.LedgerQuestion, ts, ""), nil)
			h.wait(t)
			a := theAnswer(t, h, chanPay, ts)
			if a.Blocks == nil {
				t.Fatalf("answer has no blocks (Slack refused them?): %q", a.Text)
			}
			if err := slackfake.CheckBlocks(a.Blocks); err != nil {
				t.Errorf("Slack would refuse the blocks: %v", err)
			}
			text := blockText(t, a.Blocks)
			if want := fmt.Sprintf(":mag: %d results for", n); !strings.Contains(text, want) {
				t.Errorf("heading lacks %q:\n%s", want, text)
			}
			shown := 0
			for i := 1; i <= n; i++ {
				if strings.Contains(text, fmt.Sprintf("ReconcileLedgerSettlement%02d", i)) {
					shown++
				}
			}
			more := 0
			if m := regexp.MustCompile(`… ([0-9]+) more: ask `).FindStringSubmatch(text); m != nil {
				more, _ = strconv.Atoi(m[1])
			}
			if shown+more != n {
				t.Errorf("%d results shown and %d counted as more, want %d in all:\n%s", shown, more, n, text)
			}
		})
	}
}

// TestQuestionEchoedAsTyped: a question with mrkdwn formatting characters
// is echoed (the searching notice, the heading, the no-coverage reply and
// the notification text) as typed: each of * _ ~ ` sits between zero-width
// spaces, so Slack cannot pair it into bold, italic, strike or code
// (Slack docs, 'Formatting text for app surfaces').
func TestQuestionEchoedAsTyped(t *testing.T) {
	const z = "\u200b"
	tests := []struct {
		name, question string
		raw            []string // must not appear
		want           string   // must appear in every echo
	}{
		{"answer", "where is ```RetryOn503``` for *503* _errors_ ~decided~?",
			[]string{"```RetryOn503```", "*503*", "_errors_", "~decided~"},
			"where is " + z + "`" + z + z + "`" + z + z + "`" + z + "RetryOn503"},
		{"no coverage", "*kubernetes* helm _chart_ `values`",
			[]string{"*kubernetes*", "_chart_", "`values`"},
			z + "*" + z + "kubernetes" + z + "*" + z + " helm " + z + "_" + z + "chart"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: tt.question})
			h.event(t, "EvEcho", slackfake.Mention(chanPay, user, tt.question, ts, ""), nil)
			h.wait(t)
			posts := h.fake.Calls("chat.postMessage")
			if len(posts) != 1 {
				t.Fatalf("%d chat.postMessage calls, want 1", len(posts))
			}
			a := theAnswer(t, h, chanPay, ts)
			heading := blockText(t, a.Blocks)
			heading, _, _ = strings.Cut(heading, "\n")
			for name, echo := range map[string]string{"searching": posts[0].Form.Get("text"), "heading": heading, "text": a.Text} {
				for _, raw := range tt.raw {
					if strings.Contains(echo, raw) {
						t.Errorf("%s carries %q as mrkdwn: %q", name, raw, echo)
					}
				}
				if !strings.Contains(echo, tt.want) {
					t.Errorf("%s %q lacks %q", name, echo, tt.want)
				}
			}
		})
	}
}

// TestBlocksRefusedSendsText: when Slack refuses the blocks, the answer
// goes out as text with its snippets, not only their citations, within a
// bound well under chat.postMessage's 40,000 characters (Slack docs,
// 'chat.postMessage': truncating content).
func TestBlocksRefusedSendsText(t *testing.T) {
	tests := []struct {
		name, question string
		want           []string
	}{
		{"small", "where is RetryOn503?", []string{"return status == 503 || status == 429",
			"<https://git.example.com/httpx/blob/" + sha + "/httpx/retry.go#L10-L14|httpx/retry.go:10-14>"}},
		{"huge", "where is HugeGeneratedTable?", []string{"// HugeGeneratedTable maps every legacy code", "more lines_"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.fake.Fail("chat.update", "invalid_blocks")
			ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: tt.question})
			h.event(t, "EvRefused", slackfake.Mention(chanPay, user, tt.question, ts, ""), nil)
			h.wait(t)
			a := theAnswer(t, h, chanPay, ts)
			if a.Blocks != nil {
				t.Fatalf("answer kept its blocks: %s", a.Blocks)
			}
			for _, want := range tt.want {
				if !strings.Contains(a.Text, want) {
					t.Errorf("text answer lacks %q:\n%.3000s", want, a.Text)
				}
			}
			if n := len([]rune(a.Text)); n > 16000 {
				t.Errorf("text answer of %d characters, want at most 16,000", n)
			}
			if strings.Count(a.Text, "```")%2 != 0 {
				t.Errorf("text answer leaves a code block open:\n%.3000s", a.Text)
			}
		})
	}
}

// TestMissingNameSaid: a name nothing indexed mentions, typed in lower
// case, makes the answer say so and list the closest matches for the rest
// of the question (the harness's Asker has no vocabularies: the name is
// found missing from the search's document frequencies).
func TestMissingNameSaid(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	const q = "where do we retry 503 errors from rabbitmq?"
	ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> " + q})
	if code := h.event(t, "Ev1", slackfake.Mention(chanPay, user, q, ts, ""), nil); code != http.StatusOK {
		t.Fatalf("event: HTTP %d", code)
	}
	h.wait(t)
	text := blockText(t, theAnswer(t, h, chanPay, ts).Blocks)
	for _, want := range []string{
		"*Nothing indexed mentions “rabbitmq”. The closest matches for “retry 503 errors”:*",
		"|httpx/retry.go:10-14>",
		"never mention it: check the spelling",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q:\n%s", want, text)
		}
	}
}
