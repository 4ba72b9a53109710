package slack_test

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
)

// BenchmarkEventsAck measures how long the HTTP Events API endpoint takes to
// acknowledge a signed app_mention, over loopback TCP, for 200 requests an
// iteration sent one after another while the answers they start run in the
// background (as they do in production). Slack wants the ack within 3 s.
//
//	go test ./bot/slack -run '^$' -bench EventsAck -benchtime 1x
func BenchmarkEventsAck(b *testing.B) {
	h := newHarness(b, harnessOpts{})
	client := &http.Client{}
	var lat []time.Duration
	n := 0
	for b.Loop() {
		for range 200 {
			n++
			ts := fmt.Sprintf("1712000000.%06d", n)
			e := slackfake.Mention(chanPay, user, "where is the retry for 503 errors decided?", ts, "")
			body := slackfake.EventCallback(fmt.Sprintf("EvB%d", n), e)
			req := slackfake.SignedRequest(h.url+slack.EventsPath, "application/json", slackfake.SigningSecret, time.Now(), body)
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			lat = append(lat, time.Since(start))
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("HTTP %d", resp.StatusCode)
			}
		}
	}
	b.StopTimer()
	h.wait(b)
	reportPercentiles(b, lat, "ack")
}

// BenchmarkAnswer measures the time from a signed app_mention arriving to
// its answer arriving at the (local) Slack as chat.update: signature check,
// the "Searching…" post, a hybrid search in the real Weaviate over the test
// collection, rendering and the update. Slack's own network is excluded; the
// fake Slack is on loopback.
//
//	go test ./bot/slack -run '^$' -bench Answer -benchtime 50x
func BenchmarkAnswer(b *testing.B) {
	h := newHarness(b, harnessOpts{})
	var lat []time.Duration
	n := 0
	for b.Loop() {
		n++
		ts := h.fake.AddMessage(slackfake.Message{Channel: chanPay, User: user, Text: "where is the retry for 503 errors decided?"})
		start := time.Now()
		h.event(b, fmt.Sprintf("EvA%d", n), slackfake.Mention(chanPay, user, "where is the retry for 503 errors decided?", ts, ""), nil)
		h.wait(b)
		updates := h.fake.Calls("chat.update")
		if len(updates) != n {
			b.Fatalf("%d answers after %d questions", len(updates), n)
		}
		lat = append(lat, updates[n-1].At.Sub(start))
	}
	reportPercentiles(b, lat, "answer")
}

// reportPercentiles reports the 50th and 95th percentile and the maximum of
// lat in milliseconds (nearest-rank method).
func reportPercentiles(b *testing.B, lat []time.Duration, name string) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) time.Duration { // the smallest value with at least p of the samples at or below it
		return lat[max(0, int(math.Ceil(p*float64(len(lat))))-1)]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(at(0.50)), name+"-p50-ms")
	b.ReportMetric(ms(at(0.95)), name+"-p95-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), name+"-max-ms")
	b.ReportMetric(float64(len(lat)), name+"-samples")
}
