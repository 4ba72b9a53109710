package readiness

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestHandler: 200 "ready" while the check passes, 200 "ready, degraded"
// while it says so, 503 with its error while it fails; a ready verdict is
// reused within TTL, a failed one within FailTTL, on the handler's clock.
func TestHandler(t *testing.T) {
	var checkErr error
	calls := 0
	h := New(func(ctx context.Context) error {
		calls++
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the check's context has no deadline")
		}
		return checkErr
	})
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	h.now = func() time.Time { return now }
	probe := func() (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	for _, step := range []struct {
		name      string
		advance   time.Duration
		err       error
		code      int
		body      string
		wantCalls int
	}{
		{"first probe checks", 0, nil, 200, "ready\n", 1},
		{"within the TTL the verdict is reused", time.Second, errors.New("weaviate down"), 200, "ready\n", 1},
		{"after the TTL it checks again", 3 * time.Second, errors.New("weaviate down"), 503, "not ready: weaviate down\n", 2},
		{"a failure is cached briefly", 400 * time.Millisecond, nil, 503, "not ready: weaviate down\n", 2},
		{"and expires after FailTTL", 200 * time.Millisecond, nil, 200, "ready\n", 3},
		{"degraded is ready", 3 * time.Second, degradedErr("partial index (1 of 3 Weaviate nodes down)"), 200, "ready, degraded: partial index (1 of 3 Weaviate nodes down)\n", 4},
		{"and cached for the TTL", 2 * time.Second, errors.New("weaviate down"), 200, "ready, degraded: partial index (1 of 3 Weaviate nodes down)\n", 4},
	} {
		now = now.Add(step.advance)
		checkErr = step.err
		code, body := probe()
		if code != step.code || body != step.body || calls != step.wantCalls {
			t.Errorf("%s: %d %q after %d checks, want %d %q after %d", step.name, code, body, calls, step.code, step.body, step.wantCalls)
		}
	}
}

// degradedErr is a check's "ready, degraded" verdict.
type degradedErr string

func (e degradedErr) Error() string  { return "degraded: " + string(e) }
func (e degradedErr) Degraded() bool { return true }
