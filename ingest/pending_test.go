package ingest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/openai"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// Modes of flakyEmbeddings.
const (
	embedUp   = iota
	embed503  // 503 with OpenAI's error body
	embedHang // no answer until the client gives up
)

// flakyEmbeddings is an OpenAI-compatible POST /v1/embeddings (API
// reference, "Create embeddings") that answers as its mode says. Its
// vectors are the offline embedder's, reversed, so that they differ from
// the lexical ones.
type flakyEmbeddings struct {
	mode    atomic.Int32
	release chan struct{} // closed at the end of the test: hanging requests return
}

func (f *flakyEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch f.mode.Load() {
	case embed503:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error"}}`))
		return
	case embedHang:
		_, _ = io.Copy(io.Discard, r.Body) // so that the server notices the client leave
		select {
		case <-r.Context().Done():
		case <-f.release:
		}
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	vecs, _ := embed.NewOffline().Embed(r.Context(), req.Input)
	for _, v := range vecs {
		slices.Reverse(v)
	}
	writeEmbeddings(w, req.Model, vecs)
}

// TestIndexGitSemanticDown indexes a repository with a semantic embedder
// whose endpoint answers 503, then (after a new commit) hangs, then
// recovers. The runs while it is down store every chunk, found by
// keywords, with its semantic vector pending and an answer warning saying
// so; the run after the recovery embeds them, leaving the same objects
// (ids, properties, both vectors) as a clean index of the same commit.
func TestIndexGitSemanticDown(t *testing.T) {
	ctx := context.Background()
	fake := &flakyEmbeddings{release: make(chan struct{})}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(fake.release) }) // first
	lex := embed.NewOffline()
	sem, err := openai.NewEmbedder(ctx, openai.EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small",
		KnownDim: lex.Dim(), MaxRetries: -1, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
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

	fake.mode.Store(embed503)
	st, err := ix.IndexGit(ctx, src, false)
	if err != nil {
		t.Fatalf("IndexGit with the semantic endpoint answering 503: %v", err)
	}
	if st.Chunks != len(shopChunks) || st.Pending != len(shopChunks) {
		t.Errorf("503: %d chunks, %d pending; want %d and all pending", st.Chunks, st.Pending, len(shopChunks))
	}
	if n, err := store.CountPending(ctx); err != nil || n != len(shopChunks) {
		t.Errorf("CountPending = %d, %v; want %d", n, err, len(shopChunks))
	}
	q := vec(t, lex, "backoff")
	qs := slices.Clone(q)
	slices.Reverse(qs) // as the fake embeds it
	hits, err := store.Search(ctx, retrieval.Query{Text: "backoff retry", Vector: q, Semantic: qs, Alpha: 0.5, Limit: 3})
	if err != nil || len(hits) == 0 || hits[0].Chunk.Symbol != "backoff" {
		t.Errorf("search while vectors are pending: top hit %v, err %v; want backoff", hits, err)
	}
	h, err := store.Health().Fresh(ctx, 0)
	if err != nil || !slices.ContainsFunc(h.Warnings(), func(w string) bool { return strings.Contains(w, "without their semantic vector") }) {
		t.Errorf("health warnings %q (err %v), want one on the pending semantic vectors", h.Warnings(), err)
	}

	repo.write(t, map[string]string{"retry.py": strings.Replace(retryPy, "def backoff", "def backoff_delay", 1)})
	repo.commit(t, "rename backoff")
	fake.mode.Store(embedHang)
	start := time.Now()
	if st, err = ix.IndexGit(ctx, src, false); err != nil {
		t.Fatalf("IndexGit with the semantic endpoint hanging: %v", err)
	}
	if st.Pending != st.Chunks || time.Since(start) > 10*time.Second {
		t.Errorf("hang: %d of %d chunks pending after %v; want all, the endpoint given up on after its 1 s timeout", st.Pending, st.Chunks, time.Since(start))
	}

	fake.mode.Store(embedUp)
	if st, err = ix.IndexGit(ctx, src, false); err != nil || st.Pending != 0 || st.Embedded != st.Chunks {
		t.Fatalf("run after recovery: %+v, %v; want every chunk embedded, none pending", st, err)
	}
	if st, err = ix.IndexGit(ctx, src, false); err != nil || !st.UpToDate {
		t.Errorf("next run: UpToDate %v, err %v; want up to date", st.UpToDate, err)
	}
	cleanClass := weaviatetest.ClassName()
	if _, err := newIndexer(t, open(cleanClass), pair, now).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	want, got := objects(t, cleanClass), objects(t, class)
	if len(got) != st.Chunks {
		t.Errorf("%d objects after recovery, want %d", len(got), st.Chunks)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects after recovery differ from a clean index (-want +got):\n%s", diff)
	}
	if h, _ := store.Health().Fresh(ctx, 0); h.Pending != 0 {
		t.Errorf("health after recovery: %d pending", h.Pending)
	}
}

// openPairStore opens a fresh store of class for pair's two vectors,
// dropped at the end of the test.
func openPairStore(t *testing.T, pair retrieval.Pair, class string) *weaviate.Store {
	t.Helper()
	cfg := weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, Semantic: pair.Semantic.Name(), LexicalDim: pair.Lexical.Dim(), SemanticWeight: 0.5}
	s, err := weaviate.OpenStore(context.Background(), cfg, pair.Lexical.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Drop(context.Background()) })
	return s
}

func vec(t *testing.T, e retrieval.Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// storedObject is an object as Weaviate's REST API returns it.
type storedObject struct {
	Properties map[string]any       `json:"properties"`
	Vectors    map[string][]float32 `json:"vectors"`
}

// objects reads every object of class with its vectors (GET /v1/objects,
// include=vector), by id.
func objects(t *testing.T, class string) map[string]storedObject {
	t.Helper()
	resp, err := http.Get(weaviatetest.URL(t) + "/v1/objects?class=" + class + "&include=vector&limit=1000")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Objects []struct {
			ID string `json:"id"`
			storedObject
		} `json:"objects"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := map[string]storedObject{}
	for _, o := range list.Objects {
		out[o.ID] = o.storedObject
	}
	return out
}
