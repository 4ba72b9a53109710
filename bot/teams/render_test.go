package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestRenderGolden renders each kind of reply and compares the outgoing
// activity with testdata/<name>.golden.json (go test -run RenderGolden -update).
func TestRenderGolden(t *testing.T) {
	now := time.Date(2026, 4, 5, 19, 34, 38, 0, time.UTC)
	cite := func(path, symbol string, start, end int) retrieval.Citation {
		return retrieval.Citation{Source: "repo:payments", Path: path, StartLine: start, EndLine: end, Symbol: symbol,
			CommitSHA: "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d", Branch: "main", Author: "Ann Lee",
			URL:       "https://git.example.com/payments/blob/3f1c2d4/" + path + "#L" + strconv.Itoa(start) + "-L" + strconv.Itoa(end),
			IndexedAt: now.Add(-40 * time.Minute)}
	}
	answer := retrieval.Answer{
		Question: "where is the retry for 503 errors?",
		Coverage: retrieval.Covered,
		Warnings: []string{"payments@main is indexed at 3f1c2d4, 2 commits behind the branch head"},
		Snippets: []retrieval.Snippet{
			{Citation: cite("internal/httpx/retry.go", "RetryOn503", 10, 14), Language: "go",
				Text: "// RetryOn503 reports whether a status is worth retrying.\nfunc RetryOn503(status int) bool {\n\treturn status == 503 || status == 429\n}"},
			{Citation: cite("docs/runbooks/__init__.md", "Retries [v2]", 3, 40), Language: "markdown", MoreLines: 8,
				Text: "## Retries [v2]\nSee **retry.go** and [the runbook](https://evil.example).", Stale: "the file changed after 3f1c2d4"},
		},
	}
	// citations: a focused 120-line function (match at line 90) and a
	// section of a markdown folder source inside a git work tree.
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
		Content: strings.Join(lines, "\n"), StartLine: 1, EndLine: 120, CommitSHA: "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
		Branch: "main", Author: "Ann Lee", URL: "https://git.example.com/svc/blob/3f1c2d4/svc/reconcile.go#L1-L120",
		IndexedAt: now.Add(-40 * time.Minute)}
	handbook := retrieval.Snippet{Citation: retrieval.Citation{Source: "docs:handbook", Path: "docs/README.md",
		StartLine: 10, EndLine: 24, Symbol: "Handbook > Retries", CommitSHA: "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
		Author: "Ann Lee", URL: "https://git.example.com/handbook/blob/3f1c2d4/docs/README.md#L10-L24", IndexedAt: now.Add(-3 * time.Hour)},
		Language: "markdown", Kind: retrieval.KindDoc,
		Text: "## Retries\n\nRequests that fail with 503 are retried with exponential backoff."}
	citations := retrieval.Answer{Question: `where do we return "lease expired"?`, Coverage: retrieval.Covered,
		Snippets: []retrieval.Snippet{retrieval.FocusSnippet(long, retrieval.NewFocusTerms(`where do we return "lease expired"?`)), handbook}}
	// top-k: seven snippets, two beyond those shown with code.
	topK := retrieval.Answer{Question: "where is the retry for 503 errors?", Coverage: retrieval.Covered}
	for i := range 7 {
		topK.Snippets = append(topK.Snippets, retrieval.Snippet{Citation: cite("internal/httpx/retry"+strconv.Itoa(i)+".go",
			"RetryOn503V"+strconv.Itoa(i), 10, 12), Language: "go", Text: "func RetryOn503V" + strconv.Itoa(i) + "() {\n}"})
	}
	// A "not sure" answer holds retrieval.NotSureListed matches: the first
	// retrieval.NotSureMatches with code, the rest listed.
	notSureList := retrieval.Answer{Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure}
	for i := range retrieval.NotSureListed {
		notSureList.Snippets = append(notSureList.Snippets, retrieval.Snippet{Citation: cite("internal/httpx/retry"+strconv.Itoa(i)+".go",
			"RetryOn503V"+strconv.Itoa(i), 10, 12), Language: "go", Kind: retrieval.KindCode, Text: "func RetryOn503V" + strconv.Itoa(i) + "() {\n}"})
	}
	b := &Bot{cfg: Config{Now: func() time.Time { return now }}}
	withVotes := &Bot{cfg: Config{Now: func() time.Time { return now }, Feedback: feedbackStub{}}}
	to := bot.Thread{Channel: "19:pay@thread.tacv2", TS: "1712345678901"}
	tests := []struct {
		name string
		b    *Bot
		r    bot.Reply
	}{
		{"searching", b, bot.Reply{Kind: bot.Searching, Asked: "where is the retry for 503 errors?"}},
		{"answer", withVotes, bot.Reply{Kind: bot.Answered, Asked: "where is the retry for 503 errors?", Answer: answer}},
		{"citations", b, bot.Reply{Kind: bot.Answered, Asked: citations.Question, Answer: citations}},
		{"no-coverage", b, bot.Reply{Kind: bot.Answered, Asked: "where is RedisStore.Flush?", Answer: retrieval.Answer{
			Question: "where is RedisStore.Flush?", Coverage: retrieval.NoCoverage, Missing: "RedisStore.Flush"}}},
		{"top-k", b, bot.Reply{Kind: bot.Answered, Asked: topK.Question, Answer: topK}},
		{"not-sure", withVotes, bot.Reply{Kind: bot.Answered, Asked: "where does it give up on a flaky server?", Answer: retrieval.Answer{
			Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure, Snippets: answer.Snippets}}},
		{"not-sure-list", b, bot.Reply{Kind: bot.Answered, Asked: "where does it give up on a flaky server?", Answer: notSureList}},
		{"no-sources", b, bot.Reply{Kind: bot.NoSources, Asked: "where?"}},
		// A name the sources lack, then the closest matches for the rest of
		// the question; and the question about it alone.
		{"missing-closest", withVotes, bot.Reply{Kind: bot.Answered, Asked: "where do we send alerts to rabbitmq?", Answer: retrieval.Answer{
			Question: "where do we send alerts to rabbitmq?", Coverage: retrieval.NoCoverage, Missing: "rabbitmq", ClosestFor: "send alerts",
			Snippets: notSureList.Snippets}}},
		{"missing", b, bot.Reply{Kind: bot.Answered, Asked: "what is rabbitmq?", Answer: retrieval.Answer{
			Question: "what is rabbitmq?", Coverage: retrieval.NoCoverage, Missing: "rabbitmq"}}},
		{"did-you-mean", b, bot.Reply{Kind: bot.Answered, Asked: "where is the retyr logic", Answer: retrieval.Answer{
			Question: "where is the retyr logic", Coverage: retrieval.NotSure, DidYouMean: "retry", Snippets: answer.Snippets}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.b.render(to, tt.r)
			var got bytes.Buffer
			if err := json.Indent(&got, marshal(a), "", "  "); err != nil {
				t.Fatal(err)
			}
			got.WriteByte('\n')
			path := filepath.Join("testdata", tt.name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

type feedbackStub struct{}

func (feedbackStub) Put(context.Context, retrieval.Feedback) error { return nil }

// TestBusyRendered: a question refused by admission control reads as busy,
// with the number ahead, as plain text.
func TestBusyRendered(t *testing.T) {
	b := &Bot{cfg: Config{Now: time.Now}}
	a := b.render(bot.Thread{Channel: "19:c"}, bot.Reply{Kind: bot.Busy, Asked: "where is X?", Ahead: 1})
	if want := "⏳ I'm busy: 1 question ahead of yours. Try again in a minute."; a.Text != want || a.TextFormat != "plain" || len(a.Attachments) != 0 {
		t.Errorf("render(Busy) = %+v; want plain text %q", a, want)
	}
}
