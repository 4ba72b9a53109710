package weaviate_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestFeedbackRoundTrip stores votes in a real Weaviate and reads them back:
// every field survives, a second vote by the same reader on the same answer
// replaces the first, and List is ordered by time.
func TestFeedbackRoundTrip(t *testing.T) {
	ctx := context.Background()
	store := weaviatetest.NewStore(t, embed.OfflineName)
	log, err := store.OpenFeedback(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Drop(context.Background()) })
	if want := store.ChunkClass() + "Feedback"; log.Class() != want {
		t.Errorf("Class() = %q, want %q", log.Class(), want)
	}
	shown := []retrieval.ShownCitation{
		{Source: "repo:httpx", Path: "httpx/retry.go", StartLine: 10, EndLine: 14, CommitSHA: strings.Repeat("ab", 20), Symbol: "RetryOn503"},
		{Source: "docs:handbook", Path: "README.md", StartLine: 3, EndLine: 5},
	}
	first := retrieval.Feedback{Question: "where is the retry for 503?", Shown: shown, Vote: retrieval.VoteDown,
		User: "U1", Channel: "C1", MessageTS: "1712345680.000200", Time: t0}
	changed := first
	changed.Vote, changed.Time = retrieval.VoteUp, t0.Add(time.Minute)
	other := retrieval.Feedback{Question: "Store.Upsert", Vote: retrieval.VoteUp,
		User: "U2", Channel: "C1", MessageTS: "1712345690.000100", Time: t0.Add(30 * time.Second)}
	for _, f := range []retrieval.Feedback{first, other, changed} {
		if err := log.Put(ctx, f); err != nil {
			t.Fatalf("Put: %v", err)
		}
	}
	got, err := log.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []retrieval.Feedback{other, changed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	if s := shown[0].String(); s != "httpx/retry.go:10-14@abababa" {
		t.Errorf("ShownCitation.String() = %q", s)
	}
}

func TestFeedbackValidate(t *testing.T) {
	err := retrieval.Feedback{Vote: "meh", Channel: "C1", MessageTS: "1.2", User: "U1"}.Validate()
	want := `feedback on C1/1.2 by U1: vote: got "meh", want up or down
question: must not be empty
time: must be set`
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want:\n%s", err, want)
	}
}
