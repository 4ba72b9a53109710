package ingest_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
)

// zeros is an endless reader of zero bytes, so a client can send a 25 MB
// body without holding it.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestWebhookFloodMemory: 40 concurrent 25 MB deliveries with a
// well-formed but wrong signature, whose bodies are read and hashed, all
// get 401 or 503, and the heap grows by less than 50 MB while they are
// answered (a large body is spooled to a temporary file until its
// signature matches); a signed push afterwards, small or padded past 1 MiB,
// still triggers a run.
func TestWebhookFloodMemory(t *testing.T) {
	var log triggerLog
	h := &ingest.WebhookHandler{Repos: webhookRepos(), Trigger: log.trigger, Delete: log.delete, Log: quietLog(t)}
	srv := httptest.NewServer(h)
	defer srv.Close()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // samples the heap while the flood is answered
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	const n = 40
	size := int64(ingest.MaxWebhookBody)
	codes := make([]int, n)
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 60 * time.Second}
	for i := range n {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/webhooks/payments", io.LimitReader(zeros{}, size))
			if err != nil {
				t.Error(err)
				return
			}
			req.ContentLength = size
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "push")
			req.Header.Set("X-Hub-Signature-256", "sha256="+string(bytes.Repeat([]byte("0"), 64)))
			resp, err := client.Do(req)
			if err != nil { // the server may answer and close before the upload ends
				codes[i] = -1
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i] = resp.StatusCode
			if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After")
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled

	got := map[int]int{}
	for i, c := range codes {
		got[c]++
		switch {
		case c == http.StatusUnauthorized, c == http.StatusServiceUnavailable, c == -1:
		default:
			t.Errorf("request %d: status %d, want 401 or 503", i, c)
		}
	}
	if got[http.StatusUnauthorized] < ingest.DefaultMaxLargeWebhookBodies {
		t.Errorf("statuses %v: want at least %d answered 401", got, ingest.DefaultMaxLargeWebhookBodies)
	}
	const bound = 50 << 20
	if grow := int64(peak.Load()) - int64(before.HeapAlloc); grow > bound {
		t.Errorf("heap grew by %d MB during the flood, want < %d MB", grow>>20, bound>>20)
	} else {
		t.Logf("statuses %v; peak heap growth %d MB (bound %d MB)", got, grow>>20, bound>>20)
	}
	if calls := log.take(); len(calls) != 0 {
		t.Errorf("flood triggered %v", calls)
	}

	push := fixture(t, "github-push-main.json")
	for _, body := range [][]byte{push, append(slices.Clip(push), bytes.Repeat([]byte(" "), 2<<20)...)} {
		resp, err := http.DefaultClient.Do(toServer(t, signed("/webhooks/payments", "push", body), srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("signed push of %d bytes after the flood: status %d, want 202", len(body), resp.StatusCode)
		}
		if calls := log.take(); len(calls) != 1 || calls[0] != "payments@main" {
			t.Errorf("signed push of %d bytes triggered %v, want [payments@main]", len(body), calls)
		}
	}
}

// TestWebhookLargeBodiesCapped: past MaxLargeBodies large deliveries being
// read, another gets 503 with Retry-After, and a small one is still served.
func TestWebhookLargeBodiesCapped(t *testing.T) {
	var log triggerLog
	h := &ingest.WebhookHandler{Repos: webhookRepos(), Trigger: log.trigger, Delete: log.delete, Log: quietLog(t), MaxLargeBodies: 1}
	srv := httptest.NewServer(h)
	defer srv.Close()

	// A slow upload holds the one place: its body arrives through a pipe.
	pr, pw := io.Pipe()
	held, err := http.NewRequest(http.MethodPost, srv.URL+"/webhooks/payments", pr)
	if err != nil {
		t.Fatal(err)
	}
	held.ContentLength = 2 << 20
	held.Header.Set("X-GitHub-Event", "push")
	held.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64) /* well-formed, so the body is read */)
	heldDone := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(held)
		if err != nil {
			heldDone <- -1
			return
		}
		resp.Body.Close()
		heldDone <- resp.StatusCode
	}()
	if _, err := pw.Write(make([]byte, 64<<10)); err != nil { // the handler is reading
		t.Fatal(err)
	}

	big := bytes.Repeat([]byte(" "), 2<<20)
	resp, err := http.DefaultClient.Do(toServer(t, signed("/webhooks/payments", "push", big), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second large delivery: %d Retry-After %q, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	push := fixture(t, "github-push-main.json")
	resp, err = http.DefaultClient.Do(toServer(t, signed("/webhooks/payments", "push", push), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("small signed push while a large one is read: %d, want 202", resp.StatusCode)
	}

	_, _ = io.Copy(pw, io.LimitReader(zeros{}, (2<<20)-(64<<10)))
	pw.Close()
	if code := <-heldDone; code != http.StatusUnauthorized {
		t.Errorf("held delivery (bad signature): %d, want 401", code)
	}
	// Its place is free again.
	resp, err = http.DefaultClient.Do(toServer(t, signed("/webhooks/payments", "push", big), srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		t.Errorf("large delivery after the place was freed: 503")
	}
}

// toServer turns an httptest.NewRequest (a server-side request) into one a
// client sends to base.
func toServer(t *testing.T, r *http.Request, base string) *http.Request {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	out, err := http.NewRequest(r.Method, base+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out.Header = r.Header.Clone()
	return out
}

// TestWebhookJudgedBeforeReading: to a hook URL naming its source, a GitLab
// token that does not match, or a GitHub signature that is not sha256= and
// 64 hex digits, gets 401 before a byte of the body is read.
func TestWebhookJudgedBeforeReading(t *testing.T) {
	var log triggerLog
	var rejects []string
	h := &ingest.WebhookHandler{Repos: webhookRepos(), Trigger: log.trigger, Log: quietLog(t),
		OnReject: func(reason string) { rejects = append(rejects, reason) }}
	for _, tc := range []struct {
		name, event, header, value string
	}{
		{"gitlab wrong token", "Push Hook", "X-Gitlab-Token", "not-the-secret"},
		{"github malformed signature", "push", "X-Hub-Signature-256", "sha256=00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rejects = nil
			body := &countingReader{r: strings.NewReader(`{"ref":"refs/heads/main"}`)}
			req := httptest.NewRequest(http.MethodPost, "/webhooks/payments", body)
			if tc.event == "push" {
				req.Header.Set("X-GitHub-Event", tc.event)
			} else {
				req.Header.Set("X-Gitlab-Event", tc.event)
			}
			req.Header.Set(tc.header, tc.value)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusUnauthorized || body.n != 0 || len(rejects) != 1 || rejects[0] != ingest.RejectBadSignature {
				t.Errorf("HTTP %d after reading %d bytes, rejects %v; want 401 unread, [bad_signature]", rec.Code, body.n, rejects)
			}
		})
	}
	if calls := log.take(); len(calls) != 0 {
		t.Errorf("triggered %v", calls)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
