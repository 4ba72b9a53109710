package weaviate_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestVocabularyRoundTrip: a vocabulary is read back whole, is current
// only for the state it was stamped with, and goes with its source.
func TestVocabularyRoundTrip(t *testing.T) {
	ctx := context.Background()
	store := weaviatetest.NewStore(t, "offline-test")
	st := retrieval.SourceState{Source: "repo:shop", Branch: "main", CommitSHA: strings.Repeat("b", 40), IndexedAt: t0.Add(123456789)}
	if ok, err := store.HasVocabulary(ctx, st); err != nil || ok {
		t.Fatalf("HasVocabulary before any: ok=%v err=%v", ok, err)
	}
	v := retrieval.NewSourceVocabulary("repo:shop", "main", []string{"finance"})
	v.Count("retry backoff next retry", 1)
	v.Count("cancel order", 1)
	v.CommitSHA, v.IndexedAt = st.CommitSHA, st.IndexedAt
	if err := store.PutVocabulary(ctx, v); err != nil {
		t.Fatal(err)
	}
	if err := store.PutState(ctx, st); err != nil {
		t.Fatal(err)
	}
	got, ok, err := store.ReadVocabulary(ctx, "repo:shop", "main")
	if err != nil || !ok {
		t.Fatalf("ReadVocabulary: ok=%v err=%v", ok, err)
	}
	if diff := cmp.Diff(v.Terms, got.Terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if got.Chunks != 2 || !cmp.Equal(got.ACL, []string{"finance"}) {
		t.Errorf("read back %d chunks, ACL %v; want 2, [finance]", got.Chunks, got.ACL)
	}
	stored, _, err := store.State(ctx, "repo:shop", "main")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Current(stored) {
		t.Errorf("vocabulary stamped %s %s is not current for the state read back (%s %s)", got.CommitSHA, got.IndexedAt, stored.CommitSHA, stored.IndexedAt)
	}
	if ok, err := store.HasVocabulary(ctx, stored); err != nil || !ok {
		t.Errorf("HasVocabulary for its state: ok=%v err=%v", ok, err)
	}
	later := stored
	later.IndexedAt = later.IndexedAt.Add(time.Second)
	if ok, err := store.HasVocabulary(ctx, later); err != nil || ok {
		t.Errorf("HasVocabulary for a later run: ok=%v err=%v, want false", ok, err)
	}
	if _, err := store.ForgetSource(ctx, "repo:shop"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := store.ReadVocabulary(ctx, "repo:shop", "main"); err != nil || ok {
		t.Errorf("ReadVocabulary after ForgetSource: ok=%v err=%v", ok, err)
	}
}

// TestVocabularyScope: Store.Vocabulary gives the current vocabularies of
// the sources, branch and ACL groups of a query, and ok false when one in
// scope has none current.
func TestVocabularyScope(t *testing.T) {
	ctx := context.Background()
	store := weaviatetest.NewStore(t, "offline-test")
	put := func(source, branch string, acl []string, text string, current bool) {
		t.Helper()
		st := retrieval.SourceState{Source: source, Branch: branch, CommitSHA: "c1", IndexedAt: t0}
		if err := store.PutState(ctx, st); err != nil {
			t.Fatal(err)
		}
		v := retrieval.NewSourceVocabulary(source, branch, acl)
		v.Count(text, 1)
		v.CommitSHA, v.IndexedAt = st.CommitSHA, st.IndexedAt
		if !current {
			v.CommitSHA = "c0"
		}
		if err := store.PutVocabulary(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	put("repo:shop", "main", nil, "retry order", true)
	put("repo:shop", "release", nil, "retry legacy", true)
	put("docs:handbook", "", nil, "runbook", true)
	put("repo:billing", "main", []string{"finance"}, "invoice", true)
	put("repo:old", "main", nil, "ancient", false)
	store.InvalidateCounts()
	terms := func(v retrieval.Vocabulary) []string {
		var out []string
		for _, s := range v {
			for t := range s.Terms {
				out = append(out, t)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		q      retrieval.Query
		want   []string
		wantOK bool
	}{
		{"one source, main branch and branchless", retrieval.Query{Sources: []string{"repo:shop", "docs:handbook"}, Branch: "main"}, []string{"order", "retry", "runbook"}, true},
		{"any branch", retrieval.Query{Sources: []string{"repo:shop"}}, []string{"legacy", "order", "retry", "retry"}, true},
		{"an ACL the asker lacks", retrieval.Query{Sources: []string{"repo:billing", "docs:handbook"}}, []string{"runbook"}, true},
		{"an ACL the asker has", retrieval.Query{Sources: []string{"repo:billing"}, Groups: []string{"finance"}}, []string{"invoice"}, true},
		{"a source without a current vocabulary", retrieval.Query{Sources: []string{"repo:shop", "repo:old"}}, nil, false},
		{"all sources include the old one", retrieval.Query{}, nil, false},
		{"nothing in scope", retrieval.Query{Sources: []string{"repo:none"}}, nil, false},
	}
	for _, tt := range tests {
		v, ok, err := store.Vocabulary(ctx, tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := terms(v)
		if ok != tt.wantOK || !cmp.Equal(tt.want, got, cmpSorted) {
			t.Errorf("%s: Vocabulary = %v, ok %v; want %v, ok %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
	// A new run of repo:old stamps a current vocabulary: seen after
	// InvalidateCounts (this process indexed), not before.
	put("repo:old", "main", nil, "ancient modern", true)
	if _, ok, _ := store.Vocabulary(ctx, retrieval.Query{Sources: []string{"repo:old"}}); !ok {
		t.Error("PutVocabulary did not drop the stamps it made stale")
	}
}

var cmpSorted = cmp.Transformer("sort", func(in []string) []string { return slices.Sorted(slices.Values(in)) })

// TestScanVocabulary counts the vocabulary of the chunks as stored.
func TestScanVocabulary(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	v, ok, err := store.ScanVocabulary(ctx, "repo:shop", "main")
	if err != nil || !ok {
		t.Fatalf("ScanVocabulary: ok=%v err=%v", ok, err)
	}
	want := retrieval.NewSourceVocabulary("repo:shop", "main", nil)
	for _, c := range corpus[:3] {
		want.Count(c.SearchText, 1)
	}
	if diff := cmp.Diff(want.Terms, v.Terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	if v.Chunks != 3 || len(v.ACL) != 0 {
		t.Errorf("%d chunks, ACL %v; want 3 and none", v.Chunks, v.ACL)
	}
	fin, ok, err := store.ScanVocabulary(ctx, "repo:billing", "main")
	if err != nil || !ok || !cmp.Equal(fin.ACL, []string{"finance"}) {
		t.Errorf("billing: ACL %v ok=%v err=%v; want [finance]", fin.ACL, ok, err)
	}
}
