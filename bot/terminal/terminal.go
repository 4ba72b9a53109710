package terminal

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// WhyRefused is `ask --explain`'s account of a refusal or a "not sure":
// the coverage evidence against the thresholds (retrieval.Evidence.Decide).
func WhyRefused(cov retrieval.Coverage, ev retrieval.Evidence, th retrieval.Thresholds) string {
	var b strings.Builder
	what := "refused"
	switch cov {
	case retrieval.NotSure:
		what = "not sure"
	case retrieval.Covered:
		what = "answered"
	}
	fmt.Fprintf(&b, "why %s: exact name match %v", what, ev.Lexical)
	if ev.Missing != "" {
		fmt.Fprintf(&b, "; missing name %q (no indexed chunk contains it)", ev.Missing)
	}
	for _, ty := range ev.Typos {
		fmt.Fprintf(&b, "; %q read as a typo of %q (searched corrected, not sure at best)", ty.Word, ty.Term)
	}
	if ev.Vocabulary {
		b.WriteString("; words checked against the sources' vocabularies")
	} else {
		b.WriteString("; words checked by document frequency (no vocabulary stored for a source in scope: run ragbot index; no typo correction)")
	}
	fmt.Fprintf(&b, "; similarity %.3f (answer %.3f, floor %.3f); term coverage %.2f (answer %.2f, floor %.2f)",
		ev.Similarity, th.MinSimilarity, th.FloorSimilarity, ev.TermCoverage, th.MinTermCoverage, th.FloorTermCoverage)
	if ev.Semantic != 0 {
		fmt.Fprintf(&b, "; semantic similarity %.3f", ev.Semantic)
	}
	fmt.Fprintf(&b, "; share of the question's weight in words no chunk has %.2f (max %.2f)", ev.AbsentShare, th.MaxAbsentShare)
	if len(ev.Absent) > 0 {
		fmt.Fprintf(&b, "; terms in no chunk: %s", strings.Join(ev.Absent, ", "))
	}
	return b.String()
}

// ExplainRewrite writes `ask --explain`'s account of the LLM query rewrite
// (retrieval.rewrite): the standalone question, then each query searched
// beside the question, or why none was; nothing without a rewriter.
func ExplainRewrite(w io.Writer, rw retrieval.Rewritten) {
	if rw.Standalone != "" {
		fmt.Fprintf(w, "searched as: %s\n", rw.Standalone)
	}
	for i, v := range rw.Variants {
		fmt.Fprintf(w, "also searched (%d): %s\n", i+1, v)
	}
	if rw.HyDE != "" {
		fmt.Fprintf(w, "also searched (hypothetical snippet, by its vector):\n    %s\n", strings.ReplaceAll(rw.HyDE, "\n", "\n    "))
	}
	if rw.Dropped != "" {
		fmt.Fprintf(w, "query rewrite not used: %s\n", rw.Dropped)
	}
}

// MaxListed is how many snippets Render lists by their header line after
// those shown with code; `ask --json` holds them all.
const MaxListed = 40

// Render prints an answer for a terminal: a usage answer starts with its
// title (retrieval.Usage.Title); a "no coverage" answer says
// so and names what is missing, then lists the closest matches for the
// rest of the question when it has them (retrieval.Answer.ClosestFor), as
// a "not sure" answer does; words read as typos are named first
// (bot.DidYouMeanText). Then one header line per snippet,
// `path:start-end  symbol  (payments@abc1234, indexed 3 minutes ago)`, the
// source and commit (the
// head is retrieval's Snippet.Label: "handbook: docs/README.md:10-24" for a
// doc snippet, "svc/reconcile.go:62-90 of 1-120" for a focused one), then
// the snippet indented; a "not sure" answer's matches after the first
// retrieval.NotSureMatches (bot.WithCode) are listed by their header lines
// only, under bot.MoreTitle ("7 more close matches:"). When fewer than topK (retrieval.top_k) snippets are
// shown it says the others fell below the relevance thresholds, so a short
// list does not read as a truncated one.
func Render(w io.Writer, ans retrieval.Answer, topK int, now time.Time, explain bool) {
	for _, warn := range ans.Warnings { // first: a partial index may be why nothing was found
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	if ans.Coverage == retrieval.NoCoverage {
		fmt.Fprintf(w, "No coverage in the indexed sources for %q.\n", ans.Question)
		if ans.Missing == "" {
			fmt.Fprintln(w, "Try naming the function, type or file, rephrasing, or check that the source is indexed (ragbot index).")
			return
		}
		fmt.Fprintf(w, "Nothing indexed mentions %q: check the spelling, or that the source holding it is indexed (ragbot index).\n", ans.Missing)
		if ans.ClosestFor == "" || len(ans.Snippets) == 0 {
			return
		}
		fmt.Fprintf(w, "The closest matches for %q:\n\n", ans.ClosestFor)
	}
	if ans.DidYouMean != "" {
		fmt.Fprintf(w, "%s\n\n", bot.DidYouMeanText(ans))
	}
	if ans.Usage != nil {
		fmt.Fprintf(w, "%s.\n\n", ans.Usage.Title())
	}
	if ans.Coverage == retrieval.NotSure {
		fmt.Fprintf(w, "%s\n\n", bot.NotSureTitle)
		defer fmt.Fprintf(w, "\n%s\n", bot.NotSureHint(ans))
	}
	if ans.Summary != "" {
		fmt.Fprintf(w, "%s\n\n", ans.Summary)
	} else if explain && ans.SummaryDropped != "" {
		fmt.Fprintf(w, "(summary dropped: %s)\n\n", ans.SummaryDropped)
	}
	withCode := bot.WithCode(ans, len(ans.Snippets))
	for i, s := range ans.Snippets {
		listed := i >= withCode
		if i == withCode {
			fmt.Fprintf(w, "%s:\n", bot.MoreTitleOf(ans, len(ans.Snippets)-i))
		}
		if i == withCode+MaxListed {
			fmt.Fprintf(w, "... %d more: --json lists them all\n", len(ans.Snippets)-i)
			break
		}
		var meta []string
		switch c := s.ShortCommit(); {
		case s.Where() == s.Path && s.Source != "": // a code snippet: which repository, as Slack's citation line says
			meta = append(meta, s.SourceName()+"@"+cmp.Or(c, "?"))
		case c != "":
			meta = append(meta, "commit "+c)
		}
		if s.Author != "" {
			meta = append(meta, "by "+s.Author)
		}
		meta = append(meta, "indexed "+retrieval.Ago(now.Sub(s.IndexedAt)))
		sym := cmp.Or(s.Symbol, "(lines)")
		fmt.Fprintf(w, "[%d] %s  %s  (%s)\n", i+1, s.Label(), sym, strings.Join(meta, ", "))
		if s.URL != "" {
			fmt.Fprintf(w, "    %s\n", s.URL)
		}
		if s.Stale != "" {
			fmt.Fprintf(w, "    warning: %s\n", s.Stale)
		}
		if explain {
			fmt.Fprintf(w, "    score: %s\n", s.Debug)
		}
		if listed {
			continue
		}
		for _, line := range strings.Split(s.Text, "\n") {
			fmt.Fprintf(w, "    %s\n", line)
		}
		if s.MoreLines > 0 {
			fmt.Fprintf(w, "    ... %d more lines\n", s.MoreLines)
		}
		fmt.Fprintln(w)
	}
	if n := len(ans.Snippets); n < topK && ans.Coverage == retrieval.Covered && ans.Usage == nil {
		fmt.Fprintf(w, "(%d of up to %d snippets shown: the rest fell below the relevance thresholds)\n", n, topK)
	}
}
