package weaviate

import (
	"context"
	"fmt"
	"time"
)

// readyRetry is how old a failed health verdict Ready reuses: after
// Weaviate comes back, a probe sees it within about this long (the
// verdicts of a healthy index are reused for HealthTTL).
const readyRetry = 500 * time.Millisecond

// DegradedError is Ready's error when the store can answer questions, but
// not fully: part of the index has no live replica (nodes down), or the
// index is read-only. A readiness probe counts it as ready.
type DegradedError struct{ Reason string }

func (e *DegradedError) Error() string { return "degraded: " + e.Reason }

// Degraded marks the error as "ready, degraded" for internal/readiness.
func (e *DegradedError) Degraded() bool { return true }

// Ready reports whether the store can answer questions, from the cached
// health of the chunk collection (Health): nil when every shard is
// readable on a live node and READY; a *DegradedError when questions are
// answered from part of the index (some shards without a live replica:
// "partial index (1 of 3 Weaviate nodes down)") or from a read-only one
// (READONLY shards, which Weaviate sets past DISK_USE_READONLY_PERCENTAGE
// and never clears itself; answers carry the same warnings); any other
// error when no question can be answered: Weaviate unreachable
// (ErrUnreachable), the collection missing (ErrNoCollection), or no shard
// readable. A node that is down while its shards have live replicas on
// other nodes is no problem. A healthy verdict is reused for HealthTTL, a
// failed one for readyRetry, so Ready turns nil within about a second of
// Weaviate's return.
func (s *Store) Ready(ctx context.Context) error {
	maxAge := HealthTTL
	if last := s.health.Last(); last.Known() && last.Readiness() != nil {
		maxAge = readyRetry
	}
	h, err := s.health.Fresh(ctx, maxAge)
	if err != nil {
		return err
	}
	return h.Readiness()
}

// Readiness is Ready's verdict on h (see Ready).
func (h IndexHealth) Readiness() error {
	if err := h.unusable(); err != nil {
		return err
	}
	switch {
	case h.Unavailable >= h.Shards:
		return fmt.Errorf("weaviate: no shard of %s has a live replica (nodes down: %v)", h.Class, h.Down)
	case h.Unavailable > 0:
		what := fmt.Sprintf("%d of %d shards unreadable", h.Unavailable, h.Shards)
		if len(h.Down) > 0 {
			what = fmt.Sprintf("%d of %d Weaviate nodes down, %s", len(h.Down), len(h.Nodes), what)
		}
		return &DegradedError{Reason: "partial index (" + what + ")"}
	case len(h.Status) > 0:
		return &DegradedError{Reason: h.Problem().Error()}
	}
	return nil
}

// Last is the latest verdict, without checking (unknown before the first
// check).
func (h *Health) Last() IndexHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}
