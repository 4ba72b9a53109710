package weaviate_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// TestStatesOneRequest: States reads the states of every branch of the
// sources asked, as State reads each, in one request, and none of the
// other sources.
func TestStatesOneRequest(t *testing.T) {
	ctx := context.Background()
	store, _, requests := countingStore(t)
	put := []retrieval.SourceState{
		{Source: "repo:shop", Branch: "main", CommitSHA: strings.Repeat("a", 40), Embedder: "offline", Settings: "s1", IndexedAt: t0, Files: 3, Chunks: 9},
		{Source: "repo:shop", Branch: "release", CommitSHA: strings.Repeat("b", 40), IndexedAt: t0.Add(1500), LastError: "run failed"},
		{Source: "repo:billing", Branch: "main", CommitSHA: strings.Repeat("c", 40), IndexedAt: t0, Files: 1, Chunks: 1},
		{Source: "repo:other", Branch: "main", CommitSHA: strings.Repeat("d", 40), IndexedAt: t0},
	}
	for _, st := range put {
		if err := store.PutState(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	var want []retrieval.SourceState
	for _, st := range put[:3] {
		one, ok, err := store.State(ctx, st.Source, st.Branch)
		if err != nil || !ok {
			t.Fatalf("State(%s@%s): ok=%v err=%v", st.Source, st.Branch, ok, err)
		}
		want = append(want, one)
	}
	requests()
	got, err := store.States(ctx, []string{"repo:shop", "repo:billing", "repo:never"})
	if err != nil {
		t.Fatal(err)
	}
	if n := requests(); n[weaviate.RequestSearch] != 1 || len(n) != 1 {
		t.Errorf("States made requests %v, want one GraphQL Get", n)
	}
	byKey := func(a, b retrieval.SourceState) int {
		return strings.Compare(a.Source+"|"+a.Branch, b.Source+"|"+b.Branch)
	}
	slices.SortFunc(got, byKey)
	slices.SortFunc(want, byKey)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("States (-State reads +got):\n%s", diff)
	}
}
