package main

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// readyTTL is how long a /readyz verdict is reused: probes from a load
// balancer or Kubernetes (every 10 s by default, Kubernetes docs "Configure
// Liveness, Readiness and Startup Probes") and from several replicas then
// cost Weaviate at most one pair of requests per readyTTL.
const readyTTL = 3 * time.Second

// readyCheckTimeout bounds one readiness check, so a hung Weaviate makes
// /readyz answer 503 instead of hanging the probe.
const readyCheckTimeout = 2 * time.Second

// readiness answers GET /readyz: 200 "ready" when check returns nil, else
// 503 with the reason, the verdict cached for ttl. /healthz stays the
// liveness probe (the process serves HTTP); /readyz says whether this
// process can answer (Weaviate reachable, chunk shards readable).
type readiness struct {
	check func(context.Context) error
	ttl   time.Duration
	now   func() time.Time

	mu      sync.Mutex
	at      time.Time
	lastErr error
}

func (r *readiness) state(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock() // one check at a time; concurrent probes wait for its verdict
	if !r.at.IsZero() && r.now().Sub(r.at) < r.ttl {
		return r.lastErr
	}
	cctx, cancel := context.WithTimeout(ctx, readyCheckTimeout)
	defer cancel()
	r.lastErr = r.check(cctx)
	r.at = r.now()
	return r.lastErr
}

func (r *readiness) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := r.state(req.Context()); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "not ready: "+err.Error()+"\n")
		return
	}
	_, _ = io.WriteString(w, "ready\n")
}

func newReadiness(check func(context.Context) error) *readiness {
	return &readiness{check: check, ttl: readyTTL, now: time.Now}
}
