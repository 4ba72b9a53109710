package ingest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/openai"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// tokenLimitServer speaks OpenAI's POST /v1/embeddings (API reference,
// "Create embeddings") and, like OpenAI, refuses the whole request with 400
// when one input is over limit tokens, counting a token per 4 bytes (what
// English and code average with OpenAI's tokenizers). It answers with the
// offline embedder's vectors.
type tokenLimitServer struct {
	limit   int
	refused atomic.Int32 // requests answered 400
	longest atomic.Int64 // longest input accepted, in bytes
}

func (s *tokenLimitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	for _, in := range req.Input {
		if n := (len(in) + 3) / 4; n > s.limit {
			s.refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"This model's maximum context length is %d tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion to obtain a response.","type":"invalid_request_error","param":null,"code":null}}`, s.limit, n, n)
			return
		}
		if int64(len(in)) > s.longest.Load() {
			s.longest.Store(int64(len(in)))
		}
	}
	vecs, _ := embed.NewOffline().Embed(r.Context(), req.Input)
	writeEmbeddings(w, req.Model, vecs)
}

// writeEmbeddings answers a POST /v1/embeddings with vecs, in OpenAI's
// response format (API reference, "Create embeddings").
func writeEmbeddings(w http.ResponseWriter, model string, vecs [][]float32) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: model}
	for i, v := range vecs {
		resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: v})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// longFunction is a 147-line Go function of 270-character lines: one
// symbol, so one chunk of about 40 KB (~10,000 tokens).
func longFunction() string {
	var b strings.Builder
	b.WriteString("package report\n\nimport (\n\t\"fmt\"\n\t\"io\"\n)\n\n// Render writes the quarterly report.\nfunc Render(w io.Writer) {\n")
	for i := range 147 {
		line := fmt.Sprintf("\tfmt.Fprintf(w, \"row %03d: %%s\\n\", \"", i)
		line += strings.Repeat("q", 270-len(line)-3) + "\")\n"
		b.WriteString(line)
	}
	b.WriteString("}\n")
	return b.String()
}

// TestIndexGitChunkOverEmbedderLimit indexes a repository with one chunk
// of ~10,000 tokens through an OpenAI-compatible embedder that refuses
// inputs over 8,192 tokens. With Indexer.MaxInputTokens set, the chunk is
// stored whole and embedded from a prefix that fits. Without it, the
// refused file is reported, the other files are stored, the state records
// the commit and the missing file, and the next run embeds only that file.
func TestIndexGitChunkOverEmbedderLimit(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, shopFiles)
	repo.write(t, map[string]string{"report/render.go": longFunction()})
	head := repo.commit(t, "report")
	fake := &tokenLimitServer{limit: 8192}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	emb, err := openai.NewEmbedder(ctx, openai.EmbedderConfig{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir}
	renderChunk := func(cs []storedChunk) *storedChunk {
		for i := range cs {
			if cs[i].Path == "report/render.go" {
				return &cs[i]
			}
		}
		return nil
	}

	t.Run("bounded", func(t *testing.T) {
		store := weaviatetest.NewStore(t, emb.Name())
		ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
		ix.MaxInputTokens = 8192
		st, err := ix.IndexGit(ctx, src, false)
		if err != nil {
			t.Fatalf("IndexGit: %v", err)
		}
		if st.Chunks != len(shopChunks)+1 || fake.refused.Load() != 0 {
			t.Errorf("%d chunks, %d requests refused; want %d and none", st.Chunks, fake.refused.Load(), len(shopChunks)+1)
		}
		c := renderChunk(storedChunks(t, store, "repo:shop"))
		if c == nil || len(c.Content) < 38000 {
			t.Fatalf("report/render.go not stored whole: %v", c)
		}
		if got := fake.longest.Load(); got > 8192*3 {
			t.Errorf("longest input sent: %d bytes, want at most %d (8,192 tokens at 3 bytes each)", got, 8192*3)
		}
	})

	t.Run("refused file does not block the others", func(t *testing.T) {
		store := weaviatetest.NewStore(t, emb.Name())
		ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
		_, err := ix.IndexGit(ctx, src, false) // no MaxInputTokens: the chunk goes whole
		if err == nil || !strings.Contains(err.Error(), "report/render.go") {
			t.Fatalf("IndexGit = %v, want an error naming report/render.go", err)
		}
		stored := storedChunks(t, store, "repo:shop")
		if diff := cmp.Diff(shopChunks, rows(stored)); diff != "" {
			t.Errorf("stored chunks (-want +got):\n%s", diff)
		}
		state, ok, err := store.State(ctx, "repo:shop", "main")
		if err != nil || !ok || state.CommitSHA != head || !strings.Contains(state.LastError, "report/render.go") {
			t.Errorf("state %+v (%v), want commit %s and last_error naming report/render.go", state, err, head[:7])
		}
		checkVocabulary(t, store, state) // counted from the index: the left-out file's old chunks stay

		ix.MaxInputTokens = 8192 // the retry
		st, err := ix.IndexGit(ctx, src, false)
		if err != nil {
			t.Fatalf("retry: %v", err)
		}
		if st.Embedded != 1 || st.Kept != len(shopChunks) {
			t.Errorf("retry embedded %d and kept %d, want 1 (report/render.go) and %d", st.Embedded, st.Kept, len(shopChunks))
		}
		if renderChunk(storedChunks(t, store, "repo:shop")) == nil {
			t.Error("report/render.go not stored after the retry")
		}
		state, _, _ = store.State(ctx, "repo:shop", "main")
		if state.LastError != "" {
			t.Errorf("state after the retry: last_error %q, want none", state.LastError)
		}
		checkVocabulary(t, store, state)
	})
}
