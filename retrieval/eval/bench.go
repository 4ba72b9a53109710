package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval"
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
			req, ok := r.benchRequest(q)
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
	l.AllSources = r.BenchAll
	return l, nil
}

// benchRequest is q as Bench asks it: in its own corpus (request), or with
// BenchAll in every source.
func (r Runner) benchRequest(q Question) (retrieval.Request, bool) {
	req, ok := r.request(q)
	if ok && r.BenchAll {
		req.Sources = nil
	}
	return req, ok
}

// BenchConcurrent times Asker.Ask with askers callers at once, as a busy
// serve process sees it: one warm-up pass over the questions by a single
// caller, then each of the askers makes runs passes over them, asker i
// starting at question i*len/askers so that they do not ask the same one
// at the same moment. It reports the nearest-rank percentiles of every
// call and the calls per second of wall time; no request counts or
// absence timing (the counters are shared). Errors name the question.
func (r Runner) BenchConcurrent(ctx context.Context, qs []Question, runs, askers int) (*Latency, error) {
	var reqs []retrieval.Request
	var ids []string
	for _, q := range qs {
		if req, ok := r.benchRequest(q); ok {
			reqs, ids = append(reqs, req), append(ids, q.ID)
		}
	}
	if len(reqs) == 0 {
		return &Latency{Askers: askers, AllSources: r.BenchAll}, nil
	}
	for i, req := range reqs { // warm-up
		if _, err := r.Asker.Ask(ctx, req); err != nil {
			return nil, fmt.Errorf("bench: question %s: %w", ids[i], err)
		}
	}
	times := make([][]float64, askers)
	errs := make([]error, askers)
	var wg sync.WaitGroup
	start := time.Now()
	for a := range askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			off := a * len(reqs) / askers
			for range runs * len(reqs) {
				i := off % len(reqs)
				off++
				t0 := time.Now()
				if _, err := r.Asker.Ask(ctx, reqs[i]); err != nil {
					errs[a] = fmt.Errorf("bench: question %s: %w", ids[i], err)
					return
				}
				times[a] = append(times[a], millis(time.Since(t0)))
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	ms := slices.Concat(times...)
	l := &Latency{Calls: len(ms), Askers: askers, AllSources: r.BenchAll, PerSecond: float64(len(ms)) / wall.Seconds()}
	l.P50, l.P95, l.Max = percentiles(ms)
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
