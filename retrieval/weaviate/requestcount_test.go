package weaviate_test

import (
	"testing"

	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// TestRequestCounter: Take returns what was observed since the last Take,
// and FormatRequests prints it total first, kinds by name.
func TestRequestCounter(t *testing.T) {
	c := weaviate.NewRequestCounter()
	for _, k := range []string{weaviate.RequestSearch, weaviate.RequestAggregate, weaviate.RequestSearch, weaviate.RequestObjects, weaviate.RequestSearch} {
		c.Observe(k, 0, false)
	}
	if got, want := weaviate.FormatRequests(c.Take()), "5 (aggregate 1, objects 1, search 3)"; got != want {
		t.Errorf("first Take: %q, want %q", got, want)
	}
	if got, want := weaviate.FormatRequests(c.Take()), "0 ()"; got != want {
		t.Errorf("second Take: %q, want %q", got, want)
	}
}
