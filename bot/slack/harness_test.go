package slack_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/bot/slack"
	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

const sha = "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"

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

const bonusGo = `// PayBonuses computes the quarterly bonus payouts for every employee.
func PayBonuses(staff []Employee) map[string]int {
	return quarterlyBonus(staff)
}`

const retryGo = `// RetryOn503 reports whether a response status is worth retrying: 503
// Service Unavailable and 429 Too Many Requests are, anything else is not.
func RetryOn503(status int) bool {
	return status == 503 || status == 429
}`

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

const salaryGo = `// ExportSalaries writes every employee's salary to the payroll export file.
func ExportSalaries(w io.Writer, staff []Employee) error {
	for _, e := range staff {
		fmt.Fprintf(w, "%s;%d\n", e.Name, e.Salary)
	}
	return nil
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

// chunk builds a stored-ready code chunk the way the indexer does.
func chunk(source, path, symbol, content string, start int, indexedAt time.Time) retrieval.Chunk {
	end := start + strings.Count(strings.TrimRight(content, "\n"), "\n")
	c := retrieval.Chunk{Source: source, Kind: retrieval.KindCode, Path: path, Symbol: symbol, SymbolKind: "function",
		Language: "go", Content: content, StartLine: start, EndLine: end, CommitSHA: sha, Branch: "main",
		URL:    fmt.Sprintf("https://git.example.com/%s/blob/%s/%s#L%d-L%d", strings.TrimPrefix(source, "repo:"), sha, path, start, end),
		Author: "Ann Lee", IndexedAt: indexedAt}
	c.ContentHash = retrieval.HashContent(c.Content)
	c.SearchText = retrieval.SearchText(c)
	return c
}

func fixtureChunks(indexedAt time.Time) []retrieval.Chunk {
	return []retrieval.Chunk{
		chunk("repo:httpx", "httpx/retry.go", "RetryOn503", retryGo, 10, indexedAt),
		chunk("repo:httpx", "api/orders.go", "OrdersHandler", ordersGo, 20, indexedAt),
		chunk("repo:httpx", "api/orders_v2.go", "OrdersV2Handler", ordersV2Go, 30, indexedAt),
		chunk("repo:httpx", "billing/invoices_v2.go", "InvoicesV2Endpoint", invoicesV2Go, 7, indexedAt),
		chunk("repo:httpx", "ops/notice.go", "DeployNotice", evilGo, 5, indexedAt),
		chunk("repo:httpx", "gen/table.go", "HugeGeneratedTable", hugeGo(), 1, indexedAt),
		chunk("repo:hr", "hr/salary.go", "ExportSalaries", salaryGo, 12, indexedAt),
		withACL(chunk("repo:httpx", "bonus/bonus.go", "PayBonuses", bonusGo, 3, indexedAt), "payroll"),
	}
}

// withACL gives c the ACL groups of a source with acl: groups.
func withACL(c retrieval.Chunk, groups ...string) retrieval.Chunk {
	c.ACL = groups
	return c
}

// harness is a Slack bot on a real Weaviate collection, talking to a fake
// Slack, with its HTTP routes served locally.
type harness struct {
	fake  *slackfake.Server
	bot   *slack.Bot
	url   string // our HTTP server
	votes *retrieval.FeedbackLog
	proxy *weaviateProxy
	logs  *syncBuffer
}

type harnessOpts struct {
	noFeedback bool
}

func newHarness(t testing.TB, o harnessOpts) *harness {
	t.Helper()
	ctx := context.Background()
	proxy := newWeaviateProxy(t, weaviatetest.URL(t))
	store, err := retrieval.OpenStore(ctx, retrieval.StoreConfig{URL: proxy.URL, ChunkClass: weaviatetest.ClassName(),
		Timeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, retrieval.OfflineName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	emb := retrieval.NewOffline()
	chunks := fixtureChunks(time.Now().Add(-40 * time.Minute))
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Symbol + "\n" + c.Path + "\n" + c.Signature + "\n" + c.Content
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Upsert(ctx, chunks, vecs); err != nil {
		t.Fatal(err)
	}
	var votes *retrieval.FeedbackLog
	if !o.noFeedback {
		if votes, err = store.OpenFeedback(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = votes.Drop(context.Background()) })
	}
	asker := &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 40,
		Thresholds: retrieval.DefaultThresholds(emb.Name())}

	h := &harness{fake: slackfake.New(t), votes: votes, proxy: proxy, logs: &syncBuffer{}}
	api := slackgo.New(slackfake.BotToken, slackgo.OptionAPIURL(h.fake.APIURL()), slackgo.OptionAppLevelToken(slackfake.AppToken))
	cfg := slack.Config{API: api, SigningSecret: slackfake.SigningSecret, Answerer: asker, Access: testAccess,
		AnswerTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if votes != nil {
		cfg.Feedback = votes
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

// weaviateProxy forwards to the real Weaviate until it is switched off,
// then answers 503 like an unreachable cluster behind a load balancer.
type weaviateProxy struct {
	URL  string
	down atomic.Bool
}

func newWeaviateProxy(t testing.TB, target string) *weaviateProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &weaviateProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // requests the searcher cancels are not errors here
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.down.Load() {
			http.Error(w, "upstream connect error", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// syncBuffer is a bytes.Buffer for concurrent log writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
