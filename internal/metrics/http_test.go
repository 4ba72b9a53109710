package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/metrics"
)

// TestHTTPCounters: requests are counted by the mux's route and status,
// and push webhook refusals by route and reason, each refused delivery
// read no further than its headers or the size limit.
func TestHTTPCounters(t *testing.T) {
	m := metrics.New(nil)
	hooks := &ingest.WebhookHandler{Repos: []ingest.Repo{{Name: "httpx"}}, Trigger: func(string, string, string) {}}
	hooks.OnReject = func(reason string) { m.Rejected("/webhooks/", reason) }
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", hooks)
	mux.HandleFunc("GET /healthz", func(http.ResponseWriter, *http.Request) {})
	srv := m.CountRequests(mux)
	send := func(method, path string, hdr map[string]string, length int64) {
		req := httptest.NewRequest(method, path, strings.NewReader("{}"))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if length > 0 {
			req.ContentLength = length
		}
		srv.ServeHTTP(httptest.NewRecorder(), req)
	}
	send(http.MethodGet, "/healthz", nil, 0)
	send(http.MethodGet, "/nothing", nil, 0)
	send(http.MethodPost, "/webhooks/httpx", map[string]string{"X-GitHub-Event": "push"}, 0)
	send(http.MethodPost, "/webhooks/httpx", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=00"}, ingest.MaxWebhookBody+1)
	send(http.MethodPost, "/webhooks/httpx", map[string]string{"X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=00"}, 0)
	fams := scrape(t, m)
	if diff := cmp.Diff(map[string]float64{
		"route=healthz,status=200,":  1,
		"route=other,status=404,":    1,
		"route=webhooks,status=401,": 2,
		"route=webhooks,status=413,": 1,
	}, series(fams, "ragbot_http_requests_total")); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{
		"reason=missing_signature,route=webhooks,": 1,
		"reason=too_large,route=webhooks,":         1,
		"reason=bad_signature,route=webhooks,":     1,
	}, series(fams, "ragbot_http_rejections_total")); diff != "" {
		t.Errorf("rejections (-want +got):\n%s", diff)
	}
}
