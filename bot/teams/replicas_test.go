package teams_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/bot/teams/teamsfake"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// replica is one `ragbot serve` of several behind one Teams bot: its own
// bot and messaging endpoint, the shared fake Bot Framework, index and
// Weaviate claims.
type replica struct {
	bot *teams.Bot
	url string
}

func newReplicas(t *testing.T, n int) (*teamsfake.Server, []replica) {
	t.Helper()
	ctx := context.Background()
	asker := chattest.Index(t, weaviatetest.URL(t), fixtureChunks(time.Now().Add(-40*time.Minute)))
	fake := teamsfake.New(t, teamsfake.Options{})
	var out []replica
	for i := range n {
		claims, err := asker.Store.(*weaviate.Store).OpenClaims(ctx, weaviate.ClaimsOptions{Holder: fmt.Sprintf("replica-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			t.Cleanup(func() { _ = claims.Drop(context.Background()) })
		}
		b, err := teams.New(ctx, teams.Config{AppID: teamsfake.AppID, AppPassword: teamsfake.AppPassword, TokenURL: fake.TokenURL(),
			OpenIDMetadataURL: fake.MetadataURL(), Answerer: asker, Access: testAccess, AnswerTimeout: 10 * time.Second,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Claims: claims})
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
		out = append(out, replica{bot: b, url: srv.URL + teams.MessagesPath})
	}
	return fake, out
}

// deliver posts the activity body to r with a valid token.
func (r replica) deliver(t *testing.T, fake *teamsfake.Server, body []byte, m teamsfake.Msg) {
	t.Helper()
	resp, err := http.DefaultClient.Do(teamsfake.Request(r.url, fake.Token(fake.ValidClaims(m.ServiceURL)), body))
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("activity %s: HTTP %d", m.ID, resp.StatusCode)
	}
}

func (r replica) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := r.bot.Wait(ctx); err != nil {
		t.Fatalf("answers still running: %v", err)
	}
}

// TestReplicasAnswerOnce: two replicas behind one Teams bot, the same
// activity delivered to each (the Bot Framework redelivers an activity it
// got no answer for, possibly to another instance), at once or one after
// the other: each question gets one reply, 10 times out of 10 each way.
func TestReplicasAnswerOnce(t *testing.T) {
	fake, rs := newReplicas(t, 2)
	const rounds = 10
	var asked []teamsfake.Msg
	for i := range 2 * rounds {
		body, m := fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: chanPay, Text: "where is RetryOn503?", Mention: true})
		asked = append(asked, m)
		if i < rounds { // at once
			var wg sync.WaitGroup
			for _, r := range rs {
				wg.Go(func() { r.deliver(t, fake, body, m) })
			}
			wg.Wait()
			continue
		}
		first, retry := rs[i%2], rs[(i+1)%2]
		first.deliver(t, fake, body, m)
		first.wait(t)
		retry.deliver(t, fake, body, m)
	}
	for _, r := range rs {
		r.wait(t)
	}
	for i, m := range asked {
		if n := len(fake.Replies(m.ConversationID(), m.ID)); n != 1 {
			t.Errorf("question %d (%s): %d replies, want 1", i, m.ID, n)
		}
	}
}
