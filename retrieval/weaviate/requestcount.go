package weaviate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// RequestCounter counts a store's Weaviate requests by kind (its Observe
// is the StoreConfig.Observe), for `ask --explain` and `eval --bench`:
// what one question costs the index. It is safe for concurrent use.
type RequestCounter struct {
	mu     sync.Mutex
	byKind map[string]int
}

// NewRequestCounter returns a counter at zero.
func NewRequestCounter() *RequestCounter { return &RequestCounter{byKind: map[string]int{}} }

var _ RequestObserver = (*RequestCounter)(nil).Observe

// Observe is the RequestObserver that counts: one more request of kind.
func (c *RequestCounter) Observe(kind string, _ time.Duration, _ bool) {
	c.mu.Lock()
	c.byKind[kind]++
	c.mu.Unlock()
}

// Take returns the requests counted since the last Take, by kind (the
// Request* constants), and their total, and starts counting again from
// zero.
func (c *RequestCounter) Take() (byKind map[string]int, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byKind, c.byKind = c.byKind, map[string]int{}
	for _, n := range byKind {
		total += n
	}
	return byKind, total
}

// FormatRequests reads "5 (search 3, aggregate 1, objects 1)": the total,
// then the count of each kind in byKind in the order of their names.
func FormatRequests(byKind map[string]int, total int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, byKind[k]))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
