package terminal_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot/terminal"
	"github.com/ragbot/ragbot/retrieval"
)

// updateAsk rewrites the repository's testdata/ask/*.txt (go test
// ./bot/terminal -run RenderGolden -update-ask).
var updateAsk = flag.Bool("update-ask", false, "rewrite testdata/ask/*.txt")

// TestRenderGolden prints answers as `ragbot ask` does and compares
// them with testdata/ask/<name>.txt: a focused snippet (a 120-line function
// whose match is at line 90) and a section of a markdown folder source in
// a git work tree, named by its source.
func TestRenderGolden(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	const sha = "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"
	lines := []string{"func Reconcile(ctx context.Context, state *State) error {"}
	for l := 2; l < 120; l++ {
		if l == 90 {
			lines = append(lines, "\treturn fmt.Errorf(\"lease expired for %s\", id)")
			continue
		}
		lines = append(lines, "\tstep"+strconv.Itoa(l)+" := state.next(ctx)")
	}
	lines = append(lines, "}")
	long := retrieval.Chunk{Source: "repo:svc", Kind: retrieval.KindCode, Path: "svc/reconcile.go", Symbol: "Reconcile",
		Language: "go", Signature: "func Reconcile(ctx context.Context, state *State) error",
		Content: strings.Join(lines, "\n"), StartLine: 1, EndLine: 120, CommitSHA: sha, Branch: "main", Author: "Ann Lee",
		URL: "https://git.example.com/svc/blob/3f1c2d4/svc/reconcile.go#L1-L120", IndexedAt: now.Add(-40 * time.Minute)}
	const q = `where do we return "lease expired"?`
	handbook := retrieval.Snippet{Citation: retrieval.Citation{Source: "docs:handbook", Path: "docs/README.md",
		StartLine: 10, EndLine: 24, Symbol: "Handbook > Retries", CommitSHA: sha, Author: "Ann Lee",
		URL: "https://git.example.com/handbook/blob/3f1c2d4/docs/README.md#L10-L24", IndexedAt: now.Add(-3 * time.Hour)},
		Language: "markdown", Kind: retrieval.KindDoc,
		Text: "## Retries\n\nRequests that fail with 503 are retried with exponential backoff."}
	plain := handbook
	plain.Path, plain.CommitSHA, plain.Author, plain.URL = "README.md", "", "", ""
	tests := []struct {
		name string
		topK int
		ans  retrieval.Answer
	}{
		{"citations", 3, retrieval.Answer{Question: q, Coverage: retrieval.Covered,
			Snippets: []retrieval.Snippet{retrieval.FocusSnippet(long, retrieval.NewFocusTerms(q)), handbook, plain}}},
		{"fewer-than-top-k", 5, retrieval.Answer{Question: q, Coverage: retrieval.Covered,
			Snippets: []retrieval.Snippet{handbook, plain}}},
		{"not-sure", 5, retrieval.Answer{Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure,
			Snippets: []retrieval.Snippet{retrieval.FocusSnippet(long, retrieval.NewFocusTerms(q)), handbook}}},
	}
	// A "not sure" answer holds retrieval.NotSureListed matches: the first
	// retrieval.NotSureMatches with code, the rest by their header lines.
	list := retrieval.Answer{Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure}
	for i := range retrieval.NotSureListed {
		s := handbook
		s.Path, s.Symbol, s.URL = fmt.Sprintf("docs/retry%d.md", i), fmt.Sprintf("Handbook > Retries %d", i), ""
		list.Snippets = append(list.Snippets, s)
	}
	tests = append(tests, struct {
		name string
		topK int
		ans  retrieval.Answer
	}{"not-sure-list", 5, list})
	// A name the sources lack, and the closest matches for the rest of the
	// question; a typo read as the term the sources hold.
	missing := retrieval.Answer{Question: "where do we send alerts to rabbitmq?", Coverage: retrieval.NoCoverage,
		Missing: "rabbitmq", ClosestFor: "send alerts", Snippets: list.Snippets}
	typo := retrieval.Answer{Question: "where is the retyr logic", Coverage: retrieval.NotSure, DidYouMean: "retry",
		Snippets: []retrieval.Snippet{handbook, plain}}
	tests = append(tests, []struct {
		name string
		topK int
		ans  retrieval.Answer
	}{{"missing-closest", 5, missing}, {"did-you-mean", 5, typo}}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			terminal.Render(&got, tt.ans, tt.topK, now, false)
			path := filepath.Join("..", "..", "testdata", "ask", tt.name+".txt")
			if *updateAsk {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./bot/terminal -run TestRenderGolden -update-ask)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

// TestRenderNoCoverageNamesMissing: a refusal for a name no chunk
// contains says which name, instead of advising to name one.
func TestRenderNoCoverageNamesMissing(t *testing.T) {
	var out bytes.Buffer
	terminal.Render(&out, retrieval.Answer{Question: "where is KafkaConsumer.Poll?", Coverage: retrieval.NoCoverage, Missing: "KafkaConsumer.Poll"}, 5, time.Now(), false)
	if got := out.String(); !strings.Contains(got, `Nothing indexed mentions "KafkaConsumer.Poll"`) || strings.Contains(got, "Try naming") {
		t.Errorf("Render:\n%s", got)
	}
}

// TestRenderNoCoverageShowsWarnings: a refusal while part of the index is
// unavailable says so, since the missing part may hold the answer.
func TestRenderNoCoverageShowsWarnings(t *testing.T) {
	var out bytes.Buffer
	warn := "Part of the index is unavailable (1 of 3 Weaviate nodes down); results may be incomplete."
	terminal.Render(&out, retrieval.Answer{Question: "where is UploadInvoice?", Coverage: retrieval.NoCoverage, Missing: "UploadInvoice",
		Warnings: []string{warn}}, 5, time.Now(), false)
	if got := out.String(); !strings.HasPrefix(got, "warning: "+warn+"\n") || !strings.Contains(got, "No coverage") {
		t.Errorf("Render:\n%s", got)
	}
}
