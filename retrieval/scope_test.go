package retrieval_test

import (
	"context"
	"slices"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
)

// sourcesSeen is a Searcher that records the source filter of each query.
type sourcesSeen struct{ got [][]string }

func (s *sourcesSeen) Search(_ context.Context, q retrieval.Query) ([]retrieval.Hit, error) {
	s.got = append(s.got, q.Sources)
	return nil, nil
}

func (s *sourcesSeen) Vectors(context.Context, []string) (map[string][]float32, error) {
	return nil, nil
}

func (s *sourcesSeen) DocFreq(_ context.Context, q retrieval.Query, _ [][]string) ([]int, int, error) {
	s.got = append(s.got, q.Sources)
	return nil, 0, nil
}

// TestOnlySources: a query without sources gets the configured ones, in
// Search and DocFreq alike; a query naming sources keeps them.
func TestOnlySources(t *testing.T) {
	ctx := context.Background()
	inner := &sourcesSeen{}
	s := retrieval.OnlySources(inner, []string{"repo:a", "docs:b"})
	_, _ = s.Search(ctx, retrieval.Query{Text: "x"})
	_, _, _ = s.DocFreq(ctx, retrieval.Query{}, nil)
	_, _ = s.Search(ctx, retrieval.Query{Text: "x", Sources: []string{"docs:gone"}})
	want := [][]string{{"repo:a", "docs:b"}, {"repo:a", "docs:b"}, {"docs:gone"}}
	if !slices.EqualFunc(inner.got, want, slices.Equal) {
		t.Errorf("source filters %q, want %q", inner.got, want)
	}
	// The vocabularies of the absence check alike.
	inner.got = nil
	v := retrieval.OnlySourcesVocabulary(inner, []string{"repo:a", "docs:b"})
	_, _, _ = v.Vocabulary(ctx, retrieval.Query{})
	_, _, _ = v.Vocabulary(ctx, retrieval.Query{Sources: []string{"docs:gone"}})
	if want := [][]string{{"repo:a", "docs:b"}, {"docs:gone"}}; !slices.EqualFunc(inner.got, want, slices.Equal) {
		t.Errorf("vocabulary source filters %q, want %q", inner.got, want)
	}
}

func (s *sourcesSeen) Vocabulary(_ context.Context, q retrieval.Query) (retrieval.Vocabulary, bool, error) {
	s.got = append(s.got, q.Sources)
	return nil, false, nil
}
