package eval

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// cutName shortens a corpus name to its last n bytes.
func cutName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// printTable prints one metrics table: a header naming the rows' key, a
// line per key in sorted order, then the all line when all is not nil.
func printTable(w io.Writer, key string, width int, rows map[string]Metrics, all *Metrics) {
	line := func(name string, m Metrics) {
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
func printDepth(w io.Writer, mode string, d *DepthReport) {
	fmt.Fprintf(w, "\ncandidate recall (mode %s, %d candidates per question): share of answerable questions with a wanted chunk in the first k\n", mode, d.Depth)
	head := func(key string, width int) {
		fmt.Fprintf(w, "%-*s %4s", width, key, "n")
		for _, k := range d.Ks {
			fmt.Fprintf(w, "  %9s", fmt.Sprintf("recall@%d", k))
		}
		fmt.Fprintln(w)
	}
	line := func(name string, width int, r DepthRow) {
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

// Print writes out as the text report of `ragbot eval`: the metrics by
// kind (and corpus), the calibration with the config lines to paste, the
// "not sure" counts, the candidate recall, the latency and the misses.
func Print(w io.Writer, out Output) {
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
		band := func(name, at string, r BandCounts) {
			fmt.Fprintf(w, "  %-10s %-46s:  answered right %d, answered wrong %d (%d answerable, %d unanswerable)\n",
				name, at, r.Right, r.WrongAnswerable+r.WrongUnanswerable, r.WrongAnswerable, r.WrongUnanswerable)
		}
		at := func(r BandCounts) string {
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
		floors := func(name string, r Rates) {
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
	if rep.TestsAskedNot > 0 {
		fmt.Fprintf(w, "\ntests above the implementation: %d of %d answerable questions that do not ask about tests %v\n", len(rep.TestsAbove), rep.TestsAskedNot, rep.TestsAbove)
	}
	if n := out.NotSure; n != nil {
		fmt.Fprintf(w, "\nnot sure: %s answered \"not sure\"; a wanted chunk among the %d matches shown with code for %d, among the %d listed for %d\n",
			humanize.Plural(n.Answerable, "answerable question"), retrieval.NotSureMatches, n.WithCode, retrieval.NotSureListed, n.Listed)
	}
	if d := out.Depth; d != nil {
		printDepth(w, out.Mode, d)
	}
	if l := out.Latency; l != nil {
		printLatency(w, out.Mode, l)
	}
	if len(rep.Misses) > 0 {
		fmt.Fprintf(w, "\nmisses (not in the first 5; rank 0: not in the first 10):\n")
		for _, m := range rep.Misses {
			fmt.Fprintf(w, "  %s [%s] rank %d: %s\n    want %v\n    got  %v\n", m.ID, m.Kind, m.Rank, m.Question, m.Expected, m.Got)
		}
	}
}

// printLatency prints the --bench figures: one asker's latency with its
// Weaviate requests and absence check, or several askers' latency and
// throughput.
func printLatency(w io.Writer, mode string, l *Latency) {
	scope := ""
	if l.AllSources {
		scope = ", every question in all sources"
	}
	if l.Askers > 0 {
		fmt.Fprintf(w, "\nask latency (mode %s, %d calls, %d askers at once%s): p50 %.1f ms  p95 %.1f ms  max %.1f ms; %.1f calls/s\n",
			mode, l.Calls, l.Askers, scope, l.P50, l.P95, l.Max, l.PerSecond)
		return
	}
	fmt.Fprintf(w, "\nask latency (mode %s, %d calls%s): p50 %.1f ms  p95 %.1f ms  max %.1f ms\n", mode, l.Calls, scope, l.P50, l.P95, l.Max)
	total := 0
	for _, n := range l.RequestsByKind {
		total += n
	}
	fmt.Fprintf(w, "Weaviate requests per call: median %d  max %d; all calls %s\n", l.RequestsP50, l.RequestsMax, weaviate.FormatRequests(l.RequestsByKind, total))
	if ab := l.Absence; ab != nil {
		fmt.Fprintf(w, "absence check (%d calls): p50 %.3f ms  p95 %.3f ms  max %.3f ms; first call %.1f ms (word lists parsed, vocabularies loaded)\n",
			ab.Calls, ab.P50, ab.P95, ab.Max, ab.First)
		if ab.Fallback > 0 {
			fmt.Fprintf(w, "  %d of them without a vocabulary for a source in scope: checked by the search's document frequencies instead, no typo correction (run ragbot index)\n", ab.Fallback)
		}
	}
}
