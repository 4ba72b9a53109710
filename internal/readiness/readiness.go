// Package readiness answers a readiness probe (GET /readyz of `ragbot
// serve`): 200 while a check passes, 503 with the reason while it fails,
// the verdict cached briefly so that frequent probes from load balancers
// and replicas cost the checked services little. A check may also answer
// "ready, degraded" (an error with a Degraded() bool method returning
// true): 200 with the reason, since the process still answers questions.
package readiness

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// ttl is how long a /readyz verdict is reused: probes from a load
// balancer or Kubernetes (every 10 s by default, Kubernetes docs "Configure
// Liveness, Readiness and Startup Probes") and from several replicas then
// cost Weaviate at most one pair of requests per ttl.
const ttl = 3 * time.Second

// failTTL is how long a "not ready" verdict is reused: short, so that a
// process is ready again within about a second of what it waited for
// coming back (the check itself reuses failed verdicts as briefly).
const failTTL = 500 * time.Millisecond

// checkTimeout bounds one readiness check, so a hung Weaviate makes
// /readyz answer 503 instead of hanging the probe.
const checkTimeout = 2 * time.Second

// Handler answers GET /readyz: 200 "ready" when its check returns nil,
// 200 "ready, degraded: ..." when it returns a degraded error (see the
// package doc), else 503 "not ready: " and the error; a ready verdict is
// cached for TTL, a failed one for FailTTL, and each check is bounded to 2
// seconds (checkTimeout). /healthz stays the
// liveness probe (the process serves HTTP); /readyz says whether this
// process can answer (Weaviate reachable, chunk shards readable). It is
// safe for concurrent use: concurrent probes wait for one check.
type Handler struct {
	// TTL is how long a verdict is reused; New sets 3 s. Set it before
	// the first probe.
	TTL time.Duration
	// FailTTL is how long a "not ready" verdict is reused; New sets 0.5 s.
	FailTTL time.Duration

	check func(context.Context) error
	now   func() time.Time

	mu      sync.Mutex
	at      time.Time
	lastErr error
}

func (r *Handler) state(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock() // one check at a time; concurrent probes wait for its verdict
	keep := r.TTL
	if r.lastErr != nil && !degraded(r.lastErr) {
		keep = min(r.FailTTL, r.TTL)
	}
	if !r.at.IsZero() && r.now().Sub(r.at) < keep {
		return r.lastErr
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	r.lastErr = r.check(cctx)
	r.at = r.now()
	return r.lastErr
}

// ServeHTTP answers the probe, whatever its method and path.
func (r *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	err := r.state(req.Context())
	if err != nil && degraded(err) {
		_, _ = io.WriteString(w, "ready, "+err.Error()+"\n")
		return
	}
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "not ready: "+err.Error()+"\n")
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}

// New returns the handler of check, which returns nil when ready and
// otherwise the reason it is not; it gets a context ending after 2 seconds.
func New(check func(context.Context) error) *Handler {
	return &Handler{check: check, TTL: ttl, FailTTL: failTTL, now: time.Now}
}

// degraded reports whether err says "ready, degraded".
func degraded(err error) bool {
	var d interface{ Degraded() bool }
	return errors.As(err, &d) && d.Degraded()
}
