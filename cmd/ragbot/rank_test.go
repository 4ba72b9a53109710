package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/eval"
	"github.com/ragbot/ragbot/retrieval/openai"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// updateRank rewrites the ranking goldens. Its own name, not -update, so
// that it cannot clash with another golden test of this package.
var updateRank = flag.Bool("update-rank", false, "rewrite testdata/rank/golden/* and testdata/rank/rank_stats.golden")

const rankDir = "../../testdata/rank"

// TestRankE2E is the end-to-end layer of the ranking regression tests
// (after zoekt's internal/e2e/e2e_rank_test.go; README, "Reproducing"): it indexes
// the pinned fixture corpus of testdata/rank (a git repo of Go, Python,
// TypeScript, a doc and a changelog, plus an OpenAPI spec) into a real
// Weaviate, runs every question of testdata/rank/questions.jsonl through
// the default retrieval, and compares
//   - one golden per question: the coverage decision and the top 5, the
//     expected location (from the questions file, never from our output)
//     marked with **;
//   - rank_stats.golden: recall@1, recall@5 and MRR@10 per kind, and the
//     no-coverage rates. The test fails when a kind's recall@1 or recall@5
//     drops below the committed figures, and on any other golden change
//     (run with -update-rank and review the diff as code).
//
// Among the questions is a BM25 trap (README, "Reproducing"): Service.Cancel exists
// in orders and in subscriptions; the question names the package, and the
// named one must come first (R01, R02).
func TestRankE2E(t *testing.T) {
	repo, _ := gitRepo(t, readTree(t, filepath.Join(rankDir, "repo")))
	spec, err := filepath.Abs(filepath.Join(rankDir, "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeRankConfig(t, repo, spec)
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	qs, err := eval.LoadFiles([]string{filepath.Join(rankDir, "questions.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	a, err := openApp(context.Background(), commonFlags{config: cfg}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	asker, _ := a.pipeline(context.Background())

	var outs []eval.Outcome
	for _, q := range qs {
		src, ok := a.cfg.SourceNamed(q.Corpus)
		if !ok {
			t.Fatalf("question %s: corpus %q is not in the test config", q.ID, q.Corpus)
		}
		hits, ev, err := asker.Assess(context.Background(), retrieval.Request{Question: q.Question, Sources: []string{src.SourceID()}})
		if err != nil {
			t.Fatalf("question %s: %v", q.ID, err)
		}
		o := eval.Outcome{Question: q, Results: eval.Results(hits, 10), Refused: ev.Decide(asker.Thresholds) == retrieval.NoCoverage}
		outs = append(outs, o)
		checkGolden(t, filepath.Join(rankDir, "golden", q.ID+".txt"), questionGolden(o, hits, ev))
	}
	rep := eval.Score(outs)
	statsPath := filepath.Join(rankDir, "rank_stats.golden")
	got := rankStats(rep)
	if base, err := os.ReadFile(statsPath); err == nil && !*updateRank {
		for _, drop := range recallDrops(string(base), got) {
			t.Errorf("rank_stats: %s", drop)
		}
	}
	checkGolden(t, statsPath, got)
	// The BM25 trap, asserted on its own so that -update-rank cannot bless it.
	for _, id := range []string{"R01", "R02"} {
		if rep.Ranks[id] != 1 {
			t.Errorf("%s: the named package's Service.Cancel is at rank %d, want 1", id, rep.Ranks[id])
		}
	}
}

// readTree reads every file under dir into a map keyed by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func writeRankConfig(t *testing.T, repo, spec string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - {name: shop, kind: git, path: %s}
  - {name: shop-api, kind: openapi, path: %s}
`, weaviatetest.URL(t), weaviatetest.ClassName(), repo, spec)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// questionGolden renders one question: the coverage decision, then the top
// 5 as "rank path:start-end symbol", the ones matching an expected location
// wrapped in **.
func questionGolden(o eval.Outcome, hits []retrieval.Hit, ev retrieval.Evidence) string {
	q := o.Question
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] %s\n", q.ID, q.Kind, q.Question)
	for _, e := range q.Expect {
		if e.Method != "" {
			fmt.Fprintf(&b, "want %s %s\n", e.Method, e.Path)
		} else {
			fmt.Fprintf(&b, "want %s:%d-%d %s\n", e.Path, e.StartLine, e.EndLine, e.Symbol)
		}
	}
	switch {
	case !o.Refused:
		b.WriteString("coverage: covered\n")
	case ev.Missing != "":
		fmt.Fprintf(&b, "coverage: no_coverage (missing %q)\n", ev.Missing)
	default:
		b.WriteString("coverage: no_coverage\n")
	}
	for i, r := range o.Results {
		if i == 5 {
			break
		}
		line := fmt.Sprintf("%d %s:%d-%d %s", i+1, r.Path, r.StartLine, r.EndLine, hits[i].Chunk.Symbol)
		if eval.Rank(q, []eval.Result{r}) == 1 {
			line = "**" + line + "**"
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// rankStats renders the report as rank_stats.golden.
func rankStats(rep eval.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %3s %9s %9s %7s\n", "kind", "n", "recall@1", "recall@5", "MRR@10")
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	line := func(k string, m eval.Metrics) {
		fmt.Fprintf(&b, "%-14s %3d %9.3f %9.3f %7.3f\n", k, m.Questions, m.RecallAt1, m.RecallAt5, m.MRRAt10)
	}
	for _, k := range kinds {
		line(k, rep.ByKind[k])
	}
	line("all", rep.Metrics)
	if rep.NoCoverageRate != nil {
		fmt.Fprintf(&b, "no_coverage_rate %.3f (%d unanswerable), wrong_refusal_rate %.3f\n",
			*rep.NoCoverageRate, rep.Unanswerable, *rep.WrongRefusalRate)
	}
	return b.String()
}

var statsLineRe = regexp.MustCompile(`(?m)^(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$`)

// recallDrops compares two rank_stats texts and describes every kind whose
// recall@1 or recall@5 is lower in got than in base.
func recallDrops(base, got string) []string {
	parse := func(s string) map[string][2]float64 {
		m := map[string][2]float64{}
		for _, f := range statsLineRe.FindAllStringSubmatch(s, -1) {
			r1, _ := strconv.ParseFloat(f[3], 64)
			r5, _ := strconv.ParseFloat(f[4], 64)
			m[f[1]] = [2]float64{r1, r5}
		}
		return m
	}
	was, now := parse(base), parse(got)
	var drops []string
	for k, w := range was {
		n := now[k]
		if n[0] < w[0] || n[1] < w[1] {
			drops = append(drops, fmt.Sprintf("%s: recall@1 %.3f -> %.3f, recall@5 %.3f -> %.3f (below the committed baseline)", k, w[0], n[0], w[1], n[1]))
		}
	}
	sort.Strings(drops)
	return drops
}

// checkGolden compares got with the file at path, or writes it with -update-rank.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateRank {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v (run go test ./cmd/ragbot -run TestRankE2E -update-rank)", path, err)
		return
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s changed (-want +got); if intended, run with -update-rank and review:\n%s", filepath.Base(path), diff)
	}
}

// TestAskSummaryE2E runs Ask with the LLM summary on the fixture corpus
// against a fake OpenAI-compatible chat server: a summary that cites the
// snippets and names only what they contain is kept; one naming an
// identifier that no snippet has is dropped and the snippets stand alone.
func TestAskSummaryE2E(t *testing.T) {
	repo, _ := gitRepo(t, readTree(t, filepath.Join(rankDir, "repo")))
	spec, _ := filepath.Abs(filepath.Join(rankDir, "openapi.yaml"))
	cfg := writeRankConfig(t, repo, spec)
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	a, err := openApp(context.Background(), commonFlags{config: cfg}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	tests := []struct {
		name, reply string
		wantKept    bool
	}{
		{"grounded", "Service.Cancel in orders/service.go refunds paid orders before marking them cancelled [1].", true},
		{"hallucinated", "OrderManager.Abort refunds the order [1].", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"index": 0,
					"message": map[string]string{"role": "assistant", "content": tt.reply}}}})
			}))
			defer srv.Close()
			sum, err := openai.NewSummarizer(openai.SummaryConfig{BaseURL: srv.URL + "/v1", Model: "test-chat"})
			if err != nil {
				t.Fatal(err)
			}
			asker, _ := a.pipeline(context.Background())
			asker.Summarizer = sum
			ans, err := asker.Ask(context.Background(), retrieval.Request{Question: "where is Service.Cancel in the orders package?"})
			if err != nil {
				t.Fatal(err)
			}
			if ans.Coverage != retrieval.Covered || len(ans.Snippets) == 0 {
				t.Fatalf("coverage %s with %d snippets", ans.Coverage, len(ans.Snippets))
			}
			if kept := ans.Summary == tt.reply; kept != tt.wantKept {
				t.Errorf("summary %q (dropped: %s), want kept=%v", ans.Summary, ans.SummaryDropped, tt.wantKept)
			}
		})
	}
}

// TestEvalCLI runs `ragbot eval` on the fixture corpus with its unanswerable
// questions and checks the refusal rates, the calibration and the bench
// figures in the JSON report, and that ids must be unique across files.
func TestEvalCLI(t *testing.T) {
	repo, _ := gitRepo(t, readTree(t, filepath.Join(rankDir, "repo")))
	spec, _ := filepath.Abs(filepath.Join(rankDir, "openapi.yaml"))
	cfg := writeRankConfig(t, repo, spec)
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	questions := filepath.Join(rankDir, "questions.jsonl")
	code, out, errOut := ragbot(t, "eval", "--config", cfg, "--json", "--bench", "--bench-runs", "1", questions)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s", code, errOut)
	}
	var rep eval.Output
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	if rep.Unanswerable != 3 || rep.NoCoverageRate == nil || *rep.NoCoverageRate != 1 || *rep.WrongRefusalRate != 0 {
		t.Errorf("unanswerable %d, no_coverage_rate %v, wrong_refusal_rate %v; want 3, 1, 0", rep.Unanswerable, rep.NoCoverageRate, rep.WrongRefusalRate)
	}
	if c := rep.Calibration; c == nil || c.Answerable != 20 || c.Unanswerable != 3 ||
		c.Band.Suggested.Right < c.Band.Configured.Right ||
		c.Band.Suggested.WrongAnswerable+c.Band.Suggested.WrongUnanswerable > c.Band.Configured.WrongAnswerable+c.Band.Configured.WrongUnanswerable {
		t.Errorf("calibration %+v, want 20 answerable, 3 unanswerable and a band no worse than the configured one", c)
	}
	if l := rep.Latency; l == nil || l.Calls != 23 || l.P50 <= 0 || l.P95 < l.P50 {
		t.Errorf("latency %+v, want 23 calls with p50 <= p95", l)
	}
	if rep.Embedder != embed.OfflineName || rep.Mode != retrieval.ModeHybridRerank {
		t.Errorf("embedder %q mode %q", rep.Embedder, rep.Mode)
	}
	// --bench-askers: 4 askers at once, each a pass over the 23 questions,
	// here in every source.
	code, out, errOut = ragbot(t, "eval", "--config", cfg, "--json", "--bench", "--bench-runs", "1", "--bench-askers", "4", "--bench-all-sources", questions)
	var conc eval.Output
	if code != 0 || json.Unmarshal([]byte(out), &conc) != nil {
		t.Fatalf("eval --bench-askers 4: exit %d\n%s%s", code, out, errOut)
	}
	if l := conc.Latency; l == nil || l.Calls != 4*23 || l.Askers != 4 || !l.AllSources || l.P50 <= 0 || l.P95 < l.P50 || l.PerSecond <= 0 {
		t.Errorf("latency with 4 askers %+v, want 92 calls, p50 <= p95, calls/s > 0, all sources", l)
	}
	code, out, _ = ragbot(t, "eval", "--config", cfg, questions)
	for _, want := range []string{"answer band (embedder offline-hash-v1-384; 20 answerable, 3 unanswerable questions)",
		"  configured min_similarity ", "  suggested  min_similarity ", "no coverage floors (configured band"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("eval text (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	// --depth: each question ranked among 20 candidates, recall@k rising
	// with k, and a question in the first 5 of the answer found there too.
	cands := filepath.Join(t.TempDir(), "candidates.jsonl")
	code, out, errOut = ragbot(t, "eval", "--config", cfg, "--json", "--depth", "20", "--candidates", cands, questions)
	var deep eval.Output
	if code != 0 || json.Unmarshal([]byte(out), &deep) != nil || deep.Depth == nil {
		t.Fatalf("eval --depth 20: exit %d, no depth report\n%s%s", code, out, errOut)
	}
	if d := deep.Depth; !slices.Equal(d.Ks, []int{5, 10, 20}) || d.All.Questions != 20 || !slices.IsSorted(d.All.Recall) {
		t.Errorf("depth report: ks %v, %d questions, recall %v; want [5 10 20], 20, rising", d.Ks, d.All.Questions, d.All.Recall)
	}
	for id, r := range rep.Ranks {
		if r >= 1 && r <= 5 && (deep.Depth.Ranks[id] < 1 || deep.Depth.Ranks[id] > 20) {
			t.Errorf("%s: rank %d in the answer, %d among 20 candidates", id, r, deep.Depth.Ranks[id])
		}
	}
	// --candidates: a line per answerable question, its rank as --depth's,
	// and the candidates' scores filled.
	data, err := os.ReadFile(cands)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 20 {
		t.Fatalf("--candidates wrote %d lines, want 20", len(lines))
	}
	for _, l := range lines {
		var line struct {
			ID         string           `json:"id"`
			Rank       int              `json:"rank"`
			Candidates []eval.Candidate `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("--candidates line %q: %v", l, err)
		}
		if line.Rank != deep.Depth.Ranks[line.ID] || len(line.Candidates) == 0 || len(line.Candidates) > 20 {
			t.Errorf("%s: rank %d (--depth %d), %d candidates", line.ID, line.Rank, deep.Depth.Ranks[line.ID], len(line.Candidates))
			continue
		}
		if line.Rank > 0 && !line.Candidates[line.Rank-1].Match {
			t.Errorf("%s: candidate %d is not marked as the match", line.ID, line.Rank)
		}
		if c := line.Candidates[0]; c.Similarity == 0 || c.TermCoverage == 0 || !strings.Contains(c.Debug, "hybrid(") {
			t.Errorf("%s: first candidate's scores not filled: %+v", line.ID, c)
		}
	}
	if code, _, errOut := ragbot(t, "eval", "--config", cfg, "--candidates", cands, questions); code != 2 || !strings.Contains(errOut, "--candidates needs --depth") {
		t.Errorf("eval --candidates without --depth: exit %d, stderr %s", code, errOut)
	}
	// Questions of a corpus that is not configured are counted apart: the
	// answerable and unanswerable counts of the rates are the configured
	// corpora's.
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	qdata, err := os.ReadFile(questions)
	if err != nil {
		t.Fatal(err)
	}
	qdata = append(qdata, []byte(`{"id":"N1","corpus":"nosuch","kind":"identifier","question":"where is Foo?","expect":[{"path":"a.go","start_line":1,"end_line":2}]}
{"id":"N2","corpus":"nosuch","kind":"refusal","question":"where is Bar?","expect":[]}
`)...)
	if err := os.WriteFile(mixed, qdata, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = ragbot(t, "eval", "--config", cfg, "--json", mixed)
	var mixedRep eval.Output
	if code != 0 || json.Unmarshal([]byte(out), &mixedRep) != nil || mixedRep.Calibration == nil ||
		mixedRep.Calibration.Answerable != 20 || mixedRep.Calibration.Unanswerable != 3 {
		t.Errorf("eval with an unconfigured corpus: exit %d, calibration %+v; want 20 answerable, 3 unanswerable\n%s", code, mixedRep.Calibration, errOut)
	}
	if code, _, errOut := ragbot(t, "eval", "--config", cfg, "--depth", "3", questions); code != 2 || !strings.Contains(errOut, "--depth 3, want 5..200") {
		t.Errorf("eval --depth 3: exit %d, stderr %s", code, errOut)
	}
	if code, _, errOut := ragbot(t, "eval", "--config", cfg, questions, questions); code != 1 || !strings.Contains(errOut, `question id "R01" is already used in`) {
		t.Errorf("eval with the same file twice: exit %d, stderr %s", code, errOut)
	}
}

// TestOpenAIEmbedderCLI indexes and answers with embedder kind openai
// against a fake OpenAI-compatible /v1/embeddings (serving the offline
// embedder's vectors), then checks that the collection, which records
// "openai:fake-embed:384", refuses the offline embedder and says how to fix
// it.
func TestOpenAIEmbedderCLI(t *testing.T) {
	var calls atomic.Int32 // ingest embeds two batches at once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-cli-test" ||
			json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "fake-embed" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		calls.Add(1)
		vecs, _ := embed.NewOffline().Embed(r.Context(), req.Input)
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
	}))
	t.Cleanup(srv.Close) // after the collection is dropped through it (cleanups run last-in first-out)
	t.Setenv("RAGBOT_TEST_EMBED_KEY", "sk-cli-test")
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	base := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: httpx, kind: git, path: %s}\n",
		weaviatetest.URL(t), weaviatetest.ClassName(), repo)
	write := func(name, yaml string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	openaiCfg := write("openai.yaml", base+fmt.Sprintf("embedder: {kind: openai, base_url: %s/v1, model: fake-embed, api_key_env: RAGBOT_TEST_EMBED_KEY, batch_size: 2}\n", srv.URL))
	offlineCfg := write("offline.yaml", base)
	t.Cleanup(func() { dropCollection(t, openaiCfg) })

	if code, _, errOut := ragbot(t, "index", "--config", openaiCfg); code != 0 {
		t.Fatalf("index with kind openai: exit %d\n%s", code, errOut)
	}
	code, out, errOut := ragbot(t, "ask", "--config", openaiCfg, "RetryOn503")
	if code != 0 || !strings.Contains(out, "httpx/retry.go:10-14  RetryOn503") {
		t.Errorf("ask with kind openai (exit %d):\n%s%s", code, out, errOut)
	}
	if n := calls.Load(); n < 3 { // the probe, the chunks in batches of 2, the question
		t.Errorf("the fake embeddings server got %d requests, want at least 3", n)
	}
	code, _, errOut = ragbot(t, "ask", "--config", offlineCfg, "RetryOn503")
	if code != 1 || !strings.Contains(errOut, `holds vectors from embedder "openai:fake-embed:384"`) || !strings.Contains(errOut, "ragbot index --recreate") {
		t.Errorf("ask with another embedder: exit %d, stderr:\n%s\nwant the mismatch and the fix", code, errOut)
	}
}

// TestAskNotSureList asks a plain-words question on the fixture corpus with
// answer thresholds no hit can clear and no floors, so that the answer is
// "not sure": it holds retrieval.NotSureListed closest matches in the
// ranking's order, the text shows the first retrieval.NotSureMatches with
// their code and lists the others by their header lines.
func TestAskNotSureList(t *testing.T) {
	repo, _ := gitRepo(t, readTree(t, filepath.Join(rankDir, "repo")))
	spec, _ := filepath.Abs(filepath.Join(rankDir, "openapi.yaml"))
	cfg := writeRankConfig(t, repo, spec)
	t.Cleanup(func() { dropCollection(t, cfg) })
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, fmt.Sprintf("retrieval:\n  thresholds:\n    %s: {min_similarity: 0.99, min_term_coverage: 0.99, floor_similarity: 0, floor_term_coverage: 0, max_absent_share: 0}\n", embed.OfflineName)...)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	const q = "how do we send the customer an email when their payment goes through?"
	code, out, errOut := ragbot(t, "ask", "--config", cfg, "--json", q)
	var ans retrieval.Answer
	if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
		t.Fatalf("ask --json: exit %d\n%s%s", code, out, errOut)
	}
	if ans.Coverage != retrieval.NotSure || len(ans.Snippets) != retrieval.NotSureListed {
		t.Fatalf("coverage %s with %d snippets, want %s with %d", ans.Coverage, len(ans.Snippets), retrieval.NotSure, retrieval.NotSureListed)
	}
	code, out, errOut = ragbot(t, "ask", "--config", cfg, q)
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s", code, errOut)
	}
	more := bot.MoreTitle(retrieval.NotSure, retrieval.NotSureListed-retrieval.NotSureMatches) + ":\n"
	head, list, ok := strings.Cut(out, more)
	if !ok || !strings.HasPrefix(out, bot.NotSureTitle) {
		t.Fatalf("ask text lacks the title or %q:\n%s", more, out)
	}
	for i, s := range ans.Snippets {
		line := fmt.Sprintf("[%d] %s  ", i+1, s.Label())
		shown, listed := strings.Contains(head, line), strings.Contains(list, line)
		if i < retrieval.NotSureMatches && (!shown || !strings.Contains(head, strings.SplitN(s.Text, "\n", 2)[0])) {
			t.Errorf("match %d (%s) not shown with its code above the list:\n%s", i+1, s.Label(), head)
		}
		if i >= retrieval.NotSureMatches && (!listed || shown) {
			t.Errorf("match %d (%s) not listed after %q", i+1, s.Label(), more)
		}
	}
	// --explain scores every listed match, not only the top_k (5) the
	// decision reads.
	code, out, errOut = ragbot(t, "ask", "--config", cfg, "--explain", q)
	if n := strings.Count(out, "    score: "); code != 0 || n != retrieval.NotSureListed || strings.Contains(out, "sim(0.000) terms(0.00)") {
		t.Errorf("ask --explain: exit %d, %d score lines (want %d), or a match without scores:\n%s%s", code, n, retrieval.NotSureListed, out, errOut)
	}
	// eval counts, of the answerable questions answered "not sure" (those
	// naming no symbol, file or literal of the corpus, here), those with a
	// wanted chunk among the matches shown with code and among all listed.
	code, out, errOut = ragbot(t, "eval", "--config", cfg, "--json", filepath.Join(rankDir, "questions.jsonl"))
	var rep eval.Output
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.NotSure == nil {
		t.Fatalf("eval --json: exit %d, no not_sure_found\n%s%s", code, out, errOut)
	}
	var want eval.NotSureFound
	for _, id := range rep.Report.NotSure {
		r, answerable := rep.Ranks[id]
		if !answerable {
			continue
		}
		want.Answerable++
		if r >= 1 && r <= retrieval.NotSureMatches {
			want.WithCode++
		}
		if r >= 1 && r <= retrieval.NotSureListed {
			want.Listed++
		}
	}
	// (TestNotSureFound in retrieval/eval counts matches found only among
	// the listed ones, which this corpus no longer has.)
	if *rep.NotSure != want || want.Answerable < 5 {
		t.Errorf("not_sure_found %+v, want %+v (at least 5)", *rep.NotSure, want)
	}
}
