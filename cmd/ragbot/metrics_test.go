package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	slackbot "github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// scrape GETs /metrics and parses the text exposition format.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET /metrics is not the Prometheus text format: %v", err)
	}
	return fams
}

// value is the sum of the samples (counter values, histogram counts) of
// family name whose labels include want.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	sum := 0.0
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		}
	}
	return sum
}

// ragbotSeries counts the series of the ragbot_ families.
func ragbotSeries(fams map[string]*dto.MetricFamily) int {
	n := 0
	for name, f := range fams {
		if strings.HasPrefix(name, "ragbot_") {
			n += len(f.Metric)
		}
	}
	return n
}

// TestServeMetrics runs `ragbot serve` (HTTP mode, fake Slack, real
// Weaviate and git repo), lets its startup index run, asks questions from
// many users and channels, sends a retried delivery, a /where-is and
// webhooks, and scrapes /metrics: every family is there with the counts of
// what happened, and the number of series does not grow with the users,
// channels or questions.
func TestServeMetrics(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	fake := slackfake.New(t)
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: %s
    webhook_secret_env: RAGBOT_TEST_HOOK_SECRET
serve:
  listen: 127.0.0.1:0
  shutdown_timeout: 10s
slack:
  mode: http
  api_url: %s
access:
  default: ["*"]
`, weaviatetest.URL(t), weaviatetest.ClassName(), repo, fake.APIURL())
	cfgPath := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", slackfake.BotToken)
	t.Setenv("RAGBOT_SLACK_SIGNING_SECRET", slackfake.SigningSecret)
	t.Setenv("RAGBOT_TEST_HOOK_SECRET", "hook-secret")
	t.Cleanup(func() { dropCollection(t, cfgPath) }) // before the variables are restored

	var logs syncWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := startServer(ctx, commonFlags{config: cfgPath}, "", &logs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	base := "http://" + s.Addr()

	// Before anything happened: the families with bounded labels exist at zero.
	fams := scrape(t, base)
	for _, name := range []string{"ragbot_questions_total", "ragbot_chunks_embedded_total", "ragbot_webhook_deliveries_total",
		"ragbot_duplicate_deliveries_total", "ragbot_index_queue_sources", "go_goroutines",
		"ragbot_answer_queue_length", "ragbot_answers_running", "ragbot_answers_refused_total"} {
		if fams[name] == nil {
			t.Errorf("no family %s before the first event", name)
		}
	}

	// The startup index run of the git source (serve indexes on start).
	deadline := time.Now().Add(60 * time.Second)
	for value(scrape(t, base), "ragbot_index_runs_total", map[string]string{"source": "httpx"}) < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no index run counted within 60 s:\n%s", logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}

	ask := func(i int, channel, user, question string) {
		t.Helper()
		ts := fake.AddMessage(slackfake.Message{Channel: channel, User: user, Text: question})
		body := slackfake.EventCallback(fmt.Sprintf("Ev%d", i), slackfake.Mention(channel, user, question, ts, ""))
		resp, err := http.DefaultClient.Do(slackfake.SignedRequest(base+slackbot.EventsPath, "application/json", slackfake.SigningSecret, time.Now(), body))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("event %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	ask(0, "C0FIRST", "U0FIRST", "where is the retry for 503 errors decided?")
	if err := s.Slack.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	seriesAfterOne := ragbotSeries(scrape(t, base))

	for i := 1; i < 20; i++ {
		q := fmt.Sprintf("where is RetryOn503 used, variant %d?", i)
		if i%2 == 0 {
			q = fmt.Sprintf("how do we rotate the kafka consumer group %d credentials?", i)
		}
		ask(i, fmt.Sprintf("C0CHAN%02d", i), fmt.Sprintf("U0USER%02d", i), q)
	}
	ask(1, "C0CHAN01", "U0USER01", "where is RetryOn503 used, variant 1?") // Slack's retry of Ev1
	if err := s.Slack.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	// /where-is, answered through the lister.
	form := slackfake.SlashCommand("/where-is", "RetryOn503", "C0CMD", "U0CMD", fake.ResponseURL("c"))
	resp, err := http.DefaultClient.Do(slackfake.SignedRequest(base+slackbot.CommandsPath, "application/x-www-form-urlencoded",
		slackfake.SigningSecret, time.Now(), []byte(form.Encode())))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/where-is: %v %v", resp, err)
	}
	resp.Body.Close()
	if err := s.Slack.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	// Webhooks: a bad signature, an unknown source, a verified ping.
	hook := func(path, event, sig string) int {
		t.Helper()
		body := []byte(`{"zen":"hi"}`)
		req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", event)
		if sig == "" {
			mac := hmac.New(sha256.New, []byte("hook-secret"))
			mac.Write(body)
			sig = "sha256=" + hex.EncodeToString(mac.Sum(nil))
		}
		req.Header.Set("X-Hub-Signature-256", sig)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	codes := []int{hook("/webhooks/httpx", "push", "sha256=00"), hook("/webhooks/nosuch", "push", "sha256=00"), hook("/webhooks/httpx", "ping", "")}
	if codes[0] != 401 || codes[1] != 404 || codes[2] != 200 {
		t.Fatalf("webhook statuses %v, want [401 404 200]", codes)
	}

	fams = scrape(t, base)
	checks := []struct {
		name   string
		labels map[string]string
		min    float64
		max    float64
	}{
		{"ragbot_questions_total", map[string]string{"surface": "slack"}, 20, 20},
		{"ragbot_questions_total", map[string]string{"surface": "slack_command"}, 1, 1},
		{"ragbot_questions_total", map[string]string{"surface": "slack", "outcome": "answered"}, 1, 20},
		{"ragbot_questions_total", map[string]string{"surface": "slack", "outcome": "unavailable"}, 0, 0},
		// 20 questions fit in serve.max_concurrent_answers plus the queue: none refused
		{"ragbot_questions_total", map[string]string{"surface": "slack", "outcome": "busy"}, 0, 0},
		{"ragbot_answers_refused_total", map[string]string{"reason": "queue_full"}, 0, 0},
		{"ragbot_answer_queue_length", nil, 0, 0},
		{"ragbot_answers_running", nil, 0, 0},
		{"ragbot_answer_duration_seconds", map[string]string{"surface": "slack"}, 20, 20},
		{"ragbot_duplicate_deliveries_total", map[string]string{"surface": "slack"}, 1, 1},
		{"ragbot_weaviate_request_duration_seconds", map[string]string{"kind": "search"}, 20, 1e9},
		{"ragbot_weaviate_request_duration_seconds", map[string]string{"kind": "batch"}, 1, 1e9},
		{"ragbot_weaviate_request_duration_seconds", map[string]string{"kind": "schema"}, 1, 1e9},
		{"ragbot_weaviate_request_errors_total", nil, 0, 0},
		{"ragbot_index_runs_total", map[string]string{"source": "httpx", "result": "ok"}, 1, 1},
		{"ragbot_chunks_embedded_total", map[string]string{"source": "httpx"}, 3, 1000},
		{"ragbot_chunks_deleted_total", map[string]string{"source": "httpx"}, 0, 0},
		{"ragbot_webhook_deliveries_total", map[string]string{"result": "bad_signature"}, 1, 1},
		{"ragbot_webhook_deliveries_total", map[string]string{"result": "unknown_source"}, 1, 1},
		{"ragbot_webhook_deliveries_total", map[string]string{"result": "ignored"}, 1, 1},
		// one git source: at most one waiting and one running
		{"ragbot_index_queue_sources", map[string]string{"state": "pending"}, 0, 1},
		{"ragbot_index_queue_sources", map[string]string{"state": "running"}, 0, 1},
	}
	for _, c := range checks {
		if v := value(fams, c.name, c.labels); v < c.min || v > c.max {
			t.Errorf("%s%v = %g, want %g..%g", c.name, c.labels, v, c.min, c.max)
		}
	}
	// Histogram sums are seconds: each answer takes more than nothing and
	// less than the 30 s answer timeout (the answers ran concurrently, so
	// the sum may exceed the test's wall time).
	var secs float64
	for _, m := range fams["ragbot_answer_duration_seconds"].Metric {
		secs += m.Histogram.GetSampleSum()
	}
	if mean := secs / 21; mean <= 0 || mean > 30 {
		t.Errorf("mean answer duration %g s, want seconds in (0, 30]", mean)
	}

	// Bounded labels: the series of the question families did not grow with
	// 19 more users, channels and questions; no label holds any of them.
	if got := ragbotSeries(fams); got-seriesAfterOne > 12 { // the webhook, weaviate and command series that came since
		t.Errorf("%d ragbot series after 20 questions, %d after one: labels grow with users, channels or questions", got, seriesAfterOne)
	}
	if a, b := len(fams["ragbot_questions_total"].Metric), len(scrape(t, base)["ragbot_questions_total"].Metric); a != b {
		t.Errorf("questions series changed between scrapes: %d, %d", a, b)
	}
	for name, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				v := l.GetValue()
				if strings.HasPrefix(v, "U0") || strings.HasPrefix(v, "C0") || strings.Contains(v, " ") || strings.Contains(v, "/") {
					t.Errorf("%s has an unbounded label value %s=%q", name, l.GetName(), v)
				}
			}
		}
	}
	if n := len(fams["ragbot_questions_total"].Metric); n > 3*len(metrics.QuestionOutcomes) {
		t.Errorf("%d ragbot_questions_total series, want at most surfaces x outcomes", n)
	}
}
