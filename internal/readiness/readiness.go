// Package readiness answers a readiness probe (GET /readyz of `ragbot
// serve`): 200 while a check passes, 503 with the reason while it fails,
// the verdict cached briefly so that frequent probes from load balancers
// and replicas cost the checked services little.
package readiness

import (
	"context"
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

// checkTimeout bounds one readiness check, so a hung Weaviate makes
// /readyz answer 503 instead of hanging the probe.
const checkTimeout = 2 * time.Second

// Handler answers GET /readyz: 200 "ready" when its check returns nil,
// else 503 "not ready: " and the error, the verdict cached for TTL and
// each check bounded to 2 seconds (checkTimeout). /healthz stays the
// liveness probe (the process serves HTTP); /readyz says whether this
// process can answer (Weaviate reachable, chunk shards readable). It is
// safe for concurrent use: concurrent probes wait for one check.
type Handler struct {
	// TTL is how long a verdict is reused; New sets 3 s. Set it before
	// the first probe.
	TTL time.Duration

	check func(context.Context) error
	now   func() time.Time

	mu      sync.Mutex
	at      time.Time
	lastErr error
}

func (r *Handler) state(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock() // one check at a time; concurrent probes wait for its verdict
	if !r.at.IsZero() && r.now().Sub(r.at) < r.TTL {
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
	if err := r.state(req.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "not ready: "+err.Error()+"\n")
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}

// New returns the handler of check, which returns nil when ready and
// otherwise the reason it is not; it gets a context ending after 2 seconds.
func New(check func(context.Context) error) *Handler {
	return &Handler{check: check, TTL: ttl, now: time.Now}
}
