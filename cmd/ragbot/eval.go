package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/eval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
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
--bench-askers N has N askers ask at once (a busy serve process) and prints
their latency and calls per second instead; --bench-all-sources searches
every configured source for each timed question, as a channel allowed to
see them all does, instead of the question's own corpus.

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

With --without it leaves rerank features out, for ablation. Figures are
given per kind and, when the questions span several corpora, per corpus.

The question sets in this repository (testdata/eval), their corpora and the
scripts that run them: docs/evaluation.md, "Question sets".

Examples:
  ragbot eval --config heldout.yaml testdata/eval/heldout/raft/questions.jsonl
  ragbot eval --config heldout.yaml --mode bm25 --json testdata/eval/heldout/urllib3/questions.jsonl
  ragbot eval --config heldout.yaml --without coverage,literal testdata/eval/heldout/axios/questions.jsonl
  ragbot eval --config eval.yaml questions.jsonl testdata/eval/unanswerable.jsonl
  ragbot eval --config eval.yaml --bench questions.jsonl
  ragbot eval --config eval.yaml --depth 100 testdata/eval/paraphrase/*/questions.jsonl`

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("eval", evalAbout, stderr)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	mode := fs.String("mode", retrieval.ModeHybridRerank, "retrieval mode: "+strings.Join(retrieval.Modes, ", "))
	without := fs.String("without", "", "rerank features to leave out, comma-separated, for ablation: "+strings.Join(retrieval.RerankFeatures, ", ")+"; empty uses them all")
	bench := fs.Bool("bench", false, "also time Asker.Ask for every question and print p50/p95/max")
	depth := fs.Int("depth", 0, fmt.Sprintf("also rank answerable questions among this many candidates (%d..%d) and print recall@k up to it; 0: off", eval.DepthKs[0], eval.MaxDepth))
	candFile := fs.String("candidates", "", "with --depth, write each answerable question's candidates with their scores to this JSONL `file`")
	benchRuns := fs.Int("bench-runs", 3, "with --bench, timed passes over the questions after one warm-up pass")
	benchAskers := fs.Int("bench-askers", 1, "with --bench, askers asking at once (each makes --bench-runs passes); above 1 prints their latency and calls/s only")
	benchAll := fs.Bool("bench-all-sources", false, "with --bench, search every configured source for each timed question instead of its own corpus")
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
	if *benchAskers < 1 {
		return fmt.Errorf("%w: --bench-askers %d, want at least 1", errUsage, *benchAskers)
	}
	qs, err := eval.LoadFiles(fs.Args())
	if err != nil {
		return err
	}
	requests := weaviate.NewRequestCounter()
	cf.observe = requests.Observe
	a, err := openApp(ctx, *cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	asker, _ := a.pipeline(ctx)
	asker.Mode = *mode
	asker.Without = commaList(*without)
	r := eval.Runner{Asker: asker, Sources: a.cfg.SourceIDsByName(), Family: embedders.Family(asker.Embedder), BenchAll: *benchAll}
	var firstAbsence float64
	if *bench { // before anything else loads the word lists and vocabularies
		if firstAbsence, err = r.FirstAbsence(ctx, qs); err != nil {
			return err
		}
	}
	out, err := r.Run(ctx, qs)
	if err != nil {
		return err
	}
	if *depth > 0 {
		if out.Depth, err = r.Depth(ctx, qs, *depth, *candFile); err != nil {
			return err
		}
	}
	switch {
	case *bench && *benchAskers > 1:
		if out.Latency, err = r.BenchConcurrent(ctx, qs, *benchRuns, *benchAskers); err != nil {
			return err
		}
	case *bench:
		if out.Latency, err = r.Bench(ctx, qs, *benchRuns, requests, firstAbsence); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	eval.Print(stdout, out)
	return nil
}
