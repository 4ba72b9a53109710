package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/eval"
)

const evalAbout = `ragbot eval runs a question set (the JSONL format of shared/eval/README.md)
against the index and prints recall@1, recall@5 and MRR@10, overall and per
kind, and the misses. A question's corpus must equal a configured source's
name; each question is searched in its own corpus only.

Examples:
  ragbot eval --config eval.yaml ../shared/eval/questions.jsonl
  ragbot eval --config eval.yaml --json ../shared/eval/questions.jsonl`

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlags("eval", evalAbout, stderr)
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	mode := fs.String("mode", retrieval.ModeHybridRerank, "retrieval mode: "+strings.Join(retrieval.Modes, ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: eval needs one QUESTIONS.jsonl file", errUsage)
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	qs, err := eval.Load(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	a, err := openApp(ctx, cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	asker := a.asker()
	if !slices.Contains(retrieval.Modes, *mode) {
		return fmt.Errorf("%w: --mode %q, want one of %s", errUsage, *mode, strings.Join(retrieval.Modes, ", "))
	}
	asker.Mode = *mode
	var outs []eval.Outcome
	for _, q := range qs {
		src, ok := a.cfg.SourceNamed(q.Corpus)
		if !ok {
			outs = append(outs, eval.Outcome{Question: q, NoCorpus: true})
			continue
		}
		hits, err := asker.Retrieve(ctx, retrieval.Request{Question: q.Question, Sources: []string{src.SourceID()}}, 10)
		if err != nil {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		res := make([]eval.Result, len(hits))
		for i, h := range hits {
			c := h.Chunk
			res[i] = eval.Result{Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind}
		}
		outs = append(outs, eval.Outcome{Question: q, Results: res})
	}
	rep := eval.Score(outs)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printReport(stdout, rep)
	return nil
}

func printReport(w io.Writer, rep eval.Report) {
	line := func(name string, m eval.Metrics) {
		fmt.Fprintf(w, "%-14s %4d  %9.3f  %9.3f  %7.3f\n", name, m.Questions, m.RecallAt1, m.RecallAt5, m.MRRAt10)
	}
	fmt.Fprintf(w, "%-14s %4s  %9s  %9s  %7s\n", "kind", "n", "recall@1", "recall@5", "MRR@10")
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		line(k, rep.ByKind[k])
	}
	line("all", rep.Metrics)
	if len(rep.NoCorpus) > 0 {
		fmt.Fprintf(w, "\n%d questions name a corpus that is not a configured source (counted as misses): %v\n", len(rep.NoCorpus), rep.NoCorpus)
	}
	if len(rep.Misses) > 0 {
		fmt.Fprintf(w, "\nmisses (not in the first 5):\n")
		for _, m := range rep.Misses {
			fmt.Fprintf(w, "  %s [%s] rank %d: %s\n    want %v\n    got  %v\n", m.ID, m.Kind, m.Rank, m.Question, m.Expected, m.Got)
		}
	}
}
