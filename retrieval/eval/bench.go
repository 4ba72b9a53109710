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

// FirstAbsence times the process's first absence check (Asker.Absence),
// on the first question with a corpus, in milliseconds: it parses the word
// lists and loads the vocabularies, so call it before anything else asks.
// 0 when no question has a corpus.
func (r Runner) FirstAbsence(ctx context.Context, qs []Question) (float64, error) {
	for _, q := range qs {
		if req, ok := r.request(q); ok {
			start := time.Now()
			if _, err := r.Asker.Absence(ctx, req); err != nil {
				return 0, fmt.Errorf("bench: question %s: %w", q.ID, err)
			}
			return millis(time.Since(start)), nil
		}
	}
	return 0, nil
}

// Bench times Asker.Ask on every question with a corpus: one warm-up pass,
// then runs timed passes, counting each call's requests with requests.
// After each timed call it times the absence check alone (Asker.Absence);
// first is the process's first one (FirstAbsence). Percentiles are
// nearest-rank. Errors name the question.
func (r Runner) Bench(ctx context.Context, qs []Question, runs int, requests RequestCounter, first float64) (*Latency, error) {
	var ms, absMS []float64
	var perCall []int
	byKind := map[string]int{}
	abs := &AbsenceCost{First: first}
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
			if pass == 0 {
				continue
			}
			ms = append(ms, millis(time.Since(start)))
			kinds, n := requests.Take()
			perCall = append(perCall, n)
			for k, v := range kinds {
				byKind[k] += v
			}
			start = time.Now()
			res, err := r.Asker.Absence(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("bench: question %s: %w", q.ID, err)
			}
			absMS = append(absMS, millis(time.Since(start)))
			if !res.Vocabulary {
				abs.Fallback++
			}
			requests.Take() // not the Ask's
		}
	}
	if len(ms) == 0 {
		return &Latency{}, nil
	}
	slices.Sort(perCall)
	l := &Latency{Calls: len(ms), RequestsP50: perCall[(len(perCall)-1)/2], RequestsMax: perCall[len(perCall)-1], RequestsByKind: byKind}
	l.P50, l.P95, l.Max = percentiles(ms)
	abs.Calls = len(absMS)
	abs.P50, abs.P95, abs.Max = percentiles(absMS)
	l.Absence = abs
	return l, nil
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentiles returns the nearest-rank p50, p95 and max of ms (sorted in
// place); zeros for none.
func percentiles(ms []float64) (p50, p95, most float64) {
	if len(ms) == 0 {
		return 0, 0, 0
	}
	sort.Float64s(ms)
	rank := func(p float64) float64 { return ms[max(0, int(math.Ceil(p*float64(len(ms))))-1)] }
	return rank(0.50), rank(0.95), ms[len(ms)-1]
}
