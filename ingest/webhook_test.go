package ingest_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbot/ragbot/ingest"
)

const (
	ghSecret = "gh-secret-4f1c"   // the payments repo's GitHub webhook secret
	glSecret = "gl-token-77ab"    // its GitLab secret token (a second source, same repo name)
	wrong    = "not-the-secret-0" // what an attacker guesses
)

// fixture reads a delivery body from testdata/webhooks.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// githubSignature is X-Hub-Signature-256 for body: "sha256=" and the hex
// HMAC-SHA256 keyed with secret.
func githubSignature(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// githubRequest builds a GitHub delivery as GitHub sends it.
func githubRequest(target, event string, body []byte, signature string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "GitHub-Hookshot/a2f1c3d")
	r.Header.Set("X-GitHub-Event", event)
	r.Header.Set("X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958")
	r.Header.Set("X-GitHub-Hook-ID", "471203391")
	r.Header.Set("X-GitHub-Hook-Installation-Target-Type", "repository")
	r.Header.Set("X-GitHub-Hook-Installation-Target-ID", "734211890")
	if signature != "" {
		r.Header.Set("X-Hub-Signature-256", signature)
	}
	return r
}

// gitlabRequest builds a GitLab delivery as GitLab sends it.
func gitlabRequest(target, event string, body []byte, token string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "GitLab/17.5.1")
	r.Header.Set("X-Gitlab-Event", event)
	r.Header.Set("X-Gitlab-Event-UUID", "13792a34-cac6-4fda-95a8-c58e00a3954e")
	r.Header.Set("X-Gitlab-Webhook-UUID", "2bd6a6b4-1a2c-4c6e-9f61-1f0ef3f2c1d0")
	r.Header.Set("X-Gitlab-Instance", "https://gitlab.acme.example")
	if token != "" {
		r.Header.Set("X-Gitlab-Token", token)
	}
	return r
}

// triggerLog records Trigger calls.
type triggerLog struct {
	mu    sync.Mutex
	calls []string // "source@branch"
}

func (l *triggerLog) trigger(source, branch, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, source+"@"+branch)
}

func (l *triggerLog) delete(source, branch, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, "delete "+source+"@"+branch)
}

func (l *triggerLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// webhookRepos are the sources the handler knows: payments on GitHub,
// payments-gl (the same code on GitLab), a source without a secret, and one
// that tracks its default branch only.
func webhookRepos() []ingest.Repo {
	return []ingest.Repo{
		{Name: "payments", Source: ingest.GitSource{ID: "repo:payments"}, Branches: []string{"main", "release-1.2"},
			WebhookSecret: ghSecret, URLs: []string{"https://github.com/acme/payments.git"}},
		{Name: "payments-gl", Source: ingest.GitSource{ID: "repo:payments-gl"}, Branches: []string{"main", "release-1.2"},
			WebhookSecret: glSecret, URLs: []string{"https://gitlab.acme.example/platform/payments"}},
		{Name: "nosecret", Source: ingest.GitSource{ID: "repo:nosecret"}, Branches: []string{"main"}},
		{Name: "defaults", Source: ingest.GitSource{ID: "repo:defaults"}, WebhookSecret: ghSecret},
	}
}

func quietLog(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func TestWebhook(t *testing.T) {
	push := fixture(t, "github-push-main.json")
	form := []byte("payload=" + url.QueryEscape(string(push)))
	tampered := bytes.Replace(push, []byte(`"refs/heads/main"`), []byte(`"refs/heads/release-1.2"`), 1)
	glPush := fixture(t, "gitlab-push-main.json")
	tests := []struct {
		name       string
		req        *http.Request
		wantCode   int
		wantStatus string   // reply's status field
		want       []string // triggers, "source@branch"
	}{
		{
			name:     "github push to main, signed",
			req:      githubRequest("/webhooks/payments", "push", push, githubSignature(ghSecret, push)),
			wantCode: 202, wantStatus: "queued", want: []string{"payments@main"},
		},
		{
			name:     "github push signed with another secret",
			req:      githubRequest("/webhooks/payments", "push", push, githubSignature(wrong, push)),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "github push without a signature",
			req:      githubRequest("/webhooks/payments", "push", push, ""),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "github push with a body changed after signing",
			req:      githubRequest("/webhooks/payments", "push", tampered, githubSignature(ghSecret, push)),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "github push with only the legacy sha1 signature",
			req:      githubRequest("/webhooks/payments", "push", push, "sha1=2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "github push with a malformed signature",
			req:      githubRequest("/webhooks/payments", "push", push, "sha256=zz"),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "github push to an untracked branch",
			req:      signed("/webhooks/payments", "push", fixture(t, "github-push-feature.json")),
			wantCode: 200, wantStatus: "ignored",
		},
		{
			name:     "github force push",
			req:      signed("/webhooks/payments", "push", fixture(t, "github-push-forced.json")),
			wantCode: 202, wantStatus: "queued", want: []string{"payments@main"},
		},
		{
			name:     "github tag",
			req:      signed("/webhooks/payments", "push", fixture(t, "github-push-tag.json")),
			wantCode: 200, wantStatus: "ignored",
		},
		{
			name:     "github branch deleted",
			req:      signed("/webhooks/payments", "push", fixture(t, "github-push-deleted.json")),
			wantCode: 202, wantStatus: "queued", want: []string{"delete payments@main"},
		},
		{
			name:     "github ping",
			req:      signed("/webhooks/payments", "ping", fixture(t, "github-ping.json")),
			wantCode: 200, wantStatus: "pong",
		},
		{
			name:     "github other event",
			req:      signed("/webhooks/payments", "issues", []byte(`{"action":"opened"}`)),
			wantCode: 200, wantStatus: "ignored",
		},
		{
			name: "github form-encoded push",
			req: func() *http.Request {
				r := githubRequest("/webhooks/payments", "push", form, githubSignature(ghSecret, form))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				return r
			}(),
			wantCode: 202, wantStatus: "queued", want: []string{"payments@main"},
		},
		{
			name:     "github organisation hook, source found by repository URL",
			req:      githubRequest("/webhooks/", "push", push, githubSignature(ghSecret, push)),
			wantCode: 202, wantStatus: "queued", want: []string{"payments@main"},
		},
		{
			name:     "github organisation hook for an unknown repository",
			req:      signed("/webhooks/", "push", bytes.ReplaceAll(push, []byte("acme/payments"), []byte("acme/other"))),
			wantCode: 404, wantStatus: "error",
		},
		{
			name:     "github push for a source without a secret",
			req:      signed("/webhooks/nosecret", "push", push),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "github push to the default branch of a source without branches",
			req:      signed("/webhooks/defaults", "push", push),
			wantCode: 202, wantStatus: "queued", want: []string{"defaults@main"},
		},
		{
			name:     "github push to another branch of a source without branches",
			req:      signed("/webhooks/defaults", "push", fixture(t, "github-push-feature.json")),
			wantCode: 200, wantStatus: "ignored",
		},
		{
			name:     "gitlab push to main with the token",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", glPush, glSecret),
			wantCode: 202, wantStatus: "queued", want: []string{"payments-gl@main"},
		},
		{
			name:     "gitlab push with a wrong token",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", glPush, wrong),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "gitlab push without a token",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", glPush, ""),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "gitlab push with the GitHub source's secret",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", glPush, ghSecret),
			wantCode: 401, wantStatus: "error",
		},
		{
			name:     "gitlab push to a tracked release branch",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", fixture(t, "gitlab-push-release.json"), glSecret),
			wantCode: 202, wantStatus: "queued", want: []string{"payments-gl@release-1.2"},
		},
		{
			name:     "gitlab push to an untracked branch",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", fixture(t, "gitlab-push-untracked.json"), glSecret),
			wantCode: 200, wantStatus: "ignored",
		},
		{
			name:     "gitlab branch deleted",
			req:      gitlabRequest("/webhooks/payments-gl", "Push Hook", fixture(t, "gitlab-push-deleted.json"), glSecret),
			wantCode: 202, wantStatus: "queued", want: []string{"delete payments-gl@main"},
		},
		{
			name:     "gitlab tag push",
			req:      gitlabRequest("/webhooks/payments-gl", "Tag Push Hook", fixture(t, "gitlab-tag-push.json"), glSecret),
			wantCode: 200, wantStatus: "ignored",
		},
		{
			name:     "gitlab group hook, source found by project URL",
			req:      gitlabRequest("/webhooks/", "Push Hook", glPush, glSecret),
			wantCode: 202, wantStatus: "queued", want: []string{"payments-gl@main"},
		},
		{
			name:     "GET",
			req:      httptest.NewRequest(http.MethodGet, "/webhooks/payments", nil),
			wantCode: 405, wantStatus: "error",
		},
		{
			name:     "neither GitHub nor GitLab",
			req:      httptest.NewRequest(http.MethodPost, "/webhooks/payments", bytes.NewReader(push)),
			wantCode: 400, wantStatus: "error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log triggerLog
			h := &ingest.WebhookHandler{Repos: webhookRepos(), Trigger: log.trigger, Delete: log.delete, Log: quietLog(t)}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tt.req)
			var reply struct{ Status, Source, Branch, Reason string }
			if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil {
				t.Fatalf("reply %q is not JSON: %v", rec.Body.String(), err)
			}
			if rec.Code != tt.wantCode || reply.Status != tt.wantStatus {
				t.Errorf("reply %d %+v, want %d with status %q", rec.Code, reply, tt.wantCode, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.want, log.take()); diff != "" {
				t.Errorf("triggers (-want +got):\n%s", diff)
			}
		})
	}
}

// signed is a GitHub delivery signed with the payments secret.
func signed(target, event string, body []byte) *http.Request {
	return githubRequest(target, event, body, githubSignature(ghSecret, body))
}

func TestWebhookBodyTooLarge(t *testing.T) {
	var log triggerLog
	h := &ingest.WebhookHandler{Repos: webhookRepos(), Trigger: log.trigger, Delete: log.delete, Log: quietLog(t)}
	body := bytes.Repeat([]byte(" "), ingest.MaxWebhookBody+1)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, signed("/webhooks/payments", "push", body))
	if rec.Code != http.StatusRequestEntityTooLarge || len(log.take()) != 0 {
		t.Errorf("reply %d, want 413 and no trigger", rec.Code)
	}
}

// runRecord is one finished run, as Queue's OnDone reports it.
type runRecord struct {
	source   string
	branches []string
}

// startQueue runs a queue with index until the test ends; the returned
// channel receives each finished run once the queue has recorded it.
func startQueue(t *testing.T, clock *fakeClock, index ingest.IndexFunc, settle time.Duration) (*ingest.Queue, <-chan runRecord) {
	t.Helper()
	done := make(chan runRecord, 100)
	q := ingest.NewQueue(index, ingest.QueueOptions{Clock: clock, Log: quietLog(t), Settle: settle,
		BackoffMin: 30 * time.Second, BackoffMax: 2 * time.Minute,
		OnDone: func(source string, branches []string, _ error) { done <- runRecord{source, branches} }})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { // exits when the test's cleanup cancels ctx
		defer close(stopped)
		_ = q.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-stopped })
	return q, done
}

// await waits for the next run to finish and fails after 5 s.
func await(t *testing.T, done <-chan runRecord) runRecord {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(5 * time.Second):
		t.Fatal("no run finished within 5s")
		return runRecord{}
	}
}

// noRun checks that no run has finished since the last await and that the
// queue's state of source is want. The caller makes sure that the queue
// cannot start a run meanwhile: its timer is set for later than the clock,
// or nothing is pending.
func noRun(t *testing.T, q *ingest.Queue, done <-chan runRecord, source string, want ingest.QueueStatus, why string) {
	t.Helper()
	select {
	case r := <-done:
		t.Errorf("%s: run of %s %v, want none", why, r.source, r.branches)
	default:
	}
	if diff := cmp.Diff(want, q.Status(source), cmpopts.EquateEmpty(), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("%s: status of %s (-want +got):\n%s", why, source, diff)
	}
}

// TestWebhookBurst posts 20 signed pushes to one branch in a burst and
// checks that they coalesce into one run.
func TestWebhookBurst(t *testing.T) {
	clock := newFakeClock(t0)
	q, done := startQueue(t, clock, func(context.Context, string, []string) error { return nil }, 500*time.Millisecond)
	h := &ingest.WebhookHandler{Repos: webhookRepos(), Trigger: q.Trigger, Log: quietLog(t)}
	srv := httptest.NewServer(h)
	defer srv.Close()
	push := fixture(t, "github-push-main.json")
	for i := range 20 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/webhooks/payments", bytes.NewReader(push))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = githubRequest("/", "push", push, githubSignature(ghSecret, push)).Header
		mark := clock.mark()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("push %d: status %d, want 202", i, resp.StatusCode)
		}
		// The loop saw the push and sleeps until the burst has settled:
		// 500 ms after the first push.
		clock.waitArmed(t, mark, t0.Add(500*time.Millisecond))
		clock.Advance(10 * time.Millisecond) // 20 pushes within 200 ms
	}
	noRun(t, q, done, "payments", ingest.QueueStatus{Pending: []string{"main"}}, "before the burst settled")
	clock.Advance(500 * time.Millisecond)
	if diff := cmp.Diff(runRecord{"payments", []string{"main"}}, await(t, done), cmp.AllowUnexported(runRecord{})); diff != "" {
		t.Errorf("run (-want +got):\n%s", diff)
	}
	clock.Advance(time.Hour)
	noRun(t, q, done, "payments", ingest.QueueStatus{Runs: 1}, "after the burst's run")
}

// TestQueueCoalescesDuringRun triggers a source 20 times while its run is
// under way, on two branches: one more run follows, with both branches;
// another source runs meanwhile, and runs of one source never overlap.
func TestQueueCoalescesDuringRun(t *testing.T) {
	clock := newFakeClock(t0)
	release := make(chan struct{})
	blocked := make(chan struct{}) // closed when the first run of a blocks
	var first sync.Once
	var mu sync.Mutex
	running := map[string]int{}
	overlap := false
	q, done := startQueue(t, clock, func(_ context.Context, source string, branches []string) error {
		mu.Lock()
		running[source]++
		overlap = overlap || running[source] > 1
		mu.Unlock()
		if source == "a" {
			first.Do(func() {
				close(blocked)
				<-release // the first run of a blocks until the test lets it go
			})
		}
		mu.Lock()
		running[source]--
		mu.Unlock()
		return nil
	}, -1)
	q.Trigger("a", "", "startup")
	select {
	case <-blocked:
	case <-time.After(5 * time.Second):
		t.Fatal("the startup run of a did not start within 5s")
	}
	for i := range 20 {
		branch := "main"
		if i%2 == 1 {
			branch = "release-1.2"
		}
		q.Trigger("a", branch, "push")
	}
	q.Trigger("b", "main", "push")
	if r := await(t, done); r.source != "b" {
		t.Errorf("first finished run: %s, want b (a is blocked)", r.source)
	}
	if st := q.Status("a"); !st.Running || len(st.Pending) != 2 {
		t.Errorf("a: %+v, want running with 2 branches pending", st)
	}
	close(release)
	want := []runRecord{{"a", nil}, {"a", []string{"main", "release-1.2"}}}
	got := []runRecord{await(t, done), await(t, done)}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(runRecord{})); diff != "" {
		t.Errorf("runs of a (-want +got):\n%s", diff)
	}
	noRun(t, q, done, "a", ingest.QueueStatus{Runs: 2}, "after the coalesced run")
	noRun(t, q, done, "b", ingest.QueueStatus{Runs: 1}, "after the coalesced run")
	if overlap {
		t.Error("two runs of one source overlapped")
	}
}

// TestQueueBackoff fails runs and checks the waits: 30s after the first
// failure, 60s after the second, retries and triggers held until then, and
// no wait after a success.
func TestQueueBackoff(t *testing.T) {
	clock := newFakeClock(t0)
	var fail atomic.Bool
	fail.Store(true)
	q, done := startQueue(t, clock, func(context.Context, string, []string) error {
		if fail.Load() {
			return errTestRun
		}
		return nil
	}, -1)
	q.Trigger("a", "main", "push")
	await(t, done)
	start := clock.Now()
	if st := q.Status("a"); st.Failures != 1 || !st.NextAttempt.Equal(start.Add(30*time.Second)) {
		t.Fatalf("after one failure: %+v, want a retry at +30s", st)
	}
	mark := clock.mark()
	q.Trigger("a", "main", "push during the backoff")
	clock.Advance(29 * time.Second)
	clock.waitArmed(t, mark, start.Add(30*time.Second))
	noRun(t, q, done, "a", ingest.QueueStatus{Pending: []string{"main"}, Runs: 1, Failures: 1,
		NextAttempt: start.Add(30 * time.Second), LastErr: errTestRun}, "29s after the first failure")
	mark = clock.mark()
	clock.Advance(time.Second)
	await(t, done) // the retry, failing again
	if st := q.Status("a"); st.Failures != 2 || !st.NextAttempt.Equal(start.Add(90*time.Second)) {
		t.Fatalf("after two failures: %+v, want a retry 60s after the second", st)
	}
	fail.Store(false)
	clock.Advance(59 * time.Second)
	clock.waitArmed(t, mark, start.Add(90*time.Second))
	noRun(t, q, done, "a", ingest.QueueStatus{Pending: []string{"main"}, Runs: 2, Failures: 2,
		NextAttempt: start.Add(90 * time.Second), LastErr: errTestRun}, "59s after the second failure")
	clock.Advance(time.Second)
	await(t, done)
	if st := q.Status("a"); st.Failures != 0 || !st.NextAttempt.IsZero() || len(st.Pending) != 0 {
		t.Fatalf("after a success: %+v, want no backoff and nothing pending", st)
	}
	q.Trigger("a", "main", "push")
	await(t, done) // at once: no backoff after a success
}

var errTestRun = &testRunError{}

type testRunError struct{}

func (*testRunError) Error() string { return "repository unreachable" }
