package teams_test

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

	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/bot/teams/teamsfake"
	"github.com/ragbot/ragbot/retrieval"
)

// TestMentionAnswersInThread: a channel mention is acknowledged at once and
// answered under the question: "Searching…", then replaced by a card with
// the citation fields.
func TestMentionAnswersInThread(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	body, m := h.fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, Mention: true,
		Text: "where is the retry for 503 errors decided?"})
	code, took := h.post(t, h.fake.Token(h.fake.ValidClaims(m.ServiceURL)), body)
	if code != http.StatusOK || took > 2*time.Second {
		t.Fatalf("activity: HTTP %d after %s, want 200 at once", code, took)
	}
	h.wait(t)

	got := theAnswer(t, h, m)
	if got.Updates != 1 {
		t.Errorf("reply updated %d times, want the searching reply replaced once", got.Updates)
	}
	posts := h.fake.Calls(http.MethodPost)
	wantPath := "/emea/v3/conversations/19%3Apay%40thread.tacv2%3Bmessageid%3D" + m.ID + "/activities/" + m.ID
	if len(posts) != 1 || posts[0].Path != wantPath {
		t.Fatalf("connector POSTs %+v, want one to %s", posts, wantPath)
	}
	card := cardOf(t, got)
	rich, md := texts(card, "RichTextBlock"), texts(card, "TextBlock")
	wantLink := "**[httpx/retry.go:10-14](https://git.example.com/httpx/blob/" + sha + "/httpx/retry.go#L10-L14)**"
	if !strings.Contains(md, wantLink) {
		t.Errorf("card lacks the link %s\ngot TextBlocks:\n%s", wantLink, md)
	}
	for _, want := range []string{
		"RetryOn503 · httpx@3f1c2d4 · Ann Lee · indexed 40 minutes ago", // symbol, source@commit, author, age
		"return status == 503 || status == 429",                         // the snippet
		"🔍 ",                                                            // the summary line
	} {
		if !strings.Contains(rich, want) {
			t.Errorf("card lacks %q:\n%s", want, rich)
		}
	}
	if fb, _ := card["fallbackText"].(string); !strings.Contains(fb, "httpx/retry.go:10-14") || !strings.Contains(fb, "https://git.example.com/") {
		t.Errorf("fallbackText %q, want the citations as plain text", fb)
	}
	if got.Summary == "" || got.Text != "" {
		t.Errorf("answer summary %q, text %q: want a notification summary and the card alone", got.Summary, got.Text)
	}
	// The tokens: one from startup, used for every connector call.
	if n := len(h.fake.TokenCalls()); n != 1 {
		t.Errorf("%d token requests, want 1", n)
	}
}

// TestSearchingReplyFirst checks the first POST: plain "Searching…" text
// threaded under the question, and the mention (shown under another display
// name) cut from the question.
func TestSearchingReplyFirst(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, m := h.send(t, teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, Mention: true, MentionName: "RagBot (dev)",
		Text: "where is  RetryOn503&#63;"})
	h.wait(t)
	var searching struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		TextFormat string `json:"textFormat"`
		ReplyToID  string `json:"replyToId"`
	}
	if err := json.Unmarshal(theAnswer(t, h, m).First, &searching); err != nil {
		t.Fatal(err)
	}
	if searching.Text != "Searching the indexed sources for “where is RetryOn503?”…" || searching.TextFormat != "plain" || searching.ReplyToID != m.ID {
		t.Errorf("first reply %+v, want plain searching text for the question without the mention, replying to %s", searching, m.ID)
	}
}

// TestMentionsInQuestion: only the bot's own mention is cut from the
// question, found by its entity's mentioned.id (Teams docs, 'Channel and
// group chat conversations with a bot': mentions), also when the entity has
// no text; other people's mentions stay as their names, with no space left
// where their <at> tags were.
func TestMentionsInQuestion(t *testing.T) {
	pat := []teamsfake.Person{{ID: "29:pat-example", Name: "Pat Example"}}
	tests := []struct {
		name string
		msg  teamsfake.Msg
		want string
	}{
		{"other mention keeps its name", teamsfake.Msg{Mention: true, People: pat,
			Text: "who owns <at>Pat Example</at>'s retry module?"}, "who owns Pat Example's retry module?"},
		{"bot entity without text", teamsfake.Msg{Mention: true, MentionNoText: true,
			Text: "who owns the retry module?"}, "who owns the retry module?"},
		{"bot entity without text, other display name", teamsfake.Msg{Mention: true, MentionNoText: true, MentionName: "RagBot (dev)",
			People: pat, Text: "who owns <at>Pat Example</at>'s retry module?"}, "who owns Pat Example's retry module?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			tt.msg.Kind, tt.msg.Chat = teamsfake.Channel, chanPay
			_, m := h.send(t, tt.msg)
			h.wait(t)
			var searching struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(theAnswer(t, h, m).First, &searching); err != nil {
				t.Fatal(err)
			}
			if want := "Searching the indexed sources for “" + tt.want + "”…"; searching.Text != want {
				t.Errorf("first reply %q, want %q", searching.Text, want)
			}
		})
	}
}

// TestChatsAndIgnored: personal chats need no mention, group chats do;
// messages from bots, mentions of someone else and other activity types are
// acknowledged and ignored.
func TestChatsAndIgnored(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ignored := []teamsfake.Msg{
		{Kind: teamsfake.Channel, Chat: chanPay, Text: "where is RetryOn503?"},                                   // no mention
		{Kind: teamsfake.GroupChat, Chat: group, Text: "where is RetryOn503?"},                                   // no mention
		{Kind: teamsfake.Channel, Chat: chanPay, Text: "where is RetryOn503?", Mention: true, MentionID: "29:x"}, // someone else
		{Kind: teamsfake.Personal, Chat: personal, Text: "where is RetryOn503?", FromRole: "bot", From: "28:other"},
		{Kind: teamsfake.Personal, Chat: personal, Text: "where is RetryOn503?", From: teamsfake.BotID}, // ourselves
		{Kind: teamsfake.Channel, Chat: chanPay, Type: "conversationUpdate"},
		{Kind: teamsfake.Channel, Chat: chanPay, Mention: true, Value: map[string]string{"action": "someone.else"}},
	}
	for i, m := range ignored {
		if code, _ := h.send(t, m); code != http.StatusOK {
			t.Fatalf("ignored activity %d: HTTP %d, want 200", i, code)
		}
	}
	_, dm := h.send(t, teamsfake.Msg{Kind: teamsfake.Personal, Chat: personal, Text: "where is RetryOn503?"})
	_, gc := h.send(t, teamsfake.Msg{Kind: teamsfake.GroupChat, Chat: group, Text: "where is RetryOn503?", Mention: true})
	h.wait(t)
	if n := len(h.fake.Calls(http.MethodPost)); n != 2 {
		t.Errorf("%d replies posted, want 2 (the personal and the group chat)", n)
	}
	paths := map[string]bool{}
	for _, c := range h.fake.Calls(http.MethodPost) {
		paths[c.Path] = true
	}
	for _, tt := range []struct {
		m    teamsfake.Msg
		path string
	}{
		{dm, "/emea/v3/conversations/a%3A1personal-chat/activities/" + dm.ID},
		{gc, "/emea/v3/conversations/19%3Agroup-chat%40thread.v2/activities/" + gc.ID},
	} {
		if a := theAnswer(t, h, tt.m); !strings.Contains(texts(cardOf(t, a), ""), "httpx/retry.go:10-14") {
			t.Errorf("%s answer lacks RetryOn503", tt.m.Kind)
		}
		if !paths[tt.path] {
			t.Errorf("no reply POSTed to %s; got %v", tt.path, paths)
		}
	}
}

// TestAuthRejected: every token or activity that fails a check gets 401 and
// causes nothing: no token request, no connector call. The last case, a
// token expired within the 5-minute skew, is the control that passes.
func TestAuthRejected(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.fake.AddKey("webchat-only", true, "webchat")
	now := h.clock.Now()
	svc := h.fake.ServiceURL()
	valid := teamsfake.Claims{ServiceURL: svc}
	tests := []struct {
		name     string
		claims   *teamsfake.Claims // nil: a raw token
		raw      string
		activity teamsfake.Msg
		want     int
	}{
		{name: "no token", raw: "", want: 401},
		{name: "not a JWT", raw: "not-a-jwt", want: 401},
		{name: "wrong audience", claims: &teamsfake.Claims{ServiceURL: svc, Audience: "00000000-0000-0000-0000-000000000001"}, want: 401},
		{name: "wrong issuer", claims: &teamsfake.Claims{ServiceURL: svc, Issuer: "https://sts.windows.net/72f988bf/"}, want: 401},
		{name: "expired beyond skew", claims: &teamsfake.Claims{ServiceURL: svc, IssuedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(-6 * time.Minute)}, want: 401},
		{name: "not valid yet", claims: &teamsfake.Claims{ServiceURL: svc, IssuedAt: now.Add(6 * time.Minute), NotBefore: now.Add(6 * time.Minute)}, want: 401},
		{name: "forged signature", claims: &teamsfake.Claims{ServiceURL: svc, KID: "attacker", HeaderKID: teamsfake.KeyID}, want: 401},
		{name: "HMAC with the public key", claims: &teamsfake.Claims{ServiceURL: svc, Alg: "HS256"}, want: 401},
		{name: "tampered serviceUrl", claims: &valid, activity: teamsfake.Msg{ServiceURL: "https://evil.example/emea/"}, want: 401},
		{name: "no serviceurl claim", claims: &teamsfake.Claims{}, want: 401},
		{name: "key not endorsed for msteams", claims: &teamsfake.Claims{ServiceURL: svc, KID: "webchat-only"}, want: 401},
		{name: "channel not endorsed", claims: &valid, activity: teamsfake.Msg{ChannelID: "skype"}, want: 401},
		{name: "expired within skew", claims: &teamsfake.Claims{ServiceURL: svc, IssuedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-2 * time.Minute)}, want: 200},
	}
	var answered []teamsfake.Msg
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.activity
			m.Kind, m.Chat, m.Mention, m.Text = teamsfake.Channel, chanPay, true, "where is RetryOn503?"
			body, m := h.fake.Activity(m)
			token := tt.raw
			if tt.claims != nil {
				token = h.fake.Token(*tt.claims)
			}
			if code, _ := h.post(t, token, body); code != tt.want {
				t.Errorf("HTTP %d, want %d", code, tt.want)
			}
			if tt.want == 200 {
				answered = append(answered, m)
			}
		})
	}
	h.wait(t)
	if calls := h.fake.Calls(""); len(calls) != 2*len(answered) {
		t.Errorf("%d connector calls, want %d (the control's searching reply and its update): %+v", len(calls), 2*len(answered), calls)
	}
	if n := len(h.fake.TokenCalls()); n != 1 {
		t.Errorf("%d token requests, want only the startup one", n)
	}
	for _, m := range answered {
		theAnswer(t, h, m)
	}
	logs := h.logs.String()
	for _, reason := range []string{"invalid token", "activity serviceUrl differs from the token's serviceurl claim", "signing key not endorsed for the activity's channel", "no Bearer token"} {
		if !strings.Contains(logs, reason) {
			t.Errorf("log lacks the rejection reason %q", reason)
		}
	}
}

// TestUnknownKeyRefetched: a token signed by a key not in the JWKS makes the
// bot fetch the JWKS again; still unknown, it is refused. A key rotated in
// after the first fetch is picked up the same way. Unknown keys refetch at
// most once a minute.
func TestUnknownKeyRefetched(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	ask := func(claims teamsfake.Claims) (int, teamsfake.Msg) {
		t.Helper()
		body, m := h.fake.Activity(teamsfake.Msg{Kind: teamsfake.Personal, Chat: personal, Text: "where is RetryOn503?"})
		claims.ServiceURL = m.ServiceURL
		code, _ := h.post(t, h.fake.Token(claims), body)
		return code, m
	}
	fetches := func() int { _, k := h.fake.Fetches(); return k }

	if code, _ := ask(teamsfake.Claims{}); code != 200 || fetches() != 1 {
		t.Fatalf("valid token: HTTP %d after %d key fetches, want 200 after 1", code, fetches())
	}
	if code, _ := ask(teamsfake.Claims{KID: "rogue"}); code != 401 || fetches() != 2 {
		t.Errorf("unknown kid: HTTP %d after %d key fetches, want 401 after fetching again (2)", code, fetches())
	}
	if code, _ := ask(teamsfake.Claims{KID: "rogue-2"}); code != 401 || fetches() != 2 {
		t.Errorf("second unknown kid within a minute: HTTP %d after %d key fetches, want 401 without a fetch (2)", code, fetches())
	}
	h.clock.Advance(2 * time.Minute)
	h.fake.AddKey("fake-key-2", true, "msteams")
	code, m := ask(teamsfake.Claims{KID: "fake-key-2"})
	if code != 200 || fetches() != 3 {
		t.Errorf("rotated-in key: HTTP %d after %d key fetches, want 200 after 3", code, fetches())
	}
	h.wait(t)
	theAnswer(t, h, m)
	if n := len(h.fake.Calls(http.MethodPost)); n != 2 {
		t.Errorf("%d replies, want 2: the unknown keys' activities get none", n)
	}
	if !strings.Contains(h.logs.String(), "token signed by an unknown key; fetching the key set again") {
		t.Error("the refetch is not logged")
	}
}

// TestTokenReused: 50 answers (100 connector calls) share one access token;
// once it is near expiry the next reply fetches a new one.
func TestTokenReused(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	var asked []teamsfake.Msg
	for i := range 50 {
		code, m := h.send(t, teamsfake.Msg{Kind: teamsfake.Personal, Chat: fmt.Sprintf("a:chat-%02d", i), Text: "where is RetryOn503?"})
		if code != 200 {
			t.Fatalf("question %d: HTTP %d", i, code)
		}
		asked = append(asked, m)
	}
	h.wait(t)
	calls := h.fake.Calls("")
	if len(calls) != 100 {
		t.Fatalf("%d connector calls, want 100 (50 replies and their updates)", len(calls))
	}
	for _, c := range calls {
		if c.Token != calls[0].Token || c.Status/100 != 2 {
			t.Fatalf("call %+v: want every call to succeed with the first token", c)
		}
	}
	if n := len(h.fake.TokenCalls()); n != 1 || h.bot.TokensFetched() != 1 {
		t.Errorf("%d token requests (%d fetched), want 1 for 50 replies", n, h.bot.TokensFetched())
	}
	for _, m := range asked {
		theAnswer(t, h, m)
	}

	// 3599 s tokens are renewed 5 minutes before they expire.
	h.clock.Advance(55 * time.Minute)
	_, m := h.send(t, teamsfake.Msg{Kind: teamsfake.Personal, Chat: "a:chat-late", Text: "where is RetryOn503?"})
	h.wait(t)
	theAnswer(t, h, m)
	late := h.fake.Calls("")
	if n := len(h.fake.TokenCalls()); n != 2 || late[len(late)-1].Token == calls[0].Token {
		t.Errorf("after 55 minutes: %d token requests, want a second token used", n)
	}
}

// TestConnectorThrottled: 429 with Retry-After: 1 on the reply and on the
// update, and a 502 without it, are waited out; the answer arrives once.
func TestConnectorThrottled(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.fake.RateLimit(http.MethodPost, 1)
	h.fake.RateLimit(http.MethodPut, 1)
	h.fake.Fail(http.MethodPut, http.StatusBadGateway, "BadGateway")
	m := h.ask(t, chanPay, "where is RetryOn503?")
	h.wait(t)
	posts, puts := h.fake.Calls(http.MethodPost), h.fake.Calls(http.MethodPut)
	if len(posts) != 2 || posts[0].Status != 429 || posts[1].Status != 201 {
		t.Errorf("POSTs %+v, want a 429 then a success", posts)
	} else if gap := posts[1].At.Sub(posts[0].At); gap < time.Second {
		t.Errorf("POST retried after %s, before Retry-After: 1", gap)
	}
	if len(puts) != 3 || puts[0].Status != 429 || puts[1].Status != 502 || puts[2].Status != 200 {
		t.Errorf("PUTs %+v, want 429, 502, then a success", puts)
	} else if gap := puts[2].At.Sub(puts[1].At); gap < time.Second {
		t.Errorf("PUT retried %s after a 502, want a backoff of at least 1s", gap)
	}
	if a := theAnswer(t, h, m); a.Updates != 1 || !strings.Contains(texts(cardOf(t, a), ""), "RetryOn503") {
		t.Errorf("answer after throttling: %d updates", a.Updates)
	}
	if !strings.Contains(h.logs.String(), "teams connector throttled or failing; waiting") {
		t.Error("the waits were not logged")
	}
}

// TestRetryOfSameActivity: the same activity delivered again while it is
// answered, and after, is acknowledged and answered once.
func TestRetryOfSameActivity(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	body, m := h.fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, Mention: true, Text: "where is RetryOn503?"})
	for range 2 {
		if code, _ := h.post(t, h.fake.Token(h.fake.ValidClaims(m.ServiceURL)), body); code != 200 {
			t.Fatalf("HTTP %d", code)
		}
	}
	h.wait(t)
	if code, _ := h.post(t, h.fake.Token(h.fake.ValidClaims(m.ServiceURL)), body); code != 200 {
		t.Fatalf("HTTP %d", code)
	}
	h.wait(t)
	if a := theAnswer(t, h, m); a.Updates != 1 || len(h.fake.Calls(http.MethodPost)) != 1 {
		t.Errorf("retries produced %d posts and %d updates, want 1 and 1", len(h.fake.Calls(http.MethodPost)), a.Updates)
	}
}

// TestFeedbackStored clicks 👍 on an answer in a channel and finds the vote
// in Weaviate; in a personal chat the voter is thanked.
func TestFeedbackStored(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	m := h.ask(t, chanPay, "where is RetryOn503?")
	h.wait(t)
	answer := theAnswer(t, h, m)
	data := submitData(t, cardOf(t, answer), "👍 Helpful")
	before := h.clock.Now()
	code, _ := h.send(t, teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, RootID: m.ID, ReplyToID: answer.ID, From: "29:voter", Value: data})
	if code != 200 {
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
	if v.Vote != retrieval.VoteUp || v.User != "29:voter" || v.Channel != chanPay || v.MessageTS != answer.ID ||
		v.Question != "where is RetryOn503?" || v.Time.Before(before.Add(-time.Second)) {
		t.Errorf("stored vote %+v", v)
	}
	if len(v.Shown) == 0 || v.Shown[0].String() != "httpx/retry.go:10-14@3f1c2d4" || v.Shown[0].Source != "repo:httpx" {
		t.Errorf("stored citations %+v, want RetryOn503 first", v.Shown)
	}
	if n := len(h.fake.Calls(http.MethodPost)); n != 1 {
		t.Errorf("%d POSTs, want only the answer: a channel vote is not answered in the thread", n)
	}

	_, dm := h.send(t, teamsfake.Msg{Kind: teamsfake.Personal, Chat: personal, Text: "where is RetryOn503?"})
	h.wait(t)
	dmAnswer := theAnswer(t, h, dm)
	down := submitData(t, cardOf(t, dmAnswer), "👎 Not helpful")
	_, click := h.send(t, teamsfake.Msg{Kind: teamsfake.Personal, Chat: personal, ReplyToID: dmAnswer.ID, Value: down})
	h.wait(t)
	if r := h.fake.Replies(personal, click.ID); len(r) != 1 || r[0].Text != "Thanks! Your vote was recorded." {
		t.Errorf("personal vote answered with %+v, want a thank-you", r)
	}
	if votes, _ := h.votes.List(context.Background()); len(votes) != 2 || votes[1].Vote != retrieval.VoteDown {
		t.Errorf("votes %+v, want the 👎 stored too", votes)
	}
}

// TestAccess checks against the real Weaviate that a source a channel may
// not see is never in its answers, while a channel that may see it gets it.
func TestAccess(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	q := "where is the salary export to payroll?"
	asked := map[string]teamsfake.Msg{}
	for _, ch := range []string{chanPay, chanAll, chanNone} {
		asked[ch] = h.ask(t, ch, q)
	}
	h.wait(t)
	seen := func(ch string) string {
		a := theAnswer(t, h, asked[ch])
		return a.Text + string(a.Attachments)
	}
	if s := seen(chanPay); strings.Contains(s, "hr/salary.go") {
		t.Errorf("%s may not see repo:hr but its answer shows hr/salary.go:\n%s", chanPay, s)
	}
	if s := seen(chanAll); !strings.Contains(s, "hr/salary.go") {
		t.Errorf("%s may see repo:hr but its answer lacks hr/salary.go:\n%s", chanAll, s)
	}
	if s := seen(chanNone); !strings.Contains(s, "no sources to search") || !strings.Contains(s, chanNone) {
		t.Errorf("%s: %s, want the no-sources reply naming the id to configure", chanNone, s)
	}
}

// TestSourceTextNotFormatted: markdown in a snippet is shown as text: it is
// only ever in RichTextBlocks, which Teams does not parse; the TextBlocks
// (markdown) hold only the links we build.
func TestSourceTextNotFormatted(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	m := h.ask(t, chanPay, "where is DeployNotice?")
	h.wait(t)
	card := cardOf(t, theAnswer(t, h, m))
	if md := texts(card, "TextBlock"); strings.Contains(md, "evil.example") || strings.Contains(md, "urgent") {
		t.Errorf("source text reached a markdown TextBlock:\n%s", md)
	}
	if rich := texts(card, "RichTextBlock"); !strings.Contains(rich, "**urgent** [click here](https://evil.example/x) _now_") {
		t.Errorf("the snippet is not shown as written:\n%s", rich)
	}
}

// TestHugeSnippetFitsLimit: a 5,000-line function with non-ASCII lines is
// cut to fit Teams' 40 KB (UTF-16) limit, says how many lines were left out,
// and is sent as a card.
func TestHugeSnippetFitsLimit(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	m := h.ask(t, chanPay, "where is HugeGeneratedTable?")
	h.wait(t)
	for _, c := range h.fake.Calls("") {
		if c.Status/100 != 2 || c.Size > teamsfake.MaxActivity {
			t.Errorf("call %s %s: HTTP %d, %d UTF-16 bytes", c.Method, c.Path, c.Status, c.Size)
		}
	}
	rich := texts(cardOf(t, theAnswer(t, h, m)), "RichTextBlock")
	mm := regexp.MustCompile(`(?s)(// HugeGeneratedTable[^…]*?)\n… ([0-9]+) more lines`).FindStringSubmatch(rich)
	if mm == nil {
		t.Fatalf("no trimmed HugeGeneratedTable in:\n%.2000s", rich)
	}
	if kept := strings.Count(mm[1], "\n") + 1; mm[2] != strconv.Itoa(5000-kept) {
		t.Errorf("kept %d lines and says %s more, want %d", kept, mm[2], 5000-kept)
	}
}

// TestCardRefusedFallsBackToText: when the connector refuses the card, the
// same answer goes out as plain text: the citations, their links and the
// snippets' code.
func TestCardRefusedFallsBackToText(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.fake.Fail(http.MethodPut, http.StatusBadRequest, "BadArgument")
	m := h.ask(t, chanPay, "where is RetryOn503?")
	h.wait(t)
	a := theAnswer(t, h, m)
	if a.Attachments != nil || a.TextFormat != "plain" || !strings.Contains(a.Text, "httpx/retry.go:10-14 · RetryOn503 · httpx@3f1c2d4") ||
		!strings.Contains(a.Text, "https://git.example.com/httpx/blob/"+sha+"/httpx/retry.go#L10-L14") {
		t.Errorf("fallback message %+v, want plain text with the citation and its link", a)
	}
	if !strings.Contains(a.Text, "return status == 503 || status == 429") {
		t.Errorf("fallback message lacks the snippet's code:\n%s", a.Text)
	}
	if !strings.Contains(h.logs.String(), "teams refused the card; sending text only") {
		t.Error("the fallback is not logged")
	}
}

func TestWeaviateDown(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.proxy.Down.Store(true)
	m := h.ask(t, chanPay, "where is RetryOn503?")
	h.wait(t)
	if a := theAnswer(t, h, m); !strings.Contains(a.Text, "Search is temporarily unavailable") {
		t.Errorf("answer %q, want the unavailable notice", a.Text)
	}
	if !strings.Contains(h.logs.String(), `level=ERROR msg="search failed; told the user it is unavailable"`) {
		t.Errorf("the failure is not in the operator's log")
	}
	// The notice names the request id its log line carries.
	id := regexp.MustCompile(`\(request ([0-9a-f]{6})\)`).FindStringSubmatch(theAnswer(t, h, m).Text)
	if id == nil {
		t.Fatalf("answer %q names no request id", theAnswer(t, h, m).Text)
	}
	logged := regexp.MustCompile(`(?m)^.*level=ERROR msg="search failed; told the user it is unavailable" .*request_id=` + id[1] + ` `)
	if !logged.MatchString(h.logs.String()) {
		t.Errorf("no failure logged with request_id=%s:\n%s", id[1], h.logs.String())
	}
}

// TestNoSecretsInLogs fails the token endpoint (its description even
// echoing the password) and the connector, and checks that neither the app
// password, the access tokens nor the incoming JWTs reach the log.
func TestNoSecretsInLogs(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.clock.Advance(time.Hour) // the startup token has expired
	h.fake.FailToken(http.StatusUnauthorized, "invalid_client", "AADSTS7000215: Invalid client secret provided: "+teamsfake.AppPassword)
	h.ask(t, chanPay, "where is RetryOn503?")
	h.wait(t)
	h.fake.Fail(http.MethodPost, http.StatusForbidden, "Forbidden")
	h.fake.Fail(http.MethodPost, http.StatusForbidden, "Forbidden")
	h.ask(t, chanPay, "where is RetryOn503?")
	h.wait(t)
	body, _ := h.fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, Mention: true, Text: "x"})
	jwt := h.fake.Token(teamsfake.Claims{Audience: "wrong"})
	h.post(t, jwt, body)

	logs := h.logs.String()
	if !strings.Contains(logs, "invalid_client") || !strings.Contains(logs, "status 403 Forbidden") {
		t.Fatalf("the failures were not logged:\n%s", logs)
	}
	secrets := []string{teamsfake.AppPassword, jwt}
	for _, c := range h.fake.Calls("") {
		secrets = append(secrets, c.Token)
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("log leaks %q:\n%s", s, logs)
		}
	}
	cfg := teams.Config{AppID: teamsfake.AppID, AppPassword: teamsfake.AppPassword}
	if out := fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg); strings.Contains(out, teamsfake.AppPassword) {
		t.Errorf("printing the config leaks the password: %s", out)
	}
}

// TestACLGroups checks against the real Weaviate that a chunk of an ACL
// group reaches its member in a personal chat and everyone in a channel
// listed in the group, but not the member's question in another channel
// or group chat, where others read the answer.
func TestACLGroups(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	q := "where are the quarterly bonus payouts computed?"
	send := func(m teamsfake.Msg) teamsfake.Msg {
		m.Text = q
		code, sent := h.send(t, m)
		if code != http.StatusOK {
			t.Fatalf("activity: HTTP %d, want 200", code)
		}
		return sent
	}
	cases := []struct {
		name string
		msg  teamsfake.Msg
		want bool
	}{
		{"member, personal chat", teamsfake.Msg{Kind: teamsfake.Personal, Chat: "a:1payroll-personal", From: userPayroll}, true},
		{"non-member, personal chat", teamsfake.Msg{Kind: teamsfake.Personal, Chat: "a:1other-personal"}, false},
		{"member, another channel", teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, From: userPayroll, Mention: true}, false},
		{"member, group chat", teamsfake.Msg{Kind: teamsfake.GroupChat, Chat: group, From: userPayroll, Mention: true}, false},
		{"non-member, the group's channel", teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPayroll, Mention: true}, true},
	}
	sent := make([]teamsfake.Msg, len(cases))
	for i, c := range cases {
		sent[i] = send(c.msg)
	}
	h.wait(t)
	for i, c := range cases {
		a := theAnswer(t, h, sent[i])
		if got := strings.Contains(a.Text+string(a.Attachments), "bonus/bonus.go"); got != c.want {
			t.Errorf("%s: shows bonus/bonus.go %v, want %v", c.name, got, c.want)
		}
	}
}

// TestTopKShown: an answer with more snippets than get their code shown
// (retrieval.top_k above 5) counts them all in its heading and lists the
// rest, within Teams' 40 KB message limit (Teams docs, 'Format your bot
// messages'); what does not fit is counted, with where to see it.
func TestTopKShown(t *testing.T) {
	for _, n := range []int{12, 40} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			h := newHarness(t, harnessOpts{ledger: n, topK: n})
			m := h.ask(t, chanPay, chattest.LedgerQuestion)
			h.wait(t)
			for _, c := range h.fake.Calls("") {
				if c.Status/100 != 2 || c.Size > teamsfake.MaxActivity {
					t.Errorf("call %s %s: HTTP %d, %d UTF-16 bytes", c.Method, c.Path, c.Status, c.Size)
				}
			}
			card := cardOf(t, theAnswer(t, h, m))
			text := texts(card, "RichTextBlock") + "\n" + texts(card, "TextBlock")
			if want := fmt.Sprintf("🔍 %d results for", n); !strings.Contains(text, want) {
				t.Errorf("heading lacks %q:\n%s", want, text)
			}
			shown := 0
			for i := 1; i <= n; i++ {
				if strings.Contains(text, fmt.Sprintf("ReconcileLedgerSettlement%02d", i)) {
					shown++
				}
			}
			more := 0
			if mm := regexp.MustCompile(`… ([0-9]+) more: ask `).FindStringSubmatch(text); mm != nil {
				more, _ = strconv.Atoi(mm[1])
			}
			if shown+more != n {
				t.Errorf("%d results shown and %d counted as more, want %d in all:\n%s", shown, more, n, text)
			}
		})
	}
}

// TestQuestionEchoedAsTyped: markdown in a question is echoed as typed:
// the searching notice is plain text, and in the cards the question is only
// in RichTextBlocks, whose TextRuns Teams does not parse as markdown
// (Adaptive Cards schema, 'TextRun'), never in a markdown TextBlock.
func TestQuestionEchoedAsTyped(t *testing.T) {
	for _, q := range []string{"where is **RetryOn503** _decided_ `now`?", "**kubernetes** helm _chart_ `values`"} {
		t.Run(q, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			m := h.ask(t, chanPay, q)
			h.wait(t)
			a := theAnswer(t, h, m)
			var searching struct {
				Text       string `json:"text"`
				TextFormat string `json:"textFormat"`
			}
			if err := json.Unmarshal(a.First, &searching); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(searching.Text, q) || searching.TextFormat != "plain" {
				t.Errorf("searching %+v, want plain text with %q", searching, q)
			}
			card := cardOf(t, a)
			if md := texts(card, "TextBlock"); strings.Contains(md, "_chart_") || strings.Contains(md, "**RetryOn503**") {
				t.Errorf("the question reached a markdown TextBlock:\n%s", md)
			}
			if rich := texts(card, "RichTextBlock"); !strings.Contains(rich, q) {
				t.Errorf("the card does not echo %q as typed:\n%s", q, rich)
			}
		})
	}
}

// TestHugeCardRefusedFitsAsText: the text sent for a refused card with a
// 5,000-line snippet keeps code, says how many lines it left out, and fits
// Teams' 40 KB limit.
func TestHugeCardRefusedFitsAsText(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.fake.Fail(http.MethodPut, http.StatusBadRequest, "BadArgument")
	m := h.ask(t, chanPay, "where is HugeGeneratedTable?")
	h.wait(t)
	a := theAnswer(t, h, m)
	if a.Attachments != nil || !strings.Contains(a.Text, "// HugeGeneratedTable maps every legacy code") ||
		!regexp.MustCompile(`… [0-9]+ more lines`).MatchString(a.Text) {
		t.Errorf("fallback message %.2000s, want the trimmed code as text", a.Text)
	}
	for _, c := range h.fake.Calls("") {
		if c.Size > teamsfake.MaxActivity {
			t.Errorf("call %s %s: %d UTF-16 bytes", c.Method, c.Path, c.Size)
		}
	}
}

// TestMissingNameSaid: a name nothing indexed mentions, typed in lower
// case, makes the card say so and list the closest matches for the rest of
// the question (found missing from the search's document frequencies: the
// harness's Asker has no vocabularies).
func TestMissingNameSaid(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	body, m := h.fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, Mention: true,
		Text: "where do we retry 503 errors from rabbitmq?"})
	if code, _ := h.post(t, h.fake.Token(h.fake.ValidClaims(m.ServiceURL)), body); code != http.StatusOK {
		t.Fatalf("activity: HTTP %d", code)
	}
	h.wait(t)
	card := cardOf(t, theAnswer(t, h, m))
	rich, md := texts(card, "RichTextBlock"), texts(card, "TextBlock")
	if want := "❔ Nothing indexed mentions “rabbitmq”. The closest matches for “retry 503 errors”:"; !strings.Contains(rich, want) {
		t.Errorf("card lacks %q:\n%s", want, rich)
	}
	if !strings.Contains(md, "httpx/retry.go:10-14") {
		t.Errorf("card lacks the closest match httpx/retry.go:\n%s", md)
	}
}
