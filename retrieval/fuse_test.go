package retrieval

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func hitIDs(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

// TestFuseRRF checks Reciprocal Rank Fusion against sums worked out by hand
// with k = 60: a chunk found by several lists beats one a single list ranks
// first, ties go to the earlier list, and the first list's copy is kept.
func TestFuseRRF(t *testing.T) {
	q := RankedList{Name: "q", Hits: []Hit{{ID: "A", Similarity: 0.9}, {ID: "B", Similarity: 0.8}, {ID: "C", Similarity: 0.7}}}
	v1 := RankedList{Name: "v1", Hits: []Hit{{ID: "C", Similarity: 0.1}, {ID: "D"}}}
	v2 := RankedList{Name: "v2", Hits: []Hit{{ID: "C"}, {ID: "B"}}}
	got := FuseRRF([]RankedList{q, v1, v2})
	// C: 1/63 + 1/61 + 1/61 = 0.04866; B: 1/62 + 1/62 = 0.03226;
	// A: 1/61 = 0.01639; D: 1/62 = 0.01613.
	if diff := cmp.Diff([]string{"C", "B", "A", "D"}, hitIDs(got)); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	want := map[string]float64{"C": 1.0/63 + 2.0/61, "B": 2.0 / 62, "A": 1.0 / 61, "D": 1.0 / 62}
	for _, h := range got {
		if math.Abs(h.Score-want[h.ID]) > 1e-12 {
			t.Errorf("%s: score %.6f, want %.6f", h.ID, h.Score, want[h.ID])
		}
	}
	if got[0].Similarity != 0.7 {
		t.Errorf("C's similarity %.1f, want the first list's 0.7", got[0].Similarity)
	}
	if !strings.HasPrefix(got[0].Debug, "rrf(0.0487 q#3 v1#1 v2#1)") {
		t.Errorf("C's debug %q, want the ranks per list", got[0].Debug)
	}
	// A tie (each first in one list) goes to the earlier list.
	tie := FuseRRF([]RankedList{{Name: "v1", Hits: []Hit{{ID: "Y"}}}, {Name: "q", Hits: []Hit{{ID: "X"}}}})
	if diff := cmp.Diff([]string{"Y", "X"}, hitIDs(tie)); diff != "" {
		t.Errorf("tie order (-want +got):\n%s", diff)
	}
	// Hits without an id are never merged.
	if n := len(FuseRRF([]RankedList{{Name: "q", Hits: []Hit{{}, {}}}})); n != 2 {
		t.Errorf("two id-less hits fused to %d", n)
	}
}

func TestRewriteQueries(t *testing.T) {
	rw := Rewrite{
		Variants: []string{"  where is   Backoff.Next? ", "WHERE IS THE RETRY?", "where is backoff.next?", "", "?!", "a", "b", "c", "d", "e"},
		HyDE:     "func (b *Backoff) Next() {}",
	}
	got := rewriteQueries("where is the retry?", rw)
	var names, texts []string
	for _, q := range got {
		names, texts = append(names, q.name), append(texts, q.text)
	}
	// The question itself, repeats (case-folded), empty and term-less
	// variants are dropped; at most maxRewriteVariants; the snippet last.
	if diff := cmp.Diff([]string{"v1", "v2", "v3", "v4", "v5", "hyde"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"where is Backoff.Next?", "a", "b", "c", "d", rw.HyDE}, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	if got := rewriteQueries("q", Rewrite{HyDE: strings.Repeat("x ", maxHyDEBytes)}); len(got) != 0 {
		t.Errorf("an oversized snippet was kept: %d queries", len(got))
	}
}
