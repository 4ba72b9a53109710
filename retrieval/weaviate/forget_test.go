package weaviate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// forgetN is how many chunks TestForgetSourceDeletesEveryRound stores: over
// QUERY_MAXIMUM_RESULTS when the test Weaviate runs with
// QUERY_MAXIMUM_RESULTS=100, which makes ForgetSource and DeleteChunks
// repeat their batch deletes; with the default 10,000 one round suffices.
const forgetN = 250

// TestForgetSourceDeletesEveryRound stores forgetN chunks of one source on
// two branches and a few of another, then checks the counts (Aggregate)
// before and after: SourceCounts sees both sources and a state-only one,
// DeleteChunks deletes the ids given and reports how many, ForgetSource
// deletes every remaining chunk and state of its source and nothing else,
// and a repeat deletes 0.
func TestForgetSourceDeletesEveryRound(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	var chunks []retrieval.Chunk
	for i := range forgetN {
		c := codeChunk("repo:big", fmt.Sprintf("pkg/f%03d.go", i), fmt.Sprintf("F%d", i), fmt.Sprintf("func F%d() int { return %d }", i, i), 1, 1)
		if i%2 == 1 {
			c.Branch = "release"
		}
		chunks = append(chunks, c)
	}
	chunks = append(chunks, corpus...)
	if err := store.Upsert(ctx, chunks, embedAll(t, emb, chunks)); err != nil {
		t.Fatal(err)
	}
	for _, st := range []retrieval.SourceState{{Source: "repo:big", Branch: "main"}, {Source: "repo:big", Branch: "release"}, {Source: "docs:gone", Branch: ""}} {
		if err := store.PutState(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	counts, err := store.SourceCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts["repo:big"] != forgetN || counts["repo:shop"] != 3 || counts["repo:billing"] != 1 || len(counts) != 4 {
		t.Fatalf("SourceCounts = %v, want repo:big %d, repo:shop 3, repo:billing 1, docs:gone 0", counts, forgetN)
	}

	refs, err := store.ChunkRefs(ctx, func(r weaviate.ChunkRef) bool { return r.Source == "repo:big" && r.Branch == "release" })
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	if n, err := store.DeleteChunks(ctx, ids); err != nil || n != forgetN/2 || len(refs) != forgetN/2 {
		t.Fatalf("DeleteChunks of %d release chunks = %d, %v; want %d", len(refs), n, err, forgetN/2)
	}
	if n, err := store.DeleteChunks(ctx, ids); err != nil || n != 0 {
		t.Errorf("DeleteChunks again = %d, %v; want 0", n, err)
	}
	if n, err := store.Count(ctx, "repo:big"); err != nil || n != forgetN-forgetN/2 {
		t.Errorf("after DeleteChunks: %d chunks of repo:big, %v; want %d", n, err, forgetN-forgetN/2)
	}

	if n, err := store.ForgetSource(ctx, "repo:big"); err != nil || n != forgetN-forgetN/2 {
		t.Fatalf("ForgetSource = %d, %v; want %d", n, err, forgetN-forgetN/2)
	}
	if n, err := store.ForgetSource(ctx, "repo:big"); err != nil || n != 0 {
		t.Errorf("ForgetSource again = %d, %v; want 0", n, err)
	}
	if branches, err := store.StateBranches(ctx, "repo:big"); err != nil || len(branches) != 0 {
		t.Errorf("states of repo:big after ForgetSource: %v, %v", branches, err)
	}
	if n, err := store.Count(ctx, ""); err != nil || n != len(corpus) {
		t.Errorf("after ForgetSource: %d chunks in all, %v; want the other sources' %d", n, err, len(corpus))
	}
}
