package retrieval

import (
	"context"
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

// docFreqCounter is a Searcher whose DocFreq counts its calls and every
// term as held by one chunk of 10; vocabOf gives one vocabulary.
type docFreqCounter struct {
	Searcher
	calls int
}

func (d *docFreqCounter) DocFreq(_ context.Context, _ Query, terms [][]string) ([]int, int, error) {
	d.calls++
	df := make([]int, len(terms))
	for i := range df {
		df[i] = 1
	}
	return df, 10, nil
}

type vocabOf struct{ v *SourceVocabulary }

func (s vocabOf) Vocabulary(context.Context, Query) (Vocabulary, bool, error) {
	return Vocabulary{s.v}, s.v != nil, nil
}

// TestDocFreqFallsBack: the term weights come from the vocabularies, but
// from the store when a term is a numeric literal (which vocabularies do
// not count) or no vocabulary is current; a short number, whose other
// forms ("8080s") are numeric literals, is counted from the vocabularies.
func TestDocFreqFallsBack(t *testing.T) {
	v := &SourceVocabulary{Source: "repo:shop", Chunks: 4, Terms: map[string]int{"port": 2, "8080": 1}}
	for _, tt := range []struct {
		name      string
		v         *SourceVocabulary
		terms     []string
		wantStore bool
		wantDF    []int
	}{
		{"vocabulary", v, []string{"port", "8080"}, false, []int{2, 1}},
		{"numeric literal", v, []string{"port", "0x3ce0"}, true, []int{1, 1}},
		{"no current vocabulary", nil, []string{"port"}, true, []int{1}},
	} {
		store := &docFreqCounter{}
		a := &Asker{Store: store, Vocabularies: vocabOf{tt.v}}
		var forms [][]string
		for _, term := range tt.terms {
			forms = append(forms, inflections(term))
		}
		df, _, err := a.docFreq(context.Background(), Query{}, forms)
		if err != nil {
			t.Fatal(err)
		}
		if (store.calls > 0) != tt.wantStore || !slices.Equal(df, tt.wantDF) {
			t.Errorf("%s: docFreq = %v with %d store calls; want %v, store asked %v", tt.name, df, store.calls, tt.wantDF, tt.wantStore)
		}
	}
}
