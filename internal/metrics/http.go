package metrics

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// httpCounters are ragbot_http_requests_total{route,status} and
// ragbot_http_rejections_total{route,reason}, registered on first use.
type httpCounters struct {
	once       sync.Once
	requests   *prometheus.CounterVec
	rejections *prometheus.CounterVec
}

func (m *Metrics) httpCounters() *httpCounters {
	h := &m.http
	h.once.Do(func() {
		auto := promauto.With(m.reg)
		h.requests = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_http_requests_total",
			Help: "HTTP requests served, by route (the mux pattern's path: slack_events, webhooks, readyz, ...; other for none) and status code."},
			[]string{"route", "status"})
		h.rejections = auto.NewCounterVec(prometheus.CounterOpts{Name: "ragbot_http_rejections_total",
			Help: "Requests refused before they reached the bot or the indexer, by route and reason (missing_signature, stale_timestamp, bad_signature, too_large, busy, unknown_source, ...)."},
			[]string{"route", "reason"})
	})
	return h
}

// CountRequests wraps the server's mux: each request is counted by the
// route the mux matched (http.Request.Pattern, a bounded set) and the
// status code answered.
func (m *Metrics) CountRequests(mux http.Handler) http.Handler {
	c := m.httpCounters()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		mux.ServeHTTP(rec, r)
		c.requests.WithLabelValues(routeName(r.Pattern), strconv.Itoa(rec.code)).Inc()
	})
}

// Rejected counts a request refused on route (a path such as
// "/slack/events", or "/webhooks/") for reason: the OnReject of the Slack
// HTTP transport and of the push webhooks.
func (m *Metrics) Rejected(route, reason string) {
	m.httpCounters().rejections.WithLabelValues(routeName(route), reason).Inc()
}

// routeName is the route label of a mux pattern or path: without the
// method, its segments joined by "_" ("POST /slack/events" ->
// "slack_events", "/webhooks/" -> "webhooks"); "other" for none.
func routeName(pattern string) string {
	if _, p, ok := strings.Cut(pattern, " "); ok {
		pattern = p
	}
	name := strings.ReplaceAll(strings.Trim(pattern, "/"), "/", "_")
	if name == "" {
		return "other"
	}
	return name
}
