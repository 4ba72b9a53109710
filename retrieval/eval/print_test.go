package eval_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/eval"
)

// TestPrint: the text report has the metrics table, the suggested band as
// a config snippet to paste, the "not sure" counts, the latency with the
// Weaviate requests by kind, and the misses.
func TestPrint(t *testing.T) {
	q := func(id string, expect ...eval.Expect) eval.Question {
		return eval.Question{ID: id, Corpus: "c", Kind: "identifier", Question: "where is " + id + "?", Expect: expect}
	}
	hit := eval.Result{Path: "a.go", StartLine: 1, EndLine: 9, Kind: "code"}
	out := eval.Output{Mode: "hybrid+rerank", Embedder: "offline-hash-v1-384", Family: "offline-hash-v1-384",
		Report: eval.Score([]eval.Outcome{
			{Question: q("Q1", eval.Expect{Path: "a.go", StartLine: 2, EndLine: 3}), Results: []eval.Result{hit}},
			{Question: q("Q2", eval.Expect{Path: "b.go", StartLine: 2, EndLine: 3}), Results: []eval.Result{hit}, NotSure: true},
			{Question: q("Q3"), Results: []eval.Result{hit}},
		}),
		Calibration: &eval.Calibration{Answerable: 2, Unanswerable: 1,
			Band: eval.Band{Configured: eval.BandCounts{MinSimilarity: 0.5, MinTermCoverage: 0.4, Right: 1, WrongUnanswerable: 1},
				Suggested: eval.BandCounts{MinSimilarity: 0.6, MinTermCoverage: 0.4, Right: 1}}},
		NotSure: &eval.NotSureFound{Answerable: 1},
		Latency: &eval.Latency{Calls: 3, P50: 12.5, P95: 20, Max: 21, RequestsP50: 3, RequestsMax: 4,
			RequestsByKind: map[string]int{"search": 5, "aggregate": 2},
			Absence:        &eval.AbsenceCost{Calls: 3, P50: 0.08, P95: 0.3, Max: 6.5, First: 44.2, Fallback: 1}},
	}
	var buf bytes.Buffer
	eval.Print(&buf, out)
	got := buf.String()
	for _, want := range []string{
		"kind              n   recall@1   recall@5   MRR@10\n",
		"all               2      0.500      0.500    0.500\n",
		"answer band (embedder offline-hash-v1-384; 2 answerable, 1 unanswerable questions)",
		"  configured min_similarity 0.50  min_term_coverage 0.40   :  answered right 1, answered wrong 1 (0 answerable, 1 unanswerable)\n",
		"        offline-hash-v1-384: {min_similarity: 0.60, min_term_coverage: 0.40}\n",
		"not sure: 1 answerable question answered \"not sure\"",
		"ask latency (mode hybrid+rerank, 3 calls): p50 12.5 ms  p95 20.0 ms  max 21.0 ms\n",
		"Weaviate requests per call: median 3  max 4; all calls 7 (aggregate 2, search 5)\n",
		"absence check (3 calls): p50 0.080 ms  p95 0.300 ms  max 6.500 ms; first call 44.2 ms (word lists parsed, vocabularies loaded)\n",
		"  1 of them without a vocabulary for a source in scope: checked by the search's document frequencies instead, no typo correction (run ragbot index)\n",
		"  Q2 [identifier] rank 0: where is Q2?\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
