package weaviate_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/weaviate/weaviate/adapters/repos/db/inverted/stopwords"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// codeChunk builds a stored-ready chunk the way the indexer does.
func codeChunk(source, path, symbol, content string, start, end int, acl ...string) retrieval.Chunk {
	c := retrieval.Chunk{
		Source: source, Kind: retrieval.KindCode, Path: path, Symbol: symbol, SymbolKind: "method",
		Language: "java", Content: content, StartLine: start, EndLine: end,
		CommitSHA: strings.Repeat("a", 40), Branch: "main", IndexedAt: t0, ACL: acl,
	}
	c.ContentHash = retrieval.HashContent(c.Content)
	c.SearchText = retrieval.SearchText(c)
	return c
}

var corpus = []retrieval.Chunk{
	codeChunk("repo:shop", "src/main/java/UserRepository.java", "UserRepository.findByEmail",
		"/** Looks a user up by e-mail. */\npublic Optional<User> findByEmail(String email) {\n  return users.stream().filter(u -> u.email().equals(email)).findFirst();\n}", 10, 13),
	codeChunk("repo:shop", "src/main/java/OrderService.java", "OrderService.cancelOrder",
		"public void cancelOrder(long id) {\n  orders.get(id).cancel();\n  events.publish(new OrderCancelled(id));\n}", 40, 43),
	codeChunk("repo:shop", "internal/retry/backoff.go", "Backoff.Next",
		"// Next returns how long to wait before the next retry after a 503 Service Unavailable.\nfunc (b *Backoff) Next(attempt int) time.Duration {\n\treturn b.base << attempt\n}", 5, 8),
	codeChunk("repo:billing", "billing/invoice.go", "Invoice.Total",
		"// Total sums the invoice lines.\nfunc (i *Invoice) Total() int {\n\tn := 0\n\tfor _, l := range i.Lines { n += l.Amount }\n\treturn n\n}", 3, 8, "finance"),
}

func embedAll(t testing.TB, e retrieval.Embedder, cs []retrieval.Chunk) [][]float32 {
	t.Helper()
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = c.Symbol + "\n" + c.Path + "\n" + c.Content
	}
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestUpsertIsIdempotent(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	vecs := embedAll(t, emb, corpus)
	for range 2 {
		if err := store.Upsert(ctx, corpus, vecs); err != nil {
			t.Fatal(err)
		}
	}
	got, err := store.Count(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if got != len(corpus) {
		t.Errorf("after two upserts: %d objects, want %d", got, len(corpus))
	}
	stored, err := store.ListStored(ctx, "repo:shop", "main")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]weaviate.Stored{}
	for _, c := range corpus[:3] {
		want[c.ID()] = weaviate.Stored{ID: c.ID(), Path: c.Path, ContentHash: c.ContentHash, CommitSHA: c.CommitSHA,
			StartLine: c.StartLine, EndLine: c.EndLine, Version: c.Version}
	}
	if diff := cmp.Diff(want, stored); diff != "" {
		t.Errorf("ListStored (-want +got):\n%s", diff)
	}
}

func TestUpsertReportsFailedObjectsInsideA200(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus[:1], embedAll(t, emb, corpus[:1])); err != nil {
		t.Fatal(err)
	}
	// A vector of another length: Weaviate answers HTTP 200 with this object FAILED.
	bad := corpus[1]
	err := store.Upsert(ctx, []retrieval.Chunk{bad}, [][]float32{{0.1, 0.2, 0.3}})
	if err == nil {
		t.Fatal("upsert with a wrong-length vector: got nil error")
	}
	if !strings.Contains(err.Error(), bad.ID()) || !strings.Contains(err.Error(), "1 objects failed") {
		t.Errorf("error does not name the failed object %s: %v", bad.ID(), err)
	}
}

// TestUpsertNamesFailedChunks: one object of a batch fails inside the HTTP
// 200; the others are stored, and the error names the failed chunk's
// source, path and symbol, and the stored and failed counts.
func TestUpsertNamesFailedChunks(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	chunks := corpus[:3]
	vecs := embedAll(t, emb, chunks)
	vecs[1] = []float32{0.1, 0.2, 0.3} // another length: this object FAILED
	err := store.Upsert(ctx, chunks, vecs)
	if err == nil {
		t.Fatal("upsert with a wrong-length vector: got nil error")
	}
	bad := chunks[1]
	for _, want := range []string{bad.Source, bad.Path, bad.Symbol, bad.ID(), "1 of 3 objects failed", "2 stored"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q: %v", want, err)
		}
	}
	var be *weaviate.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("error %T is not a *weaviate.BatchError", err)
	}
	want := []weaviate.FailedChunk{{ID: bad.ID(), Source: bad.Source, Path: bad.Path, Symbol: bad.Symbol}}
	got := be.Failed
	for i := range got {
		got[i].Message = ""
	}
	if diff := cmp.Diff(want, got); diff != "" || be.Stored != 2 {
		t.Errorf("BatchError.Failed (-want +got):\n%s\nstored %d, want 2", diff, be.Stored)
	}
	stored, err := store.ListStored(ctx, "repo:shop", "main")
	if err != nil {
		t.Fatal(err)
	}
	// The failed object's state is unknown (Weaviate may have written it
	// before its vector was refused); the others must be there.
	for _, c := range []retrieval.Chunk{chunks[0], chunks[2]} {
		if _, ok := stored[c.ID()]; !ok {
			t.Errorf("%s %s not stored", c.Path, c.Symbol)
		}
	}
}

func TestUpsertValidatesChunks(t *testing.T) {
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	bad := corpus[0]
	bad.StartLine, bad.EndLine = 9, 3
	err := store.Upsert(context.Background(), []retrieval.Chunk{bad}, embedAll(t, emb, []retrieval.Chunk{bad}))
	if err == nil || !strings.Contains(err.Error(), "start_line/end_line: got 9-3") {
		t.Errorf("got %v, want an error naming start_line/end_line", err)
	}
}

func TestDeleteIDsRemovesOnlyThose(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	if err := store.DeleteIDs(ctx, []string{corpus[1].ID()}); err != nil {
		t.Fatal(err)
	}
	stored, err := store.ListStored(ctx, "repo:shop", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stored[corpus[1].ID()]; ok || len(stored) != 2 {
		t.Errorf("after deleting %s: stored %v", corpus[1].Symbol, stored)
	}
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		query   string
		alpha   float64
		sources []string
		groups  []string
		wantTop string   // symbol of the first hit
		wantOut []string // symbols that must not be returned
	}{
		{name: "exact identifier", query: "findByEmail", alpha: 0.5, wantTop: "UserRepository.findByEmail"},
		{name: "phrase", query: "find a user by email", alpha: 0.5, wantTop: "UserRepository.findByEmail"},
		{name: "phrase bm25 only", query: "retry after 503 service unavailable", alpha: 0, wantTop: "Backoff.Next"},
		{name: "phrase vectors only", query: "cancel an order", alpha: 1, wantTop: "OrderService.cancelOrder"},
		{name: "source filter", query: "Total invoice lines", alpha: 0.5, sources: []string{"repo:shop"}, wantOut: []string{"Invoice.Total"}},
		{name: "acl hides", query: "Total invoice lines", alpha: 0.5, wantOut: []string{"Invoice.Total"}},
		{name: "acl allows", query: "Total invoice lines", alpha: 0.5, groups: []string{"finance"}, wantTop: "Invoice.Total"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := emb.Embed(ctx, []string{tc.query})
			if err != nil {
				t.Fatal(err)
			}
			hits, err := store.Search(ctx, retrieval.Query{Text: tc.query, Vector: v[0], Alpha: tc.alpha, Limit: 10, Sources: tc.sources, Groups: tc.groups})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantTop != "" {
				if len(hits) == 0 {
					t.Fatalf("no hits, want %s first", tc.wantTop)
				}
				if got := hits[0].Chunk.Symbol; got != tc.wantTop {
					t.Errorf("top hit %s (%s), want %s", got, hits[0].Debug, tc.wantTop)
				}
			}
			for _, h := range hits {
				for _, out := range tc.wantOut {
					if h.Chunk.Symbol == out {
						t.Errorf("hit %s returned, the filter should exclude it", out)
					}
				}
			}
		})
	}
}

func TestSearchReturnsRawScoresAndFields(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	v, _ := emb.Embed(ctx, []string{"findByEmail"})
	hits, err := store.Search(ctx, retrieval.Query{Text: "findByEmail", Vector: v[0], Alpha: 0.5, Limit: 3})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v, %d hits", err, len(hits))
	}
	h := hits[0]
	if h.BM25 <= 0 || h.Similarity <= 0 || h.Similarity > 1.0001 {
		t.Errorf("raw scores of the exact hit: bm25 %g similarity %g, want bm25 > 0 and 0 < similarity <= 1 (%s)", h.BM25, h.Similarity, h.Debug)
	}
	want := corpus[0]
	want.SearchText = "" // not read back
	want.ACL = nil
	if diff := cmp.Diff(want, h.Chunk); diff != "" {
		t.Errorf("chunk read back (-want +got):\n%s", diff)
	}
}

func TestStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	store := weaviatetest.NewStore(t, "offline-test")
	if _, ok, err := store.State(ctx, "repo:x", "main"); err != nil || ok {
		t.Fatalf("state of an unknown source: ok=%v err=%v", ok, err)
	}
	want := retrieval.SourceState{Source: "repo:x", Branch: "main", CommitSHA: strings.Repeat("b", 40), Embedder: "offline-test",
		Settings: "s1", IndexedAt: t0, Files: 3, Chunks: 9}
	if err := store.PutState(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := store.State(ctx, "repo:x", "main")
	if err != nil || !ok {
		t.Fatalf("state: ok=%v err=%v", ok, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
}

func TestOpenStoreRefusesAnotherEmbedder(t *testing.T) {
	ctx := context.Background()
	store := weaviatetest.NewStore(t, "embedder-a")
	_, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: store.ChunkClass()}, "embedder-b")
	if !errors.Is(err, weaviate.ErrEmbedderMismatch) {
		t.Fatalf("got %v, want ErrEmbedderMismatch", err)
	}
	for _, name := range []string{"embedder-a", "embedder-b", "--recreate"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not mention %q", err, name)
		}
	}
}

func TestDocFreq(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	terms := [][]string{{"retry"}, {"email", "emails"}, {"snooze"}, {"total"}}
	// In repo:shop, visible to everyone: "retry" in Backoff.Next, "email" in
	// findByEmail, "snooze" nowhere; Invoice.Total is another source.
	df, n, err := store.DocFreq(ctx, retrieval.Query{Sources: []string{"repo:shop"}}, terms)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 1, 0, 0}, df); diff != "" || n != 3 {
		t.Errorf("DocFreq(repo:shop) = %v, %d; want [1 1 0 0], 3 (-want +got):\n%s", df, n, diff)
	}
	// The ACL filter applies: "total" only for the finance group.
	if df, n, err = store.DocFreq(ctx, retrieval.Query{Groups: []string{"finance"}}, terms); err != nil {
		t.Fatal(err)
	}
	if df[3] != 1 || n != 4 {
		t.Errorf("DocFreq(finance) = %v, %d; want total in 1 of 4", df, n)
	}
	if df, n, err = store.DocFreq(ctx, retrieval.Query{}, terms); err != nil {
		t.Fatal(err)
	}
	if df[3] != 0 || n != 3 {
		t.Errorf("DocFreq(no groups) = %v, %d; want total hidden, 3 visible", df, n)
	}
}

func TestAssessWeighsRareTermsAndListsAbsentOnes(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	asker := &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 30,
		Thresholds: retrieval.DefaultThresholds()}
	// "snooze" is in no chunk: listed, and it keeps the best hit's
	// coverage below 1 although every other term is found.
	hits, ev, err := asker.Assess(ctx, retrieval.Request{Question: "how long do we snooze before the next retry?", Sources: []string{"repo:shop"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"snooze"}, ev.Absent); diff != "" {
		t.Errorf("Absent (-want +got):\n%s", diff)
	}
	if len(hits) == 0 || hits[0].Chunk.Symbol != "Backoff.Next" {
		t.Fatalf("top hit %v, want Backoff.Next", hits)
	}
	if c := hits[0].TermCoverage; c <= 0 || c >= 1 || ev.TermCoverage != c {
		t.Errorf("Backoff.Next coverage %.3f (evidence %.3f), want 0 < c < 1 and the best", c, ev.TermCoverage)
	}
	// Without the absent word the same hit covers every term.
	_, ev, err = asker.Assess(ctx, retrieval.Request{Question: "how long do we wait before the next retry?", Sources: []string{"repo:shop"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Absent) != 0 || ev.TermCoverage < 0.999 {
		t.Errorf("evidence %+v, want nothing absent and coverage 1", ev)
	}
}

// recordGuard is an answer guard that records the request it saw and marks
// every snippet with its name, so the order of the guards shows.
type recordGuard struct {
	name string
	seen *[]string
	err  error
}

func (g recordGuard) Guard(_ context.Context, r retrieval.Request, ans *retrieval.Answer) error {
	*g.seen = append(*g.seen, g.name+"@"+r.Branch)
	for i := range ans.Snippets {
		ans.Snippets[i].Stale += g.name
	}
	ans.Warnings = append(ans.Warnings, g.name)
	return g.err
}

// mainBranch resolves every scope to one branch.
type mainBranch string

func (b mainBranch) MainBranch([]string) string { return string(b) }

// TestAskRunsGuardsInOrder checks the answer pipeline: a request without a
// branch is asked about the resolved main branch, every guard runs in
// order on covered and no-coverage answers alike, and a guard's error
// neither stops the answer nor the guards after it.
func TestAskRunsGuardsInOrder(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	var seen []string
	asker := &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 30,
		Thresholds: retrieval.DefaultThresholds(), Branches: mainBranch("main"),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Guards: []retrieval.Guard{
			recordGuard{name: "a", seen: &seen, err: errors.New("repository unreadable")},
			recordGuard{name: "b", seen: &seen},
		}}
	ans, err := asker.Ask(ctx, retrieval.Request{Question: "Backoff.Next", Sources: []string{"repo:shop"}})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Coverage != retrieval.Covered || len(ans.Snippets) == 0 {
		t.Fatalf("answer %s with %d snippets, want covered", ans.Coverage, len(ans.Snippets))
	}
	if got := ans.Snippets[0].Stale; got != "ab" {
		t.Errorf("snippet marked %q, want %q (guard a, then b)", got, "ab")
	}
	// An explicit branch is kept; a no-coverage answer passes the guards too.
	ans, err = asker.Ask(ctx, retrieval.Request{Question: "where do we rotate the TLS certificates of the database?", Branch: "release-1.2"})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Coverage != retrieval.NoCoverage {
		t.Errorf("coverage %s, want no coverage", ans.Coverage)
	}
	if diff := cmp.Diff([]string{"a", "b"}, ans.Warnings); diff != "" {
		t.Errorf("warnings of the no-coverage answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a@main", "b@main", "a@release-1.2", "b@release-1.2"}, seen); diff != "" {
		t.Errorf("guard calls (-want +got):\n%s", diff)
	}
}

// TestEnglishStopwordsArePreset checks retrieval's copy of Weaviate's "en"
// stopword preset, which the Chunk collection is created with, against the
// preset in Weaviate's own package.
func TestEnglishStopwordsArePreset(t *testing.T) {
	want := map[string]bool{}
	for _, w := range stopwords.Presets[stopwords.EnglishPreset] {
		want[w] = true
	}
	if diff := cmp.Diff(want, retrieval.EnglishStopwords); diff != "" {
		t.Errorf("retrieval.EnglishStopwords differs from Weaviate's %q preset (-want +got):\n%s", stopwords.EnglishPreset, diff)
	}
}
