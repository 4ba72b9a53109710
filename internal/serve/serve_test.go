package serve_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/config/configtest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/internal/serve"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// TestReadSecrets: with Slack and Teams both on and no credentials in the
// environment, every missing one is reported at once, by its variable.
func TestReadSecrets(t *testing.T) {
	for _, v := range []string{"RAGBOT_SLACK_BOT_TOKEN", "RAGBOT_SLACK_APP_TOKEN", "RAGBOT_TEAMS_APP_PASSWORD"} {
		t.Setenv(v, "")
	}
	cfg := configtest.Load(t, "", fmt.Sprintf("slack:\n  mode: socket\nteams:\n  app_id: 00000000-0000-0000-0000-000000000001\n"+
		"sources:\n  - name: notes\n    kind: markdown\n    path: %s\n", t.TempDir()))
	_, err := serve.ReadSecrets(cfg)
	for _, want := range []string{"RAGBOT_SLACK_BOT_TOKEN", "RAGBOT_SLACK_APP_TOKEN", "RAGBOT_TEAMS_APP_PASSWORD"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadSecrets = %v, want an error naming %s", err, want)
		}
	}
}

// newServer builds the server of a config with Slack in HTTP mode against
// a fake Slack and one markdown source, on a fresh collection dropped when
// the test ends.
func newServer(t *testing.T, listen string) (*serve.Server, error) {
	t.Helper()
	fake := slackfake.New(t)
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", slackfake.BotToken)
	t.Setenv("RAGBOT_SLACK_SIGNING_SECRET", slackfake.SigningSecret)
	cfg := configtest.Load(t, "", fmt.Sprintf("weaviate:\n  url: %s\n  collection: %s\nslack:\n  mode: http\n  api_url: %s\n"+
		"serve:\n  shutdown_timeout: 5s\nsources:\n  - name: notes\n    kind: markdown\n    path: %s\n",
		weaviatetest.URL(t), weaviatetest.ClassName(), fake.APIURL(), t.TempDir()))
	emb := embed.NewOffline()
	store, err := weaviate.OpenStore(context.Background(), weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: cfg.Weaviate.Collection}, emb.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropAll(t, store) })
	secrets, err := serve.ReadSecrets(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return serve.New(context.Background(), serve.Parts{
		Config: cfg, Store: store, Asker: &retrieval.Asker{Store: store, Embedder: emb, TopK: 5, Candidates: 40},
		NewIndexer: func() *ingest.Indexer { return &ingest.Indexer{Store: store, Embedder: emb} },
		Metrics:    metrics.New(cfg.Sources), Log: slog.New(slog.DiscardHandler), Secrets: secrets, Listen: listen,
	})
}

// dropAll drops the collections serve makes beside the store's.
func dropAll(t *testing.T, store *weaviate.Store) {
	ctx := context.Background()
	if votes, err := store.OpenFeedback(ctx); err == nil {
		_ = votes.Drop(ctx)
	}
	if claims, err := store.OpenClaims(ctx, weaviate.ClaimsOptions{}); err == nil {
		_ = claims.Drop(ctx)
	}
	if err := store.Drop(ctx); err != nil {
		t.Errorf("drop: %v", err)
	}
}

// TestServerRun: the server answers its health, readiness and metrics
// routes, mounts the webhooks and, in HTTP mode, Slack's routes (which
// refuse an unsigned event), and Run returns nil once its context ends.
func TestServerRun(t *testing.T) {
	s, err := newServer(t, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Ready.TTL = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	base := "http://" + s.Addr()

	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/healthz", http.StatusOK},
		{http.MethodGet, "/readyz", http.StatusOK},
		{http.MethodGet, "/metrics", http.StatusOK},
		{http.MethodGet, "/webhooks/notes", http.StatusMethodNotAllowed},
		{http.MethodPost, "/slack/events", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(tt.method, base+tt.path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.want)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of the end of its context")
	}
}
