package confluence_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	wvclient "github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"

	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

const fixtures = "../testdata/confluence"

// now is the fixed clock of the index runs.
var now = time.Date(2024, 5, 2, 9, 0, 0, 0, time.UTC)

var ops = confluencetest.Space{ID: "98306", Key: "OPS", Name: "Operations"}

// rig is one Confluence, one source on it and one Weaviate collection.
type rig struct {
	srv   *confluencetest.Server
	src   *confluence.Source
	ix    *ingest.Indexer
	store *weaviate.Store
	emb   *countingEmbedder
	set   ingest.PageSet

	mu    sync.Mutex
	waits []time.Duration // what the client slept, instead of sleeping
}

// fillers are generated pages beside the five fixture pages, so that a
// listing of 3 results a request takes four requests.
const fillers = 6

// newRig serves the runbook fixtures and the fillers in space OPS, with a
// list page size of 3 and body batches of 4 pages.
func newRig(t *testing.T, flavour string, scope confluence.Scope) *rig {
	t.Helper()
	r := &rig{srv: confluencetest.New(t, flavour, ops)}
	pages, err := confluencetest.LoadPages(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	r.srv.Put(pages...)
	r.srv.Put(confluencetest.Filler("OPS", 99001, fillers)...)
	client, err := confluence.NewClient(confluence.Options{
		BaseURL: r.srv.BaseURL(), Flavour: flavour, Email: confluencetest.Email, Token: confluencetest.Token,
		PageSize: 3, FetchBatch: 4, Log: testLog(t),
		Sleep: func(ctx context.Context, d time.Duration) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.waits = append(r.waits, d)
			return ctx.Err()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if scope.Spaces == nil {
		scope.Spaces = []string{"OPS"}
	}
	r.src = confluence.NewSource(client, scope)
	r.emb = &countingEmbedder{Embedder: embed.NewOffline()}
	r.store = weaviatetest.NewStore(t, r.emb.Name())
	r.ix = &ingest.Indexer{Store: r.store, Embedder: r.emb, Log: testLog(t), Now: func() time.Time { return now }}
	r.set = ingest.PageSet{ID: "confluence:ops", Pages: r.src, Settings: confluence.Settings(client)}
	return r
}

func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// sync runs one IndexPages and resets the server's counters first.
func (r *rig) sync(t *testing.T) (ingest.PageStats, error) {
	t.Helper()
	r.srv.Reset()
	r.emb.take()
	return r.ix.IndexPages(context.Background(), r.set, false)
}

func (r *rig) mustSync(t *testing.T) ingest.PageStats {
	t.Helper()
	st, err := r.sync(t)
	if err != nil {
		t.Fatalf("IndexPages: %v", err)
	}
	return st
}

// countingEmbedder embeds with Embedder and counts the texts it was given.
type countingEmbedder struct {
	retrieval.Embedder
	mu sync.Mutex
	n  int
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.n += len(texts)
	c.mu.Unlock()
	return c.Embedder.Embed(ctx, texts)
}

// take returns the count since the last take.
func (c *countingEmbedder) take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = 0
	return n
}

// Sections per fixture page (see testdata/confluence/golden) and per filler.
const (
	deploySections    = 5 // intro, Prerequisites, Steps, Verify, Rollback
	failoverSections  = 4 // Status and History (a heading inside an expand) are sections of their own
	handbookSections  = 6
	certSections      = 3
	ownershipSections = 5 // intro, Owners, Paging (in a panel), Access, Until 2023 (in an expand)
	fillerSections    = 4 // intro, Restart, Contacts, Escalation
	allSections       = deploySections + failoverSections + handbookSections + certSections + ownershipSections + fillers*fillerSections
	allPages          = 5 + fillers
)

func TestSyncFirstThenUnchanged(t *testing.T) {
	for _, flavour := range []string{confluence.Cloud, confluence.DataCenter} {
		t.Run(flavour, func(t *testing.T) {
			r := newRig(t, flavour, confluence.Scope{})
			st := r.mustSync(t)
			want := ingest.PageStats{Source: "confluence:ops", Pages: allPages, Fetched: allPages, Chunks: allSections, Embedded: allSections}
			if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
				t.Errorf("first sync stats (-want +got):\n%s", diff)
			}
			_, paths, bodies := r.srv.Counts()
			for id, n := range bodies {
				if n != 1 {
					t.Errorf("page %s body served %d times, want once", id, n)
				}
			}
			if len(bodies) != allPages {
				t.Errorf("bodies of %d pages served, want %d", len(bodies), allPages)
			}
			// 11 pages listed 3 at a time: 4 list requests, each after the
			// first following the server's next link.
			lists := 0
			for _, p := range paths {
				if strings.Contains(p, "/spaces/98306/pages") || strings.Contains(p, "/rest/api/content?") {
					lists++
				}
			}
			if lists != 4 {
				t.Errorf("%d list requests, want 4:\n%s", lists, strings.Join(paths, "\n"))
			}
			// 11 bodies in batches of 4: 3 requests (Data Center too, though it
			// links a full page to a next one: the client has all it asked for).
			// Cloud adds the space lookup and a users-bulk per batch with new
			// authors or mentions (3 runbook authors, Ann mentioned too, then
			// the fillers' one); Data Center one user lookup for the
			// handbook's mention of bob.stone by username.
			if others := len(paths) - lists; others != map[string]int{confluence.Cloud: 1 + 3 + 2, confluence.DataCenter: 3 + 1}[flavour] {
				t.Errorf("%d other requests, want 3 body batches (Cloud: and 1 space lookup, 2 users-bulk; Data Center: and 1 user):\n%s", others, strings.Join(paths, "\n"))
			}

			got := storedPages(t, r.store, "confluence:ops")
			deploy := got["OPS/Deploy runbook"]
			wantDeploy := []string{"Deploy runbook", "Deploy runbook > Prerequisites", "Deploy runbook > Rollback",
				"Deploy runbook > Steps", "Deploy runbook > Steps > Verify"}
			if diff := cmp.Diff(wantDeploy, symbols(deploy)); diff != "" {
				t.Errorf("Deploy runbook sections (-want +got):\n%s", diff)
			}
			// Headings inside a panel and an expand start sections.
			wantOwnership := []string{"Service ownership", "Service ownership > Access", "Service ownership > Access > Until 2023",
				"Service ownership > Owners", "Service ownership > Paging"}
			if diff := cmp.Diff(wantOwnership, symbols(got["OPS/Service ownership"])); diff != "" {
				t.Errorf("Service ownership sections (-want +got):\n%s", diff)
			}
			rb := find(deploy, "Deploy runbook > Rollback")
			wantURL := map[string]string{
				confluence.Cloud:      r.srv.BaseURL() + "/spaces/OPS/pages/98391/Deploy+runbook#Rollback",
				confluence.DataCenter: r.srv.BaseURL() + "/display/OPS/Deploy+runbook#Deployrunbook-Rollback",
			}[flavour]
			checks := []struct {
				field     string
				got, want any
			}{
				{"url", rb.URL, wantURL},
				{"author", rb.Author, "Ann Lee"},
				{"version", rb.Version, "7"},
				{"modified_at", rb.ModifiedAt, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)},
				{"indexed_at", rb.IndexedAt, now},
				{"kind", rb.Kind, retrieval.KindDoc},
				{"signature", rb.Signature, "## Rollback"},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("Rollback section %s = %v, want %v", c.field, c.got, c.want)
				}
			}
			// Mentions show display names where the flavour can look them
			// up: Cloud by account id, Data Center by username; elsewhere
			// the id.
			owner := map[string]string{confluence.Cloud: "Owner: Ann Lee", confluence.DataCenter: "Owner: 557058:0c1d2e3f-ann"}[flavour]
			ask := map[string]string{confluence.Cloud: "ask bob.stone.", confluence.DataCenter: "ask Bob Stone."}[flavour]
			if intro := find(deploy, "Deploy runbook").Content; !strings.HasSuffix(intro, owner) {
				t.Errorf("Deploy runbook intro %q, want it to end %q", intro, owner)
			}
			if faq := find(got["OPS/On-call handbook"], "On-call handbook > Tools > FAQ").Content; !strings.HasSuffix(faq, ask) {
				t.Errorf("On-call handbook FAQ %q, want it to end %q", faq, ask)
			}

			st = r.mustSync(t)
			want = ingest.PageStats{Source: "confluence:ops", Pages: allPages, Chunks: allSections}
			if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
				t.Errorf("unchanged re-sync stats (-want +got):\n%s", diff)
			}
			if _, _, bodies := r.srv.Counts(); len(bodies) != 0 {
				t.Errorf("unchanged re-sync fetched bodies %v, want none", bodies)
			}
			if n := r.emb.take(); n != 0 {
				t.Errorf("unchanged re-sync embedded %d texts, want 0", n)
			}
			state, ok, err := r.store.State(context.Background(), "confluence:ops", "")
			if err != nil || !ok || state.LastError != "" || !state.IndexedAt.Equal(now) || state.Files != allPages || state.Chunks != allSections {
				t.Errorf("SourceState = %+v (ok %v, err %v), want indexed at %v with %d pages and %d chunks", state, ok, err, now, allPages, allSections)
			}
		})
	}
}

func TestSyncVersionBump(t *testing.T) {
	for _, flavour := range []string{confluence.Cloud, confluence.DataCenter} {
		t.Run(flavour, func(t *testing.T) {
			r := newRig(t, flavour, confluence.Scope{})
			r.mustSync(t)

			// Version 8 rewrites the rollback warning and drops the Verify
			// table; the other sections keep their text (and move up).
			p, _ := r.srv.Get("98391")
			p.Version, p.Author, p.AuthorID = 8, "Bob Stone", "557058:4a5b6c7d-bob"
			p.Modified = time.Date(2024, 5, 2, 8, 0, 0, 0, time.UTC)
			p.Body = cutBetween(p.Body, "<h3>Verify</h3>", "<h2>Rollback</h2>")
			p.Body = strings.Replace(p.Body, "Never roll back during a schema migration", "Never roll back while a migration runs", 1)
			r.srv.Put(p)

			st := r.mustSync(t)
			// One page fetched; of its 4 sections only Rollback is new text,
			// the 3 others keep their vectors; Verify is deleted.
			want := ingest.PageStats{Source: "confluence:ops", Pages: allPages, Fetched: 1, Chunks: allSections - 1, Embedded: 1, Reused: 3, Deleted: 1}
			if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			if _, _, bodies := r.srv.Counts(); !cmp.Equal(bodies, map[string]int{"98391": 1}) {
				t.Errorf("bodies served %v, want only page 98391, once", bodies)
			}
			if n := r.emb.take(); n != 1 {
				t.Errorf("embedded %d texts, want 1 (the rewritten Rollback section)", n)
			}
			got := storedPages(t, r.store, "confluence:ops")
			deploy := got["OPS/Deploy runbook"]
			if diff := cmp.Diff([]string{"Deploy runbook", "Deploy runbook > Prerequisites", "Deploy runbook > Rollback", "Deploy runbook > Steps"}, symbols(deploy)); diff != "" {
				t.Errorf("sections after the bump (-want +got):\n%s", diff)
			}
			for _, c := range deploy {
				if c.Version != "8" || c.Author != "Bob Stone" {
					t.Errorf("%q: version %q author %q, want 8 and Bob Stone", c.Symbol, c.Version, c.Author)
				}
			}
			if rb := find(deploy, "Deploy runbook > Rollback"); !strings.Contains(rb.Content, "while a migration runs") {
				t.Errorf("Rollback content not updated:\n%s", rb.Content)
			}
			if other := got["OPS/Database failover"]; len(other) != failoverSections || other[0].Version != "12" {
				t.Errorf("Database failover: %d sections at version %q, want %d untouched at 12", len(other), other[0].Version, failoverSections)
			}
		})
	}
}

func TestSyncPagesLeaveScope(t *testing.T) {
	for _, flavour := range []string{confluence.Cloud, confluence.DataCenter} {
		t.Run(flavour, func(t *testing.T) {
			r := newRig(t, flavour, confluence.Scope{})
			r.mustSync(t)

			r.srv.Delete("98394") // Certificate rotation: deleted
			p, _ := r.srv.Get("98393")
			p.Status = "archived" // On-call handbook: archived
			r.srv.Put(p)
			f, _ := r.srv.Get("99001")
			f.SpaceKey = "ENG" // a filler moved to another space
			r.srv.Put(f)

			st := r.mustSync(t)
			want := ingest.PageStats{Source: "confluence:ops", Pages: allPages - 3, Removed: 3,
				Chunks: allSections - certSections - handbookSections - fillerSections, Deleted: certSections + handbookSections + fillerSections}
			if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			got := storedPages(t, r.store, "confluence:ops")
			for _, gone := range []string{"OPS/Certificate rotation", "OPS/On-call handbook", "OPS/Service 99001 runbook"} {
				if len(got[gone]) != 0 {
					t.Errorf("%s still has %d sections", gone, len(got[gone]))
				}
			}
			if n, _ := r.store.Count(context.Background(), "confluence:ops"); n != want.Chunks {
				t.Errorf("store holds %d chunks, want %d", n, want.Chunks)
			}
		})
	}
}

func TestSyncRateLimitedMidSync(t *testing.T) {
	for _, flavour := range []string{confluence.Cloud, confluence.DataCenter} {
		t.Run(flavour, func(t *testing.T) {
			r := newRig(t, flavour, confluence.Scope{})
			// Request 3 is a listing page, request 7 a body batch: a 429
			// with Retry-After: 7 and a 503 with none.
			r.srv.Reset()
			r.srv.FailRequest(3, 429, "7")
			r.srv.FailRequest(7, 503, "")
			st, err := r.ix.IndexPages(context.Background(), r.set, false)
			if err != nil {
				t.Fatalf("IndexPages with a 429 and a 503: %v", err)
			}
			want := ingest.PageStats{Source: "confluence:ops", Pages: allPages, Fetched: allPages, Chunks: allSections, Embedded: allSections}
			if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			if n, _ := r.store.Count(context.Background(), "confluence:ops"); n != allSections {
				t.Errorf("store holds %d chunks, want %d: sections lost", n, allSections)
			}
			r.mu.Lock()
			waits := r.waits
			r.mu.Unlock()
			if len(waits) != 2 || waits[0] != 7*time.Second || waits[1] < time.Second || waits[1] > 1200*time.Millisecond {
				t.Errorf("waits %v, want [7s (Retry-After), 1s..1.2s (backoff)]", waits)
			}
		})
	}
}

func TestSyncFailureKeepsChunks(t *testing.T) {
	r := newRig(t, confluence.Cloud, confluence.Scope{})
	r.mustSync(t)
	before := storedPages(t, r.store, "confluence:ops")

	p, _ := r.srv.Get("98392")
	p.Version = 13
	p.Body = "<h2>Gone</h2><p>rewritten</p>"
	r.srv.Put(p)
	r.srv.Reset()
	// Requests: spaces, 4 listing pages, then the body of 98392: forbidden.
	r.srv.FailRequest(6, 403, "")
	_, err := r.ix.IndexPages(context.Background(), r.set, false)
	wantErr := `ingest: confluence:ops: confluence: fetch page 98392 "Database failover": GET /wiki/api/v2/pages?body-format=storage&id=98392&limit=1: status 403 Forbidden: Forbidden`
	if err == nil || err.Error() != wantErr {
		t.Fatalf("IndexPages error:\n%v\nwant:\n%s", err, wantErr)
	}
	if diff := cmp.Diff(before, storedPages(t, r.store, "confluence:ops")); diff != "" {
		t.Errorf("a failed run changed the index (-before +after):\n%s", diff)
	}
	state, _, _ := r.store.State(context.Background(), "confluence:ops", "")
	if state.LastError != strings.TrimPrefix(wantErr, "ingest: confluence:ops: ") || !state.IndexedAt.Equal(now) {
		t.Errorf("SourceState after failure: last_error %q indexed_at %v, want the error and the last good run's time", state.LastError, state.IndexedAt)
	}

	// The next run (the scheduler's retry) finishes the job.
	st := r.mustSync(t)
	if st.Fetched != 1 || st.Embedded != 1 || st.Deleted != failoverSections {
		t.Errorf("retry stats %+v, want 1 page fetched, 1 section embedded, %d deleted", st, failoverSections)
	}
	if state, _, _ := r.store.State(context.Background(), "confluence:ops", ""); state.LastError != "" {
		t.Errorf("last_error after a good run: %q", state.LastError)
	}
}

func TestSyncScopeByLabelAndCQL(t *testing.T) {
	tests := []struct {
		flavour string
		scope   confluence.Scope
		want    []string
	}{
		{confluence.Cloud, confluence.Scope{Label: "runbook"}, []string{"OPS/Certificate rotation", "OPS/Database failover", "OPS/Deploy runbook"}},
		{confluence.DataCenter, confluence.Scope{CQL: `label = "database" AND type = page`}, []string{"OPS/Database failover"}},
	}
	for _, tt := range tests {
		t.Run(tt.flavour, func(t *testing.T) {
			r := newRig(t, tt.flavour, tt.scope)
			r.mustSync(t)
			var got []string
			for p := range storedPages(t, r.store, "confluence:ops") {
				got = append(got, p)
			}
			sort.Strings(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("indexed pages (-want +got):\n%s", diff)
			}
			_, paths, _ := r.srv.Counts()
			if !strings.Contains(paths[0], "/rest/api/content/search?cql=") {
				t.Errorf("first request %s, want a CQL search", paths[0])
			}
		})
	}
}

// TestCodeMacroSearchable finds the failover step by an exact command and by
// an environment variable that appear only inside a code macro: once with
// the store's BM25 search, once through retrieval.Asker as `ragbot ask` does.
func TestCodeMacroSearchable(t *testing.T) {
	r := newRig(t, confluence.DataCenter, confluence.Scope{})
	r.mustSync(t)
	ctx := context.Background()
	const wantSymbol = "Database failover > Failover steps"

	hits, err := r.store.Search(ctx, retrieval.Query{Text: "pg_autoctl perform failover --formation default --group 0", Alpha: 0, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Chunk.Symbol != wantSymbol {
		t.Fatalf("BM25 top hit %v, want %q", hitSymbols(hits), wantSymbol)
	}
	if !strings.Contains(hits[0].Chunk.Content, "pg_autoctl perform failover --formation default --group 0 2>&1 | tee /tmp/failover-$(date +%s).log") {
		t.Errorf("code body not byte-exact in content:\n%s", hits[0].Chunk.Content)
	}

	asker := &retrieval.Asker{Store: r.store, Embedder: r.emb, Alpha: 0.5, TopK: 3, Candidates: 40,
		Thresholds: retrieval.DefaultThresholds()}
	ans, err := asker.Ask(ctx, retrieval.Request{Question: "where is PGFAILOVER_PROMOTE_TIMEOUT set?"})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Coverage != retrieval.Covered || ans.Snippets[0].Symbol != wantSymbol {
		t.Fatalf("answer coverage %s, snippets %v; want %q first", ans.Coverage, snippetSymbols(ans), wantSymbol)
	}
	s := ans.Snippets[0]
	wantURL := r.srv.BaseURL() + "/display/OPS/Database+failover#Databasefailover-Failoversteps"
	if s.URL != wantURL || s.Path != "OPS/Database failover" || s.Author != "Bob Stone" {
		t.Errorf("citation %s %s by %q, want %s OPS/Database failover by Bob Stone", s.Path, s.URL, s.Author, wantURL)
	}
}

var ignoreDuration = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())

// cutBetween removes s's text from the start of from to the start of to.
func cutBetween(s, from, to string) string {
	i, j := strings.Index(s, from), strings.Index(s, to)
	if i < 0 || j < i {
		panic("cutBetween: markers not found")
	}
	return s[:i] + s[j:]
}

func find(cs []retrieval.Chunk, symbol string) retrieval.Chunk {
	for _, c := range cs {
		if c.Symbol == symbol {
			return c
		}
	}
	return retrieval.Chunk{}
}

func symbols(cs []retrieval.Chunk) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Symbol)
	}
	sort.Strings(out)
	return out
}

func hitSymbols(hs []retrieval.Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Chunk.Symbol)
	}
	return out
}

func snippetSymbols(a retrieval.Answer) []string {
	var out []string
	for _, s := range a.Snippets {
		out = append(out, s.Symbol)
	}
	return out
}

// storedPages reads every chunk of source back from Weaviate, grouped by
// page path, each page's chunks ordered by line.
func storedPages(t *testing.T, store *weaviate.Store, source string) map[string][]retrieval.Chunk {
	t.Helper()
	u, _ := url.Parse(weaviatetest.URL(t))
	client, err := wvclient.NewClient(wvclient.Config{Host: u.Host, Scheme: u.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"source", "kind", "path", "symbol", "signature", "content", "start_line", "end_line", "url", "author",
		"version", "modified_at", "indexed_at", "_additional { id }"}
	fields := make([]graphql.Field, len(names))
	for i, n := range names {
		fields[i] = graphql.Field{Name: n}
	}
	type row struct {
		Source, Kind, Path, Symbol, Signature, Content, URL, Author, Version string
		StartLine                                                            int    `json:"start_line"`
		EndLine                                                              int    `json:"end_line"`
		ModifiedAt                                                           string `json:"modified_at"`
		IndexedAt                                                            string `json:"indexed_at"`
		Additional                                                           struct {
			ID string `json:"id"`
		} `json:"_additional"`
	}
	out := map[string][]retrieval.Chunk{}
	for after := ""; ; {
		get := client.GraphQL().Get().WithClassName(store.ChunkClass()).WithFields(fields...).WithLimit(1000)
		if after != "" {
			get = get.WithAfter(after)
		}
		resp, err := get.Do(context.Background())
		if err != nil || len(resp.Errors) > 0 {
			t.Fatalf("read chunks: %v %v", err, resp)
		}
		raw, _ := json.Marshal(resp.Data["Get"])
		var got map[string][]row
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		rows := got[store.ChunkClass()]
		for _, r := range rows {
			if r.Source != source {
				continue
			}
			mod, _ := time.Parse(time.RFC3339Nano, r.ModifiedAt)
			idx, _ := time.Parse(time.RFC3339Nano, r.IndexedAt)
			out[r.Path] = append(out[r.Path], retrieval.Chunk{Source: r.Source, Kind: r.Kind, Path: r.Path, Symbol: r.Symbol,
				Signature: r.Signature, Content: r.Content, StartLine: r.StartLine, EndLine: r.EndLine, URL: r.URL,
				Author: r.Author, Version: r.Version, ModifiedAt: mod.UTC(), IndexedAt: idx.UTC()})
		}
		if len(rows) < 1000 {
			break
		}
		after = rows[len(rows)-1].Additional.ID
	}
	for _, cs := range out {
		sort.Slice(cs, func(i, j int) bool { return cs[i].StartLine < cs[j].StartLine })
	}
	return out
}

// TestSyncExportFolder indexes a folder of HTML exports: an edited file is
// split again, an unchanged one is not, a deleted one is removed.
func TestSyncExportFolder(t *testing.T) {
	dir := t.TempDir()
	orig, err := os.ReadFile(fixtures + "/export/OPS/Deploy-runbook_98391.html")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Deploy-runbook_98391.html", string(orig))
	write("Copy_98400.html", string(orig))
	write("index.html", "<html><body><h1>Operations</h1></body></html>") // no main-content: not a page
	emb := &countingEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, emb.Name())
	ix := &ingest.Indexer{Store: store, Embedder: emb, Log: testLog(t), Now: func() time.Time { return now }}
	src := &confluence.ExportSource{Dir: dir}
	set := ingest.PageSet{ID: "docs:exported", Pages: src, Settings: src.Settings()}
	ctx := context.Background()

	st, err := ix.IndexPages(ctx, set, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != 2 || st.Fetched != 2 || st.Chunks != 10 {
		t.Errorf("first sync %+v, want 2 pages fetched, 10 sections", st)
	}
	write("Copy_98400.html", strings.Replace(string(orig), "2024-03-12: image with a bad config map.", "2024-03-12: a bad config map.", 1))
	os.Remove(filepath.Join(dir, "Deploy-runbook_98391.html"))
	emb.take()
	st, err = ix.IndexPages(ctx, set, false)
	if err != nil {
		t.Fatal(err)
	}
	// The copy is split again: its Rollback section is new text, the other
	// 4 keep their vectors; the deleted file's 5 sections are deleted.
	want := ingest.PageStats{Source: "docs:exported", Pages: 1, Fetched: 1, Removed: 1, Chunks: 5, Embedded: 1, Reused: 4, Deleted: 5}
	if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
		t.Errorf("second sync (-want +got):\n%s", diff)
	}
	got := storedPages(t, store, "docs:exported")
	if len(got) != 1 || len(got["Copy_98400.html"]) != 5 {
		t.Errorf("stored pages %v, want only Copy_98400.html with 5 sections", keys(got))
	}
	if st, err := ix.IndexPages(ctx, set, false); err != nil || st.Fetched != 0 || st.Embedded != 0 || st.Chunks != 5 {
		t.Errorf("unchanged re-sync %+v (%v), want nothing fetched", st, err)
	}
}

func keys(m map[string][]retrieval.Chunk) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// deletingSource deletes a page on the server between listing and fetching.
type deletingSource struct {
	*confluence.Source
	srv *confluencetest.Server
	id  string
}

func (d deletingSource) FetchPages(ctx context.Context, refs []ingest.PageRef, fn func(ingest.Page) error) error {
	d.srv.Delete(d.id)
	return d.Source.FetchPages(ctx, refs, fn)
}

// TestSyncPageGoneBeforeFetch: a page listed with a new version but deleted
// before its body is fetched is removed like any deleted page.
func TestSyncPageGoneBeforeFetch(t *testing.T) {
	r := newRig(t, confluence.Cloud, confluence.Scope{})
	r.mustSync(t)
	p, _ := r.srv.Get("98394")
	p.Version++
	r.srv.Put(p)
	r.set.Pages = deletingSource{Source: r.src, srv: r.srv, id: "98394"}
	st := r.mustSync(t)
	want := ingest.PageStats{Source: "confluence:ops", Pages: allPages - 1, Removed: 1, Chunks: allSections - certSections, Deleted: certSections}
	if diff := cmp.Diff(want, st, ignoreDuration); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if got := storedPages(t, r.store, "confluence:ops"); len(got["OPS/Certificate rotation"]) != 0 {
		t.Errorf("Certificate rotation still has %d sections", len(got["OPS/Certificate rotation"]))
	}
}
