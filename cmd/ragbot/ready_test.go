package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// readyPort returns the HTTP port of this test's own Weaviate: the first
// of 8476, 8486, 8496 and 8506 whose six ports (HTTP, gRPC, gossip, data, Raft, Raft
// RPC) are all free now. It is chosen once, because a restarted server must
// keep its Raft address; clear of the CI server's 8179 range and the
// cluster tests' (cluster_test.go).
func readyPort(t *testing.T) int {
	t.Helper()
	free := func(p int) bool {
		for q := p; q < p+6; q++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", q))
			if err != nil {
				return false
			}
			l.Close()
		}
		return true
	}
	for p := 8476; p <= 8506; p += 10 { // below the cluster tests' 8520
		if free(p) {
			return p
		}
	}
	t.Fatal("no six free ports at 8476, 8486, 8496 or 8506")
	return 0
}

// TestServeReadyz: /readyz is 200 while Weaviate serves, 200 "degraded"
// while a chunk shard is READONLY, 503 "weaviate unreachable" once
// Weaviate is stopped (while /healthz stays 200), and 200 again within 2 s
// of a restart. serve also waits out a Slack Web API failing at start.
func TestServeReadyz(t *testing.T) {
	weaviatetest.URL(t) // skip (fail on CI) where there is no weaviate-server
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	port := readyPort(t)
	start := func() *weaviatelocal.Server {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		srv, err := weaviatelocal.Start(ctx, weaviatelocal.Options{DataDir: filepath.Join(dir, "weaviate"), Port: port, Logger: quiet})
		if err != nil {
			t.Fatalf("start weaviate: %v", err)
		}
		return srv
	}
	wv := start()
	t.Cleanup(func() { _ = wv.Stop(context.Background()) })

	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	fake := slackfake.New(t)
	cfgPath := filepath.Join(dir, "ragbot.yaml")
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  api_key_env: RAGBOT_TEST_READY_WEAVIATE_KEY
sources:
  - name: httpx
    kind: git
    path: %s
serve:
  listen: 127.0.0.1:0
  shutdown_timeout: 10s
slack:
  mode: http
  api_url: %s
`, wv.URL, repo, fake.APIURL())
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGBOT_TEST_READY_WEAVIATE_KEY", wv.APIKey) // the same after a restart: kept in the data dir
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", slackfake.BotToken)
	t.Setenv("RAGBOT_SLACK_SIGNING_SECRET", slackfake.SigningSecret)
	fake.Fail("auth.test", "service_unavailable") // Slack down at start: retried, not fatal

	var logs syncWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := startServer(ctx, commonFlags{config: cfgPath, logFormat: "json"}, "", &logs)
	if err != nil {
		t.Fatalf("serve with Slack failing once at start: %v\n%s", err, logs.String())
	}
	defer s.Close()
	if n := len(fake.Calls("auth.test")); n != 2 {
		t.Errorf("auth.test calls = %d, want 2 (one failure, one retry)", n)
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("the auth.test retry is not logged:\n%s", logs.String())
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	base := "http://" + s.Addr()

	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// waitFor polls /readyz until it answers want with a body containing
	// part, and returns the body.
	waitFor := func(want int, part string) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			code, body := get("/readyz")
			if code == want && strings.Contains(body, part) {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET /readyz = %d %q, want %d with %q", code, body, want, part)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor(http.StatusOK, "ready\n")

	// A READONLY shard (as Weaviate marks them on a nearly full disk) still
	// answers questions: ready, degraded.
	setShards := func(status string) {
		t.Helper()
		var shards []struct{ Name string }
		req, _ := http.NewRequest(http.MethodGet, wv.URL+"/v1/schema/Chunk/shards", nil)
		req.Header.Set("Authorization", "Bearer "+wv.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&shards)
		resp.Body.Close()
		if err != nil || len(shards) == 0 {
			t.Fatalf("shards of Chunk: %v %v", shards, err)
		}
		for _, sh := range shards {
			req, _ := http.NewRequest(http.MethodPut, wv.URL+"/v1/schema/Chunk/shards/"+sh.Name, strings.NewReader(`{"status":"`+status+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+wv.APIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("set shard %s %s: %v %v", sh.Name, status, resp, err)
			}
			resp.Body.Close()
		}
	}
	setShards("READONLY")
	waitFor(http.StatusOK, "ready, degraded: weaviate: shard Chunk/")
	setShards("READY")
	waitFor(http.StatusOK, "ready\n")

	if err := wv.Stop(context.Background()); err != nil {
		t.Fatalf("stop weaviate: %v", err)
	}
	waitFor(http.StatusServiceUnavailable, "not ready: weaviate unreachable")
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d while Weaviate is down, want 200 (liveness)", code)
	}

	// Ready again within 2 s of Weaviate's return (its readiness probe
	// answering, when Start returns), with the default caches.
	wv = start()
	back := time.Now()
	waitFor(http.StatusOK, "ready\n")
	took := time.Since(back)
	t.Logf("/readyz ready %s after Weaviate's return", took.Round(10*time.Millisecond))
	if took > 2*time.Second {
		t.Errorf("/readyz ready %s after Weaviate's return, want within 2s", took)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
