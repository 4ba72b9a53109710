package teams

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
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
		{"no-coverage", b, bot.Reply{Kind: bot.Answered, Asked: "where is RedisStore.Flush?", Answer: retrieval.Answer{
			Question: "where is RedisStore.Flush?", Coverage: retrieval.NoCoverage, Missing: "RedisStore.Flush"}}},
		{"no-sources", b, bot.Reply{Kind: bot.NoSources, Asked: "where?"}},
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
