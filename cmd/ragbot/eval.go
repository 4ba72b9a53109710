package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/eval"
)

const evalAbout = `ragbot eval runs question sets against the index: JSONL, one question per
line, {"id", "corpus", "kind", "question", "expect": [{"path", "start_line",
"end_line"} or {"method", "path"} for an endpoint]} (the format of the
public eval set; testdata/eval/unanswerable.jsonl is one). It prints
recall@1, recall@5 and MRR@10, overall and per kind, and the misses. A
question's corpus must equal a configured source's name; each question is
searched in its own corpus only.

Questions with "expect": [] are unanswerable. With any of them, eval also
calibrates the coverage decision for the configured embedder, ready to paste
under retrieval.thresholds when it finds better values:
  - the answer band (min_similarity, min_term_coverage): how many questions
    are answered outright rightly (a wanted chunk in the first 5) and
    wrongly (answerable ones whose answer misses it, unanswerable ones), and
    the band with the fewest wrong answers that keeps as many right ones,
    also chosen leave-one-corpus-out when there are several corpora;
  - the floors (floor_similarity, floor_term_coverage, max_absent_share):
    how often unanswerable questions get "no coverage" (no_coverage_rate)
    and answerable ones do (wrong_refusal_rate), and the floors refusing
    most at <= 5% wrong refusals, on all corpora and leave-one-corpus-out.

With --bench it then times Asker.Ask (retrieval, rerank and the coverage
decision, in this process, excluding start-up) for every question and
prints p50/p95/max in milliseconds, and the same for the absence check
alone (the words no indexed chunk holds, and typos, checked against the
sources' vocabularies), with its first call of the process apart.

With --depth N it also ranks every answerable question in a candidate list
of N results (the hybrid query fetches N instead of retrieval.candidates,
then lookups and rerank as usual) and prints recall@5/10/20/50/100/N by
kind and corpus: how many wanted chunks the first stage finds at all,
against how many the rerank places in the first 5. Weaviate's fused scores
are normalised over the hits returned, so the first 5 among N candidates
can differ a little from the answer's (recall@5 above); a list is shorter
than N when duplicates (the same content on two branches) are dropped. With --candidates FILE
it also writes, for each of those questions, its N candidates as one JSON
line: rank, location, whether it is a wanted one, the final score, the
score parts (debug: the fused hybrid score and each rerank bonus), BM25,
the cosine similarities of both vectors and the term coverage, so that a
rerank change can be tried on them offline (scripts/rescore-candidates.py).

With --without it leaves rerank features out, and with --expand it picks
the query expansions (retrieval.expansion), for ablation. Figures are
given per kind and, when the questions span several corpora, per corpus.

Question sets in this repository: testdata/eval/heldout/<set>/questions.jsonl
(hashicorp/raft, urllib3, axios; each set's fetch.sh fetches its corpus, and
scripts/bench-heldout.sh runs them all), testdata/eval/paraphrase/<set>/
questions.jsonl (questions in a newcomer's words over bbolt, requests and ws;
scripts/bench-paraphrase.sh) and testdata/eval/unanswerable.jsonl (questions
the public eval corpora cannot answer; README, "Retrieval quality").

Examples:
  ragbot eval --config heldout.yaml testdata/eval/heldout/raft/questions.jsonl
  ragbot eval --config heldout.yaml --mode bm25 --json testdata/eval/heldout/urllib3/questions.jsonl
  ragbot eval --config heldout.yaml --without coverage,literal testdata/eval/heldout/axios/questions.jsonl
  ragbot eval --config heldout.yaml --expand prf,wordnet testdata/eval/heldout/raft/questions.jsonl
  ragbot eval --config eval.yaml questions.jsonl testdata/eval/unanswerable.jsonl
  ragbot eval --config eval.yaml --bench questions.jsonl
  ragbot eval --config eval.yaml --depth 100 testdata/eval/paraphrase/*/questions.jsonl`

// evalOutput is what --json prints: eval.Report, plus the
// calibration and the latency when measured.
type evalOutput struct {
	eval.Report
	Mode     string `json:"mode"`
	Embedder string `json:"embedder"`
	// Family keys the printed thresholds: the embedder's name, or for the
	// static embedder "static", which still applies after a refinement.
	Family      string           `json:"embedder_family"`
	Calibration *calibrationJSON `json:"calibration,omitempty"`
	Latency     *latencyJSON     `json:"latency_ms,omitempty"`
	// NotSure counts the answerable questions answered "not sure" and how
	// many of them have a wanted chunk among the matches shown with code
	// (retrieval.NotSureMatches) and among all listed
	// (retrieval.NotSureListed); nil when there are none.
	NotSure *notSureJSON `json:"not_sure_found,omitempty"`
	// Depth is the candidate recall of --depth; nil without it.
	Depth *eval.DepthReport `json:"depth,omitempty"`
}

type notSureJSON struct {
	Answerable int `json:"answerable"`
	WithCode   int `json:"with_code"`
	Listed     int `json:"listed"`
}

type ratesJSON struct {
	MinSimilarity     float64 `json:"min_similarity"`
	MinTermCoverage   float64 `json:"min_term_coverage"`
	FloorSimilarity   float64 `json:"floor_similarity"`
	FloorTermCoverage float64 `json:"floor_term_coverage"`
	MaxAbsentShare    float64 `json:"max_absent_share"`
	NoCoverageRate    float64 `json:"no_coverage_rate"`
	WrongRefusalRate  float64 `json:"wrong_refusal_rate"`
	// SureWrongRate: unanswerable questions answered outright; NotSureRate:
	// answerable questions answered "not sure" (three-outcome rates only).
	SureWrongRate float64 `json:"sure_wrong_rate"`
	NotSureRate   float64 `json:"not_sure_rate"`
}

type calibrationJSON struct {
	// Answerable and Unanswerable count the questions of configured
	// corpora the rates below are shares of.
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// Configured: the three-outcome rates of the configured thresholds.
	Configured ratesJSON `json:"configured"`
	// Band: what the answer band decides (answered outright, right or
	// wrong) with the configured thresholds and with the suggested ones
	// (retrieval.CalibrateBand).
	Band bandJSON `json:"band"`
	// Floors: the configured band with the floors calibrated on every
	// question (retrieval.CalibrateFloors); nil when none meets the bound.
	Floors *ratesJSON `json:"floors,omitempty"`
	// LeaveOneCorpusOut: the configured band with floors calibrated
	// without each corpus, measured on it, by corpus and pooled; set when
	// two or more corpora have unanswerable questions.
	LeaveOneCorpusOut map[string]ratesJSON `json:"leave_one_corpus_out,omitempty"`
	Pooled            *ratesJSON           `json:"leave_one_corpus_out_pooled,omitempty"`
	// Evidence is what the coverage decision read for each question, by
	// question id, so a wrong answer or refusal can be triaged.
	Evidence map[string]retrieval.Evidence `json:"evidence"`
}

// bandJSON is the answer band's calibration: counts of questions
// answered outright (retrieval.BandRates) under the configured and the
// suggested thresholds.
type bandJSON struct {
	Configured bandRatesJSON `json:"configured"`
	Suggested  bandRatesJSON `json:"suggested"`
	// LeaveOneCorpusOut: the counts with each corpus under the band
	// suggested on the others (retrieval.BandLeaveOneCorpusOut); nil with
	// one corpus. Its thresholds are the configured ones.
	LeaveOneCorpusOut *bandRatesJSON `json:"leave_one_corpus_out,omitempty"`
}

type bandRatesJSON struct {
	MinSimilarity     float64 `json:"min_similarity"`
	MinTermCoverage   float64 `json:"min_term_coverage"`
	Right             int     `json:"answered_right"`              // answerable, a wanted chunk in the first 5
	WrongAnswerable   int     `json:"answered_wrong_answerable"`   // answerable, no wanted chunk in the first 5
	WrongUnanswerable int     `json:"answered_wrong_unanswerable"` // unanswerable
}

func bandRatesOf(r retrieval.BandRates) bandRatesJSON {
	return bandRatesJSON{MinSimilarity: r.Thresholds.MinSimilarity, MinTermCoverage: r.Thresholds.MinTermCoverage,
		Right: r.Right, WrongAnswerable: r.WrongAnswerable, WrongUnanswerable: r.WrongUnanswerable}
}

type latencyJSON struct {
	Calls int     `json:"calls"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
	// Weaviate requests per timed call: median and max, and the total by kind.
	RequestsP50    int            `json:"weaviate_requests_p50"`
	RequestsMax    int            `json:"weaviate_requests_max"`
	RequestsByKind map[string]int `json:"weaviate_requests_by_kind"`
	// Absence is the cost of the absence check alone (retrieval's
	// Asker.Absence, the first step of every Ask), timed after each timed
	// call; nil when no question was asked.
	Absence *absenceJSON `json:"absence_check,omitempty"`
}

// absenceJSON is the absence check's cost in milliseconds: per call after
// the warm-up pass, and the first call of the process, which parses the
// word lists and loads the sources' vocabularies.
type absenceJSON struct {
	Calls int     `json:"calls"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
	First float64 `json:"first"`
	// Fallback counts the timed calls whose scope had a source without a
	// vocabulary: their check is left to the search's document
	// frequencies, at no cost of its own and without typo correction.
	Fallback int `json:"fallback"`
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlags("eval", evalAbout, stderr)
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	mode := fs.String("mode", retrieval.ModeHybridRerank, "retrieval mode: "+strings.Join(retrieval.Modes, ", "))
	without := fs.String("without", "", "rerank features to leave out, comma-separated, for ablation: "+strings.Join(retrieval.RerankFeatures, ", ")+"; empty uses them all")
	expand := fs.String("expand", "", "query expansions to run, comma-separated, for ablation: "+strings.Join(retrieval.ExpansionKinds, ", ")+`, or "none"; empty uses retrieval.expansion of the config`)
	bench := fs.Bool("bench", false, "also time Asker.Ask for every question and print p50/p95/max")
	depth := fs.Int("depth", 0, fmt.Sprintf("also rank answerable questions among this many candidates (%d..%d) and print recall@k up to it; 0: off", eval.DepthKs[0], eval.MaxDepth))
	candFile := fs.String("candidates", "", "with --depth, write each answerable question's candidates with their scores to this JSONL `file`")
	benchRuns := fs.Int("bench-runs", 3, "with --bench, timed passes over the questions after one warm-up pass")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 {
		return fmt.Errorf("%w: eval needs at least one QUESTIONS.jsonl file", errUsage)
	}
	for _, f := range commaList(*without) {
		if !slices.Contains(retrieval.RerankFeatures, f) {
			return fmt.Errorf("%w: --without %q, want rerank features among %s", errUsage, f, strings.Join(retrieval.RerankFeatures, ", "))
		}
	}
	var expander *retrieval.Expander
	if *expand != "" && *expand != "none" {
		var err error
		if expander, err = retrieval.NewExpander(commaList(*expand)); err != nil {
			return fmt.Errorf("%w: --expand: %v", errUsage, err)
		}
	}
	if !slices.Contains(retrieval.Modes, *mode) {
		return fmt.Errorf("%w: --mode %q, want one of %s", errUsage, *mode, strings.Join(retrieval.Modes, ", "))
	}
	if *depth != 0 && (*depth < eval.DepthKs[0] || *depth > eval.MaxDepth) {
		return fmt.Errorf("%w: --depth %d, want %d..%d (or 0: off)", errUsage, *depth, eval.DepthKs[0], eval.MaxDepth)
	}
	if *candFile != "" && *depth == 0 {
		return fmt.Errorf("%w: --candidates needs --depth", errUsage)
	}
	if *benchRuns < 1 {
		return fmt.Errorf("%w: --bench-runs %d, want at least 1", errUsage, *benchRuns)
	}
	qs, err := loadQuestions(fs.Args())
	if err != nil {
		return err
	}
	requests := newRequestCounter()
	cf.observe = requests.observe
	a, err := openApp(ctx, cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	asker, _ := a.pipeline(ctx)
	asker.Mode = *mode
	asker.Without = commaList(*without)
	if *expand != "" {
		asker.Expand = expander
	}
	out := evalOutput{Mode: *mode, Embedder: asker.Embedder.Name(), Family: embedderFamily(asker.Embedder)}
	// The first absence check of the process parses the word lists and
	// loads the vocabularies: timed before anything else reads them.
	firstAbsence := -1.0
	if *bench {
		for _, q := range qs {
			if req, ok := evalRequest(a.cfg, q); ok {
				start := time.Now()
				if _, err := asker.Absence(ctx, req); err != nil {
					return fmt.Errorf("question %s: %w", q.ID, err)
				}
				firstAbsence = millis(time.Since(start))
				break
			}
		}
	}
	var outs []eval.Outcome
	var answerable, unanswerable []retrieval.Evidence
	var labelled []retrieval.LabelledEvidence
	evidence := map[string]retrieval.Evidence{}
	for _, q := range qs {
		req, ok := evalRequest(a.cfg, q)
		if !ok {
			outs = append(outs, eval.Outcome{Question: q, NoCorpus: true})
			continue
		}
		hits, ev, err := asker.Assess(ctx, req)
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		cov := ev.Decide(asker.Thresholds)
		res := results(hits, 10)
		outs = append(outs, eval.Outcome{Question: q, Results: res, Refused: cov == retrieval.NoCoverage, NotSure: cov == retrieval.NotSure})
		evidence[q.ID] = ev
		rank := eval.Rank(q, res)
		labelled = append(labelled, retrieval.LabelledEvidence{Corpus: q.Corpus, Answerable: len(q.Expect) > 0, Found: rank >= 1 && rank <= 5, Evidence: ev})
		if len(q.Expect) == 0 {
			unanswerable = append(unanswerable, ev)
		} else {
			answerable = append(answerable, ev)
		}
	}
	out.Report = eval.Score(outs)
	for _, o := range outs {
		if !o.NotSure || len(o.Question.Expect) == 0 {
			continue
		}
		if out.NotSure == nil {
			out.NotSure = &notSureJSON{}
		}
		out.NotSure.Answerable++
		if r := out.Ranks[o.Question.ID]; r >= 1 && r <= retrieval.NotSureMatches {
			out.NotSure.WithCode++
		}
		if r := out.Ranks[o.Question.ID]; r >= 1 && r <= retrieval.NotSureListed {
			out.NotSure.Listed++
		}
	}
	if len(unanswerable) > 0 {
		conf, best := retrieval.CalibrateBand(asker.Thresholds, labelled)
		var loco *bandRatesJSON
		if r, ok := retrieval.BandLeaveOneCorpusOut(asker.Thresholds, labelled); ok {
			j := bandRatesOf(r)
			loco = &j
		}
		out.Calibration = &calibrationJSON{
			Answerable: len(answerable), Unanswerable: len(unanswerable),
			Configured: ratesOf(retrieval.RatesAt(asker.Thresholds, answerable, unanswerable)),
			Band:       bandJSON{Configured: bandRatesOf(conf), Suggested: bandRatesOf(best), LeaveOneCorpusOut: loco},
			Evidence:   evidence,
		}
		if f, ok := retrieval.CalibrateFloors(asker.Thresholds, answerable, unanswerable); ok {
			r := ratesOf(f)
			out.Calibration.Floors = &r
		}
		if by, pooled := retrieval.LeaveOneCorpusOut(asker.Thresholds, labelled); len(by) > 1 {
			out.Calibration.LeaveOneCorpusOut = map[string]ratesJSON{}
			for c, r := range by {
				out.Calibration.LeaveOneCorpusOut[c] = ratesOf(r)
			}
			p := ratesOf(pooled)
			out.Calibration.Pooled = &p
		}
	}
	if *depth > 0 {
		if out.Depth, err = rankDeep(ctx, a, asker, qs, *depth, *candFile); err != nil {
			return err
		}
	}
	if *bench {
		if out.Latency, err = benchAsk(ctx, a, asker, qs, *benchRuns, requests, firstAbsence); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printReport(stdout, out)
	return nil
}

// loadQuestions reads every file; ids must be unique across them.
func loadQuestions(files []string) ([]eval.Question, error) {
	var all []eval.Question
	from := map[string]string{}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		qs, err := eval.Load(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, q := range qs {
			if prev, dup := from[q.ID]; dup {
				return nil, fmt.Errorf("%s: question id %q is already used in %s", name, q.ID, prev)
			}
			from[q.ID] = name
		}
		all = append(all, qs...)
	}
	return all, nil
}

func results(hits []retrieval.Hit, n int) []eval.Result {
	res := make([]eval.Result, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		c := h.Chunk
		res = append(res, eval.Result{Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind})
	}
	return res
}

func ratesOf(r retrieval.Rates) ratesJSON {
	th := r.Thresholds
	return ratesJSON{MinSimilarity: th.MinSimilarity, MinTermCoverage: th.MinTermCoverage,
		FloorSimilarity: th.FloorSimilarity, FloorTermCoverage: th.FloorTermCoverage, MaxAbsentShare: th.MaxAbsentShare,
		NoCoverageRate: r.NoCoverage, WrongRefusalRate: r.WrongRefusal, SureWrongRate: r.SureWrong, NotSureRate: r.NotSure}
}

// evalRequest is q as a request searched in its own corpus only (README,
// "Measuring"), or false when its corpus is not a configured source.
func evalRequest(cfg *config.Config, q eval.Question) (retrieval.Request, bool) {
	src, ok := cfg.SourceNamed(q.Corpus)
	if !ok {
		return retrieval.Request{}, false
	}
	return retrieval.Request{Question: q.Question, Sources: []string{src.SourceID()}}, true
}

// rankDeep ranks each answerable question among depth candidates
// (Asker.RetrieveScored with limit depth) and scores them
// (eval.ScoreDepth); with candFile set it writes each question's
// candidates there (candidateLine).
func rankDeep(ctx context.Context, a *app, asker *retrieval.Asker, qs []eval.Question, depth int, candFile string) (*eval.DepthReport, error) {
	var enc *json.Encoder
	if candFile != "" {
		f, err := os.Create(candFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		defer w.Flush()
		enc = json.NewEncoder(w)
	}
	var outs []eval.Outcome
	for _, q := range qs {
		if len(q.Expect) == 0 {
			continue
		}
		req, ok := evalRequest(a.cfg, q)
		if !ok {
			outs = append(outs, eval.Outcome{Question: q, NoCorpus: true})
			continue
		}
		hits, err := asker.RetrieveScored(ctx, req, depth)
		if err != nil {
			return nil, fmt.Errorf("--depth: question %s: %w", q.ID, err)
		}
		res := results(hits, depth)
		outs = append(outs, eval.Outcome{Question: q, Results: res})
		if enc != nil {
			if err := enc.Encode(candidateLine(q, hits, res)); err != nil {
				return nil, fmt.Errorf("--candidates: %w", err)
			}
		}
	}
	rep := eval.ScoreDepth(depth, outs)
	return &rep, nil
}

// candidateJSON is one candidate of a --candidates line.
type candidateJSON struct {
	Rank      int    `json:"rank"` // 1-based
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol"`
	Kind      string `json:"kind"`  // code, doc or api
	Match     bool   `json:"match"` // matches an expected location (eval.Matches)
	// Score is the reranked score; Debug its parts: hybrid(fused score)
	// bm25(raw) vec(cosine), then each rerank bonus as name:+w.
	Score        float64 `json:"score"`
	Debug        string  `json:"debug"`
	BM25         float64 `json:"bm25"`
	Similarity   float64 `json:"similarity"`    // lexical vector cosine
	Semantic     float64 `json:"semantic"`      // semantic vector cosine (0: none)
	TermCoverage float64 `json:"term_coverage"` // IDF-weighted share of the question's terms, 0..1
}

// candidateLine is one line of --candidates: the question and its
// candidates, best first, with the rank of the first wanted one (0: none).
func candidateLine(q eval.Question, hits []retrieval.Hit, res []eval.Result) any {
	cands := make([]candidateJSON, len(res))
	for i, h := range hits[:len(res)] {
		c := h.Chunk
		cands[i] = candidateJSON{Rank: i + 1, Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind,
			Match: eval.Rank(q, res[i:i+1]) == 1, Score: h.Score, Debug: h.Debug, BM25: h.BM25,
			Similarity: h.Similarity, Semantic: h.Semantic, TermCoverage: h.TermCoverage}
	}
	return struct {
		ID         string          `json:"id"`
		Corpus     string          `json:"corpus"`
		Kind       string          `json:"kind"`
		Question   string          `json:"question"`
		Rank       int             `json:"rank"`
		Candidates []candidateJSON `json:"candidates"`
	}{q.ID, q.Corpus, q.Kind, q.Question, eval.Rank(q, res), cands}
}

// benchAsk times Asker.Ask on every question with a corpus: one warm-up
// pass, then runs timed passes. Percentiles are nearest-rank. After each
// timed call it times the absence check alone (Asker.Absence); first is
// the process's first absence check, in milliseconds.
func benchAsk(ctx context.Context, a *app, asker *retrieval.Asker, qs []eval.Question, runs int, requests *requestCounter, first float64) (*latencyJSON, error) {
	var ms, absMS []float64
	var perCall []int
	byKind := map[string]int{}
	abs := &absenceJSON{First: first}
	for pass := 0; pass <= runs; pass++ {
		for _, q := range qs {
			req, ok := evalRequest(a.cfg, q)
			if !ok {
				continue
			}
			requests.take()
			start := time.Now()
			if _, err := asker.Ask(ctx, req); err != nil {
				return nil, fmt.Errorf("bench: question %s: %w", q.ID, err)
			}
			if pass == 0 {
				continue
			}
			ms = append(ms, millis(time.Since(start)))
			kinds, n := requests.take()
			perCall = append(perCall, n)
			for k, v := range kinds {
				byKind[k] += v
			}
			start = time.Now()
			res, err := asker.Absence(ctx, req)
			if err != nil {
				return nil, fmt.Errorf("bench: question %s: %w", q.ID, err)
			}
			absMS = append(absMS, millis(time.Since(start)))
			if !res.Vocabulary {
				abs.Fallback++
			}
			requests.take() // not the Ask's
		}
	}
	if len(ms) == 0 {
		return &latencyJSON{}, nil
	}
	slices.Sort(perCall)
	l := &latencyJSON{Calls: len(ms), RequestsP50: perCall[(len(perCall)-1)/2], RequestsMax: perCall[len(perCall)-1], RequestsByKind: byKind}
	l.P50, l.P95, l.Max = percentiles(ms)
	abs.Calls = len(absMS)
	abs.P50, abs.P95, abs.Max = percentiles(absMS)
	l.Absence = abs
	return l, nil
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentiles returns the nearest-rank p50, p95 and max of ms (sorted in
// place); zeros for none.
func percentiles(ms []float64) (p50, p95, most float64) {
	if len(ms) == 0 {
		return 0, 0, 0
	}
	sort.Float64s(ms)
	rank := func(p float64) float64 { return ms[max(0, int(math.Ceil(p*float64(len(ms))))-1)] }
	return rank(0.50), rank(0.95), ms[len(ms)-1]
}

// cutName shortens a corpus name to its last n bytes.
func cutName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// printTable prints one metrics table: a header naming the rows' key, a
// line per key in sorted order, then the all line when all is not nil.
func printTable(w io.Writer, key string, width int, rows map[string]eval.Metrics, all *eval.Metrics) {
	line := func(name string, m eval.Metrics) {
		fmt.Fprintf(w, "%-*s %4d  %9.3f  %9.3f  %7.3f\n", width, name, m.Questions, m.RecallAt1, m.RecallAt5, m.MRRAt10)
	}
	fmt.Fprintf(w, "%-*s %4s  %9s  %9s  %7s\n", width, key, "n", "recall@1", "recall@5", "MRR@10")
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		line(k, rows[k])
	}
	if all != nil {
		line("all", *all)
	}
}

// printDepth prints the candidate recall of --depth: a line per kind, then
// per corpus when there are several, then all.
func printDepth(w io.Writer, mode string, d *eval.DepthReport) {
	fmt.Fprintf(w, "\ncandidate recall (mode %s, %d candidates per question): share of answerable questions with a wanted chunk in the first k\n", mode, d.Depth)
	head := func(key string, width int) {
		fmt.Fprintf(w, "%-*s %4s", width, key, "n")
		for _, k := range d.Ks {
			fmt.Fprintf(w, "  %9s", fmt.Sprintf("recall@%d", k))
		}
		fmt.Fprintln(w)
	}
	line := func(name string, width int, r eval.DepthRow) {
		fmt.Fprintf(w, "%-*s %4d", width, name, r.Questions)
		for _, v := range r.Recall {
			fmt.Fprintf(w, "  %9.3f", v)
		}
		fmt.Fprintln(w)
	}
	head("kind", 14)
	for _, k := range slices.Sorted(maps.Keys(d.ByKind)) {
		line(k, 14, d.ByKind[k])
	}
	line("all", 14, d.All)
	if len(d.ByCorpus) > 1 {
		fmt.Fprintln(w)
		head("corpus", 46)
		for _, c := range slices.Sorted(maps.Keys(d.ByCorpus)) {
			line(c, 46, d.ByCorpus[c])
		}
	}
}

func printReport(w io.Writer, out evalOutput) {
	rep := out.Report
	printTable(w, "kind", 14, rep.ByKind, &rep.Metrics)
	if len(rep.ByCorpus) > 1 {
		fmt.Fprintln(w)
		printTable(w, "corpus", 46, rep.ByCorpus, nil)
	}
	if len(rep.NoCorpus) > 0 {
		fmt.Fprintf(w, "\n%d questions name a corpus that is not a configured source (counted as misses): %v\n", len(rep.NoCorpus), rep.NoCorpus)
	}
	if c := out.Calibration; c != nil {
		fmt.Fprintf(w, "\nanswer band (embedder %s; %d answerable, %d unanswerable questions): questions answered outright, right when a wanted chunk is in the first 5; below the band the answer is \"not sure\"\n",
			out.Embedder, c.Answerable, c.Unanswerable)
		band := func(name, at string, r bandRatesJSON) {
			fmt.Fprintf(w, "  %-10s %-46s:  answered right %d, answered wrong %d (%d answerable, %d unanswerable)\n",
				name, at, r.Right, r.WrongAnswerable+r.WrongUnanswerable, r.WrongAnswerable, r.WrongUnanswerable)
		}
		at := func(r bandRatesJSON) string {
			return fmt.Sprintf("min_similarity %.2f  min_term_coverage %.2f", r.MinSimilarity, r.MinTermCoverage)
		}
		band("configured", at(c.Band.Configured), c.Band.Configured)
		band("suggested", at(c.Band.Suggested), c.Band.Suggested)
		if l := c.Band.LeaveOneCorpusOut; l != nil {
			band("held out", "(each corpus under the band suggested on the others)", *l)
		}
		fmt.Fprintf(w, "  (suggested: fewest answered wrong with at least as many answered right as configured)\n")
		if c.Band.Suggested != c.Band.Configured {
			fmt.Fprintf(w, "  config:\n    retrieval:\n      thresholds:\n        %s: {min_similarity: %.2f, min_term_coverage: %.2f}\n",
				out.Family, c.Band.Suggested.MinSimilarity, c.Band.Suggested.MinTermCoverage)
		} else {
			fmt.Fprintf(w, "  no better band than the configured one\n")
		}
		floors := func(name string, r ratesJSON) {
			fmt.Fprintf(w, "  %-36s floor_similarity %.2f  floor_term_coverage %.2f  max_absent_share %.2f:  no_coverage_rate %.3f  wrong_refusal_rate %.3f  sure_wrong_rate %.3f  not_sure_rate %.3f\n",
				name, r.FloorSimilarity, r.FloorTermCoverage, r.MaxAbsentShare, r.NoCoverageRate, r.WrongRefusalRate, r.SureWrongRate, r.NotSureRate)
		}
		fmt.Fprintf(w, "\nno coverage floors (configured band: answer above it, \"not sure\" between it and the floors, \"no coverage\" below):\n")
		floors("configured", c.Configured)
		if c.Floors != nil {
			floors("floors, all corpora", *c.Floors)
		}
		for _, k := range slices.Sorted(maps.Keys(c.LeaveOneCorpusOut)) {
			floors("held out: "+cutName(k, 26), c.LeaveOneCorpusOut[k])
		}
		if p := c.Pooled; p != nil {
			fmt.Fprintf(w, "  %-36s %-83s  no_coverage_rate %.3f  wrong_refusal_rate %.3f  sure_wrong_rate %.3f  not_sure_rate %.3f\n",
				"leave-one-corpus-out", "(pooled: each corpus under the floors chosen on the others)", p.NoCoverageRate, p.WrongRefusalRate, p.SureWrongRate, p.NotSureRate)
		}
		fmt.Fprintf(w, "  (floors: best no_coverage_rate with wrong_refusal_rate <= %.2f; held out: floors chosen on the other corpora; sure_wrong_rate: unanswerable answered outright; not_sure_rate: answerable answered \"not sure\")\n", retrieval.MaxWrongRefusal)
		switch f := c.Floors; {
		case f == nil:
		case f.FloorSimilarity == c.Configured.FloorSimilarity && f.FloorTermCoverage == c.Configured.FloorTermCoverage && f.MaxAbsentShare == c.Configured.MaxAbsentShare:
			fmt.Fprintf(w, "  no better floors than the configured ones\n")
		default:
			fmt.Fprintf(w, "  config:\n    retrieval:\n      thresholds:\n        %s: {floor_similarity: %.2f, floor_term_coverage: %.2f, max_absent_share: %.2f}\n",
				out.Family, f.FloorSimilarity, f.FloorTermCoverage, f.MaxAbsentShare)
		}
		if len(rep.SureWrong) > 0 {
			fmt.Fprintf(w, "  unanswerable but answered outright:   %v\n", rep.SureWrong)
		}
		if len(rep.WrongAnswers) > len(rep.SureWrong) {
			fmt.Fprintf(w, "  unanswerable, answered \"not sure\":    %v\n", slices.DeleteFunc(slices.Clone(rep.WrongAnswers), func(id string) bool { return slices.Contains(rep.SureWrong, id) }))
		}
		if len(rep.WrongRefusals) > 0 {
			fmt.Fprintf(w, "  answerable but refused (no coverage): %v\n", rep.WrongRefusals)
		}
	}
	if n := out.NotSure; n != nil {
		fmt.Fprintf(w, "\nnot sure: %s answered \"not sure\"; a wanted chunk among the %d matches shown with code for %d, among the %d listed for %d\n",
			plural(n.Answerable, "answerable question"), retrieval.NotSureMatches, n.WithCode, retrieval.NotSureListed, n.Listed)
	}
	if d := out.Depth; d != nil {
		printDepth(w, out.Mode, d)
	}
	if l := out.Latency; l != nil {
		fmt.Fprintf(w, "\nask latency (mode %s, %d calls): p50 %.1f ms  p95 %.1f ms  max %.1f ms\n", out.Mode, l.Calls, l.P50, l.P95, l.Max)
		total := 0
		for _, n := range l.RequestsByKind {
			total += n
		}
		fmt.Fprintf(w, "Weaviate requests per call: median %d  max %d; all calls %s\n", l.RequestsP50, l.RequestsMax, formatRequests(l.RequestsByKind, total))
		if ab := l.Absence; ab != nil {
			fmt.Fprintf(w, "absence check (%d calls): p50 %.3f ms  p95 %.3f ms  max %.3f ms; first call %.1f ms (word lists parsed, vocabularies loaded)\n",
				ab.Calls, ab.P50, ab.P95, ab.Max, ab.First)
			if ab.Fallback > 0 {
				fmt.Fprintf(w, "  %d of them without a vocabulary for a source in scope: checked by the search's document frequencies instead, no typo correction (run ragbot index)\n", ab.Fallback)
			}
		}
	}
	if len(rep.Misses) > 0 {
		fmt.Fprintf(w, "\nmisses (not in the first 5; rank 0: not in the first 10):\n")
		for _, m := range rep.Misses {
			fmt.Fprintf(w, "  %s [%s] rank %d: %s\n    want %v\n    got  %v\n", m.ID, m.Kind, m.Rank, m.Question, m.Expected, m.Got)
		}
	}
}
