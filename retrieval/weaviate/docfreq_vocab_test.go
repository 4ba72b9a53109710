package weaviate_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// inflected are chunks holding several word forms of one term, alone and
// together ("retry", "retries", "retried"; "shard", "shards",
// "sharding"), so that the vocabularies' per-word counts and the
// Aggregate's any-form counts differ where an estimate of their union can
// be wrong.
var inflected = []retrieval.Chunk{
	codeChunk("repo:shop", "internal/retry/policy.go", "Policy.Retries",
		"// Retries reports how many times a request is retried; a retry after the last one fails.\nfunc (p *Policy) Retries() int {\n\treturn p.max\n}", 1, 4),
	codeChunk("repo:shop", "internal/retry/jitter.go", "Jitter.Apply",
		"// Apply spreads the retries of many clients apart.\nfunc (j Jitter) Apply(d time.Duration) time.Duration {\n\treturn d + j.rand(d)\n}", 1, 4),
	codeChunk("repo:shop", "internal/store/shard.go", "Shard.Key",
		"// Key picks the shard of an order id; sharding is by hash.\nfunc (s *Shard) Key(id long) int {\n\treturn hash(id) % s.n\n}", 1, 4),
	codeChunk("repo:shop", "internal/store/rebalance.go", "Rebalance.Move",
		"// Move takes orders to the shards that own them after a resize.\nfunc Move(orders []Order) {\n\tfor _, o := range orders { o.Save() }\n}", 1, 4),
	codeChunk("repo:billing", "billing/resend.go", "Invoice.Resend",
		"// Resend sends an invoice again when the payment provider retried too late.\nfunc (i *Invoice) Resend() error {\n\treturn i.send()\n}", 1, 4, "finance"),
}

// TestCoverageDocFreqFromVocabulary: with a current vocabulary for every
// source in scope, the coverage decision counts its document frequencies
// from the vocabularies, with no Aggregate request, and decides each
// question as it does from the Aggregate's counts: the same coverage,
// absent terms and hits; once a source's vocabulary is stale (the source
// indexed again without one) the decision asks the Aggregate again.
func TestCoverageDocFreqFromVocabulary(t *testing.T) {
	ctx := context.Background()
	store, emb, requests := countingStore(t)
	if err := store.Upsert(ctx, inflected, embedAll(t, emb, inflected)); err != nil {
		t.Fatal(err)
	}
	// As `ragbot index` leaves them: each source's state, and its
	// vocabulary counted from the chunks stored and stamped with it.
	stamp := func(source string, at time.Time, vocabulary bool) {
		t.Helper()
		st := retrieval.SourceState{Source: source, Branch: "main", CommitSHA: corpus[0].CommitSHA, IndexedAt: at}
		if err := store.PutState(ctx, st); err != nil {
			t.Fatal(err)
		}
		if !vocabulary {
			return
		}
		v, ok, err := store.ScanVocabulary(ctx, source, "main")
		if err != nil || !ok {
			t.Fatalf("ScanVocabulary(%s): ok=%v err=%v", source, ok, err)
		}
		v.CommitSHA, v.IndexedAt = st.CommitSHA, st.IndexedAt
		if err := store.PutVocabulary(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	stamp("repo:shop", t0, true)
	stamp("repo:billing", t0, true)
	store.InvalidateCounts()

	asker := &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 30,
		Thresholds: retrieval.DefaultThresholds(), Vocabularies: store}
	questions := []retrieval.Request{
		{Question: "how many retries before a request fails?"},
		{Question: "where is the retry backoff computed?", Sources: []string{"repo:shop"}},
		{Question: "which shard holds an order after sharding?"},
		{Question: "how do we snooze the retried invoices?", Groups: []string{"finance"}},
		{Question: "where are cancelled orders published?"},
		{Question: "where is findByEmail"},
		{Question: "how are invoice lines summed?", Groups: []string{"finance"}},
	}
	type decision struct {
		ans  retrieval.Answer
		hits []string
	}
	ask := func(r retrieval.Request) decision {
		t.Helper()
		ans, err := asker.Ask(ctx, r)
		if err != nil {
			t.Fatalf("%q: %v", r.Question, err)
		}
		d := decision{ans: ans}
		for _, s := range ans.Snippets {
			d.hits = append(d.hits, s.Path)
		}
		return d
	}
	fromVocab := map[string]decision{}
	for _, r := range questions {
		fromVocab[r.Question] = ask(r)
	}
	if n := requests()[weaviate.RequestAggregate]; n != 0 {
		t.Errorf("with current vocabularies the questions made %d Aggregate requests, want 0", n)
	}

	// repo:shop indexed again (a later run) without a vocabulary: its
	// stored one is stale, and the decision counts in Weaviate.
	stamp("repo:shop", t0.Add(time.Minute), false)
	store.InvalidateCounts()
	for _, r := range questions {
		requests()
		got := ask(r)
		if n := requests()[weaviate.RequestAggregate]; n != 1 {
			t.Errorf("%q with a stale vocabulary: %d Aggregate requests, want 1", r.Question, n)
		}
		want := fromVocab[r.Question]
		if got.ans.Coverage != want.ans.Coverage {
			t.Errorf("%q: %s from the Aggregate, %s from the vocabularies", r.Question, got.ans.Coverage, want.ans.Coverage)
		}
		ge, we := got.ans.Evidence, want.ans.Evidence
		if !slices.Equal(ge.Absent, we.Absent) || !slices.Equal(got.hits, want.hits) {
			t.Errorf("%q: absent %v, hits %v from the Aggregate; %v, %v from the vocabularies", r.Question, ge.Absent, got.hits, we.Absent, want.hits)
		}
		if d := math.Abs(ge.TermCoverage - we.TermCoverage); d > 0.1 || math.Abs(ge.AbsentShare-we.AbsentShare) > 0.1 {
			t.Errorf("%q: term coverage %.3f, absent share %.3f from the Aggregate; %.3f, %.3f from the vocabularies",
				r.Question, ge.TermCoverage, ge.AbsentShare, we.TermCoverage, we.AbsentShare)
		}
		t.Logf("%q: %s, term coverage %.4f (Aggregate) %.4f (vocabularies), absent %v", r.Question, got.ans.Coverage, ge.TermCoverage, we.TermCoverage, ge.Absent)
	}

	// repo:shop current again, repo:billing's vocabulary deleted: a
	// question in repo:shop alone reads the vocabularies, one that may
	// see repo:billing counts in Weaviate.
	stamp("repo:shop", t0.Add(2*time.Minute), true)
	if err := store.DeleteVocabulary(ctx, "repo:billing", "main"); err != nil {
		t.Fatal(err)
	}
	store.InvalidateCounts()
	for _, tt := range []struct {
		r    retrieval.Request
		want int
	}{
		{retrieval.Request{Question: "where are the shards rebalanced?", Sources: []string{"repo:shop"}}, 0},
		{retrieval.Request{Question: "where are the shards rebalanced?", Groups: []string{"finance"}}, 1},
	} {
		requests()
		ask(tt.r)
		if n := requests()[weaviate.RequestAggregate]; n != tt.want {
			t.Errorf("%q in %v with repo:billing's vocabulary deleted: %d Aggregate requests, want %d", tt.r.Question, tt.r.Sources, n, tt.want)
		}
	}
}
