package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	wvclient "github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// concepts is a stand-in for a learned semantic embedder: one dimension per
// topic, counting the topic's words in the text, so that a paraphrase
// sharing no word with a chunk still lands on it. The last dimension is a
// constant, so no vector is zero.
type concepts struct {
	name   string
	topics [][]string
}

func (c concepts) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(c.topics)+1)
		v[len(c.topics)] = 0.05
		words := strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r < 'a' || r > 'z' })
		for j, topic := range c.topics {
			for _, w := range words {
				if slices.Contains(topic, w) {
					v[j]++
				}
			}
		}
		out[i] = v
	}
	return out, nil
}
func (c concepts) Name() string { return c.name }
func (c concepts) Dim() int     { return len(c.topics) + 1 }

var refunds = concepts{name: "concepts-a", topics: [][]string{
	{"refund", "refunds", "reimburse", "money", "back", "repay"},
	{"login", "password", "credentials", "sign"},
	{"retry", "backoff", "again", "unavailable"},
}}

// openNamed opens a store on class with the Pair p's names, and
// re-embedding when re is set.
func openNamed(t testing.TB, url, class string, p retrieval.Pair, re *weaviate.Reembedder) (*weaviate.Store, error) {
	t.Helper()
	return weaviate.OpenStore(context.Background(), weaviate.StoreConfig{
		URL: url, ChunkClass: class, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Semantic: p.Semantic.Name(), LexicalDim: p.Lexical.Dim(), SemanticWeight: 0.5, Reembed: re,
	}, p.Lexical.Name())
}

// newNamed is openNamed on a fresh class, dropped when the test ends.
func newNamed(t testing.TB, p retrieval.Pair) (*weaviate.Store, string) {
	t.Helper()
	class := weaviatetest.ClassName()
	s, err := openNamed(t, weaviatetest.URL(t), class, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = weaviate.DropCollections(context.Background(), weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class})
	})
	return s, class
}

func rawClient(t testing.TB) *wvclient.Client {
	t.Helper()
	host := strings.TrimPrefix(weaviatetest.URL(t), "http://")
	c, err := wvclient.NewClient(wvclient.Config{Host: host, Scheme: "http"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestNamedVectorSchema: a new collection has the named vectors lexical
// and semantic, each a flat index (the default) without vectorizer, and records both
// embedders; objects are stored with both vectors.
func TestNamedVectorSchema(t *testing.T) {
	ctx := context.Background()
	p := retrieval.Pair{Lexical: embed.NewOffline(), Semantic: refunds}
	store, class := newNamed(t, p)
	got, err := rawClient(t).Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, vc := range got.VectorConfig {
		names = append(names, name)
		if vc.VectorIndexType != "flat" {
			t.Errorf("vector %s: index %q, want flat (the default)", name, vc.VectorIndexType)
		}
	}
	slices.Sort(names)
	if want := []string{weaviate.VectorLexical, weaviate.VectorSemantic}; !slices.Equal(names, want) {
		t.Errorf("named vectors %v, want %v", names, want)
	}
	if want := "ragbot chunks; embedder=offline-hash-v1-384; semantic=concepts-a; vector=semantic"; got.Description != want {
		t.Errorf("description %q, want %q", got.Description, want)
	}
	vecs := embedAll(t, p, corpus)
	if err := store.Upsert(ctx, corpus, vecs); err != nil {
		t.Fatal(err)
	}
	obj, err := rawClient(t).Data().ObjectsGetter().WithClassName(class).WithID(corpus[2].ID()).WithVector().Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lex, sem := p.Split(vecs[2])
	if !slices.Equal(obj[0].Vectors[weaviate.VectorLexical], lex) || !slices.Equal(obj[0].Vectors[weaviate.VectorSemantic], sem) {
		t.Errorf("stored vectors %v, want lexical %d floats and semantic %v", obj[0].Vectors, len(lex), sem)
	}
	back, err := store.Vectors(ctx, []string{corpus[2].ID()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back[corpus[2].ID()], vecs[2]) {
		t.Errorf("Vectors gives %d floats, want the Pair vector of %d", len(back[corpus[2].ID()]), len(vecs[2]))
	}
}

// semanticCorpus: chunks that share the question's words, or their
// letters, but not its meaning, and one (Ledger.Reimburse) with its
// meaning but none of its words.
func semanticCorpus() []retrieval.Chunk {
	cs := slices.Clone(corpus)
	for i := range 2 {
		cs = append(cs, codeChunk("repo:shop", fmt.Sprintf("promo/give%d.go", i), fmt.Sprintf("GiveCustomers%d", i),
			fmt.Sprintf("// GiveCustomers%d hands our customers their coupon codes where a promotion applies.\nfunc GiveCustomers%d() {}", i, i), 1, 2))
	}
	for i, w := range []string{"Customer", "Giver", "Customerly", "GivenCustomer", "CustomerWhere", "TheirCustomer"} {
		cs = append(cs, codeChunk("repo:shop", fmt.Sprintf("crm/%s.go", strings.ToLower(w)), w+".Greet",
			fmt.Sprintf("// Greet welcomes a %s giving a customer greeting.\nfunc (c *%s) Greet() string { return \"hi %d\" }", w, w, i), 1, 2))
	}
	return append(cs, codeChunk("repo:shop", "billing/ledger.go", "Ledger.Reimburse",
		"// Reimburse repays an order's total to the account it was charged to.\nfunc (l *Ledger) Reimburse(o Order) error {\n\treturn l.credit(o.Account, o.Total)\n}", 20, 23))
}

// TestHybridOverBothVectorsFindsWhatOnlySemanticFinds: the question shares
// no word with Ledger.Reimburse; two chunks share its words and six look
// like it to the hashing embedder. BM25 plus the lexical vector leave the
// chunk out of the top 3 (it is ninth), BM25 plus both vectors bring it in.
func TestHybridOverBothVectorsFindsWhatOnlySemanticFinds(t *testing.T) {
	ctx := context.Background()
	p := retrieval.Pair{Lexical: embed.NewOffline(), Semantic: refunds}
	store, _ := newNamed(t, p)
	cs := semanticCorpus()
	if err := store.Upsert(ctx, cs, embedAll(t, p, cs)); err != nil {
		t.Fatal(err)
	}
	const question = "where do we give customers their money back"
	qv, err := p.Embed(ctx, []string{question})
	if err != nil {
		t.Fatal(err)
	}
	lex, sem := p.Split(qv[0])
	top := func(q retrieval.Query) []string {
		t.Helper()
		hits, err := store.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var syms []string
		for _, h := range hits {
			syms = append(syms, h.Chunk.Symbol)
		}
		return syms
	}
	base := retrieval.Query{Text: retrieval.SearchQuery(question), Vector: lex, Alpha: 0.5, Limit: 3}
	if got := top(base); slices.Contains(got, "Ledger.Reimburse") {
		t.Fatalf("lexical vector alone already finds Ledger.Reimburse: %v; the test proves nothing", got)
	}
	both := base
	both.Semantic = sem
	if got := top(both); !slices.Contains(got, "Ledger.Reimburse") {
		t.Errorf("over both vectors: top 3 %v, want Ledger.Reimburse among them", got)
	}
	// BM25 lookups (alpha 0, no vector) still work on a collection of two vectors.
	if got := top(retrieval.Query{Text: "GiveCustomers1", Limit: 1, Properties: []string{"symbol"}}); !slices.Equal(got, []string{"GiveCustomers1"}) {
		t.Errorf("BM25 only: %v, want [GiveCustomers1]", got)
	}
}

// TestReembedSemanticKeepsLexical: switching the semantic embedder
// re-embeds only the semantic vectors; each object's lexical vector and
// properties are unchanged, to the byte, and the collection records the
// new embedder. Without a Reembedder the switch is refused.
func TestReembedSemanticKeepsLexical(t *testing.T) {
	ctx := context.Background()
	url := weaviatetest.URL(t)
	a := retrieval.Pair{Lexical: embed.NewOffline(), Semantic: refunds}
	store, class := newNamed(t, a)
	cs := semanticCorpus()
	if err := store.Upsert(ctx, cs, embedAll(t, a, cs)); err != nil {
		t.Fatal(err)
	}
	before := readObjects(t, class)

	b := retrieval.Pair{Lexical: a.Lexical, Semantic: concepts{name: "concepts-b", topics: [][]string{{"coupon", "promotion"}, {"order", "account"}}}}
	if _, err := openNamed(t, url, class, b, nil); !errors.Is(err, weaviate.ErrSemanticMismatch) || !strings.Contains(err.Error(), "ragbot index") {
		t.Fatalf("open with another semantic embedder, no Reembedder: got %v, want ErrSemanticMismatch naming `ragbot index`", err)
	}
	var progress []int
	re := &weaviate.Reembedder{Embed: b.EmbedSemantic, Text: func(c retrieval.Chunk) string {
		return c.Symbol + "\n" + c.Path + "\n" + c.Content
	}, Progress: func(n int) { progress = append(progress, n) }}
	store, err := openNamed(t, url, class, b, re)
	if err != nil {
		t.Fatal(err)
	}
	if len(progress) == 0 || progress[len(progress)-1] != len(cs) {
		t.Errorf("progress %v, want it to end at %d", progress, len(cs))
	}
	after := readObjects(t, class)
	for id, o := range before {
		n := after[id]
		if !slices.Equal(bits(o.Vectors[weaviate.VectorLexical]), bits(n.Vectors[weaviate.VectorLexical])) {
			t.Errorf("%s: lexical vector changed", id)
		}
		if diff := cmp.Diff(o.Properties, n.Properties); diff != "" {
			t.Errorf("%s: properties changed (-before +after):\n%s", id, diff)
		}
	}
	// b's vectors are of another length: they go to a new named vector,
	// and the old one is gone from the objects.
	want := embedAll(t, b, cs)
	for i, c := range cs {
		_, sem := b.Split(want[i])
		got := after[c.ID()].Vectors
		if !slices.Equal(got["semantic_2"], sem) || got[weaviate.VectorSemantic] != nil {
			t.Errorf("%s: vectors %v, want semantic_2 %v and no %s", c.Symbol, got, sem, weaviate.VectorSemantic)
		}
	}
	back, err := store.Vectors(ctx, []string{cs[0].ID()})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back[cs[0].ID()], want[0]) {
		t.Errorf("Vectors after the switch: %v, want %v", back[cs[0].ID()], want[0])
	}
	// Reopened with b: nothing to re-embed, nothing refused.
	progress = nil
	if _, err := openNamed(t, url, class, b, re); err != nil || progress != nil {
		t.Errorf("reopen with the recorded semantic embedder: err %v, progress %v", err, progress)
	}
	// Without a semantic embedder the store opens and searches the lexical
	// vector; an index run (Reembedder set) clears the record.
	cfg := weaviate.StoreConfig{URL: url, ChunkClass: class, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Reembed: re}
	if _, err := weaviate.OpenStore(ctx, cfg, a.Lexical.Name()); err != nil {
		t.Fatal(err)
	}
	got, err := rawClient(t).Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ragbot chunks; embedder=offline-hash-v1-384; vector=semantic_2"; got.Description != want {
		t.Errorf("after an index run without semantic embedder: description %q, want %q", got.Description, want)
	}
}

// readObjects reads every object of class with its vectors, by id.
func readObjects(t *testing.T, class string) map[string]*models.Object {
	t.Helper()
	objs, err := rawClient(t).Data().ObjectsGetter().WithClassName(class).WithVector().WithLimit(1000).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*models.Object{}
	for _, o := range objs {
		out[string(o.ID)] = o
	}
	return out
}

func bits(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return out
}

// TestLegacySchemaIsRefusedWithTheFix: a collection with the single
// unnamed vector of an earlier version is refused with an error naming
// `ragbot index --recreate`; OpenStoreReembed (an index run of the
// codesearch embedder) and DropCollections (--recreate) replace it with the named
// vectors.
func TestLegacySchemaIsRefusedWithTheFix(t *testing.T) {
	ctx := context.Background()
	url := weaviatetest.URL(t)
	class := weaviatetest.ClassName()
	cfg := weaviate.StoreConfig{URL: url, ChunkClass: class, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	t.Cleanup(func() { _ = weaviate.DropCollections(context.Background(), cfg) })
	legacy := func() {
		t.Helper()
		err := rawClient(t).Schema().ClassCreator().WithClass(&models.Class{Class: class, Vectorizer: "none", VectorIndexType: "flat",
			Description: "ragbot chunks; embedder=offline-hash-v1-384",
			Properties:  []*models.Property{{Name: "source", DataType: []string{"text"}}}}).Do(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	legacy()
	emb := embed.NewOffline()
	_, err := weaviate.OpenStore(ctx, cfg, emb.Name())
	if !errors.Is(err, weaviate.ErrLegacySchema) || !strings.Contains(err.Error(), "ragbot index --recreate") {
		t.Fatalf("open a single-vector collection: got %v, want ErrLegacySchema naming `ragbot index --recreate`", err)
	}
	s, prev, err := weaviate.OpenStoreReembed(ctx, cfg, emb.Name())
	if err != nil || prev != "single-vector schema" {
		t.Fatalf("OpenStoreReembed: prev %q, err %v", prev, err)
	}
	if err := s.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Errorf("upsert into the recreated collection: %v", err)
	}
	if err := weaviate.DropCollections(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	legacy()
	if err := weaviate.DropCollections(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := weaviate.OpenStore(ctx, cfg, emb.Name()); err != nil {
		t.Errorf("open after DropCollections: %v", err)
	}
}

// TestAssessFillsSemanticSimilarity: with a Pair embedder, the top hits
// carry the question's cosine similarity on each vector, computed from the
// stored vectors: Similarity on the lexical one (what the coverage
// thresholds are calibrated on), Semantic on the semantic one.
func TestAssessFillsSemanticSimilarity(t *testing.T) {
	ctx := context.Background()
	p := retrieval.Pair{Lexical: embed.NewOffline(), Semantic: refunds}
	store, _ := newNamed(t, p)
	cs := semanticCorpus()
	vecs := embedAll(t, p, cs)
	if err := store.Upsert(ctx, cs, vecs); err != nil {
		t.Fatal(err)
	}
	asker := &retrieval.Asker{Store: store, Embedder: p, Alpha: 0.5, TopK: 5, Candidates: 30, Thresholds: retrieval.DefaultThresholds()}
	const question = "where do we give customers their money back"
	hits, _, err := asker.Assess(ctx, retrieval.Request{Question: question})
	if err != nil {
		t.Fatal(err)
	}
	qv, err := p.Embed(ctx, []string{question})
	if err != nil {
		t.Fatal(err)
	}
	qLex, qSem := p.Split(qv[0])
	byID := map[string][]float32{}
	for i, c := range cs {
		byID[c.ID()] = vecs[i]
	}
	found := false
	for _, h := range hits[:min(len(hits), 5)] {
		lex, sem := p.Split(byID[h.ID])
		if d := math.Abs(h.Similarity - retrieval.Cosine(qLex, lex)); d > 1e-5 {
			t.Errorf("%s: Similarity %.4f, want the lexical cosine %.4f", h.Chunk.Symbol, h.Similarity, retrieval.Cosine(qLex, lex))
		}
		if d := math.Abs(h.Semantic - retrieval.Cosine(qSem, sem)); d > 1e-5 {
			t.Errorf("%s: Semantic %.4f, want the semantic cosine %.4f", h.Chunk.Symbol, h.Semantic, retrieval.Cosine(qSem, sem))
		}
		if h.Chunk.Symbol == "Ledger.Reimburse" {
			found = true
			if h.Semantic < 0.9 {
				t.Errorf("Ledger.Reimburse: Semantic %.3f, want about 1", h.Semantic)
			}
		}
	}
	if !found {
		t.Errorf("Ledger.Reimburse not among the top 5 of %v", hits)
	}
}
