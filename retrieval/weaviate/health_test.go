package weaviate

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// TestHealthCacheOffAnswerPath: only the first Current waits for a check;
// once a verdict exists, a stale one is returned at once while the next
// check runs in the background (one at a time), and Fresh waits for it.
func TestHealthCacheOffAnswerPath(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	release := make(chan struct{}, 10)
	calls := 0
	h := &Health{ttl: HealthTTL, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	h.check = func(context.Context) IndexHealth {
		<-release
		mu.Lock()
		defer mu.Unlock()
		calls++
		return IndexHealth{Class: "Chunk", Shards: 3, Unavailable: calls - 1} // one more shard gone at each check
	}
	release <- struct{}{}
	first := h.Current(context.Background())
	if !first.Known() || first.Unavailable != 0 {
		t.Fatalf("first Current = %+v, want the first check's verdict", first)
	}
	if again := h.Current(context.Background()); again.CheckedAt != first.CheckedAt || calls != 1 {
		t.Errorf("Current within the TTL checked again (%d checks)", calls)
	}

	mu.Lock()
	now = now.Add(HealthTTL)
	mu.Unlock()
	// The check below blocks until released: Current must not wait for it.
	if stale := h.Current(context.Background()); stale.CheckedAt != first.CheckedAt {
		t.Errorf("Current past the TTL = %+v, want the stale verdict at once", stale)
	}
	if stale := h.Current(context.Background()); stale.CheckedAt != first.CheckedAt {
		t.Errorf("second Current past the TTL = %+v, want the stale verdict", stale)
	}
	release <- struct{}{}
	fresh, err := h.Fresh(context.Background(), time.Nanosecond)
	if err != nil || fresh.Unavailable != 1 {
		t.Fatalf("Fresh = %+v, %v; want the second check's verdict", fresh, err)
	}
	if calls != 2 {
		t.Errorf("%d checks, want 2 (one running at a time)", calls)
	}
	// After a quiet spell the verdict is too old to show: Current waits
	// for a new check.
	mu.Lock()
	now = now.Add(maxStale * HealthTTL)
	mu.Unlock()
	release <- struct{}{}
	if late := h.Current(context.Background()); late.Unavailable != 2 {
		t.Errorf("Current after %d TTLs = %+v, want the new check's verdict", maxStale, late)
	}
	var ans retrieval.Answer
	if err := (HealthGuard{Store: &Store{health: h}}).Guard(context.Background(), retrieval.Request{}, &ans); err != nil {
		t.Fatal(err)
	}
	if want := "Part of the index is unavailable (2 of 3 shards unreachable); results may be incomplete."; !slices.Equal(ans.Warnings, []string{want}) {
		t.Errorf("guard warnings %q, want %q", ans.Warnings, want)
	}
}

// TestIndexHealthVerdicts: what answers, /readyz and the log read from a
// verdict.
func TestIndexHealthVerdicts(t *testing.T) {
	at := time.Now()
	tests := []struct {
		name     string
		h        IndexHealth
		warnings []string
		problem  string // "" for none
	}{
		{"all up", IndexHealth{CheckedAt: at, Class: "Chunk", Nodes: []string{"node1", "node2", "node3"}, Shards: 3, Factor: 1}, nil, ""},
		{"factor 3, one node down", IndexHealth{CheckedAt: at, Class: "Chunk", Nodes: []string{"node1", "node2", "node3"}, Down: []string{"node1"}, Shards: 3, Factor: 3}, nil, ""},
		{"factor 1, one node down", IndexHealth{CheckedAt: at, Class: "Chunk", Nodes: []string{"node1", "node2", "node3"}, Down: []string{"node1"}, Shards: 3, Factor: 1, Unavailable: 1},
			[]string{"Part of the index is unavailable (1 of 3 Weaviate nodes down); results may be incomplete."},
			"weaviate: 1 of 3 shards of Chunk have no live replica (nodes down: node1)"},
		{"read-only", IndexHealth{CheckedAt: at, Class: "Chunk", Nodes: []string{"node1"}, Shards: 1, Factor: 1, Status: map[string]string{"abc": "READONLY"}},
			[]string{"The index is read-only (1 of 1 shards READONLY in Weaviate, usually after its disk filled up); new commits are not being indexed."},
			"weaviate: shard Chunk/abc is READONLY"},
		{"loading", IndexHealth{CheckedAt: at, Class: "Chunk", Nodes: []string{"node1"}, Shards: 1, Factor: 1, Status: map[string]string{"abc": "LOADING"}}, nil,
			"weaviate: shard Chunk/abc is LOADING"},
		{"unreachable", IndexHealth{CheckedAt: at, Class: "Chunk", Err: errors.New("weaviate unreachable: refused")}, nil, "weaviate unreachable: refused"},
		{"not checked", IndexHealth{}, nil, "weaviate: not checked yet"},
	}
	for _, tt := range tests {
		if got := tt.h.Warnings(); !slices.Equal(got, tt.warnings) {
			t.Errorf("%s: Warnings() = %q, want %q", tt.name, got, tt.warnings)
		}
		got := ""
		if err := tt.h.Problem(); err != nil {
			got = err.Error()
		}
		if got != tt.problem {
			t.Errorf("%s: Problem() = %q, want %q", tt.name, got, tt.problem)
		}
	}
}
