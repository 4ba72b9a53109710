package slack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/internal/chattest"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

const sha = chattest.SHA

// Channels of the tests: C0PAY may see repo:httpx only, C0ALL both sources,
// C0NONE nothing; direct messages take the default (repo:httpx).
const (
	chanPay  = "C0PAY"
	chanAll  = "C0ALL"
	chanNone = "C0NONE"
	user     = "U0USER"
)

// The payroll ACL group: bonus/bonus.go (repo:httpx, acl [payroll]) is
// for its member userPayroll where only they read the answer, and for
// everyone in chanPayroll.
const (
	userPayroll = "U0PAYROLL"
	chanPayroll = "C0PAYROLL"
)

var testAccess = bot.Access{
	Default:  []string{"repo:httpx"},
	Channels: map[string][]string{chanPay: {"repo:httpx"}, chanAll: {"repo:httpx", "repo:hr"}, chanNone: {}},
	Groups:   map[string][]string{"payroll": {userPayroll, chanPayroll}},
}

const ordersGo = `// OrdersHandler serves GET /v1/orders: the orders endpoint of API v1.
func OrdersHandler(w http.ResponseWriter, r *http.Request) {
	writeOrders(w, listOrders(r.Context()))
}`

const ordersV2Go = `// OrdersV2Handler serves GET /v2/orders: the orders endpoint of API v2, paginated.
func OrdersV2Handler(w http.ResponseWriter, r *http.Request) {
	writeOrdersPage(w, listOrdersPage(r.Context(), r.URL.Query().Get("cursor")))
}`

// invoicesV2Go competes with ordersV2Go for "the v2 endpoint": only the
// thread's words (orders, handler) tell them apart.
const invoicesV2Go = `// InvoicesV2Endpoint is the v2 endpoint for invoices: GET /v2/invoices.
func InvoicesV2Endpoint(w http.ResponseWriter, r *http.Request) {
	writeInvoices(w, listInvoices(r.Context()))
}`

const evilGo = `// DeployNotice is shown before deploys. <!channel> deploy now: <https://evil.example|click here>
func DeployNotice() string {
	return "<!here> & <@U0ADMIN>"
}`

// hugeGo is a 5,000-line function with long lines.
func hugeGo() string {
	var b strings.Builder
	b.WriteString("// HugeGeneratedTable maps every legacy code to its replacement.\nfunc HugeGeneratedTable() map[string]string {\n\treturn map[string]string{\n")
	for i := 4; i < 5000; i++ {
		fmt.Fprintf(&b, "\t\t%q: %q, // generated\n", fmt.Sprintf("legacy-code-%04d-%s", i, strings.Repeat("x", 110)), fmt.Sprintf("replacement-%04d", i))
	}
	b.WriteString("}\n")
	return b.String()
}

func fixtureChunks(indexedAt time.Time) []retrieval.Chunk {
	return []retrieval.Chunk{
		chattest.Chunk("repo:httpx", "httpx/retry.go", "RetryOn503", chattest.RetryGo, 10, indexedAt),
		chattest.Chunk("repo:httpx", "api/orders.go", "OrdersHandler", ordersGo, 20, indexedAt),
		chattest.Chunk("repo:httpx", "api/orders_v2.go", "OrdersV2Handler", ordersV2Go, 30, indexedAt),
		chattest.Chunk("repo:httpx", "billing/invoices_v2.go", "InvoicesV2Endpoint", invoicesV2Go, 7, indexedAt),
		chattest.Chunk("repo:httpx", "ops/notice.go", "DeployNotice", evilGo, 5, indexedAt),
		chattest.Chunk("repo:httpx", "gen/table.go", "HugeGeneratedTable", hugeGo(), 1, indexedAt),
		chattest.Chunk("repo:hr", "hr/salary.go", "ExportSalaries", chattest.SalaryGo, 12, indexedAt),
		chattest.WithACL(chattest.Chunk("repo:httpx", "bonus/bonus.go", "PayBonuses", chattest.BonusGo, 3, indexedAt), "payroll"),
	}
}

// harness is a Slack bot on a real Weaviate collection, talking to a fake
// Slack, with its HTTP routes served locally.
type harness struct {
	fake  *slackfake.Server
	bot   *slack.Bot
	url   string // our HTTP server
	votes *weaviate.FeedbackLog
	proxy *chattest.WeaviateProxy
	logs  *chattest.SyncBuffer
}

type harnessOpts struct {
	noFeedback bool
	// ledger indexes chattest.Ledger(ledger) too, and topK sets the
	// answer's retrieval.top_k [5].
	ledger, topK int
	jsonLogs     bool // log with slog.JSONHandler, as `ragbot serve --log-format json`
	// admission, when set, admits the questions of mentions and /where-is
	// alike, as `ragbot serve` wires it.
	admission *bot.Admission
	extra     []retrieval.Chunk // indexed with the fixture
}

func newHarness(t testing.TB, o harnessOpts) *harness {
	t.Helper()
	ctx := context.Background()
	proxy := chattest.NewWeaviateProxy(t, weaviatetest.URL(t))
	asker := chattest.Index(t, proxy.URL, append(fixtureChunks(time.Now().Add(-40*time.Minute)),
		append(chattest.Ledger(o.ledger, time.Now().Add(-40*time.Minute)), o.extra...)...))
	if o.topK > 0 {
		asker.TopK, asker.Candidates = o.topK, max(asker.Candidates, o.topK)
	}
	var err error
	var votes *weaviate.FeedbackLog
	if !o.noFeedback {
		if votes, err = asker.Store.(*weaviate.Store).OpenFeedback(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = votes.Drop(context.Background()) })
	}

	h := &harness{fake: slackfake.New(t), votes: votes, proxy: proxy, logs: &chattest.SyncBuffer{}}
	api := slackgo.New(slackfake.BotToken, slackgo.OptionAPIURL(h.fake.APIURL()), slackgo.OptionAppLevelToken(slackfake.AppToken))
	var logHandler slog.Handler = slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})
	if o.jsonLogs {
		logHandler = slog.NewJSONHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	cfg := slack.Config{API: api, SigningSecret: slackfake.SigningSecret, Answerer: asker, Access: testAccess,
		AnswerTimeout: 10 * time.Second, Logger: slog.New(logHandler)}
	if votes != nil {
		cfg.Feedback = votes
	}
	if o.admission != nil {
		cfg.Answerer, cfg.Lister = o.admission.Wrap(asker), o.admission.Wrap(asker)
	}
	h.bot, err = slack.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	h.bot.Routes(mux)
	srv := httptest.NewServer(mux)
	h.url = srv.URL
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.bot.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return h
}

// post sends body to path, signed at `at` with secret, and returns the
// status, the body and how long the answer took.
func (h *harness) post(t testing.TB, path, contentType, secret string, at time.Time, body []byte, header http.Header) (int, string, time.Duration) {
	t.Helper()
	req := slackfake.SignedRequest(h.url+path, contentType, secret, at, body)
	for k, v := range header {
		req.Header[k] = v
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out), time.Since(start)
}

// event posts an Events API delivery, signed now.
func (h *harness) event(t testing.TB, eventID string, e slackfake.Event, header http.Header) int {
	t.Helper()
	code, _, _ := h.post(t, slack.EventsPath, "application/json", slackfake.SigningSecret, time.Now(), slackfake.EventCallback(eventID, e), header)
	return code
}

func (h *harness) form(t testing.TB, path string, form url.Values) (int, string) {
	t.Helper()
	code, body, _ := h.post(t, path, "application/x-www-form-urlencoded", slackfake.SigningSecret, time.Now(), []byte(form.Encode()), nil)
	return code, body
}

// wait lets every background answer finish.
func (h *harness) wait(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.bot.Wait(ctx); err != nil {
		t.Fatalf("answers still running: %v", err)
	}
}

// blockText returns every text in a message's blocks, one per line.
func blockText(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	var blocks any
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("blocks %s: %v", raw, err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if str, ok := y.(string); ok && k == "text" {
					out = append(out, str)
				} else {
					walk(y)
				}
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(blocks)
	return strings.Join(out, "\n")
}

// buttonValue returns the value of the button actionID in blocks.
func buttonValue(t testing.TB, raw json.RawMessage, actionID string) string {
	t.Helper()
	var blocks []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		for _, e := range b.Elements {
			if e.ActionID == actionID {
				return e.Value
			}
		}
	}
	t.Fatalf("no button %s in %s", actionID, raw)
	return ""
}
