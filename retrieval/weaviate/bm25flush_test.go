package weaviate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestBM25SameBeforeAndAfterFlush asks a collection whose writes still sit in
// Weaviate's memtables, as happens right after `ragbot index`, and wants the
// top 5 of a collection of the same chunks that was flushed to disk segments.
// Weaviate v1.35.2's BlockMax WAND failed this: a term still in a memtable
// got a zero max impact, terms of a single document a zero bound, and k1 and
// b were swapped when a memtable was flushed (weaviate/weaviate PRs #11780,
// #11779 and #12022), so answers changed once Weaviate flushed, about a minute
// after indexing. Weaviate has no flush call, but a graceful shutdown flushes
// every memtable, so the test runs its own server and restarts it.
func TestBM25SameBeforeAndAfterFlush(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own weaviate-server twice")
	}
	ctx := context.Background()
	srv := startOwnServer(t)
	t.Logf("weaviate-server %s", serverVersion(srv.url(), srv.srv.APIKey))
	chunks, rareIn := flushCorpus()
	vecs := make([][]float32, len(chunks)) // BM25 only: no vectors needed

	flushed := openStore(t, srv.url(), srv.srv.APIKey, "Flushed"+weaviatetest.ClassName())
	if err := flushed.Upsert(ctx, chunks, vecs); err != nil {
		t.Fatal(err)
	}
	srv.restart(t)
	if segs := searchSegments(srv.dir, flushed.ChunkClass()); len(segs) == 0 {
		t.Fatalf("no disk segment for %s's search_text after the restart: the flush this test relies on did not happen", flushed.ChunkClass())
	}
	fresh := openStore(t, srv.url(), srv.srv.APIKey, "Fresh"+weaviatetest.ClassName())
	if err := fresh.Upsert(ctx, chunks, vecs); err != nil {
		t.Fatal(err)
	}
	// Asked at once, well before Weaviate's 60 s dirty-memtable flush.
	for _, q := range flushQuestions {
		want := top5(t, flushed, q.text)
		if id := rareIn[q.rare]; id != "" && (len(want) == 0 || want[0].ID != id) {
			t.Errorf("%q after a flush: the only chunk with %s is not first:\n%s", q.text, q.rare, describeHits(want))
		}
		got := top5(t, fresh, q.text)
		if strings.Join(ids(got), ",") != strings.Join(ids(want), ",") {
			t.Errorf("%q right after writing:\n%s\nafter a flush:\n%s", q.text, describeHits(got), describeHits(want))
		}
	}
}

func top5(t *testing.T, s *weaviate.Store, question string) []retrieval.Hit {
	t.Helper()
	// As `ragbot eval --mode bm25` asks: the keyword side only, 10 results.
	hits, err := s.Search(context.Background(), retrieval.Query{Text: retrieval.SearchQuery(question), Alpha: 0, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	return hits[:min(5, len(hits))]
}

func ids(hits []retrieval.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func describeHits(hits []retrieval.Hit) string {
	var b strings.Builder
	for i, h := range hits {
		fmt.Fprintf(&b, "  %d. %s %s bm25 %.4f\n", i+1, h.Chunk.Path, h.Chunk.Symbol, h.BM25)
	}
	return b.String()
}

// flushQuestions mix identifiers found in one chunk only (rare) with words
// found in many, or ask about common words alone.
var flushQuestions = []struct{ text, rare string }{
	{"where is peerGossipSettleTimeout applied to the cluster peers", "peerGossipSettleTimeout"},
	{"maxSilenceSizeBytes limit on a silence", "maxSilenceSizeBytes"},
	{"inhibitSourceEqualLabels matcher labels", "inhibitSourceEqualLabels"},
	{"pagerdutyDedupKeyHash", "pagerdutyDedupKeyHash"},
	{"groupWaitJitterSeed group wait interval", "groupWaitJitterSeed"},
	{"webhookMaxAlertsTruncated webhook alerts", "webhookMaxAlertsTruncated"},
	{"how does the route group wait for alerts", ""},
	{"webhook notification retry timeout", ""},
	{"expire silences state snapshot", ""},
	{"template render receiver message", ""},
	{"reload config receivers routes", ""},
	{"gossip peer state merge", ""},
}

// flushCorpus returns 400 code chunks shaped like alertmanager's, generated
// from a fixed seed: enough for BM25's top-k heap to fill long before the
// postings end, which is when WAND prunes. Six of them carry an identifier no
// other chunk has; rareIn maps each of those identifiers to its chunk's id.
func flushCorpus() (chunks []retrieval.Chunk, rareIn map[string]string) {
	r := rand.New(rand.NewPCG(7, 11))
	pkgs := map[string][]string{
		"dispatch": {"Dispatcher", "AggrGroup", "Route"},
		"notify":   {"Notifier", "Retrier", "Pipeline", "Integration"},
		"silence":  {"Silencer", "Silences", "Store"},
		"inhibit":  {"Inhibitor", "InhibitRule"},
		"config":   {"Config", "Receiver", "Coordinator"},
		"cluster":  {"Peer", "Channel", "Delegate"},
		"template": {"Template", "Data"},
		"api":      {"API", "Handler"},
	}
	pkgNames := []string{"dispatch", "notify", "silence", "inhibit", "config", "cluster", "template", "api"}
	verbs := []string{"process", "flush", "validate", "merge", "load", "apply", "send", "expire", "match", "encode", "decode", "reload", "collect", "render", "resolve", "register"}
	nouns := []string{"Alerts", "Groups", "Labels", "Matchers", "Receivers", "Routes", "Silences", "Config", "Templates", "Peers", "State", "Notifications", "Timeouts", "Intervals", "Snapshot", "Marker"}
	words := strings.Fields(`alert alerts route routes receiver receivers group groups label labels matcher
		matchers silence silences notification notifications timeout interval config error retry webhook
		template cluster peer peers state resolved firing inhibit duration context channel mutex lock update
		pipeline stage integration email slack message status expire gossip snapshot marker limit batch
		queue wait repeat time store cache callback metric counter handler request response version
		the a of to is when each every returns new old until after before must may not and or with`)
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	rare := []string{"peerGossipSettleTimeout", "maxSilenceSizeBytes", "inhibitSourceEqualLabels",
		"pagerdutyDedupKeyHash", "groupWaitJitterSeed", "webhookMaxAlertsTruncated"}
	rareIn = map[string]string{}
	line := map[string]int{}
	ordinal := map[string]int{}
	for i := range 400 {
		pkg := pkgNames[r.IntN(len(pkgNames))]
		typ := pkgs[pkg][r.IntN(len(pkgs[pkg]))]
		method := verbs[r.IntN(len(verbs))] + nouns[r.IntN(len(nouns))]
		path := pkg + "/" + strings.ToLower(typ) + ".go"
		var body strings.Builder
		fmt.Fprintf(&body, "// %s %s.\nfunc (x *%s) %s(ctx context.Context) error {\n", method, sentence(6+r.IntN(30)), typ, method)
		for range 2 + r.IntN(12) {
			fmt.Fprintf(&body, "\t// %s\n\tx.%s%s()\n", sentence(3+r.IntN(10)), verbs[r.IntN(len(verbs))], nouns[r.IntN(len(nouns))])
		}
		var rareHere string
		if i%67 == 13 && len(rare) > 0 { // six chunks spread over the corpus
			rareHere, rare = rare[0], rare[1:]
			fmt.Fprintf(&body, "\tif x.%s == 0 {\n\t\treturn nil\n\t}\n", rareHere)
		}
		body.WriteString("\treturn nil\n}")
		content := body.String()
		start := line[path] + 1
		end := start + strings.Count(content, "\n")
		line[path] = end + 1
		sym := typ + "." + method
		c := retrieval.Chunk{
			Source: "repo:flush", Kind: retrieval.KindCode, Path: path, Symbol: sym, SymbolKind: "method",
			Language: "go", Content: content, StartLine: start, EndLine: end, Ordinal: ordinal[path+"|"+sym],
			CommitSHA: strings.Repeat("b", 40), Branch: "main", IndexedAt: t0,
		}
		c.ContentHash = retrieval.HashContent(c.Content)
		c.SearchText = retrieval.SearchText(c)
		ordinal[path+"|"+sym]++
		if rareHere != "" {
			rareIn[rareHere] = c.ID()
		}
		chunks = append(chunks, c)
	}
	return chunks, rareIn
}

// ownServer is a weaviate-server of one test, on a data dir and ports that
// survive a restart (Raft state in the dir remembers its ports).
type ownServer struct {
	srv *weaviatelocal.Server
	opt weaviatelocal.Options
	dir string
}

func (s *ownServer) url() string { return s.srv.URL }

// startOwnServer starts weaviate-server on a fresh data dir, stopped when
// the test ends. Without a binary it skips the test, or fails it on CI.
func startOwnServer(t *testing.T) *ownServer {
	t.Helper()
	if _, err := weaviatelocal.FindBinary(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	s := &ownServer{dir: t.TempDir()}
	s.opt = weaviatelocal.Options{
		DataDir: s.dir, ReadyTimeout: 2 * time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	// Fixed ports are needed for the restart: try a few random bases.
	var err error
	for range 10 {
		s.opt.Port = 20000 + 10*rand.IntN(3000)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		s.srv, err = weaviatelocal.Start(ctx, s.opt)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "in use") {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.srv.Stop(context.Background()) })
	return s
}

// restart stops the server gracefully, which flushes its memtables to disk
// segments, and starts it again on the same data dir and ports.
func (s *ownServer) restart(t *testing.T) {
	t.Helper()
	if err := s.srv.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := weaviatelocal.Start(ctx, s.opt)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	s.srv = srv
}

// searchSegments lists the disk segments of class's search_text BM25 index.
func searchSegments(dataDir, class string) []string {
	segs, _ := filepath.Glob(filepath.Join(dataDir, strings.ToLower(class), "*", "lsm", "property_search_text_searchable", "segment-*"))
	return segs
}

func openStore(t *testing.T, url, apiKey, class string) *weaviate.Store {
	t.Helper()
	s, err := weaviate.OpenStore(context.Background(), weaviate.StoreConfig{
		URL: url, APIKey: apiKey, ChunkClass: class, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, "none")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serverVersion returns the version GET /v1/meta reports, for the log.
func serverVersion(url, apiKey string) string {
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/meta", nil)
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var meta struct{ Version string }
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		return err.Error()
	}
	return meta.Version
}
