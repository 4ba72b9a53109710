package ingest_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// reversed is a semantic embedder for tests: the offline embedder's
// vectors reversed, so that they differ from the lexical ones. After
// failAfter calls (when positive) every call fails, as a killed process
// would stop answering.
type reversed struct {
	*embed.Offline
	calls, failAfter atomic.Int32
}

func (r *reversed) Name() string { return "reversed-offline" }

func (r *reversed) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if n := r.calls.Add(1); r.failAfter.Load() > 0 && n > r.failAfter.Load() {
		return nil, errors.New("killed")
	}
	vs, err := r.Offline.Embed(ctx, texts)
	for _, v := range vs {
		slices.Reverse(v)
	}
	return vs, err
}

// TestFillSemanticResumes indexes a repository with DeferSemantic: every
// chunk is stored at once with its lexical vector and found by keywords,
// its semantic vector pending. A fill that dies after its first batch
// leaves the rest pending; the next fill embeds exactly those, and the
// objects are then those of an index run that embedded both vectors at
// once: no chunk twice, none without its semantic vector.
func TestFillSemanticResumes(t *testing.T) {
	ctx := context.Background()
	lex := embed.NewOffline()
	sem := &reversed{Offline: embed.NewOffline()}
	pair := retrieval.Pair{Lexical: lex, Semantic: sem}
	open := func(class string) *weaviate.Store { return openPairStore(t, pair, class) }
	repo := newRepo(t)
	repo.write(t, shopFiles)
	repo.commit(t, "shop")
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir}
	now := t0.Add(100 * time.Hour)
	class := weaviatetest.ClassName()
	store := open(class)
	ix := newIndexer(t, store, pair, now)
	ix.DeferSemantic = true

	st, err := ix.IndexGit(ctx, src, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending != st.Chunks || st.Chunks < 4 || sem.calls.Load() != 0 {
		t.Fatalf("deferred run: %d of %d chunks pending, semantic embedder called %d times; want all pending (at least 4) and no call",
			st.Pending, st.Chunks, sem.calls.Load())
	}
	hits, err := store.Search(ctx, retrieval.Query{Text: "backoff retry", Vector: vec(t, lex, "backoff"), Alpha: 0.5, Limit: 3})
	if err != nil || len(hits) == 0 || hits[0].Chunk.Symbol != "backoff" {
		t.Errorf("search before the fill: top hit %v, err %v; want backoff", hits, err)
	}

	sem.failAfter.Store(1)
	re := &weaviate.Reembedder{Embed: pair.EmbedSemantic, Text: ingest.EmbedText, Batch: 2}
	filled, err := store.FillPending(ctx, re)
	if err == nil || filled != 2 {
		t.Fatalf("fill killed after one batch of 2: filled %d, err %v; want 2 and an error", filled, err)
	}
	if n, _ := store.CountPending(ctx); n != st.Chunks-2 {
		t.Errorf("after the killed fill: %d pending, want %d", n, st.Chunks-2)
	}
	sem.failAfter.Store(0)
	fs, err := ix.FillSemantic(ctx)
	if err != nil || fs.Pending != st.Chunks-2 || fs.Filled != st.Chunks-2 {
		t.Fatalf("resumed fill: %+v, %v; want the %d left filled", fs, err, st.Chunks-2)
	}
	if n, _ := store.CountPending(ctx); n != 0 {
		t.Errorf("after the resumed fill: %d pending", n)
	}
	if st, err = ix.IndexGit(ctx, src, false); err != nil || !st.UpToDate {
		t.Errorf("next run: UpToDate %v, err %v; want up to date", st.UpToDate, err)
	}

	cleanClass := weaviatetest.ClassName()
	if _, err := newIndexer(t, open(cleanClass), pair, now).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	want, got := objects(t, cleanClass), objects(t, class)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects after the fill differ from an index run that embedded both vectors (-want +got):\n%s", diff)
	}
}

// TestFillPendingReadsOnlyPending fills the 10-odd pending chunks of a
// collection that also holds 2,000 filled ones and counts the Weaviate
// requests the fill makes: they follow the pending chunks (their ids, then
// each object), not the collection's size, which a walk of every object
// (100 a page) would.
func TestFillPendingReadsOnlyPending(t *testing.T) {
	ctx := context.Background()
	lex := embed.NewOffline()
	pair := retrieval.Pair{Lexical: lex, Semantic: &reversed{Offline: embed.NewOffline()}}
	var reads atomic.Int64
	class := weaviatetest.ClassName()
	cfg := weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, Semantic: pair.Semantic.Name(), LexicalDim: lex.Dim(), SemanticWeight: 0.5,
		Observe: func(kind string, _ time.Duration, _ bool) {
			if kind == weaviate.RequestObjects || kind == weaviate.RequestSearch {
				reads.Add(1)
			}
		}}
	store, err := weaviate.OpenStore(ctx, cfg, lex.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	now := t0.Add(100 * time.Hour)

	big := newRepo(t)
	big.write(t, generatedFiles(200))
	big.commit(t, "generated")
	if _, err := newIndexer(t, store, pair, now).IndexGit(ctx, ingest.GitSource{ID: "repo:big", Dir: big.dir}, false); err != nil {
		t.Fatal(err)
	}
	shop := newRepo(t)
	shop.write(t, shopFiles)
	shop.commit(t, "shop")
	ix := newIndexer(t, store, pair, now)
	ix.DeferSemantic = true
	st, err := ix.IndexGit(ctx, ingest.GitSource{ID: "repo:shop", Dir: shop.dir}, false)
	if err != nil || st.Pending == 0 {
		t.Fatalf("deferred run: %d pending, %v", st.Pending, err)
	}

	batch := (st.Pending + 1) / 2 // two batches
	reads.Store(0)
	filled, err := store.FillPending(ctx, &weaviate.Reembedder{Embed: pair.EmbedSemantic, Text: ingest.EmbedText, Batch: batch})
	if err != nil || filled != st.Pending {
		t.Fatalf("FillPending: %d filled, %v; want %d", filled, err, st.Pending)
	}
	// One listing of ids per batch and one more that finds none; one read
	// per object. A walk of the collection would read 2,000/100 pages.
	most := int64(st.Pending + 3)
	if walk := int64((2000 + st.Pending + 99) / 100); most >= walk {
		t.Fatalf("%d pending chunks: the bound %d does not tell a walk of %d pages apart", st.Pending, most, walk)
	}
	if reads.Load() > most {
		t.Errorf("FillPending made %d reads for %d pending of %d chunks, want at most %d", reads.Load(), st.Pending, st.Pending+2000, most)
	}
	if n, _ := store.CountPending(ctx); n != 0 {
		t.Errorf("%d still pending", n)
	}
}

// TestHealthPendingCountedOncePerTTL: while chunks wait for their semantic
// vector every health check warns with their count, but only the first
// check within weaviate.PendingCountTTL counts them (an Aggregate that
// Weaviate answers by reading every pending object); the others reuse it.
// Once the fill is done the next check says none is pending, without
// waiting for the TTL.
func TestHealthPendingCountedOncePerTTL(t *testing.T) {
	ctx := context.Background()
	lex := embed.NewOffline()
	pair := retrieval.Pair{Lexical: lex, Semantic: &reversed{Offline: embed.NewOffline()}}
	var aggregates atomic.Int32
	cfg := weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: weaviatetest.ClassName(), Semantic: pair.Semantic.Name(),
		LexicalDim: lex.Dim(), SemanticWeight: 0.5, Observe: func(kind string, _ time.Duration, _ bool) {
			if kind == weaviate.RequestAggregate {
				aggregates.Add(1)
			}
		}}
	store, err := weaviate.OpenStore(ctx, cfg, lex.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	repo := newRepo(t)
	repo.write(t, shopFiles)
	repo.commit(t, "shop")
	ix := newIndexer(t, store, pair, t0.Add(100*time.Hour))
	ix.DeferSemantic = true
	st, err := ix.IndexGit(ctx, ingest.GitSource{ID: "repo:shop", Dir: repo.dir}, false)
	if err != nil || st.Pending == 0 {
		t.Fatalf("deferred run: %+v, %v; want chunks pending", st, err)
	}

	before := aggregates.Load()
	for i := range 3 {
		h, err := store.Health().Fresh(ctx, 0)
		if err != nil || h.Pending != st.Pending {
			t.Fatalf("health check %d: %d pending, %v; want %d", i+1, h.Pending, err, st.Pending)
		}
	}
	if n := aggregates.Load() - before; n != 1 {
		t.Errorf("3 health checks sent %d Aggregates, want 1 (the count reused for PendingCountTTL)", n)
	}

	if _, err := ix.FillSemantic(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := store.Health().Fresh(ctx, 0)
	if err != nil || h.Pending != 0 || slices.ContainsFunc(h.Warnings(), func(w string) bool { return strings.Contains(w, "semantic vector") }) {
		t.Errorf("health after the fill: %d pending, warnings %q, %v; want none", h.Pending, h.Warnings(), err)
	}
}
