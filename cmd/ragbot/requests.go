package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// requestCounter counts a store's Weaviate requests by kind
// (weaviate.RequestObserver), for `ask --explain` and `eval --bench`:
// what one question costs the index.
type requestCounter struct {
	mu     sync.Mutex
	byKind map[string]int
}

func newRequestCounter() *requestCounter { return &requestCounter{byKind: map[string]int{}} }

// observe is the weaviate.RequestObserver that counts.
func (c *requestCounter) observe(kind string, _ time.Duration, _ bool) {
	c.mu.Lock()
	c.byKind[kind]++
	c.mu.Unlock()
}

var _ weaviate.RequestObserver = (*requestCounter)(nil).observe

// take returns the requests counted since the last take, by kind, and
// their total, and starts counting again from zero.
func (c *requestCounter) take() (byKind map[string]int, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byKind, c.byKind = c.byKind, map[string]int{}
	for _, n := range byKind {
		total += n
	}
	return byKind, total
}

// formatRequests reads "5 (search 3, aggregate 1, objects 1)".
func formatRequests(byKind map[string]int, total int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, byKind[k]))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
