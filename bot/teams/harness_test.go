package teams_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/teams"
	"github.com/ragbot/ragbot/bot/teams/teamsfake"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

const sha = chattest.SHA

// Conversations of the tests: the channel chanPay may see repo:httpx only,
// chanAll both sources, chanNone nothing; chats take the default (repo:httpx).
const (
	chanPay  = "19:pay@thread.tacv2"
	chanAll  = "19:all@thread.tacv2"
	chanNone = "19:none@thread.tacv2"
	group    = "19:group-chat@thread.v2"
	personal = "a:1personal-chat"
)

// The payroll ACL group: bonus/bonus.go (repo:httpx, acl [payroll]) is for
// its member userPayroll in a personal chat, and for everyone in
// chanPayroll.
const (
	userPayroll = "29:1payroll-member"
	chanPayroll = "19:payroll@thread.tacv2"
)

var testAccess = bot.Access{
	Default:  []string{"repo:httpx"},
	Channels: map[string][]string{chanPay: {"repo:httpx"}, chanAll: {"repo:httpx", "repo:hr"}, chanNone: {}},
	Groups:   map[string][]string{"payroll": {userPayroll, chanPayroll}},
}

// markdownGo holds markdown that must not format or link anything in a card.
const markdownGo = `// DeployNotice is shown before deploys: **urgent** [click here](https://evil.example/x) _now_
func DeployNotice() string {
	return "<at>everyone</at> [docs](https://evil.example/docs)"
}`

// hugeGo is a 5,000-line function with long lines, some of them non-ASCII
// (two UTF-16 bytes per character, and a surrogate pair per emoji).
func hugeGo() string {
	var b strings.Builder
	b.WriteString("// HugeGeneratedTable maps every legacy code to its replacement.\nfunc HugeGeneratedTable() map[string]string {\n\treturn map[string]string{\n")
	for i := 4; i < 5000; i++ {
		fmt.Fprintf(&b, "\t\t%q: %q, // généré ✓ 🚀\n", fmt.Sprintf("legacy-code-%04d-%s", i, strings.Repeat("é", 60)), fmt.Sprintf("replacement-%04d", i))
	}
	b.WriteString("}\n")
	return b.String()
}

func fixtureChunks(indexedAt time.Time) []retrieval.Chunk {
	return []retrieval.Chunk{
		chattest.Chunk("repo:httpx", "httpx/retry.go", "RetryOn503", chattest.RetryGo, 10, indexedAt),
		chattest.Chunk("repo:httpx", "ops/notice.go", "DeployNotice", markdownGo, 5, indexedAt),
		chattest.Chunk("repo:httpx", "gen/table.go", "HugeGeneratedTable", hugeGo(), 1, indexedAt),
		chattest.Chunk("repo:hr", "hr/salary.go", "ExportSalaries", chattest.SalaryGo, 12, indexedAt),
		chattest.WithACL(chattest.Chunk("repo:httpx", "bonus/bonus.go", "PayBonuses", chattest.BonusGo, 3, indexedAt), "payroll"),
	}
}

// clock is the harness's time: real time plus an offset tests can advance
// (token lifetimes, key refresh gaps) without sleeping.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

// harness is a Teams bot on a real Weaviate collection, talking to a fake
// Bot Framework, with its messaging endpoint served locally.
type harness struct {
	fake  *teamsfake.Server
	bot   *teams.Bot
	url   string // our messaging endpoint
	votes *weaviate.FeedbackLog
	turns *weaviate.Turns // with harnessOpts.turns
	cfg   teams.Config
	proxy *chattest.WeaviateProxy
	logs  *chattest.SyncBuffer
	clock *clock
}

type harnessOpts struct {
	noFeedback bool
	turns      bool // remember channel threads (teams.Config.Turns) in Weaviate
	// ledger indexes chattest.Ledger(ledger) too, and topK sets the
	// answer's retrieval.top_k [5].
	ledger, topK int
	extra        []retrieval.Chunk // indexed with the fixture
}

func newHarness(t testing.TB, o harnessOpts) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{logs: &chattest.SyncBuffer{}, clock: &clock{}}
	h.proxy = chattest.NewWeaviateProxy(t, weaviatetest.URL(t))
	asker := chattest.Index(t, h.proxy.URL, append(fixtureChunks(time.Now().Add(-40*time.Minute)),
		append(chattest.Ledger(o.ledger, time.Now().Add(-40*time.Minute)), o.extra...)...))
	if o.topK > 0 {
		asker.TopK, asker.Candidates = o.topK, max(asker.Candidates, o.topK)
	}
	var err error
	if !o.noFeedback {
		if h.votes, err = asker.Store.(*weaviate.Store).OpenFeedback(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = h.votes.Drop(context.Background()) })
	}
	if o.turns {
		if h.turns, err = asker.Store.(*weaviate.Store).OpenTurns(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = h.turns.Drop(context.Background()) })
	}

	h.fake = teamsfake.New(t, teamsfake.Options{Now: h.clock.Now})
	cfg := teams.Config{AppID: teamsfake.AppID, AppPassword: teamsfake.AppPassword, TokenURL: h.fake.TokenURL(),
		OpenIDMetadataURL: h.fake.MetadataURL(), Answerer: asker, Access: testAccess, AnswerTimeout: 10 * time.Second,
		Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Now: h.clock.Now}
	if h.votes != nil {
		cfg.Feedback = h.votes
	}
	if h.turns != nil {
		cfg.Turns = h.turns
	}
	h.cfg = cfg
	h.start(t)
	return h
}

// start runs a new bot of h.cfg on a new messaging endpoint: at first, and
// to restart the bot (nothing kept in its memory).
func (h *harness) start(t testing.TB) {
	t.Helper()
	var err error
	h.bot, err = teams.New(context.Background(), h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.bot.Routes(mux)
	srv := httptest.NewServer(mux)
	h.url = srv.URL + teams.MessagesPath
	b := h.bot
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
}

// post sends body with token to the messaging endpoint and returns the
// status and how long the answer took.
func (h *harness) post(t testing.TB, token string, body []byte) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, err := http.DefaultClient.Do(teamsfake.Request(h.url, token, body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, time.Since(start)
}

// send posts the activity m with a valid token for it and returns the
// status and m with its defaults filled in.
func (h *harness) send(t testing.TB, m teamsfake.Msg) (int, teamsfake.Msg) {
	t.Helper()
	body, m := h.fake.Activity(m)
	code, _ := h.post(t, h.fake.Token(h.fake.ValidClaims(m.ServiceURL)), body)
	return code, m
}

// ask sends a question in a channel with the bot's mention.
func (h *harness) ask(t testing.TB, channel, question string) teamsfake.Msg {
	t.Helper()
	code, m := h.send(t, teamsfake.Msg{Kind: teamsfake.Channel, Chat: channel, Text: question, Mention: true})
	if code != http.StatusOK {
		t.Fatalf("activity: HTTP %d, want 200", code)
	}
	return m
}

// wait lets every background answer finish.
func (h *harness) wait(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.bot.Wait(ctx); err != nil {
		t.Fatalf("answers still running: %v", err)
	}
}

// theAnswer returns the single reply the bot left under the question m.
func theAnswer(t *testing.T, h *harness, m teamsfake.Msg) teamsfake.Message {
	t.Helper()
	replies := h.fake.Replies(m.ConversationID(), m.ID)
	if len(replies) != 1 {
		t.Fatalf("%d replies to %s in %s, want exactly 1: %+v", len(replies), m.ID, m.ConversationID(), replies)
	}
	return replies[0]
}

// cardOf returns the Adaptive Card of a message.
func cardOf(t testing.TB, m teamsfake.Message) map[string]any {
	t.Helper()
	var atts []struct {
		ContentType string         `json:"contentType"`
		Content     map[string]any `json:"content"`
	}
	if err := json.Unmarshal(m.Attachments, &atts); err != nil || len(atts) != 1 || atts[0].ContentType != "application/vnd.microsoft.card.adaptive" {
		t.Fatalf("message has no Adaptive Card (%v): text %q, attachments %s", err, m.Text, m.Attachments)
	}
	return atts[0].Content
}

// texts returns the text of every element of type typ in v ("" for all),
// and of the text runs inside them, one per line.
func texts(v any, typ string) string {
	var out []string
	var walk func(v any, inside bool)
	walk = func(v any, inside bool) {
		switch x := v.(type) {
		case map[string]any:
			t, _ := x["type"].(string)
			in := inside || typ == "" || t == typ
			for k, y := range x {
				if s, ok := y.(string); ok && k == "text" && in {
					out = append(out, s)
				} else {
					walk(y, in)
				}
			}
		case []any:
			for _, y := range x {
				walk(y, inside)
			}
		}
	}
	walk(v, false)
	return strings.Join(out, "\n")
}

// submitData returns the data of the card's Action.Submit titled title.
func submitData(t testing.TB, card map[string]any, title string) map[string]any {
	t.Helper()
	actions, _ := card["actions"].([]any)
	for _, a := range actions {
		a := a.(map[string]any)
		if a["type"] == "Action.Submit" && a["title"] == title {
			return a["data"].(map[string]any)
		}
	}
	t.Fatalf("no Action.Submit %q in %v", title, card["actions"])
	return nil
}
