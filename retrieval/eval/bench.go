package eval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// RequestCounter counts the Weaviate requests of the Asker's store
// (weaviate.RequestCounter): Take returns them by kind, and their total,
// since the last Take.
type RequestCounter interface {
	Take() (byKind map[string]int, total int)
}

// Bench times Asker.Ask on every question with a corpus: one warm-up pass,
// then runs timed passes, counting each call's requests with requests.
// Percentiles are nearest-rank. Errors name the question.
func (r Runner) Bench(ctx context.Context, qs []Question, runs int, requests RequestCounter) (*Latency, error) {
	var ms []float64
	var perCall []int
	byKind := map[string]int{}
	for pass := 0; pass <= runs; pass++ {
		for _, q := range qs {
			req, ok := r.request(q)
			if !ok {
				continue
			}
			requests.Take()
			start := time.Now()
			if _, err := r.Asker.Ask(ctx, req); err != nil {
				return nil, fmt.Errorf("bench: question %s: %w", q.ID, err)
			}
			if pass > 0 {
				ms = append(ms, float64(time.Since(start).Microseconds())/1000)
				kinds, n := requests.Take()
				perCall = append(perCall, n)
				for k, v := range kinds {
					byKind[k] += v
				}
			}
		}
	}
	if len(ms) == 0 {
		return &Latency{}, nil
	}
	sort.Float64s(ms)
	rank := func(p float64) float64 { return ms[max(0, int(math.Ceil(p*float64(len(ms))))-1)] }
	slices.Sort(perCall)
	return &Latency{Calls: len(ms), P50: rank(0.50), P95: rank(0.95), Max: ms[len(ms)-1],
		RequestsP50: perCall[(len(perCall)-1)/2], RequestsMax: perCall[len(perCall)-1], RequestsByKind: byKind}, nil
}
