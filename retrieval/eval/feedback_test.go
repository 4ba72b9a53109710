package eval_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/eval"
)

// feedbackID is FromVotes' question id: "FB-" and the first 8 hex digits
// of the SHA-256 of corpus, "|" and question.
func feedbackID(corpus, question string) string {
	sum := sha256.Sum256([]byte(corpus + "|" + question))
	return "FB-" + hex.EncodeToString(sum[:4])
}

// TestFromVotes: votes become eval questions that Load reads back: an
// answer voted up expects the citations of its top citation's source, one
// voted down expects nothing, ties and removed sources are skipped, and
// the same question answered twice is one question.
func TestFromVotes(t *testing.T) {
	sources := map[string]string{"httpx": "repo:httpx", "handbook": "docs:handbook"}
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	retry := retrieval.ShownCitation{Source: "repo:httpx", Path: "httpx/retry.go", StartLine: 10, EndLine: 14, Symbol: "RetryOn503"}
	client := retrieval.ShownCitation{Source: "repo:httpx", Path: "httpx/client.go", StartLine: 3, EndLine: 9}
	doc := retrieval.ShownCitation{Source: "docs:handbook", Path: "README.md", StartLine: 3, EndLine: 5}
	vote := func(msg, user string, v retrieval.Vote, q string, shown ...retrieval.ShownCitation) retrieval.Feedback {
		t0 = t0.Add(time.Minute)
		return retrieval.Feedback{Question: q, Shown: shown, Vote: v, User: user, Channel: "C1", MessageTS: msg, Time: t0}
	}
	votes := []retrieval.Feedback{
		vote("1.1", "U1", retrieval.VoteUp, "where is the retry?", retry, doc, client), // A: up 2, down 1
		vote("1.1", "U2", retrieval.VoteUp, "where is the retry?", retry, doc, client),
		vote("1.1", "U3", retrieval.VoteDown, "where is the retry?", retry, doc, client),
		vote("2.1", "U1", retrieval.VoteDown, "how do we page on-call?", doc),                                                            // B: down
		vote("3.1", "U1", retrieval.VoteUp, "tie", retry),                                                                                // C: tie
		vote("3.1", "U2", retrieval.VoteDown, "tie", retry),                                                                              //
		vote("4.1", "U1", retrieval.VoteUp, "where is the retry?", client),                                                               // D: same question as A
		vote("5.1", "U1", retrieval.VoteUp, "gone", retrieval.ShownCitation{Source: "repo:old", Path: "x.go", StartLine: 1, EndLine: 2}), // E: source removed
	}
	ex := eval.FromVotes(votes, sources)
	var buf bytes.Buffer
	if err := eval.Write(&buf, append(ex.Up, ex.Down...)); err != nil {
		t.Fatal(err)
	}
	qs, err := eval.Load(&buf)
	if err != nil {
		t.Fatalf("export does not load as eval questions: %v\n%s", err, buf.String())
	}
	want := []eval.Question{
		{ID: feedbackID("httpx", "where is the retry?"), Corpus: "httpx", Kind: "feedback", Question: "where is the retry?",
			// A's citations from its top citation's source (the doc is another corpus), then D's new one (already there).
			Expect: []eval.Expect{{Path: "httpx/retry.go", Symbol: "RetryOn503", StartLine: 10, EndLine: 14}, {Path: "httpx/client.go", StartLine: 3, EndLine: 9}}},
		{ID: feedbackID("handbook", "how do we page on-call?"), Corpus: "handbook", Kind: "feedback", Question: "how do we page on-call?", Expect: []eval.Expect{}},
	}
	if diff := cmp.Diff(want, qs); diff != "" {
		t.Errorf("export (-want +got):\n%s", diff)
	}
	if ex.Answers != 5 || ex.Skipped != 2 || len(ex.Up) != 1 || len(ex.Down) != 1 {
		t.Errorf("answers %d, skipped %d, up %d, down %d; want 5, 2 (tie, removed source), 1, 1", ex.Answers, ex.Skipped, len(ex.Up), len(ex.Down))
	}
	if !strings.HasPrefix(want[0].ID, "FB-") || len(want[0].ID) != 11 {
		t.Errorf("id %q, want FB- and 8 hex digits", want[0].ID)
	}
}
