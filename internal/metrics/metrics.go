package metrics

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// Metrics are the Prometheus metrics of `ragbot serve`, served at GET
// /metrics in the text exposition format. Each server has its own registry
// (not prometheus.DefaultRegisterer), so that tests are independent. Names
// and labels follow prometheus.io/docs/practices/naming: the ragbot_ prefix,
// counters end in _total, durations are in seconds (_seconds). Every label
// takes a bounded set of values: surfaces, outcomes, request kinds, results
// and the configured source names; never question text, user, channel or
// delivery ids, or URL paths.
type Metrics struct {
	reg     *prometheus.Registry
	sources map[string]string // source id -> configured source name
	wiki    map[string]bool   // ids of the confluence sources

	questions  *prometheus.CounterVec   // surface, outcome
	answerSecs *prometheus.HistogramVec // surface
	duplicates *prometheus.CounterVec   // surface
	weaviateRq *prometheus.HistogramVec // kind
	weaviateEr *prometheus.CounterVec   // kind
	indexRuns  *prometheus.CounterVec   // source, result
	embedded   *prometheus.CounterVec   // source
	deleted    *prometheus.CounterVec   // source
	confluence *prometheus.CounterVec   // source, result
	webhooks   *prometheus.CounterVec   // result
	skipped    *prometheus.CounterVec   // source
	refusals   *prometheus.CounterVec   // reason
	http       httpCounters             // route, status; route, reason (http.go)
}

// SemanticBreaker registers ragbot_semantic_breaker_state{state} (1 for
// the breaker's state now, 0 for the others, read at each scrape) and
// ragbot_semantic_breaker_changes_total{state}, the changes into each
// state, counted through b.OnChange (which keeps calling the one set
// before). Call it before b's first use.
func (m *Metrics) SemanticBreaker(b *retrieval.Breaker) {
	states := []retrieval.BreakerState{retrieval.BreakerClosed, retrieval.BreakerOpen, retrieval.BreakerHalfOpen}
	for _, st := range states {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ragbot_semantic_breaker_state",
			Help:        "State of the semantic embedder's circuit breaker: 1 for the current state (closed: searching with it; open: answering from keywords; half_open: probing).",
			ConstLabels: prometheus.Labels{"state": string(st)}}, func() float64 {
			if b.State() == st {
				return 1
			}
			return 0
		}))
	}
	changes := promauto.With(m.reg).NewCounterVec(prometheus.CounterOpts{Name: "ragbot_semantic_breaker_changes_total",
		Help: "Changes of the semantic embedder's circuit breaker into each state."}, []string{"state"})
	for _, st := range states {
		changes.WithLabelValues(string(st))
	}
	next := b.OnChange
	b.OnChange = func(from, to retrieval.BreakerState, err error) {
		changes.WithLabelValues(string(to)).Inc()
		if next != nil {
			next(from, to, err)
		}
	}
}

// Outcomes of a question (label outcome of ragbot_questions_total).
const (
	outcomeAnswered    = "answered"     // retrieval.Covered: cited snippets
	outcomeNotSure     = "not_sure"     // retrieval.NotSure: the closest matches, marked as such
	outcomeNoCoverage  = "no_coverage"  // retrieval.NoCoverage: nothing relevant indexed
	outcomeUnavailable = "unavailable"  // the search failed or timed out
	outcomeNoSources   = "no_sources"   // the channel may see no source
	outcomeHelp        = "help"         // an empty mention, answered with help
	outcomeReplyFailed = "reply_failed" // the reply could not be posted to the chat platform
	outcomeBusy        = "busy"         // refused by admission control: the queue was full or its wait ran out
)

// QuestionOutcomes are the values of the outcome label of
// ragbot_questions_total.
var QuestionOutcomes = []string{outcomeAnswered, outcomeNotSure, outcomeNoCoverage, outcomeUnavailable,
	outcomeNoSources, outcomeHelp, outcomeReplyFailed, outcomeBusy}

// Surfaces (label surface).
const (
	SurfaceSlack        = "slack"         // mentions and direct messages
	SurfaceSlackCommand = "slack_command" // the /where-is slash command
	SurfaceTeams        = "teams"
	SurfaceTeamsQuery   = "teams_query" // the "where is" message extension
)

// Answer latency buckets in seconds: from a cached lexical answer (tens of
// ms) to the default answer timeout (config.DefaultAnswerTimeout, 30 s).
var answerBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60}

// QueueDepth registers ragbot_index_queue_sources{state}: the git sources
// with an index run waiting (pending) or under way (running), read from
// depth at each scrape.
func (m *Metrics) QueueDepth(depth func() (pending, running int)) {
	for _, state := range []string{"pending", "running"} {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ragbot_index_queue_sources",
			Help:        "Git sources with an index run waiting (state=pending: triggered, settling or backing off) or under way (state=running).",
			ConstLabels: prometheus.Labels{"state": state}}, func() float64 {
			p, r := depth()
			if state == "pending" {
				return float64(p)
			}
			return float64(r)
		}))
	}
}

// New registers every family on a new registry, with the series of
// the configured sources (sources, by name) and the bounded label values created at zero, so
// that rate() and absent() work before the first event.
func New(sources []config.Source) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), sources: map[string]string{}, wiki: map[string]bool{}}
	for _, s := range sources {
		m.sources[s.SourceID()] = s.Name
		m.wiki[s.SourceID()] = s.Kind == config.KindConfluence
	}
	auto := promauto.With(m.reg)
	m.questions = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_questions_total",
		Help: "Questions answered, by surface (slack, slack_command, teams) and outcome (answered, not_sure, no_coverage, unavailable, no_sources, help, reply_failed, busy)."},
		[]string{"surface", "outcome"})
	m.answerSecs = auto.NewHistogramVec(prometheus.HistogramOpts{Name: "ragbot_answer_duration_seconds",
		Help: "Time from receiving a question to posting its answer, by surface.", Buckets: answerBuckets},
		[]string{"surface"})
	m.duplicates = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_duplicate_deliveries_total",
		Help: "Event deliveries ignored as retries of one being or already answered, by surface."}, []string{"surface"})
	m.weaviateRq = auto.NewHistogramVec(prometheus.HistogramOpts{Name: "ragbot_weaviate_request_duration_seconds",
		Help:    "Weaviate HTTP request latency, by kind (search, aggregate, batch, batch_delete, objects, schema, other).",
		Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12)}, // 1 ms .. about 24 s
		[]string{"kind"})
	m.weaviateEr = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_weaviate_request_errors_total",
		Help: "Weaviate HTTP requests that failed (transport error or 5xx), by kind."}, []string{"kind"})
	m.indexRuns = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_index_runs_total",
		Help: "Index runs (one per git branch or page source sync), by source and result (ok, up_to_date, error)."},
		[]string{"source", "result"})
	m.embedded = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_chunks_embedded_total",
		Help: "Chunks embedded and written by index runs, by source."}, []string{"source"})
	m.deleted = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_chunks_deleted_total",
		Help: "Stored chunks deleted by index runs, by source."}, []string{"source"})
	m.confluence = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_confluence_syncs_total",
		Help: "Confluence syncs, by source and result (ok, error)."}, []string{"source", "result"})
	m.webhooks = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_webhook_deliveries_total",
		Help: "Push webhook deliveries, by result (accepted, ignored, bad_signature, unknown_source, bad_request, too_large, error)."},
		[]string{"result"})
	m.skipped = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_scheduled_runs_skipped_total",
		Help: "Scheduled syncs or polls skipped because the previous run of the source was still going, by source."},
		[]string{"source"})
	m.refusals = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_answers_refused_total",
		Help: "Questions refused by admission control with the busy reply, by reason (queue_full, queue_wait, deadline)."}, []string{"reason"})
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range sources {
		m.embedded.WithLabelValues(s.Name)
		m.deleted.WithLabelValues(s.Name)
		if s.Kind == config.KindConfluence {
			m.confluence.WithLabelValues(s.Name, "ok")
			m.confluence.WithLabelValues(s.Name, "error")
		}
	}
	for _, k := range []string{weaviate.RequestSearch, weaviate.RequestAggregate, weaviate.RequestBatch, weaviate.RequestBatchDelete,
		weaviate.RequestObjects, weaviate.RequestSchema, weaviate.RequestOther} {
		m.weaviateEr.WithLabelValues(k)
	}
	for _, r := range []string{bot.RejectQueueFull, bot.RejectQueueWait, bot.RejectDeadline} {
		m.refusals.WithLabelValues(r)
	}
	for _, r := range []string{"accepted", "ignored", "bad_signature", "unknown_source", "bad_request"} {
		m.webhooks.WithLabelValues(r)
	}
	return m
}

// Handler serves the registry at /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// sourceName is the configured name of a source id; ids not in the config
// (none should reach here) share "unknown", keeping the label bounded.
func (m *Metrics) sourceName(id string) string {
	if n, ok := m.sources[id]; ok {
		return n
	}
	return "unknown"
}

// BotHooks counts the answers and duplicate deliveries of a surface.
func (m *Metrics) BotHooks(surface string) bot.Hooks {
	for _, o := range QuestionOutcomes {
		m.questions.WithLabelValues(surface, o)
	}
	m.duplicates.WithLabelValues(surface)
	return bot.Hooks{
		Replied: func(r bot.Reply, elapsed time.Duration, err error) {
			m.question(surface, replyOutcome(r, err), elapsed)
		},
		Duplicate: func() { m.duplicates.WithLabelValues(surface).Inc() },
	}
}

func (m *Metrics) question(surface, outcome string, elapsed time.Duration) {
	m.questions.WithLabelValues(surface, outcome).Inc()
	m.answerSecs.WithLabelValues(surface).Observe(elapsed.Seconds())
}

// replyOutcome is the outcome label of a final reply.
func replyOutcome(r bot.Reply, err error) string {
	switch {
	case err != nil:
		return outcomeReplyFailed
	case r.Kind == bot.Unavailable:
		return outcomeUnavailable
	case r.Kind == bot.NoSources:
		return outcomeNoSources
	case r.Kind == bot.Help:
		return outcomeHelp
	case r.Kind == bot.Busy:
		return outcomeBusy
	}
	return coverageOutcome(r.Answer)
}

// coverageOutcome is the outcome label of an answer.
func coverageOutcome(a retrieval.Answer) string {
	switch a.Coverage {
	case retrieval.Covered:
		return outcomeAnswered
	case retrieval.NotSure:
		return outcomeNotSure
	case retrieval.NoCoverage:
		return outcomeNoCoverage
	}
	if len(a.Snippets) > 0 {
		return outcomeAnswered
	}
	return outcomeNoCoverage
}

// observedAnswerer counts the questions of a surface that asks its
// Answerer directly (Slack's /where-is), as BotHooks does for mentions.
type observedAnswerer struct {
	next    bot.Answerer
	m       *Metrics
	surface string
}

// Answerer wraps next, counting its questions and their answer time under
// surface, as BotHooks does for a surface that reports its replies.
func (m *Metrics) Answerer(surface string, next bot.Answerer) bot.Answerer {
	for _, o := range []string{outcomeAnswered, outcomeNotSure, outcomeNoCoverage, outcomeUnavailable, outcomeBusy} {
		m.questions.WithLabelValues(surface, o)
	}
	return observedAnswerer{next: next, m: m, surface: surface}
}

func (a observedAnswerer) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	start := time.Now()
	ans, err := a.next.Ask(ctx, r)
	outcome := outcomeUnavailable
	if busy := (*bot.BusyError)(nil); errors.As(err, &busy) {
		outcome = outcomeBusy
	} else if err == nil {
		outcome = coverageOutcome(ans)
	}
	a.m.question(a.surface, outcome, time.Since(start))
	return ans, err
}

// Admission registers ragbot_answer_queue_length and ragbot_answers_running,
// read from the pool at each scrape.
func (m *Metrics) Admission(a *bot.Admission) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ragbot_answer_queue_length",
		Help: "Questions waiting for a search slot (serve.max_concurrent_answers)."}, func() float64 {
		_, q := a.Load()
		return float64(q)
	}))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ragbot_answers_running",
		Help: "Questions being searched now."}, func() float64 {
		r, _ := a.Load()
		return float64(r)
	}))
}

// Refused is the bot.AdmissionConfig.OnReject of serve's admission pool.
func (m *Metrics) Refused(reason string) { m.refusals.WithLabelValues(reason).Inc() }

// WeaviateRequest is the weaviate.RequestObserver of the store.
func (m *Metrics) WeaviateRequest(kind string, elapsed time.Duration, failed bool) {
	m.weaviateRq.WithLabelValues(kind).Observe(elapsed.Seconds())
	if failed {
		m.weaviateEr.WithLabelValues(kind).Inc()
	}
}

// IndexRun is the ingest.Indexer.OnRun of serve's indexers.
func (m *Metrics) IndexRun(r ingest.RunReport) {
	name := m.sourceName(r.Source)
	result := "ok"
	switch {
	case r.Err != nil:
		result = "error"
	case r.UpToDate:
		result = "up_to_date"
	}
	m.indexRuns.WithLabelValues(name, result).Inc()
	m.embedded.WithLabelValues(name).Add(float64(r.Embedded))
	m.deleted.WithLabelValues(name).Add(float64(r.Deleted))
	if r.Pages && m.wiki[r.Source] {
		m.confluence.WithLabelValues(name, result).Inc()
	}
}

// ScheduleSkipped is the ingest.SchedulerOptions.OnSkip of serve's
// scheduler; tasks are named by source id.
func (m *Metrics) ScheduleSkipped(task string) { m.skipped.WithLabelValues(m.sourceName(task)).Inc() }

// webhookResults maps the status codes of ingest.WebhookHandler to the
// result label of ragbot_webhook_deliveries_total.
var webhookResults = map[int]string{
	http.StatusAccepted:              "accepted", // a run or a branch removal queued
	http.StatusOK:                    "ignored",  // ping, other event, tag, untracked branch
	http.StatusUnauthorized:          "bad_signature",
	http.StatusNotFound:              "unknown_source",
	http.StatusBadRequest:            "bad_request",
	http.StatusMethodNotAllowed:      "bad_request",
	http.StatusRequestEntityTooLarge: "too_large",
}

// CountWebhooks counts the deliveries h answers, by the result its status
// code stands for.
func (m *Metrics) CountWebhooks(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(rec, r)
		result, ok := webhookResults[rec.code]
		if !ok {
			result = "error"
		}
		m.webhooks.WithLabelValues(result).Inc()
	})
}

// statusRecorder remembers the status code written through it.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}
