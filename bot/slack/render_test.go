package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/slack")

// goldenDir holds the rendered Block Kit of a few answers, reviewed by hand.
const goldenDir = "../../testdata/slack"

var now = time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)

const sha = "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"

// renderBot is a Bot with only what rendering reads.
func renderBot() *Bot {
	return &Bot{cfg: Config{Command: "/where-is", Feedback: nopSink{}, Now: func() time.Time { return now }}}
}

// retrySnippets is n copies of retrySnippet in files httpx/retry0.go... with
// symbols RetryOn503V0...
func retrySnippets(n int) []retrieval.Snippet {
	var snips []retrieval.Snippet
	for i := range n {
		s := retrySnippet()
		s.Path, s.Symbol = fmt.Sprintf("httpx/retry%d.go", i), fmt.Sprintf("RetryOn503V%d", i)
		s.URL = "https://git.example.com/httpx/blob/" + sha + "/" + s.Path + "#L10-L14"
		snips = append(snips, s)
	}
	return snips
}

func retrySnippet() retrieval.Snippet {
	return retrieval.Snippet{
		Citation: retrieval.Citation{Source: "repo:httpx", Path: "httpx/retry.go", StartLine: 10, EndLine: 14, Symbol: "RetryOn503",
			CommitSHA: sha, Branch: "main", URL: "https://git.example.com/httpx/blob/" + sha + "/httpx/retry.go#L10-L14",
			Author: "Ann Lee", IndexedAt: now.Add(-40 * time.Minute)},
		Language: "go", Kind: retrieval.KindCode,
		Text: "// RetryOn503 reports whether a response status is worth retrying: 503\n// Service Unavailable and 429 Too Many Requests are, anything else is not.\nfunc RetryOn503(status int) bool {\n\treturn status == 503 || status == 429\n}",
	}
}

func docSnippet() retrieval.Snippet {
	return retrieval.Snippet{
		Citation: retrieval.Citation{Source: "docs:handbook", Path: "README.md", StartLine: 3, EndLine: 5, Symbol: "httpx > Retries",
			IndexedAt: now.Add(-3 * time.Hour)},
		Language: "markdown", Kind: retrieval.KindDoc,
		Text:  "## Retries\n\nRequests that fail with 503 are retried with exponential backoff.",
		Stale: "the page changed after it was indexed",
	}
}

// handbookSnippet is a section of a markdown folder source inside a git
// work tree: named by its source, with the commit, author and link that
// ingest finds for it.
func handbookSnippet() retrieval.Snippet {
	return retrieval.Snippet{
		Citation: retrieval.Citation{Source: "docs:handbook", Path: "docs/README.md", StartLine: 10, EndLine: 24,
			Symbol: "Handbook > Retries", CommitSHA: sha, Author: "Ann Lee",
			URL:       "https://git.example.com/handbook/blob/" + sha + "/docs/README.md#L10-L24",
			IndexedAt: now.Add(-3 * time.Hour)},
		Language: "markdown", Kind: retrieval.KindDoc,
		Text: "## Retries\n\nRequests that fail with 503 are retried with exponential backoff.",
	}
}

// focusedSnippet is a 120-line function whose match is at line 90, as
// retrieval.FocusSnippet shows it: the signature, a gap, lines 76-104.
func focusedSnippet() retrieval.Snippet {
	lines := []string{"func Reconcile(ctx context.Context, state *State) error {"}
	for l := 2; l < 120; l++ {
		if l == 90 {
			lines = append(lines, "\treturn fmt.Errorf(\"lease expired for %s\", id)")
			continue
		}
		lines = append(lines, fmt.Sprintf("\tstep%d := state.next(ctx)", l))
	}
	lines = append(lines, "}")
	c := retrieval.Chunk{Source: "repo:svc", Kind: retrieval.KindCode, Path: "svc/reconcile.go", Symbol: "Reconcile",
		Language: "go", Signature: "func Reconcile(ctx context.Context, state *State) error",
		Content: strings.Join(lines, "\n"), StartLine: 1, EndLine: 120, CommitSHA: sha, Branch: "main", Author: "Ann Lee",
		URL: "https://git.example.com/svc/blob/" + sha + "/svc/reconcile.go#L1-L120", IndexedAt: now.Add(-40 * time.Minute)}
	return retrieval.FocusSnippet(c, retrieval.NewFocusTerms(`where do we return "lease expired"?`))
}

func TestGoldens(t *testing.T) {
	b := renderBot()
	hostile := retrieval.Snippet{
		Citation: retrieval.Citation{Source: "repo:evil", Path: "evil/<x>.go", StartLine: 1, EndLine: 3, Symbol: "Evil`Name",
			CommitSHA: sha, URL: "https://git.example.com/evil/blob/" + sha + "/evil/%3Cx%3E.go#L1-L3",
			Author: "<@U0999> & <!subteam^S1|@admins>", IndexedAt: now.Add(-2 * time.Minute)},
		Language: "go", Kind: retrieval.KindCode,
		Text: "// <!channel> deploy now: <https://evil.example|click here>\nfunc EvilName() string { return \"```\" + \"&amp;\" }\n// end",
	}
	tests := []struct {
		name   string
		render func() ([]slackgo.Block, string)
	}{
		{"answer", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where is the retry for 503?", Answer: retrieval.Answer{
				Question: "where is the retry for 503?", Coverage: retrieval.Covered,
				Snippets: []retrieval.Snippet{retrySnippet(), docSnippet()},
				Warnings: []string{"httpx@main is indexed at 1111111 but the branch is at 2222222: snippets may be stale (run ragbot index)"},
			}})
		}},
		{"followup", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "and for 429?", Answer: retrieval.Answer{
				Question: "and for 429? retry 503", Coverage: retrieval.Covered, Snippets: []retrieval.Snippet{retrySnippet()}}})
		}},
		{"followup_rewritten", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "and for 429?", Answer: retrieval.Answer{
				Question: "where is the retry for 429 responses?", Coverage: retrieval.Covered, Snippets: []retrieval.Snippet{retrySnippet()},
				Rewrite: retrieval.Rewritten{Standalone: "where is the retry for 429 responses?"}}})
		}},
		{"escaped", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "who pings <!channel>?", Answer: retrieval.Answer{
				Question: "who pings <!channel>?", Coverage: retrieval.Covered, Snippets: []retrieval.Snippet{hostile}}})
		}},
		{"citations", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: `where do we return "lease expired"?`, Answer: retrieval.Answer{
				Question: `where do we return "lease expired"?`, Coverage: retrieval.Covered,
				Snippets: []retrieval.Snippet{focusedSnippet(), handbookSnippet()}}})
		}},
		{"top_k", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where is the retry for 503?", Answer: retrieval.Answer{
				Question: "where is the retry for 503?", Coverage: retrieval.Covered, Snippets: retrySnippets(8)}})
		}},
		{"no_coverage", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "kubernetes helm chart <ingress>", Answer: retrieval.Answer{
				Question: "kubernetes helm chart <ingress>", Coverage: retrieval.NoCoverage,
				Warnings: []string{"httpx@main has not been indexed yet (run ragbot index)"}}})
		}},
		{"not_sure", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where does it give up on a flaky server?", Answer: retrieval.Answer{
				Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure,
				Snippets: []retrieval.Snippet{retrySnippet(), docSnippet()}}})
		}},
		{"not_sure_list", func() ([]slackgo.Block, string) {
			// A "not sure" answer holds retrieval.NotSureListed matches:
			// the first retrieval.NotSureMatches with code, the rest listed.
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where does it give up on a flaky server?", Answer: retrieval.Answer{
				Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure, Snippets: retrySnippets(retrieval.NotSureListed)}})
		}},
		{"missing_closest", func() ([]slackgo.Block, string) {
			// A name the sources lack: said first, then the closest matches
			// for the rest of the question, like a "not sure" answer's.
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where do we send alerts to rabbitmq?", Answer: retrieval.Answer{
				Question: "where do we send alerts to rabbitmq?", Coverage: retrieval.NoCoverage, Missing: "rabbitmq",
				ClosestFor: "send alerts", Snippets: retrySnippets(retrieval.NotSureListed)}})
		}},
		{"missing", func() ([]slackgo.Block, string) {
			// A question about the missing name alone.
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "what is rabbitmq?", Answer: retrieval.Answer{
				Question: "what is rabbitmq?", Coverage: retrieval.NoCoverage, Missing: "rabbitmq"}})
		}},
		{"did_you_mean", func() ([]slackgo.Block, string) {
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where is the retyr logic", Answer: retrieval.Answer{
				Question: "where is the retyr logic", Coverage: retrieval.NotSure, DidYouMean: "retry",
				Snippets: []retrieval.Snippet{retrySnippet(), docSnippet()}}})
		}},
		{"redacted", func() ([]slackgo.Block, string) {
			// A chunk as ingest's redaction stores it: each secret replaced
			// by its marker within its line, a key block one marker a line.
			c := retrieval.Chunk{Source: "repo:deploy", Kind: retrieval.KindCode, Path: "deploy/credentials.go", Symbol: "NotifyOps",
				Language: "go", Signature: "func NotifyOps(note string) []string", StartLine: 10, EndLine: 15, CommitSHA: sha, Branch: "main",
				Content: "// NotifyOps posts the release note to the ops channel and tags the release.\n" +
					"func NotifyOps(note string) []string {\n\tslackToken := \"[redacted: slack-bot-token]\"\n" +
					"\tgithubToken := \"[redacted: github-pat]\"\n\treturn []string{slackToken, githubToken, note}\n}",
				URL: "https://git.example.com/deploy/blob/" + sha + "/deploy/credentials.go#L10-L15", Author: "Ann Lee",
				IndexedAt: now.Add(-5 * time.Minute)}
			return b.render(bot.Reply{Kind: bot.Answered, Asked: "where do we post to the ops channel?", Answer: retrieval.Answer{
				Question: "where do we post to the ops channel?", Coverage: retrieval.Covered,
				Snippets: []retrieval.Snippet{retrieval.NewSnippet(c)}}})
		}},
		{"where_is", func() ([]slackgo.Block, string) {
			def := retrySnippet()
			call := docSnippet()
			call.Symbol = ""
			other := retrySnippet()
			other.Path, other.Symbol, other.StartLine, other.EndLine, other.URL = "httpx/client.go", "Client.Do", 40, 71, ""
			return b.listBlocks("RetryOn503", retrieval.Answer{Question: "RetryOn503", Coverage: retrieval.Covered,
				Snippets: []retrieval.Snippet{other, def, call}}, "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blocks, text := tt.render()
			// Unescaped HTML (<, >, & as themselves) keeps the goldens
			// readable: what is escaped in them is ragbot's mrkdwn escaping.
			// (Context elements still show \u003c: slack-go marshals them
			// itself, with encoding/json's default HTML escaping.)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(map[string]any{"text": text, "blocks": blocks}); err != nil {
				t.Fatal(err)
			}
			raw := buf.Bytes()
			if err := slackfake.CheckBlocks(mustJSON(t, blocks)); err != nil {
				t.Errorf("Slack would refuse the blocks: %v", err)
			}
			path := filepath.Join(goldenDir, tt.name+".json")
			if *update {
				if err := os.WriteFile(path, raw, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it, then review it)", err)
			}
			if diff := cmp.Diff(string(want), string(raw)); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
			}
		})
	}
}

// TestHostileSnippetEscaped checks, independently of the goldens, that
// source text cannot ping, mention or link: every < and > of it arrives
// escaped, so the only <...> sequences left are the links ragbot made.
func TestHostileSnippetEscaped(t *testing.T) {
	b := renderBot()
	s := retrySnippet()
	s.Text = "// <!channel> <!here> <@U0999> deploy: <https://evil.example|click>\nreturn a && b"
	s.Author = "<!everyone>"
	s.Symbol = "<https://evil.example|x>"
	blocks, text := b.render(bot.Reply{Kind: bot.Answered, Asked: "<!channel> where?", Answer: retrieval.Answer{
		Question: "<!channel> where?", Coverage: retrieval.Covered, Snippets: []retrieval.Snippet{s}}})
	var all []string
	all = append(all, text)
	for _, bl := range blocks {
		switch x := bl.(type) {
		case *slackgo.SectionBlock:
			all = append(all, x.Text.Text)
		case *slackgo.ContextBlock:
			for _, e := range x.ContextElements.Elements {
				if o, ok := e.(*slackgo.TextBlockObject); ok {
					all = append(all, o.Text)
				}
			}
		}
	}
	ours := regexp.MustCompile(`<https://git\.example\.com/[^<>|]*\|[^<>]*>`)
	for _, s := range all {
		if rest := ours.ReplaceAllString(s, ""); strings.ContainsAny(rest, "<>") {
			t.Errorf("unescaped < or > in %q", s)
		}
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{"&lt;!channel&gt;", "&lt;https://evil.example|click&gt;", "&lt;!everyone&gt;", "a &amp;&amp; b"} {
		if !strings.Contains(joined, want) {
			t.Errorf("rendered text lacks %q", want)
		}
	}
}

// TestHugeFunction renders five snippets of a 5,000-line function with long
// lines, as retrieval.NewSnippet makes them, and checks each section stays
// under 3,000 characters with "… N more lines", and the message within Block
// Kit's limits (checked by slackfake, from Slack's documented limits).
func TestHugeFunction(t *testing.T) {
	var body strings.Builder
	body.WriteString("func Huge() {\n")
	for i := 2; i < 5000; i++ {
		fmt.Fprintf(&body, "\tx%04d := compute(%q) // %s\n", i, strings.Repeat("v", 60), strings.Repeat("<&>", 10))
	}
	body.WriteString("}\n")
	var snips []retrieval.Snippet
	for i := range 5 {
		c := retrieval.Chunk{Source: "repo:big", Kind: retrieval.KindCode, Path: fmt.Sprintf("big/huge%d.go", i), Symbol: "Huge",
			Content: body.String(), StartLine: 1, EndLine: 5000, CommitSHA: sha, IndexedAt: now}
		snips = append(snips, retrieval.NewSnippet(c))
	}
	blocks, text := renderBot().render(bot.Reply{Kind: bot.Answered, Asked: "Huge", Answer: retrieval.Answer{
		Question: "Huge", Coverage: retrieval.Covered, Snippets: snips}})
	raw := mustJSON(t, blocks)
	if err := slackfake.CheckBlocks(raw); err != nil {
		t.Errorf("Slack would refuse the blocks: %v", err)
	}
	if n := slackfake.TextLen(raw); n >= 13000 {
		t.Errorf("blocks hold %d characters, want under 13,000 (msg_blocks_too_long)", n)
	}
	if len(blocks) > slackfake.MaxBlocks || len(text) > 4000 {
		t.Errorf("%d blocks, %d bytes of text", len(blocks), len(text))
	}
	footer := regexp.MustCompile("(?s)^```\n(.*)\n```\n_… ([0-9]+) more lines_$")
	sections := 0
	for _, bl := range blocks {
		sec, ok := bl.(*slackgo.SectionBlock)
		if !ok || !strings.HasPrefix(sec.Text.Text, "```") {
			continue
		}
		sections++
		m := footer.FindStringSubmatch(sec.Text.Text)
		if m == nil {
			t.Fatalf("section does not end with … N more lines:\n%s", sec.Text.Text)
		}
		kept := strings.Count(m[1], "\n") + 1
		if m[2] != fmt.Sprint(5000-kept) {
			t.Errorf("section keeps %d lines and says %s more, want %d", kept, m[2], 5000-kept)
		}
		if n := len([]rune(sec.Text.Text)); n > 3000 {
			t.Errorf("section of %d characters", n)
		}
	}
	if sections != 5 {
		t.Errorf("%d code sections, want 5", sections)
	}
}

func TestVoteValue(t *testing.T) {
	s := retrySnippet()
	v, err := decodeVote(encodeVote("where is the retry?", []retrieval.Snippet{s, docSnippet()}))
	if err != nil {
		t.Fatal(err)
	}
	want := voteValue{Q: "where is the retry?", C: []retrieval.ShownCitation{
		{Source: "repo:httpx", Path: "httpx/retry.go", StartLine: 10, EndLine: 14, CommitSHA: sha, Symbol: "RetryOn503"},
		{Source: "docs:handbook", Path: "README.md", StartLine: 3, EndLine: 5, Symbol: "httpx > Retries"},
	}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	// Long paths and a long question still fit a button's 2,000 characters.
	var many []retrieval.Snippet
	for i := range 5 {
		x := s
		x.Path = strings.Repeat(fmt.Sprintf("dir%d/", i), 60) + "file.go"
		x.Symbol = strings.Repeat("VeryLongSymbolName", 10)
		many = append(many, x)
	}
	enc := encodeVote(strings.Repeat("why ", 400), many)
	if len(enc) > slackfake.MaxButtonValue {
		t.Errorf("vote value of %d bytes", len(enc))
	}
	if v, err := decodeVote(enc); err != nil || len(v.C) == 0 || v.C[0].Path != many[0].Path {
		t.Errorf("shortened vote value lost its first citation: %+v, %v", v, err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b)
}

// nopSink turns the vote buttons on in rendering tests.
type nopSink struct{}

func (nopSink) Put(_ context.Context, _ retrieval.Feedback) error { return nil }

// TestBusyRendered: a question refused by admission control reads as busy,
// with the number ahead, as plain text.
func TestBusyRendered(t *testing.T) {
	blocks, text := renderBot().render(bot.Reply{Kind: bot.Busy, Asked: "where is X?", Ahead: 12})
	if want := ":hourglass: I'm busy: 12 questions ahead of yours. Try again in a minute."; blocks != nil || text != want {
		t.Errorf("render(Busy) = %v, %q; want no blocks, %q", blocks, text, want)
	}
}
