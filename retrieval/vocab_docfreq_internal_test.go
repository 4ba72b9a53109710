package retrieval

import (
	"slices"
	"testing"
)

// TestVocabularyDocFreq: the chunks holding any form of a term, from the
// per-word counts of each source: exact for one form present and for none,
// the midpoint of the largest count and the capped sum otherwise, with
// stopwords left out, summed over the sources.
func TestVocabularyDocFreq(t *testing.T) {
	shop := &SourceVocabulary{Source: "repo:shop", Chunks: 10, Terms: map[string]int{
		"retry": 4, "retries": 3, "retried": 1, "shard": 9, "shards": 8, "not": 7, "note": 2,
	}}
	docs := &SourceVocabulary{Source: "docs:handbook", Chunks: 5, Terms: map[string]int{"retry": 2, "note": 1}}
	terms := [][]string{
		inflections("retries"), // retry 4, retries 3, retried 1: max 4, sum 8: 6
		inflections("shard"),   // 9 and 8, sum capped at 10: (9+10+1)/2 = 10
		inflections("notes"),   // note 2; "not" is a stopword: 2
		inflections("snooze"),  // none: 0
	}
	if !slices.Contains(terms[2], "not") {
		t.Fatalf("inflections(notes) = %v, want \"not\" among them for this test", terms[2])
	}
	df, total := Vocabulary{shop}.DocFreq(terms)
	if want := []int{6, 10, 2, 0}; !slices.Equal(df, want) || total != 10 {
		t.Errorf("DocFreq(shop) = %v, %d; want %v, 10", df, total, want)
	}
	// docs holds one form of each: exact, added to shop's.
	df, total = Vocabulary{shop, docs}.DocFreq(terms)
	if want := []int{8, 10, 3, 0}; !slices.Equal(df, want) || total != 15 {
		t.Errorf("DocFreq(shop, docs) = %v, %d; want %v, 15", df, total, want)
	}
}
