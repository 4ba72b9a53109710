package weaviate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestReadiness: what Ready says for each verdict: not ready only when no
// question can be answered, each reason worded apart; degraded otherwise.
func TestReadiness(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name     string
		h        IndexHealth
		degraded bool
		want     string // "" for nil
	}{
		{"healthy", IndexHealth{CheckedAt: at, Class: "Chunk", Shards: 3}, false, ""},
		{"unreachable", IndexHealth{CheckedAt: at, Class: "Chunk", Err: fmt.Errorf("weaviate unreachable: %w: dial tcp: connection refused", ErrUnreachable)}, false,
			"weaviate unreachable: no answer: dial tcp: connection refused"},
		{"collection missing", IndexHealth{CheckedAt: at, Class: "Chunk", Err: fmt.Errorf("weaviate: collection Chunk %w (run `ragbot index`)", ErrNoCollection)}, false,
			"weaviate: collection Chunk does not exist (run `ragbot index`)"},
		{"partial index", IndexHealth{CheckedAt: at, Class: "Chunk", Shards: 3, Unavailable: 1, Nodes: []string{"node1", "node2", "node3"}, Down: []string{"node1"}}, true,
			"degraded: partial index (1 of 3 Weaviate nodes down, 1 of 3 shards unreadable)"},
		{"node down, replicas elsewhere", IndexHealth{CheckedAt: at, Class: "Chunk", Shards: 3, Nodes: []string{"node1", "node2", "node3"}, Down: []string{"node1"}}, false, ""},
		{"read-only", IndexHealth{CheckedAt: at, Class: "Chunk", Shards: 1, Status: map[string]string{"abc": "READONLY"}}, true,
			"degraded: weaviate: shard Chunk/abc is READONLY"},
		{"every shard gone", IndexHealth{CheckedAt: at, Class: "Chunk", Shards: 2, Unavailable: 2, Down: []string{"node1"}}, false,
			"weaviate: no shard of Chunk has a live replica (nodes down: [node1])"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.h.Readiness()
			got := ""
			if err != nil {
				got = err.Error()
			}
			var d *DegradedError
			if got != tc.want || errors.As(err, &d) != tc.degraded {
				t.Errorf("got %q (degraded %v), want %q (degraded %v)", got, errors.As(err, &d), tc.want, tc.degraded)
			}
		})
	}
}

// TestReadyAfterReturn: once Weaviate answers again, Ready says so within
// readyRetry of the clock, not after HealthTTL.
func TestReadyAfterReturn(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	up := false
	h := &Health{ttl: HealthTTL, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	h.check = func(context.Context) IndexHealth {
		mu.Lock()
		defer mu.Unlock()
		if !up {
			return IndexHealth{Class: "Chunk", Err: fmt.Errorf("weaviate unreachable: %w", ErrUnreachable)}
		}
		return IndexHealth{Class: "Chunk", Shards: 1}
	}
	s := &Store{health: h}
	ctx := context.Background()
	if err := s.Ready(ctx); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("Weaviate down: %v, want unreachable", err)
	}
	mu.Lock()
	up, now = true, now.Add(readyRetry-time.Millisecond)
	mu.Unlock()
	if err := s.Ready(ctx); err == nil {
		t.Errorf("within readyRetry the failed verdict is reused; got ready")
	}
	mu.Lock()
	now = now.Add(2 * time.Millisecond)
	mu.Unlock()
	if err := s.Ready(ctx); err != nil {
		t.Errorf("%s after Weaviate's return: %v, want ready", readyRetry, err)
	}
}
