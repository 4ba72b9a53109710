package slack_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// replica is one `ragbot serve` of several behind one Slack app: its own
// bot and HTTP server, the shared fake Slack, index and Weaviate claims.
type replica struct {
	bot  *slack.Bot
	url  string
	logs *chattest.SyncBuffer
}

// newReplicas starts n replicas; their claims reach Weaviate through proxy.
func newReplicas(t *testing.T, n int, proxy *chattest.WeaviateProxy) (*slackfake.Server, []replica) {
	t.Helper()
	ctx := context.Background()
	asker := chattest.Index(t, weaviatetest.URL(t), fixtureChunks(time.Now().Add(-40*time.Minute)))
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: proxy.URL, ChunkClass: weaviatetest.ClassName(),
		Timeout: 5 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, asker.Embedder.Name())
	if err != nil {
		t.Fatal(err)
	}
	fake := slackfake.New(t)
	var out []replica
	for i := range n {
		claims, err := store.OpenClaims(ctx, weaviate.ClaimsOptions{Holder: fmt.Sprintf("replica-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			t.Cleanup(func() { _ = claims.Drop(context.Background()) })
		}
		api := slackgo.New(slackfake.BotToken, slackgo.OptionAPIURL(fake.APIURL()))
		logs := &chattest.SyncBuffer{}
		b, err := slack.New(ctx, slack.Config{API: api, SigningSecret: slackfake.SigningSecret, Answerer: asker, Access: testAccess,
			AnswerTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(logs, nil)), Claims: claims})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		b.Routes(mux)
		srv := httptest.NewServer(mux)
		t.Cleanup(func() {
			srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = b.Shutdown(ctx)
		})
		out = append(out, replica{bot: b, url: srv.URL, logs: logs})
	}
	return fake, out
}

// deliver posts an Events API delivery of e to r, as Slack does (retry > 0
// sets X-Slack-Retry-Num).
func (r replica) deliver(t *testing.T, eventID string, e slackfake.Event, retry int) {
	t.Helper()
	req := slackfake.SignedRequest(r.url+slack.EventsPath, "application/json", slackfake.SigningSecret, time.Now(),
		slackfake.EventCallback(eventID, e))
	if retry > 0 {
		req.Header.Set("X-Slack-Retry-Num", fmt.Sprint(retry))
		req.Header.Set("X-Slack-Retry-Reason", "http_timeout")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("event %s: HTTP %d", eventID, resp.StatusCode)
	}
}

func (r replica) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.bot.Wait(ctx); err != nil {
		t.Fatalf("answers still running: %v", err)
	}
}

// TestReplicasAnswerOnce: two replicas behind one Slack app, the same event
// delivered to each, at once (a retry routed to the other replica while the
// first answers) or one after the other (a retry after the answer): each
// question gets one reply, posted once, 10 times out of 10 each way.
func TestReplicasAnswerOnce(t *testing.T) {
	fake, rs := newReplicas(t, 2, chattest.NewWeaviateProxy(t, weaviatetest.URL(t)))
	const rounds = 10
	var threads []string
	for i := range rounds {
		q := "where is RetryOn503?"
		ts := fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> " + q})
		threads = append(threads, ts)
		e := slackfake.Mention(chanPay, user, q, ts, "")
		id := fmt.Sprintf("EvConc%02d", i)
		var wg sync.WaitGroup
		for r, rep := range rs {
			wg.Go(func() { rep.deliver(t, id, e, r) })
		}
		wg.Wait()
	}
	for i := range rounds {
		q := "where is OrdersHandler?"
		ts := fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> " + q})
		threads = append(threads, ts)
		e := slackfake.Mention(chanPay, user, q, ts, "")
		id := fmt.Sprintf("EvSeq%02d", i)
		rs[i%2].deliver(t, id, e, 0)
		rs[i%2].wait(t)
		rs[(i+1)%2].deliver(t, id, e, 1)
	}
	for _, r := range rs {
		r.wait(t)
	}
	for i, ts := range threads {
		if n := len(fake.Replies(chanPay, ts)); n != 1 {
			t.Errorf("question %d: %d replies in its thread, want 1", i, n)
		}
	}
	if n := len(fake.Calls("chat.postMessage")); n != len(threads) {
		t.Errorf("%d chat.postMessage calls for %d questions, want one each", n, len(threads))
	}
}

// TestReplicasClaimStoreDown: when the claims cannot be reached, a replica
// answers anyway (fails open) and says so in its log.
func TestReplicasClaimStoreDown(t *testing.T) {
	proxy := chattest.NewWeaviateProxy(t, weaviatetest.URL(t))
	fake, rs := newReplicas(t, 1, proxy)
	proxy.Down.Store(true) // the search itself goes to Weaviate directly
	q := "where is RetryOn503?"
	ts := fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> " + q})
	rs[0].deliver(t, "EvDown", slackfake.Mention(chanPay, user, q, ts, ""), 0)
	rs[0].wait(t)
	replies := fake.Replies(chanPay, ts)
	if len(replies) != 1 || !strings.Contains(blockText(t, replies[0].Blocks), "RetryOn503") {
		t.Fatalf("replies %+v, want one answer citing RetryOn503", replies)
	}
	if logs := rs[0].logs.String(); !strings.Contains(logs, "delivery claim store unavailable") {
		t.Errorf("log lacks the fail-open warning:\n%s", logs)
	}
}

// TestReplicasRetryAfterFailure: the answer of one replica fails to post
// (its "searching" reply stays); Slack's retry reaches the other replica,
// which replaces that reply with the answer instead of posting a second.
func TestReplicasRetryAfterFailure(t *testing.T) {
	fake, rs := newReplicas(t, 2, chattest.NewWeaviateProxy(t, weaviatetest.URL(t)))
	q := "where is RetryOn503?"
	ts := fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "<@U0BOT> " + q})
	e := slackfake.Mention(chanPay, user, q, ts, "")
	fake.Fail("chat.update", "channel_not_found")
	rs[0].deliver(t, "EvFail", e, 0)
	rs[0].wait(t)
	if replies := fake.Replies(chanPay, ts); len(replies) != 1 || replies[0].Updates != 0 {
		t.Fatalf("after the failed answer: replies %+v, want the searching reply alone", replies)
	}
	rs[1].deliver(t, "EvFail", e, 1)
	rs[1].wait(t)
	replies := fake.Replies(chanPay, ts)
	if len(replies) != 1 || replies[0].Updates != 1 || !strings.Contains(blockText(t, replies[0].Blocks), "RetryOn503") {
		t.Fatalf("after the retry: replies %+v, want the searching reply replaced by the answer", replies)
	}
	if n := len(fake.Calls("chat.postMessage")); n != 1 {
		t.Errorf("%d chat.postMessage calls, want 1 (the retry updates the first reply)", n)
	}
}
