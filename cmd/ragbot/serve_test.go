package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
	slackbot "github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval/eval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// writeServeConfig writes a config for `ragbot serve` in HTTP mode against
// the test Weaviate (a fresh collection) and a fake Slack.
func writeServeConfig(t *testing.T, repo, slackAPI string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: %s
    link_template: "https://git.example.com/httpx/blob/{commit}/{path}#L{start}-L{end}"
serve:
  listen: 127.0.0.1:0
  shutdown_timeout: 10s
slack:
  mode: http
  api_url: %s
access:
  default: []
  channels:
    C0PAY: [httpx]
`, weaviatetest.URL(t), weaviatetest.ClassName(), repo, slackAPI)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServe runs `ragbot serve` in process, in HTTP mode: health check, a
// signed mention answered in its thread from a real index of a git repo, a
// vote exported as an eval question, and a graceful stop that lets an answer
// in flight finish.
func TestServe(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	fake := slackfake.New(t)
	cfgPath := writeServeConfig(t, repo, fake.APIURL())
	t.Cleanup(func() { dropCollection(t, cfgPath) })
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", slackfake.BotToken)
	t.Setenv("RAGBOT_SLACK_SIGNING_SECRET", slackfake.SigningSecret)
	if code, _, errOut := ragbot(t, "index", "--config", cfgPath); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}

	var logs syncWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := startServer(ctx, commonFlags{config: cfgPath, logFormat: "json"}, "", &logs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }() // returns after cancel below
	base := "http://" + s.Addr()

	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	// The push webhook route is mounted on the same server (it takes POSTs only).
	resp, err = http.Get(base + "/webhooks/httpx")
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /webhooks/httpx: %v %v, want 405 from the webhook handler", resp, err)
	} else {
		resp.Body.Close()
	}

	post := func(eventID, ts string) {
		t.Helper()
		body := slackfake.EventCallback(eventID, slackfake.Mention("C0PAY", "U0USER", "where is the retry for 503 errors decided?", ts, ""))
		resp, err := http.DefaultClient.Do(slackfake.SignedRequest(base+slackbot.EventsPath, "application/json", slackfake.SigningSecret, time.Now(), body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("event %s: %v %v", eventID, resp, err)
		}
		resp.Body.Close()
	}
	ts := fake.AddMessage(slackfake.Message{Channel: "C0PAY", User: "U0USER", Text: "where is the retry for 503 errors decided?"})
	post("Ev1", ts)
	if err := s.Slack.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	replies := fake.Replies("C0PAY", ts)
	if len(replies) != 1 {
		t.Fatalf("%d replies, want 1", len(replies))
	}
	answer := string(replies[0].Blocks)
	for _, want := range []string{
		"https://git.example.com/httpx/blob/" + head + "/httpx/retry.go#L10-L14|httpx/retry.go:10-14",
		"`RetryOn503` · httpx@" + head[:7] + " · Ann Lee · indexed just now",
	} {
		if !strings.Contains(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(answer), want) {
			t.Errorf("answer lacks %q:\n%s", want, answer)
		}
	}

	// A 👍 on the answer, then export.
	value := voteValue(t, replies[0].Blocks)
	form := slackfake.BlockActions("C0PAY", "U0VOTER", replies[0].TS, ts, "feedback_up", value, fake.ResponseURL("v"), false)
	resp, err = http.DefaultClient.Do(slackfake.SignedRequest(base+slackbot.InteractivityPath, "application/x-www-form-urlencoded",
		slackfake.SigningSecret, time.Now(), []byte(form.Encode())))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("vote: %v %v", resp, err)
	}
	resp.Body.Close()

	// An answer in flight when the signal comes still finishes.
	ts2 := fake.AddMessage(slackfake.Message{Channel: "C0PAY", User: "U0USER", Text: "retry"})
	post("Ev2", ts2)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within its shutdown timeout")
	}
	if r := fake.Replies("C0PAY", ts2); len(r) != 1 || r[0].Updates != 1 {
		t.Errorf("the answer in flight at shutdown: %+v, want it posted and completed", r)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the HTTP server still answers after shutdown")
	}
	// --log-format json: every stderr line is a JSON object; the answer's
	// line carries its request id.
	var stopped, answered bool
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			EventID   string `json:"event_id"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("log line is not JSON: %v\n%s", err, line)
			continue
		}
		stopped = stopped || rec.Msg == "stopped"
		answered = answered || rec.Msg == "answered" && rec.EventID == "Ev1" && rec.RequestID == bot.RequestID("Ev1")
	}
	if !stopped {
		t.Errorf("no shutdown line in the log:\n%s", logs.String())
	}
	if !answered {
		t.Errorf("no answered line of Ev1 with request_id %s in the log:\n%s", bot.RequestID("Ev1"), logs.String())
	}

	code, out, errOut := ragbot(t, "feedback", "export", "--config", cfgPath)
	if code != 0 {
		t.Fatalf("feedback export: exit %d\n%s", code, errOut)
	}
	qs, err := eval.Load(strings.NewReader(out))
	if err != nil {
		t.Fatalf("export is not a valid question set: %v\n%s", err, out)
	}
	want := []eval.Question{{ID: qs[0].ID, Corpus: "httpx", Kind: "feedback", Question: "where is the retry for 503 errors decided?",
		Expect: []eval.Expect{{Path: "httpx/retry.go", Symbol: "RetryOn503", StartLine: 10, EndLine: 14}}}}
	if len(qs) != 1 || len(qs[0].Expect) == 0 {
		t.Fatalf("exported %+v, want one question", qs)
	}
	qs[0].Expect = qs[0].Expect[:1] // the top citation; the others are whatever else was shown
	if diff := cmp.Diff(want, qs); diff != "" {
		t.Errorf("export (-want +got):\n%s", diff)
	}
	if !strings.Contains(errOut, "1 votes on 1 answers: 1 questions exported") {
		t.Errorf("export summary: %s", errOut)
	}
}

// TestServeNeedsTokens: serve stops before starting anything when a token
// is missing, naming the field and the variable.
func TestServeNeedsTokens(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"a.go": "package a\n"})
	cfgPath := writeServeConfig(t, repo, "http://127.0.0.1:1/api/")
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", "")
	t.Setenv("RAGBOT_SLACK_SIGNING_SECRET", "")
	code, _, errOut := ragbot(t, "serve", "--config", cfgPath)
	want := "ragbot serve: slack.bot_token (from RAGBOT_SLACK_BOT_TOKEN): not set"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "slack.signing_secret (from RAGBOT_SLACK_SIGNING_SECRET): not set") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, errOut, want)
	}
}

// voteValue returns the value of the 👍 button in blocks.
func voteValue(t *testing.T, blocks []byte) string {
	t.Helper()
	var bs []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(blocks, &bs); err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		for _, e := range b.Elements {
			if e.ActionID == "feedback_up" {
				return e.Value
			}
		}
	}
	t.Fatalf("no vote button in %s", blocks)
	return ""
}

// syncWriter collects log output written from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
