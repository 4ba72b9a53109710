package retrieval

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ragbot/ragbot/internal/humanize"
)

// Coverage says whether the indexed sources cover a question.
type Coverage string

const (
	Covered    Coverage = "covered"     // at least one snippet cleared the answer thresholds
	NotSure    Coverage = "not_sure"    // no snippet cleared them, but the closest matches are not far off: show them as such
	NoCoverage Coverage = "no_coverage" // nothing relevant is indexed: say so, show nothing
	// NotIndexed: the sources in scope hold no chunk yet (`ragbot ask`
	// before `ragbot index`), which says nothing about what they cover.
	NotIndexed Coverage = "not_indexed"
)

// Confidence is Coverage as the JSON form of an answer names it for
// readers: "high" (Covered), "low" (NotSure) or "none" (NoCoverage).
func (c Coverage) Confidence() string {
	switch c {
	case Covered:
		return "high"
	case NotSure:
		return "low"
	}
	return "none"
}

// A Citation locates a snippet: everything a surface needs to link and date it.
type Citation struct {
	Source    string    `json:"source"`     // "repo:payments"
	Path      string    `json:"path"`       // repo-relative path
	StartLine int       `json:"start_line"` // 1-based, inclusive
	EndLine   int       `json:"end_line"`   // inclusive
	Symbol    string    `json:"symbol"`     // "Type.Method", heading path, or "" for a line window
	CommitSHA string    `json:"commit_sha"` // full SHA; surfaces show ShortCommit
	Branch    string    `json:"branch"`     // "" for non-git sources
	URL       string    `json:"url"`        // deep link, "" when the source has none
	Author    string    `json:"author"`     // last author of the file, "" when unknown
	IndexedAt time.Time `json:"indexed_at"` // when ragbot stored the chunk
}

// ShortCommit is the first 7 hex digits of the commit, or "".
func (c Citation) ShortCommit() string {
	if len(c.CommitSHA) > 7 {
		return c.CommitSHA[:7]
	}
	return c.CommitSHA
}

// A Snippet is one retrieved chunk as shown: its text trimmed to MaxSnippetLines.
type Snippet struct {
	Citation
	Language  string `json:"language"`        // for syntax highlighting, "" when unknown
	Kind      string `json:"kind"`            // KindCode, KindDoc or KindAPI
	Text      string `json:"text"`            // at most MaxSnippetLines of the chunk's content: its top, or the lines around what matched (FocusSnippet)
	MoreLines int    `json:"more_lines"`      // lines cut from Text ("... N more lines")
	Stale     string `json:"stale,omitempty"` // non-empty: why the snippet may be out of date
	Debug     string `json:"debug,omitempty"` // score parts, for `ragbot ask -explain`

	// ShownStart and ShownEnd, set by FocusSnippet (focus.go), are the file
	// lines (1-based, inclusive, within StartLine..EndLine) of the window
	// that Text shows below the chunk's header when it does not start at the
	// chunk's top; both 0 when Text is the chunk from its first line.
	ShownStart int `json:"shown_start,omitempty"`
	ShownEnd   int `json:"shown_end,omitempty"`
}

// An Answer is surface-neutral: surfaces render it, never change it.
type Answer struct {
	Question string   `json:"question"`
	Coverage Coverage `json:"coverage"`
	// Confidence is Coverage.Confidence(), for readers of the JSON form.
	Confidence string `json:"confidence"`
	// Snippets are best first. With NotSure they are the closest matches
	// (NotSureListed, the first NotSureMatches to show with code), and so
	// with NoCoverage when ClosestFor is set; otherwise empty with
	// NoCoverage.
	Snippets []Snippet `json:"snippets"`
	Warnings []string  `json:"warnings"` // answer-wide notices, e.g. the index is behind the branch head
	// Missing, with NoCoverage, is a name from the question that no indexed
	// chunk contains ("RedisStore.Flush", "SAML", "rabbitmq"), so a surface
	// can say what was not found ("nothing indexed mentions rabbitmq"); ""
	// otherwise.
	Missing string `json:"missing,omitempty"`
	// ClosestFor, with Missing, is the rest of the question when it asks
	// about something besides the missing name ("send alerts" in "where do
	// we send alerts to rabbitmq?"): Snippets then hold the closest matches
	// for the question, shown as such, as a NotSure answer shows them. ""
	// when the question is about the missing name alone.
	ClosestFor string `json:"closest_for,omitempty"`
	// DidYouMean is set when words of the question were read as typos of
	// terms the sources hold: the corrections ("retry"), space-separated.
	// The answer is for the question so corrected, and NotSure at best.
	DidYouMean string `json:"did_you_mean,omitempty"`
	// Evidence is what the coverage decision read (Evidence.Decide), for
	// `ragbot ask --explain` to say why; it is not part of the JSON form
	// (Explain is, when asked for).
	Evidence Evidence `json:"-"`
	// Explain is Evidence in the JSON form of `ragbot ask --json
	// --explain`; nil otherwise.
	Explain *Evidence `json:"evidence,omitempty"`
	// Summary is the optional LLM answer above the snippets, at most two
	// sentences citing them as [1]..[n] (n = len(Snippets)); "" when no
	// summarizer is configured or its reply failed the checks.
	Summary string `json:"summary,omitempty"`
	// SummaryDropped says why a configured summary is missing (the model
	// cited nothing, named what no snippet has, or failed), for the
	// operator's log and `ragbot ask -explain`; never shown to users.
	SummaryDropped string `json:"summary_dropped,omitempty"`
	// Usage, for a question asking where a name is used ("who calls
	// newStore?"), says how Snippets are laid out (Usage); nil otherwise.
	Usage *Usage `json:"usage,omitempty"`
	// Rewrite is what the Asker's QueryRewriter added to the search, for
	// `ragbot ask --explain`; zero without one. Not part of the JSON form.
	Rewrite Rewritten `json:"-"`
}

// MaxSnippetLines is how many lines of a chunk an answer shows; the rest is
// counted in Snippet.MoreLines. 30 lines fit a terminal screen and stay well
// under Slack's 3,000-character section limit for typical code.
const MaxSnippetLines = 30

// Asker answers questions from the store. Fields are read-only after setup;
// it is safe for concurrent use.
type Asker struct {
	Store    Searcher
	Embedder Embedder
	// SemanticFallback, with a Pair as Embedder, answers a question whose
	// semantic embedding fails (its error, its budget, an open Breaker)
	// from BM25 and the lexical vector, with SemanticUnavailableWarning,
	// instead of failing it. ask and serve set it; eval does not, so that
	// its numbers never mix in keyword-only answers.
	SemanticFallback bool
	// Alpha weights vectors against BM25 (0..1); see Query.Alpha.
	Alpha float64
	// TopK is how many snippets an answer holds at most; a NotSure answer
	// holds NotSureListed closest matches instead.
	TopK int
	// Candidates is how many hybrid hits are fetched (>= TopK).
	Candidates int
	// Thresholds decide coverage.
	Thresholds Thresholds
	// Mode is one of Modes; "" means ModeHybridRerank.
	Mode string
	// Without lists rerank features (RerankFeatures) to leave out, for
	// ablation; nil uses them all.
	Without []string
	// Branches, when set, names the branch of a request that has none (the
	// main branch of the git sources in scope).
	Branches BranchResolver
	// Guards run in order on every answer, after the coverage decision and
	// before the summary (see Guard).
	Guards []Guard
	// Summarizer, when set, writes Answer.Summary for covered questions.
	Summarizer Summarizer
	// Rewriter, when set, adds the model's rewrites of the question to the
	// search: a standalone form of a thread follow-up, variants and a
	// hypothetical snippet, fused with the question's own hits (rewrite.go).
	Rewriter QueryRewriter
	// RewriteTimeout bounds the Rewriter; a later rewrite is dropped and the
	// question searched alone [DefaultRewriteTimeout].
	RewriteTimeout time.Duration
	// Vocabularies, when set, gives the absence check the vocabulary of
	// the sources in scope before the search (absence.go); nil, or a
	// source without one, leaves it to the search's document frequencies,
	// without typo correction.
	Vocabularies VocabularySource
	// Log receives one Warn line per guard error [slog.Default()].
	Log *slog.Logger
}

// A Summarizer writes the optional short answer above a covered answer's
// snippets (Answer.Summary), citing them as [1]..[n]; the OpenAI-compatible
// chat client (retrieval/openai) implements it. An error drops the summary
// and is recorded in Answer.SummaryDropped; the snippets go out alone.
type Summarizer interface {
	Summarize(ctx context.Context, question string, snippets []Snippet) (string, error)
}

// A Guard checks an answer after retrieval and before it is shown, and
// amends it: a snippet whose source changed since it was indexed gets
// Snippet.Stale (or its current lines), an index behind its branch adds to
// Answer.Warnings. The stale-citation, doc TTL and branch-freshness guards
// are implemented in ingest, where that knowledge is. A guard marks what it
// could not check in the answer itself; its error is for the operator's log
// and never stops the answer.
type Guard interface {
	Guard(ctx context.Context, r Request, ans *Answer) error
}

// A BranchResolver names the branch a question without one is asked about:
// the main branch of the git sources in scope (source ids; empty means all),
// or "" for every branch. It answers from memory, not from the repositories.
type BranchResolver interface {
	MainBranch(sources []string) string
}

// Request is one question with its access scope.
type Request struct {
	Question string
	Sources  []string // source ids the asker's channel may see; empty means all
	Groups   []string // the asker's groups, for chunk ACLs
	Branch   string   // "" for any branch
	// Thread, for a question asked inside a chat thread, holds the thread's
	// messages, root first, ending with the question as typed; Question is
	// then the surface's own standalone form of it (bot.FollowUp). An
	// Asker with a Rewriter searches the model's standalone question
	// instead, when it comes in time (rewrite.go). Nil elsewhere.
	Thread []string
}

// Ask is the one answer pipeline of ask, serve and eval: it resolves the
// request's branch (Branches) when it names none, retrieves, decides
// coverage (see Evidence.Decide) and builds the answer (the best-ranked
// hit and those of the other top TopK hits that are relevant on their own,
// or NoCoverage with no snippets; a usage question gets a usage answer,
// see answerUsage), runs the Guards in order, then the Summarizer on a
// covered answer other than a usage answer. The error is only for failures (Weaviate
// down, embedder failing), never for "not found" nor a guard's error.
func (a *Asker) Ask(ctx context.Context, r Request) (Answer, error) {
	if r.Branch == "" && a.Branches != nil {
		r.Branch = a.Branches.MainBranch(r.Sources)
	}
	ctx, degraded := withDegraded(ctx)
	ans, err := a.answerUsage(ctx, r)
	if err != nil {
		return Answer{}, err
	}
	if degraded.Load() {
		ans.Warnings = append(ans.Warnings, SemanticUnavailableWarning)
	}
	for _, g := range a.Guards {
		if err := g.Guard(ctx, r, &ans); err != nil {
			a.logger().Warn("answer guard", "guard", fmt.Sprintf("%T", g), "err", err)
		}
	}
	if ans.Coverage == Covered && a.Summarizer != nil && ans.Usage == nil { // a list of uses is its own summary
		if sum, err := a.Summarizer.Summarize(ctx, r.Question, ans.Snippets); err != nil {
			ans.SummaryDropped = err.Error()
		} else {
			ans.Summary = sum
		}
	}
	return ans, nil
}

// answerUsage answers a usage question (UsageName) with its definitions and
// every use (usage), and any other question, or a usage question about a
// name nothing indexed defines or uses, by answerRewritten.
func (a *Asker) answerUsage(ctx context.Context, r Request) (Answer, error) {
	if name, ok := UsageName(r.Question); ok {
		if ans, found, err := a.usage(ctx, r, name); err != nil || found {
			return ans, err
		}
	}
	return a.answerRewritten(ctx, r)
}

func (a *Asker) logger() *slog.Logger { return cmp.Or(a.Log, slog.Default()) }

// NotSureMatches is how many closest matches a NotSure answer shows with their
// code: enough to recognise the right one, few enough not to read as an answer.
const NotSureMatches = 3

// NotSureListed is how many closest matches a NotSure answer holds in all:
// the first NotSureMatches, which surfaces show with their code, and the
// others, which they list one line each (a location to open, not an
// answer). On the paraphrase sets of testdata/eval (docs/evaluation.md,
// "Candidate recall"), 90 questions asked in other words than the code's, the wanted
// chunk is among the first 10 matches for 40 and among the first 3 for 19.
const NotSureListed = 10

// answer is Ask's retrieval and coverage decision, before the guards.
func (a *Asker) answer(ctx context.Context, r Request) (Answer, error) {
	res, ev, q, err := a.assess(ctx, r)
	if err != nil {
		return Answer{}, err
	}
	hits := res.hits
	cov := ev.Decide(a.Thresholds)
	ans := Answer{Question: r.Question, Coverage: cov, Confidence: cov.Confidence(), Missing: ev.Missing,
		DidYouMean: ev.DidYouMean, Evidence: ev}
	focus := q.focus()
	snippet := func(h Hit) Snippet {
		s := FocusSnippet(h.Chunk, focus)
		s.Debug = fmt.Sprintf("%s sim(%.3f) terms(%.2f)", h.Debug, h.Similarity, h.TermCoverage)
		return s
	}
	closest := func() error {
		// Assess scored the top TopK; the others listed are scored for
		// --explain.
		listed := hits[:min(len(hits), NotSureListed)]
		if err := a.scoreHits(ctx, q.raw, q, res, listed[min(len(listed), a.TopK):]); err != nil {
			return err
		}
		for _, h := range listed {
			ans.Snippets = append(ans.Snippets, snippet(h))
		}
		return nil
	}
	switch cov {
	case NoCoverage:
		// The closest matches for the rest of a question naming something
		// missing, unless they are far from it too.
		if rest := closestFor(q, ev); rest != "" && len(hits) > 0 && !ev.farFromAll(a.Thresholds) {
			ans.ClosestFor = rest
			if err := closest(); err != nil {
				return Answer{}, err
			}
		}
		return ans, nil
	case NotSure:
		if err := closest(); err != nil {
			return Answer{}, err
		}
		return ans, nil
	}
	for i, h := range hits[:min(len(hits), a.TopK)] {
		lex := lexicalMatch(q.Analysis, h.Chunk)
		// The best-ranked hit of a covered question is always shown: the
		// ranking is the better judge of one hit, the thresholds trim the tail.
		if i > 0 && !relevant(a.Thresholds, lex, h.Similarity, h.TermCoverage) {
			continue
		}
		ans.Snippets = append(ans.Snippets, snippet(h))
	}
	return ans, nil
}

// NewSnippet makes the shown form of a chunk.
func NewSnippet(c Chunk) Snippet {
	text, more := trimLines(c.Content, MaxSnippetLines)
	return Snippet{
		Citation: Citation{Source: c.Source, Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine,
			Symbol: c.Symbol, CommitSHA: c.CommitSHA, Branch: c.Branch, URL: c.URL, Author: c.Author, IndexedAt: c.IndexedAt},
		Language: c.Language, Kind: c.Kind, Text: text, MoreLines: more,
	}
}

func trimLines(s string, n int) (string, int) {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s, 0
	}
	return strings.Join(lines[:n], "\n"), len(lines) - n
}

// Ago renders a duration the way citations say it: "just now", "3 minutes
// ago", "2 hours ago", "5 days ago".
func Ago(d time.Duration) string {
	n, unit := int(d/(24*time.Hour)), "day"
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		n, unit = int(d/time.Minute), "minute"
	case d < 48*time.Hour:
		n, unit = int(d/time.Hour), "hour"
	}
	return fmt.Sprintf("%d %s ago", n, humanize.Noun(n, unit))
}
