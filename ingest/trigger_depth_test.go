package ingest

import "testing"

// TestQueueDepth: Depth counts sources with pending branches and sources
// with a run under way, each source once.
func TestQueueDepth(t *testing.T) {
	q := &Queue{sources: map[string]*queued{
		"a": {pending: map[string]bool{"main": true, "dev": true}},
		"b": {running: true},
		"c": {pending: map[string]bool{"": true}, running: true},
		"d": {},
	}}
	if p, r := q.Depth(); p != 2 || r != 2 {
		t.Errorf("Depth() = %d pending, %d running; want 2, 2", p, r)
	}
}
