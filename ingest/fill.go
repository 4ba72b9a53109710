package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// FillStats summarise one FillSemantic.
type FillStats struct {
	Pending  int           // chunks waiting for their semantic vector at the start
	Filled   int           // chunks given their semantic vector
	Duration time.Duration // wall time
}

// FillSemantic gives every chunk stored without its semantic vector
// (DeferSemantic, or a run whose semantic embedder failed) its semantic
// vector, with the Pair's semantic embedder (weaviate.Store.FillPending),
// printing to Progress "semantic vectors: done/total chunks, N chunks/s,
// ETA" at ProgressEvery. A fill stopped part way is resumed by the next
// one. Without a Pair it does nothing. Errors: FillPending's, with the
// stats so far.
func (ix *Indexer) FillSemantic(ctx context.Context) (FillStats, error) {
	var st FillStats
	p, ok := ix.Embedder.(retrieval.Pair)
	if !ok {
		return st, nil
	}
	start := time.Now() // wall time, for the rate: ix.Now may be a test's fixed clock
	n, err := ix.Store.CountPending(ctx)
	if err != nil || n == 0 {
		return st, err
	}
	st.Pending = n
	prog := ix.newProgress("", n)
	line := func(done int) string {
		secs := time.Since(start).Seconds()
		rate := float64(done) / max(secs, 1e-3)
		eta := "-"
		if done > 0 {
			eta = (time.Duration(float64(n-done) / rate * float64(time.Second))).Round(time.Second).String()
		}
		return fmt.Sprintf("semantic vectors: %d/%d chunks, %.0f chunks/s, ETA %s", done, n, rate, eta)
	}
	prog.line = func() string { return line(prog.embedded) }
	re := &weaviate.Reembedder{Embed: p.EmbedSemantic, Text: EmbedText, Progress: func(done int) {
		prog.storedTotal(done)
	}}
	st.Filled, err = ix.Store.FillPending(ctx, re)
	prog.done()
	st.Duration = time.Since(start)
	ix.log().Info("semantic vectors filled", "chunks", st.Filled, "pending_at_start", n, "seconds", st.Duration.Seconds())
	if err != nil {
		return st, fmt.Errorf("ingest: fill semantic vectors: %w", err)
	}
	return st, nil
}
