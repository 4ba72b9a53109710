// Package chattest holds what the Slack and Teams end-to-end tests share:
// the fixture chunks both surfaces search, a Weaviate collection holding
// them (real Weaviate, reached through a proxy that can play an outage),
// and a log buffer for concurrent writers. Only tests import it.
package chattest

import (
	"bytes"
	"context"
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

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// SHA is the commit of every fixture chunk.
const SHA = "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"

// Fixture sources of both surfaces' tests.
const (
	RetryGo = `// RetryOn503 reports whether a response status is worth retrying: 503
// Service Unavailable and 429 Too Many Requests are, anything else is not.
func RetryOn503(status int) bool {
	return status == 503 || status == 429
}`

	SalaryGo = `// ExportSalaries writes every employee's salary to the payroll export file.
func ExportSalaries(w io.Writer, staff []Employee) error {
	for _, e := range staff {
		fmt.Fprintf(w, "%s;%d\n", e.Name, e.Salary)
	}
	return nil
}`

	// BonusGo is indexed with the ACL group "payroll" (WithACL).
	BonusGo = `// PayBonuses computes the quarterly bonus payouts for every employee.
func PayBonuses(staff []Employee) map[string]int {
	return quarterlyBonus(staff)
}`
)

// Chunk builds a stored-ready code chunk the way the indexer does, at SHA
// on main, authored by Ann Lee, with a git.example.com link.
func Chunk(source, path, symbol, content string, start int, indexedAt time.Time) retrieval.Chunk {
	end := start + strings.Count(strings.TrimRight(content, "\n"), "\n")
	c := retrieval.Chunk{Source: source, Kind: retrieval.KindCode, Path: path, Symbol: symbol, SymbolKind: "function",
		Language: "go", Content: content, StartLine: start, EndLine: end, CommitSHA: SHA, Branch: "main",
		URL:    fmt.Sprintf("https://git.example.com/%s/blob/%s/%s#L%d-L%d", strings.TrimPrefix(source, "repo:"), SHA, path, start, end),
		Author: "Ann Lee", IndexedAt: indexedAt}
	c.ContentHash = retrieval.HashContent(c.Content)
	c.SearchText = retrieval.SearchText(c)
	return c
}

// LedgerQuestion is a question that each of Ledger's chunks answers.
const LedgerQuestion = "where is the ledger settlement reconciled?"

// Ledger returns n chunks of repo:httpx that all answer LedgerQuestion
// (ledger/settle01.go ReconcileLedgerSettlement01, …), for answers with
// more snippets than a message shows in full.
func Ledger(n int, indexedAt time.Time) []retrieval.Chunk {
	var out []retrieval.Chunk
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("ReconcileLedgerSettlement%02d", i)
		code := fmt.Sprintf("// %s reconciles the ledger settlement of region %d.\nfunc %s(l *Ledger) error {\n\treturn l.ReconcileSettlement(%d)\n}", name, i, name, i)
		out = append(out, Chunk("repo:httpx", fmt.Sprintf("ledger/settle%02d.go", i), name, code, 10*i, indexedAt))
	}
	return out
}

// Callers returns the function newLedgerStore (ledger/store.go:40-42) of
// repo:httpx and n functions calling it, caller000 … in ledger/caller000.go
// …, the call of caller i on line 11+i (CallerSite), for usage answers.
func Callers(n int, indexedAt time.Time) []retrieval.Chunk {
	out := []retrieval.Chunk{Chunk("repo:httpx", "ledger/store.go", "newLedgerStore",
		"func newLedgerStore() *LedgerStore {\n\treturn &LedgerStore{}\n}", 40, indexedAt)}
	for i := range n {
		c := Chunk("repo:httpx", fmt.Sprintf("ledger/caller%03d.go", i), fmt.Sprintf("caller%03d", i),
			fmt.Sprintf("func caller%03d() {\n\tnewLedgerStore()\n}", i), 10+i, indexedAt)
		c.Refs = []string{"newLedgerStore"}
		out = append(out, c)
	}
	return out
}

// CallerSite is the citation label of caller i's call in Callers.
func CallerSite(i int) string { return fmt.Sprintf("ledger/caller%03d.go:%d", i, 11+i) }

// WithACL gives c the ACL groups of a source with acl: groups.
func WithACL(c retrieval.Chunk, groups ...string) retrieval.Chunk {
	c.ACL = groups
	return c
}

// Index opens a fresh collection on the Weaviate at url (dropped when the
// test ends), stores chunks embedded by the offline embedder, and returns
// an Asker over it with the default thresholds.
func Index(t testing.TB, url string, chunks []retrieval.Chunk) *retrieval.Asker {
	t.Helper()
	ctx := context.Background()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: url, ChunkClass: weaviatetest.ClassName(),
		Timeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, embed.OfflineName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	emb := embed.NewOffline()
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
	return &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 40,
		Thresholds: retrieval.DefaultThresholds()}
}

// WeaviateProxy forwards to the real Weaviate until Down is set, then
// answers 503 like an unreachable cluster behind a load balancer.
type WeaviateProxy struct {
	URL  string
	Down atomic.Bool
}

// NewWeaviateProxy starts a proxy to target, closed when the test ends.
func NewWeaviateProxy(t testing.TB, target string) *WeaviateProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &WeaviateProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // requests the searcher cancels are not errors here
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.Down.Load() {
			http.Error(w, "upstream connect error", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// SyncBuffer is a bytes.Buffer for concurrent log writers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
