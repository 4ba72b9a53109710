package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/metrics"
	"github.com/ragbot/ragbot/retrieval"
)

// scrape serves m.Handler once and parses the text exposition format.
func scrape(t *testing.T, m *metrics.Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	return fams
}

// series maps "label=value,..." of each series of family name to its
// counter value or histogram sample count.
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.Metric {
		key := ""
		for _, l := range m.Label {
			key += l.GetName() + "=" + l.GetValue() + ","
		}
		switch {
		case m.Counter != nil:
			out[key] = m.Counter.GetValue()
		case m.Histogram != nil:
			out[key] = float64(m.Histogram.GetSampleCount())
		case m.Gauge != nil:
			out[key] = m.Gauge.GetValue()
		}
	}
	return out
}

type answerer struct {
	ans retrieval.Answer
	err error
}

func (a answerer) Ask(context.Context, retrieval.Request) (retrieval.Answer, error) {
	return a.ans, a.err
}

// TestMetrics feeds each callback and decorator and reads the counts back
// from the handler, labelled by configured source name and bounded values.
func TestMetrics(t *testing.T) {
	m := metrics.New([]config.Source{{Name: "httpx", Kind: config.KindGit}, {Name: "wiki", Kind: config.KindConfluence}})
	if got := series(scrape(t, m), "ragbot_confluence_syncs_total"); !cmp.Equal(got, map[string]float64{"result=error,source=wiki,": 0, "result=ok,source=wiki,": 0}) {
		t.Errorf("confluence syncs before any run: %v, want the wiki's two series at zero", got)
	}

	hooks := m.BotHooks(metrics.SurfaceSlack)
	hooks.Replied(bot.Reply{Kind: bot.Answered, Answer: retrieval.Answer{Coverage: retrieval.Covered}}, time.Second, nil)
	hooks.Replied(bot.Reply{Kind: bot.Answered, Answer: retrieval.Answer{Coverage: retrieval.NotSure}}, time.Second, nil)
	hooks.Replied(bot.Reply{Kind: bot.Unavailable}, time.Second, nil)
	hooks.Replied(bot.Reply{Kind: bot.Answered}, time.Second, errors.New("post failed"))
	hooks.Duplicate()
	ctx := context.Background()
	busy := m.Answerer(metrics.SurfaceSlackCommand, answerer{err: &bot.BusyError{Reason: bot.RejectQueueFull}})
	_, _ = busy.Ask(ctx, retrieval.Request{})
	none := m.Answerer(metrics.SurfaceSlackCommand, answerer{ans: retrieval.Answer{Coverage: retrieval.NoCoverage}})
	_, _ = none.Ask(ctx, retrieval.Request{})
	m.IndexRun(ingest.RunReport{Source: "repo:httpx", Embedded: 7, Deleted: 2})
	m.IndexRun(ingest.RunReport{Source: "confluence:wiki", Pages: true, Err: errors.New("401")})
	m.IndexRun(ingest.RunReport{Source: "docs:gone", UpToDate: true})
	m.ScheduleSkipped("repo:httpx")
	hook := m.CountWebhooks(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/webhooks/nosuch":
			w.WriteHeader(http.StatusNotFound)
		case "/webhooks/broken":
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	for _, p := range []string{"/webhooks/httpx", "/webhooks/nosuch", "/webhooks/broken"} {
		hook.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, p, nil))
	}

	fams := scrape(t, m)
	for _, tt := range []struct {
		name string
		want map[string]float64 // the series not at zero
	}{
		{"ragbot_questions_total", map[string]float64{"outcome=answered,surface=slack,": 1, "outcome=not_sure,surface=slack,": 1,
			"outcome=unavailable,surface=slack,": 1, "outcome=reply_failed,surface=slack,": 1,
			"outcome=busy,surface=slack_command,": 1, "outcome=no_coverage,surface=slack_command,": 1}},
		{"ragbot_duplicate_deliveries_total", map[string]float64{"surface=slack,": 1}},
		{"ragbot_index_runs_total", map[string]float64{"result=ok,source=httpx,": 1, "result=error,source=wiki,": 1, "result=up_to_date,source=unknown,": 1}},
		{"ragbot_chunks_embedded_total", map[string]float64{"source=httpx,": 7}},
		{"ragbot_chunks_deleted_total", map[string]float64{"source=httpx,": 2}},
		{"ragbot_confluence_syncs_total", map[string]float64{"result=error,source=wiki,": 1}},
		{"ragbot_scheduled_runs_skipped_total", map[string]float64{"source=httpx,": 1}},
		{"ragbot_webhook_deliveries_total", map[string]float64{"result=ignored,": 1, "result=unknown_source,": 1, "result=error,": 1}},
	} {
		got := series(fams, tt.name)
		for k, v := range got {
			if v == 0 {
				delete(got, k)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := len(series(fams, "ragbot_questions_total")); got > 2*len(metrics.QuestionOutcomes) {
		t.Errorf("%d ragbot_questions_total series for two surfaces, want at most %d", got, 2*len(metrics.QuestionOutcomes))
	}
	if got := series(fams, "ragbot_answer_duration_seconds")["surface=slack,"]; got != 4 {
		t.Errorf("ragbot_answer_duration_seconds{surface=slack} counts %g answers, want 4", got)
	}
}

// semEmbedder is a one-dimension embedder that fails while fail is set.
type semEmbedder struct{ fail bool }

func (e *semEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.fail {
		return nil, errors.New("503")
	}
	return make([][]float32, len(texts)), nil
}
func (e *semEmbedder) Name() string { return "sem" }
func (e *semEmbedder) Dim() int     { return 1 }

// TestSemanticBreakerMetrics: the breaker's state is a gauge per state and
// each change counts once, while the OnChange set before still runs.
func TestSemanticBreakerMetrics(t *testing.T) {
	m := metrics.New(nil)
	emb := &semEmbedder{fail: true}
	logged := 0
	b := &retrieval.Breaker{Embedder: emb, Failures: 2, OnChange: func(_, _ retrieval.BreakerState, _ error) { logged++ }}
	m.SemanticBreaker(b)
	for range 3 { // two failures open it; the third call is refused
		_, _ = b.Embed(context.Background(), []string{"q"})
	}
	fams := scrape(t, m)
	if diff := cmp.Diff(map[string]float64{"state=closed,": 0, "state=open,": 1, "state=half_open,": 0},
		series(fams, "ragbot_semantic_breaker_state")); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"state=closed,": 0, "state=open,": 1, "state=half_open,": 0},
		series(fams, "ragbot_semantic_breaker_changes_total")); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if logged != 1 {
		t.Errorf("the earlier OnChange ran %d times, want 1", logged)
	}
}
