package teams

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

type stubLister retrieval.Answer

func (s stubLister) Ask(context.Context, retrieval.Request) (retrieval.Answer, error) {
	return retrieval.Answer(s), nil
}

// TestQueryNotSureWithWarnings: message extension results of a "not sure"
// answer say so in their previews, and each card carries the answer's
// index warnings.
func TestQueryNotSureWithWarnings(t *testing.T) {
	warn := "payments@main is indexed at 3f1c2d4, 2 commits behind the branch head"
	ans := retrieval.Answer{Coverage: retrieval.NotSure, Warnings: []string{warn}, Snippets: []retrieval.Snippet{
		{Citation: retrieval.Citation{Source: "repo:payments", Path: "retry.go", StartLine: 3, EndLine: 9, Symbol: "Backoff"}, Text: "func Backoff() {}"}}}
	b := &Bot{cfg: Config{Lister: stubLister(ans), Access: bot.Access{Default: []string{"repo:payments"}},
		AnswerTimeout: time.Second, Now: time.Now}, log: slog.New(slog.DiscardHandler)}
	a := &Activity{Type: "invoke", Name: queryInvoke, Conversation: Conversation{ID: "a:1", ConversationType: convPersonal},
		Value: []byte(`{"commandId":"whereIs","parameters":[{"name":"q","value":"where does it give up"}]}`)}
	res := b.query(context.Background(), a)
	if len(res.Attachments) != 1 {
		t.Fatalf("result %+v, want one card", res)
	}
	r := res.Attachments[0]
	if !strings.HasPrefix(r.Preview.Content.Title, "❔ closest match: retry.go:3-9") {
		t.Errorf("preview title %q, want it marked as a closest match", r.Preview.Content.Title)
	}
	if body := string(marshal(r.Content)); !strings.Contains(body, warn) {
		t.Errorf("card lacks the warning %q: %s", warn, body)
	}
}
