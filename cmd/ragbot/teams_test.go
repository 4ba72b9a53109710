package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	teamsbot "github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/bot/teams/teamsfake"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// writeTeamsConfig writes a Teams-only config (no slack section) against the
// test Weaviate and a fake Bot Framework.
func writeTeamsConfig(t *testing.T, repo string, fake *teamsfake.Server, extra string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: %s
    link_template: "https://git.example.com/httpx/blob/{commit}/{path}#L{start}-L{end}"
serve:
  listen: 127.0.0.1:0
  shutdown_timeout: 10s
teams:
  app_id: %s
  token_url: %s
  openid_metadata_url: %s
access:
  default: []
  channels:
    "19:pay@thread.tacv2": [httpx]
%s`, weaviatetest.URL(t), weaviatetest.ClassName(), repo, teamsfake.AppID, fake.TokenURL(), fake.MetadataURL(), extra)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeTeams runs `ragbot serve` in process with Teams only: no Slack
// token is set. A signed channel mention is answered in its thread from a
// real index, an unsigned one is refused, and the vote is stored; a
// follow-up in the thread is widened with its question, and the message
// extension answers; the server stops gracefully.
func TestServeTeams(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	fake := teamsfake.New(t, teamsfake.Options{})
	cfgPath := writeTeamsConfig(t, repo, fake, "")
	t.Cleanup(func() { dropCollection(t, cfgPath) })
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", "")
	t.Setenv("RAGBOT_SLACK_APP_TOKEN", "")
	t.Setenv("RAGBOT_TEAMS_APP_PASSWORD", teamsfake.AppPassword)
	if code, _, errOut := ragbot(t, "index", "--config", cfgPath); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}

	var logs syncWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := startServer(ctx, commonFlags{config: cfgPath}, "", &logs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Slack != nil || s.Teams == nil {
		t.Fatalf("slack bot %v, teams bot %v: want Teams only", s.Slack, s.Teams)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }() // returns after cancel below
	endpoint := "http://" + s.Addr() + teamsbot.MessagesPath

	post := func(token string, body []byte) int {
		t.Helper()
		resp, err := http.DefaultClient.Do(teamsfake.Request(endpoint, token, body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	body, m := fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: "19:pay@thread.tacv2", Mention: true,
		Text: "where is the retry for 503 errors decided?"})
	if code := post("", body); code != http.StatusUnauthorized {
		t.Errorf("unsigned activity: HTTP %d, want 401", code)
	}
	if code := post(fake.Token(fake.ValidClaims(m.ServiceURL)), body); code != http.StatusOK {
		t.Fatalf("signed activity: HTTP %d, want 200", code)
	}
	if err := s.Teams.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	replies := fake.Replies(m.ConversationID(), m.ID)
	if len(replies) != 1 || replies[0].Updates != 1 {
		t.Fatalf("replies %+v, want one searching reply replaced by the answer", replies)
	}
	card := string(replies[0].Attachments)
	for _, want := range []string{
		"[httpx/retry.go:10-14](https://git.example.com/httpx/blob/" + head + "/httpx/retry.go#L10-L14)",
		"RetryOn503 · httpx@" + head[:7] + " · Ann Lee · indexed just now",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("answer lacks %q:\n%s", want, card)
		}
	}

	// A 👍 on the answer is stored.
	var atts []struct {
		Content struct {
			Actions []struct {
				Title string          `json:"title"`
				Data  json.RawMessage `json:"data"`
			} `json:"actions"`
		} `json:"content"`
	}
	if err := json.Unmarshal(replies[0].Attachments, &atts); err != nil || len(atts) != 1 || len(atts[0].Content.Actions) != 2 {
		t.Fatalf("answer card actions: %v %s", err, replies[0].Attachments)
	}
	vote, v := fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: "19:pay@thread.tacv2", RootID: m.ID,
		ReplyToID: replies[0].ID, Value: atts[0].Content.Actions[0].Data})
	if code := post(fake.Token(fake.ValidClaims(v.ServiceURL)), vote); code != http.StatusOK {
		t.Fatalf("vote: HTTP %d", code)
	}

	// A follow-up in the thread is searched with the thread's question,
	// remembered in Weaviate.
	t.Cleanup(func() { dropTurns(t, cfgPath) })
	follow, f := fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: "19:pay@thread.tacv2", RootID: m.ID, Mention: true, Text: "and for 429?"})
	if code := post(fake.Token(fake.ValidClaims(f.ServiceURL)), follow); code != http.StatusOK {
		t.Fatalf("follow-up: HTTP %d", code)
	}
	if err := s.Teams.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if fr := fake.Replies(f.ConversationID(), f.ID); len(fr) != 1 {
		t.Errorf("follow-up replies %+v, want one", fr)
	} else if _, searched, _ := strings.Cut(string(fr[0].Attachments), "searched: "); !strings.HasPrefix(searched, "and for 429? ") || !strings.Contains(searched, "retry 503") {
		t.Errorf("follow-up answer searched %.80q, want the question widened with the thread's", searched)
	}

	// The "where is" message extension answers in the HTTP response.
	query, q := fake.Activity(teamsfake.Msg{Kind: teamsfake.Channel, Chat: "19:pay@thread.tacv2", Type: "invoke", Name: "composeExtension/query",
		Value: map[string]any{"commandId": "whereIs", "parameters": []map[string]string{{"name": "q", "value": "RetryOn503"}}}})
	resp, err := http.DefaultClient.Do(teamsfake.Request(endpoint, fake.Token(fake.ValidClaims(q.ServiceURL)), query))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(res), `"type":"result"`) || !strings.Contains(string(res), `"title":"httpx/retry.go:10-14"`) {
		t.Errorf("message extension: HTTP %d %.300s, want results with retry.go", resp.StatusCode, res)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within its shutdown timeout")
	}
	if !strings.Contains(logs.String(), "teams=true") || !strings.Contains(logs.String(), "slack_mode=off") {
		t.Errorf("the start line does not say Teams on and Slack off:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), teamsfake.AppPassword) {
		t.Errorf("the log leaks the app password")
	}
	code, out, errOut := ragbot(t, "feedback", "export", "--config", cfgPath)
	if code != 0 || !strings.Contains(out, `"question":"where is the retry for 503 errors decided?"`) {
		t.Errorf("feedback export: exit %d, %s\n%s: want the Teams vote exported", code, out, errOut)
	}
}

// dropTurns drops the Turn collection of the config at cfgPath.
func dropTurns(t *testing.T, cfgPath string) {
	a, err := openApp(context.Background(), commonFlags{config: cfgPath}, io.Discard)
	if err == nil {
		var turns *weaviate.Turns
		if turns, err = a.store.OpenTurns(context.Background()); err == nil {
			err = turns.Drop(context.Background())
		}
	}
	if err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// TestServeTeamsNeedsPassword: serve stops before starting anything when the
// app password is missing, naming the field and the variable, and asks for
// no Slack token in a Teams-only config.
func TestServeTeamsNeedsPassword(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"a.go": "package a\n"})
	fake := teamsfake.New(t, teamsfake.Options{})
	cfgPath := writeTeamsConfig(t, repo, fake, "")
	t.Setenv("RAGBOT_SLACK_BOT_TOKEN", "")
	t.Setenv("RAGBOT_TEAMS_APP_PASSWORD", "")
	code, _, errOut := ragbot(t, "serve", "--config", cfgPath)
	want := "ragbot serve: teams.app_password (from RAGBOT_TEAMS_APP_PASSWORD): not set"
	if code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "slack.") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and %q, and nothing about Slack", code, errOut, want)
	}
	if calls := fake.TokenCalls(); len(calls) != 0 {
		t.Errorf("%d token requests before the config was complete", len(calls))
	}
}

// TestServeTeamsWrongPassword: a password the token endpoint refuses stops
// serve at start, with AAD's reason and without the password.
func TestServeTeamsWrongPassword(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"a.go": "package a\n"})
	fake := teamsfake.New(t, teamsfake.Options{})
	cfgPath := writeTeamsConfig(t, repo, fake, "")
	t.Cleanup(func() { dropCollection(t, cfgPath) })
	t.Setenv("RAGBOT_TEAMS_APP_PASSWORD", "not-the-SECRET-password")
	code, _, errOut := ragbot(t, "serve", "--config", cfgPath)
	if code != 1 || !strings.Contains(errOut, "invalid_client") || strings.Contains(errOut, "not-the-SECRET-password") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 naming invalid_client without the password", code, errOut)
	}
}
