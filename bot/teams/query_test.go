package teams_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/teams/teamsfake"
	"github.com/ragbot/ragbot/retrieval"
)

// countingLister counts the searches it passes on.
type countingLister struct {
	next bot.Answerer
	n    atomic.Int32
}

func (c *countingLister) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	c.n.Add(1)
	return c.next.Ask(ctx, r)
}

// The parts of a message extension response the tests read (Teams docs,
// 'Respond to search command').
type queryResponse struct {
	ComposeExtension struct {
		Type             string `json:"type"`
		AttachmentLayout string `json:"attachmentLayout"`
		Text             string `json:"text"`
		Attachments      []struct {
			ContentType string         `json:"contentType"`
			Content     map[string]any `json:"content"`
			Preview     struct {
				ContentType string `json:"contentType"`
				Content     struct {
					Title    string `json:"title"`
					Subtitle string `json:"subtitle"`
				} `json:"content"`
			} `json:"preview"`
		} `json:"attachments"`
	} `json:"composeExtension"`
}

// query posts a composeExtension/query invoke of command with the search
// text q, in chat, with token (valid for it when token is "valid"), and
// returns the HTTP status and the decoded body.
func (h *harness) query(t *testing.T, chat, command, q, token string) (int, queryResponse) {
	t.Helper()
	value := map[string]any{"commandId": command, "parameters": []map[string]string{{"name": "q", "value": q}},
		"queryOptions": map[string]int{"skip": 0, "count": 25}}
	body, m := h.fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: chat, Type: "invoke", Name: "composeExtension/query", Value: value})
	if token == "valid" {
		token = h.fake.Token(h.fake.ValidClaims(m.ServiceURL))
	}
	resp, err := http.DefaultClient.Do(teamsfake.Request(h.url, token, body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out queryResponse
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("response %s: %v", raw, err)
		}
	}
	return resp.StatusCode, out
}

// TestWhereIsMessageExtension: the "where is" search command is answered in
// the invoke's HTTP response with one result per snippet, the definition
// first, typed as in the code or in lower case: an Adaptive Card with the
// linked path:lines at the commit, symbol · source@commit · author ·
// indexed N ago and the code, listed by a thumbnail preview. Nothing found,
// no text, an unknown command and a conversation without sources get a
// message; a missing or wrong token gets 401 and no search. No connector
// call is made.
func TestWhereIsMessageExtension(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	lister := &countingLister{next: h.cfg.Answerer}
	h.cfg.Lister = lister
	h.start(t)

	for _, q := range []string{"RetryOn503", "retryon503"} {
		code, r := h.query(t, chanPay, "whereIs", q, "valid")
		ce := r.ComposeExtension
		if code != http.StatusOK || ce.Type != "result" || ce.AttachmentLayout != "list" || len(ce.Attachments) == 0 {
			t.Fatalf("%q: HTTP %d, %+v; want a result list", q, code, ce)
		}
		first := ce.Attachments[0]
		if first.ContentType != "application/vnd.microsoft.card.adaptive" || first.Preview.ContentType != "application/vnd.microsoft.card.thumbnail" {
			t.Errorf("%q: first result %s with preview %s, want an Adaptive Card with a thumbnail preview", q, first.ContentType, first.Preview.ContentType)
		}
		if p := first.Preview.Content; p.Title != "httpx/retry.go:10-14" || !strings.Contains(p.Subtitle, "RetryOn503 · httpx@3f1c2d4") || !strings.Contains(p.Subtitle, "indexed 40 minutes ago") {
			t.Errorf("%q: first preview %+v, want the definition's citation", q, p)
		}
		wantLink := "**[httpx/retry.go:10-14](https://git.example.com/httpx/blob/" + sha + "/httpx/retry.go#L10-L14)**"
		if md := texts(first.Content, "TextBlock"); !strings.Contains(md, wantLink) {
			t.Errorf("%q: card lacks the link %s:\n%s", q, wantLink, md)
		}
		rich := texts(first.Content, "RichTextBlock")
		for _, want := range []string{"RetryOn503 · httpx@3f1c2d4 · Ann Lee · indexed 40 minutes ago", "return status == 503 || status == 429"} {
			if !strings.Contains(rich, want) {
				t.Errorf("%q: card lacks %q:\n%s", q, want, rich)
			}
		}
	}

	for _, tt := range []struct{ name, chat, command, q, want string }{
		{"nothing found", chanPay, "whereIs", "zzyzx kumquat", "Nothing indexed"},
		{"no text", chanPay, "whereIs", "  ", "Type a function"},
		{"unknown command", chanPay, "searchCmd", "RetryOn503", "doesn't know that command"},
		{"no sources", chanNone, "whereIs", "RetryOn503", "no sources to search"},
	} {
		code, r := h.query(t, tt.chat, tt.command, tt.q, "valid")
		if ce := r.ComposeExtension; code != http.StatusOK || ce.Type != "message" || !strings.Contains(ce.Text, tt.want) {
			t.Errorf("%s: HTTP %d, %+v; want a message with %q", tt.name, code, ce, tt.want)
		}
	}
	searches := lister.n.Load()
	if searches != 3 { // the two forms and "nothing found"
		t.Errorf("%d searches, want 3", searches)
	}
	wrong := h.fake.Token(teamsfake.Claims{ServiceURL: h.fake.ServiceURL(), Audience: "00000000-0000-0000-0000-000000000001"})
	for _, token := range []string{"", "not-a-jwt", wrong} {
		if code, r := h.query(t, chanPay, "whereIs", "RetryOn503", token); code != http.StatusUnauthorized || r.ComposeExtension.Type != "" {
			t.Errorf("token %.20q: HTTP %d, %+v; want 401 and nothing", token, code, r.ComposeExtension)
		}
	}
	if n := lister.n.Load(); n != searches {
		t.Errorf("%d searches after the refused requests, want none", n-searches)
	}
	if calls := h.fake.Calls(""); len(calls) != 0 {
		t.Errorf("connector calls %+v, want none: results go in the HTTP response", calls)
	}
}

// TestManifestCommand: the app manifest declares the message extension's
// search command as the bot handles it, on the bot's app id.
func TestManifestCommand(t *testing.T) {
	raw, err := os.ReadFile("../../teams-app-manifest/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Bots []struct {
			BotID string `json:"botId"`
		} `json:"bots"`
		ComposeExtensions []struct {
			BotID    string `json:"botId"`
			Commands []struct {
				ID, Type   string
				Parameters []struct{ Name string }
			} `json:"commands"`
		} `json:"composeExtensions"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.ComposeExtensions) != 1 || len(m.Bots) != 1 || m.ComposeExtensions[0].BotID != m.Bots[0].BotID {
		t.Fatalf("manifest: %+v; want one message extension on the bot's id", m)
	}
	cmds := m.ComposeExtensions[0].Commands
	if len(cmds) != 1 || cmds[0].ID != "whereIs" || cmds[0].Type != "query" || len(cmds[0].Parameters) != 1 {
		t.Errorf("manifest commands %+v, want the query command whereIs with one parameter", cmds)
	}
}
