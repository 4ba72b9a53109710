package httpretry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbot/ragbot/internal/httpretry"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"absent", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{"seconds with spaces", http.Header{"Retry-After": {" 7 "}}, 7 * time.Second},
		{"zero", http.Header{"Retry-After": {" 0 "}}, 0},
		{"fraction", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"negative", http.Header{"Retry-After": {"-5"}}, 0},
		{"huge", http.Header{"Retry-After": {"1e300"}}, 0},
		{"NaN", http.Header{"Retry-After": {"NaN"}}, 0},
		{"HTTP date ahead", http.Header{"Retry-After": {"Sun, 05 Apr 2026 12:00:07 GMT"}}, 7 * time.Second},
		{"HTTP date past", http.Header{"Retry-After": {"Sun, 05 Apr 2026 11:00:00 GMT"}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"retry-after-ms first", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"3"}}, 250 * time.Millisecond},
		{"retry-after-ms zero falls back", http.Header{"Retry-After-Ms": {"0"}, "Retry-After": {"3"}}, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := httpretry.ParseRetryAfter(tt.header, now); got != tt.want {
				t.Errorf("ParseRetryAfter(%v) = %s, want %s", tt.header, got, tt.want)
			}
		})
	}
}

func TestStatusReason(t *testing.T) {
	tests := []struct {
		status int
		want   httpretry.Reason
	}{
		{429, httpretry.RateLimited}, {500, httpretry.ServerError}, {503, httpretry.ServerError},
		{408, httpretry.Timeout}, {401, httpretry.Unauthorized}, {403, httpretry.Forbidden},
		{404, httpretry.NotFound}, {400, httpretry.ClientError}, {413, httpretry.ClientError},
		{302, httpretry.Unexpected},
	}
	for _, tt := range tests {
		if got := httpretry.StatusReason(tt.status); got != tt.want {
			t.Errorf("StatusReason(%d) = %q, want %q", tt.status, got, tt.want)
		}
	}
}

func TestStatusErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *httpretry.StatusError
		want string
	}{
		{"bare", &httpretry.StatusError{Status: 500}, "status 500 Internal Server Error"},
		{"all of it", &httpretry.StatusError{Method: "POST", URL: "/v3/conversations/a/activities", Status: 429,
			Code: "Throttled", Message: "slow down", RetryAfter: time.Second},
			"POST /v3/conversations/a/activities: status 429 Too Many Requests (Throttled): slow down (Retry-After 1s)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// status is a failed attempt's error: a *StatusError with a Retry-After.
func status(code int, retryAfter time.Duration) error {
	return &httpretry.StatusError{Status: code, Reason: httpretry.StatusReason(code), RetryAfter: retryAfter}
}

var errNetwork = errors.New("read tcp: connection reset by peer")

// TestDo tables what Do does with a sequence of attempt results: the
// waits it takes, how many attempts it makes and what it returns.
func TestDo(t *testing.T) {
	fixed := func(n int) time.Duration { return time.Duration(n+1) * time.Second } // 1s, 2s, 3s
	tests := []struct {
		name      string
		policy    httpretry.Policy
		results   []error // attempt i returns results[i]; nil past the end
		wantWaits []time.Duration
		wantCalls int
		wantErr   string // "" for success
		wantWait  bool   // the error is a *WaitError
	}{
		{name: "success at once", policy: httpretry.Policy{MaxRetries: 3}, wantCalls: 1},
		{name: "zero policy tries once", results: []error{status(503, 0)}, wantCalls: 1,
			wantErr: "status 503 Service Unavailable"},
		{name: "503 then success backs off", policy: httpretry.Policy{MaxRetries: 3, Backoff: fixed},
			results: []error{status(503, 0)}, wantWaits: []time.Duration{time.Second}, wantCalls: 2},
		{name: "network errors are transient", policy: httpretry.Policy{MaxRetries: 3, Backoff: fixed},
			results: []error{errNetwork, errNetwork}, wantWaits: []time.Duration{time.Second, 2 * time.Second}, wantCalls: 3},
		{name: "Retry-After wins over backoff", policy: httpretry.Policy{MaxRetries: 3, Backoff: fixed},
			results: []error{status(429, 7*time.Second)}, wantWaits: []time.Duration{7 * time.Second}, wantCalls: 2},
		{name: "404 is final", policy: httpretry.Policy{MaxRetries: 3, Backoff: fixed},
			results: []error{status(404, 0)}, wantCalls: 1, wantErr: "status 404 Not Found"},
		{name: "retries run out", policy: httpretry.Policy{MaxRetries: 2, Backoff: fixed},
			results:   []error{status(500, 0), status(502, 0), status(504, 0)},
			wantWaits: []time.Duration{time.Second, 2 * time.Second}, wantCalls: 3, wantErr: "status 504 Gateway Timeout"},
		{name: "Retry-After over MaxWait fails at once", policy: httpretry.Policy{MaxRetries: 3, MaxWait: 30 * time.Second},
			results: []error{status(429, time.Hour)}, wantCalls: 1, wantWait: true,
			wantErr: "status 429 Too Many Requests (Retry-After 1h0m0s) (asked to wait 1h0m0s, longer than the 30s ragbot waits)"},
		{name: "Retry-After over MaxWait capped", policy: httpretry.Policy{MaxRetries: 3, MaxWait: 2 * time.Minute, CapWait: true},
			results: []error{status(429, time.Hour)}, wantWaits: []time.Duration{2 * time.Minute}, wantCalls: 2},
		{name: "own Retryable and ServerWait", policy: httpretry.Policy{MaxRetries: 3,
			Retryable:  func(err error) bool { return err == errNetwork },
			ServerWait: func(error) time.Duration { return 5 * time.Second }},
			results: []error{errNetwork, status(503, 0)}, wantWaits: []time.Duration{5 * time.Second}, wantCalls: 2,
			wantErr: "status 503 Service Unavailable"},
		{name: "Permanent is final and unwrapped", policy: httpretry.Policy{MaxRetries: 3},
			results: []error{httpretry.Permanent(errNetwork)}, wantCalls: 1, wantErr: errNetwork.Error()},
		{name: "canceled context is not transient", policy: httpretry.Policy{MaxRetries: 3},
			results: []error{context.Canceled}, wantCalls: 1, wantErr: "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var waits []time.Duration
			var retries []int
			p := tt.policy
			p.Sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			p.OnRetry = func(err error, wait time.Duration, retry int) { retries = append(retries, retry) }
			calls := 0
			err := p.Do(context.Background(), func(context.Context) error {
				calls++
				if calls <= len(tt.results) {
					return tt.results[calls-1]
				}
				return nil
			})
			if diff := cmp.Diff(tt.wantWaits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if calls != tt.wantCalls {
				t.Errorf("%d attempts, want %d", calls, tt.wantCalls)
			}
			if len(retries) != len(waits) || (len(retries) > 0 && retries[0] != 1) {
				t.Errorf("OnRetry saw retries %v for %d waits, want 1, 2, ...", retries, len(waits))
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Do: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("Do error = %v, want %q", err, tt.wantErr)
			}
			var we *httpretry.WaitError
			if got := errors.As(err, &we); got != tt.wantWait {
				t.Errorf("error %T is a *WaitError: %v, want %v", err, got, tt.wantWait)
			}
		})
	}
}

// TestDoCanceledWhileWaiting ends the context during a real wait: Do
// returns at once with the cause and the last attempt's error.
func TestDoCanceledWhileWaiting(t *testing.T) {
	cause := errors.New("answer timeout of 30s")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 20*time.Millisecond, cause)
	defer cancel()
	start := time.Now()
	err := httpretry.Policy{MaxRetries: 3}.Do(ctx, func(context.Context) error { return status(429, time.Hour) })
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Do took %s; the wait must end with the context", d)
	}
	var we *httpretry.WaitError
	var se *httpretry.StatusError
	if !errors.As(err, &we) || !errors.Is(err, cause) || !errors.As(err, &se) || se.Status != 429 {
		t.Fatalf("Do error = %v (%T), want a *WaitError with the 429 and the cause", err, err)
	}
	if !strings.Contains(err.Error(), "then waiting to retry: answer timeout of 30s") {
		t.Errorf("Do error = %q, want it to name the cause", err)
	}
}

func TestExponential(t *testing.T) {
	b := httpretry.Exponential(500*time.Millisecond, 30*time.Second, 0)
	var got []time.Duration
	for n := range 10 {
		got = append(got, b(n))
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
	jittered := httpretry.Exponential(time.Second, time.Minute, 0.2)
	for n := range 100 {
		base := min(time.Second<<min(n, 10), time.Minute)
		if d := jittered(n); d < base || d > base+base/5 {
			t.Errorf("backoff(%d) = %s, want %s..%s", n, d, base, base+base/5)
		}
	}
}

// TestDoOverHTTP runs a real client against a server that throttles once,
// turning each answer into a *StatusError with NewStatusError.
func TestDoOverHTTP(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	var waits []time.Duration
	var first *httpretry.StatusError
	p := httpretry.Policy{MaxRetries: 2, MaxWait: 30 * time.Second,
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil },
		OnRetry: func(err error, _ time.Duration, _ int) {
			errors.As(err, &first)
		}}
	err := p.Do(context.Background(), func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/items?page=2", nil)
		if err != nil {
			return httpretry.Permanent(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return httpretry.NewStatusError(resp, req.Method, req.URL.RequestURI(), "", "", time.Now())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	want := &httpretry.StatusError{Method: "GET", URL: "/v1/items?page=2", Status: 429, Reason: httpretry.RateLimited, RetryAfter: 2 * time.Second}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first attempt's error (-want +got):\n%s", diff)
	}
}
