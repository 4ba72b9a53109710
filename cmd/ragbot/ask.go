package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

const askAbout = `ragbot ask answers a question with the top cited snippets from the indexed
sources: path:start-end, symbol, commit, author and when it was indexed, then
the snippet. An answer is one of three outcomes (--json: coverage):
  covered      the top snippets (up to retrieval.top_k);
  not sure     nothing clearly answers: the 10 closest matches, labelled as
               such, the first 3 with their code, with a hint to ask by name;
  no coverage  the question names something no indexed chunk contains (a
               word that is no everyday English, an identifier, file,
               message or endpoint; --json: missing), with the closest
               matches for the rest of the question when it asks about
               more (closest_for), or is far from everything indexed.
A word one letter from a frequent term of the sources is read as a typo:
"did you mean retry?" (did_you_mean), answered not sure for the question
with it. --explain says why. Git snippets are
checked against the branch head: one whose file changed since it was indexed
carries a warning, and shows the symbol's current lines when it still exists.

Examples:
  ragbot ask --config ragbot.yaml "where is the hybrid query built?"
  ragbot ask --config ragbot.yaml --json "Store.Upsert"
  ragbot ask --config ragbot.yaml --branch release-1.2 "where is the retry for 503 handled?"
  ragbot ask --config ragbot.yaml --index "where are chunks written to Weaviate?"
  ragbot ask --config ragbot.yaml -- "--cluster.settle-timeout"   (-- before a question that starts with a dash)

Flags may also follow the question: ragbot ask "where is X?" --json.`

func runAsk(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cf commonFlags
	fs := newFlags("ask", askAbout, stderr)
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	explain := fs.Bool("explain", false, "show each hit's score parts, the LLM rewrites searched (retrieval.rewrite), or why a question was refused (similarity, term coverage, missing name against the thresholds)")
	sources := fs.String("source", "", "search only these sources (comma-separated names); empty means all")
	branch := fs.String("branch", "", "answer about this tracked branch, e.g. release-1.2; empty means the main (first tracked) branch of the git sources in scope")
	index := fs.Bool("index", false, "first bring the index up to date (as ragbot index), then answer")
	groups := fs.String("groups", "", "answer as a member of these ACL groups (comma-separated, as in sources' acl); empty: only sources without an acl")
	words, err := parseInterspersed(fs, args)
	if err != nil {
		if strings.Contains(err.Error(), "flag provided but not defined") {
			return fmt.Errorf("%w (a question that starts with a dash goes after --: ragbot ask -- \"-x ...\")", err)
		}
		return err
	}
	question := strings.TrimSpace(strings.Join(words, " "))
	if question == "" {
		return fmt.Errorf("%w: ask needs a question, e.g. ragbot ask \"where is the retry for 503 handled?\"", errUsage)
	}
	cfg, err := loadConfig(cf.config)
	if err != nil {
		return err
	}
	ids, err := sourceIDs(cfg, *sources)
	if err != nil {
		return err
	}
	requests := newRequestCounter()
	cf.observe = requests.observe
	a, err := openAppConfig(ctx, cfg, nil, cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	if *index {
		if err := indexAll(ctx, a, nil, false, stderr); err != nil {
			return err
		}
	}
	asker, branches := a.pipeline(ctx)
	if *branch != "" {
		if err := branches.Check(*branch, ids); err != nil {
			return fmt.Errorf("%w: --%v", errUsage, err)
		}
	}
	gs := commaList(*groups)
	for _, g := range gs {
		if !slices.ContainsFunc(a.cfg.Sources, func(s config.Source) bool { return slices.Contains(s.ACL, g) }) {
			return fmt.Errorf("%w: --groups %q is in no source's acl", errUsage, g)
		}
	}
	req := retrieval.Request{Question: question, Sources: ids, Branch: *branch, Groups: gs}
	// An empty scope is "not indexed yet", not "no coverage": a new user
	// who skipped `ragbot index` should be told to run it.
	indexed, err := a.chunksInScope(ctx, ids)
	if err != nil {
		return fmt.Errorf("search is unavailable: %w", err)
	}
	var ans retrieval.Answer
	requests.take() // count the question's requests only
	if indexed == 0 {
		ans = retrieval.Answer{Question: question, Coverage: retrieval.NotIndexed, Confidence: retrieval.NotIndexed.Confidence(),
			Warnings: []string{notIndexed(a.cfg, *sources, cf.config)}}
	} else if ans, err = asker.Ask(ctx, req); err != nil {
		return fmt.Errorf("search is unavailable: %w", err)
	}
	if ans.Snippets == nil {
		ans.Snippets = []retrieval.Snippet{}
	}
	if ans.Warnings == nil {
		ans.Warnings = []string{}
	}
	if *asJSON {
		if *explain && indexed > 0 {
			ev := ans.Evidence
			ans.Explain = &ev
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ans)
	}
	if indexed == 0 {
		fmt.Fprintln(stdout, ans.Warnings[0])
		return nil
	}
	renderText(stdout, ans, asker.TopK, time.Now(), *explain)
	if *explain {
		explainRewrite(stdout, ans.Rewrite)
		fmt.Fprintln(stdout, whyRefused(ans.Coverage, ans.Evidence, asker.Thresholds))
		fmt.Fprintln(stdout, "Weaviate requests for this question:", formatRequests(requests.take()))
	}
	return nil
}

// chunksInScope counts the indexed chunks of the sources ids (the
// configured sources when ids is empty: chunks of a source taken out of the
// config are not searched, see configuredOnly).
func (a *app) chunksInScope(ctx context.Context, ids []string) (int, error) {
	if len(ids) == 0 {
		for _, s := range a.cfg.Sources {
			ids = append(ids, s.SourceID())
		}
	}
	total := 0
	for _, id := range ids {
		n, err := a.store.Count(ctx, id)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// notIndexed says that the sources in scope (the --source names, else all
// configured ones) hold no chunks yet, and how to index them.
func notIndexed(cfg *config.Config, sources, configPath string) string {
	names := commaList(sources)
	if len(names) == 0 {
		for _, s := range cfg.Sources {
			names = append(names, s.Name)
		}
	}
	return fmt.Sprintf("Not indexed yet: %s. Run `ragbot index --config %s` first.", strings.Join(names, ", "), configPath)
}

// whyRefused is `ask --explain`'s account of a refusal or a "not sure":
// the coverage evidence against the thresholds (retrieval.Evidence.Decide).
func whyRefused(cov retrieval.Coverage, ev retrieval.Evidence, th retrieval.Thresholds) string {
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

// explainRewrite is `ask --explain`'s account of the LLM query rewrite
// (retrieval.rewrite): the standalone question, then each query searched
// beside the question, or why none was; nothing without a rewriter.
func explainRewrite(w io.Writer, rw retrieval.Rewritten) {
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

// renderText prints an answer for a terminal: a "no coverage" answer says
// so and names what is missing, then lists the closest matches for the
// rest of the question when it has them (retrieval.Answer.ClosestFor), as
// a "not sure" answer does; words read as typos are named first
// (bot.DidYouMeanText). Then one header line per snippet,
// `path:start-end  symbol  (commit abc1234, indexed 3 minutes ago)` (the
// head is retrieval's Snippet.Label: "handbook: docs/README.md:10-24" for a
// doc snippet, "svc/reconcile.go:62-90 of 1-120" for a focused one), then
// the snippet indented; a "not sure" answer's matches after the first
// retrieval.NotSureMatches (bot.WithCode) are listed by their header lines
// only, under bot.MoreTitle ("7 more close matches:"). When fewer than topK (retrieval.top_k) snippets are
// shown it says the others fell below the relevance thresholds, so a short
// list does not read as a truncated one.
func renderText(w io.Writer, ans retrieval.Answer, topK int, now time.Time, explain bool) {
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
			fmt.Fprintf(w, "%s:\n", bot.MoreTitle(ans.Coverage, len(ans.Snippets)-i))
		}
		var meta []string
		if c := s.ShortCommit(); c != "" {
			meta = append(meta, "commit "+c)
		}
		if s.Author != "" {
			meta = append(meta, "by "+s.Author)
		}
		meta = append(meta, "indexed "+retrieval.Ago(now.Sub(s.IndexedAt)))
		sym := s.Symbol
		if sym == "" {
			sym = "(lines)"
		}
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
	if n := len(ans.Snippets); n < topK && ans.Coverage == retrieval.Covered {
		fmt.Fprintf(w, "(%d of up to %d snippets shown: the rest fell below the relevance thresholds)\n", n, topK)
	}
}
