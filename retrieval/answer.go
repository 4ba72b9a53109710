package retrieval

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Coverage says whether the indexed sources cover a question.
type Coverage string

const (
	Covered    Coverage = "covered"     // at least one snippet cleared a threshold
	NoCoverage Coverage = "no_coverage" // nothing relevant is indexed: say so, show nothing
)

// A Citation locates a snippet: everything a surface needs to link and date it.
type Citation struct {
	Source    string    // "repo:payments"
	Path      string    // repo-relative path
	StartLine int       // 1-based, inclusive
	EndLine   int       // inclusive
	Symbol    string    // "Type.Method", heading path, or "" for a line window
	CommitSHA string    // full SHA; surfaces show ShortCommit
	Branch    string    // "" for non-git sources
	URL       string    // deep link, "" when the source has none
	Author    string    // last author of the file, "" when unknown
	IndexedAt time.Time // when ragbot stored the chunk
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
	Language  string // for syntax highlighting, "" when unknown
	Kind      string // KindCode, KindDoc or KindAPI
	Text      string // the first lines of the chunk's content
	MoreLines int    // lines cut from Text ("... N more lines")
	Stale     string // non-empty: why the snippet may be out of date
	Debug     string // score parts, for `ragbot ask -explain`
}

// An Answer is surface-neutral: surfaces render it, never change it.
type Answer struct {
	Question string
	Coverage Coverage
	Snippets []Snippet // best first; empty with NoCoverage
	Warnings []string  // answer-wide notices, e.g. the index is behind the branch head
}

// MaxSnippetLines is how many lines of a chunk an answer shows; the rest is
// counted in Snippet.MoreLines. 30 lines fit a terminal screen and stay well
// under Slack's 3,000-character section limit for typical code.
const MaxSnippetLines = 30

// Asker answers questions from the store. Fields are read-only after setup;
// it is safe for concurrent use.
type Asker struct {
	Store    *Store
	Embedder Embedder
	// Alpha weights vectors against BM25 (0..1); see Query.Alpha.
	Alpha float64
	// TopK is how many snippets an answer holds at most.
	TopK int
	// Candidates is how many hybrid hits are fetched (>= TopK).
	Candidates int
	// Thresholds decide coverage.
	Thresholds Thresholds
	// Mode is one of Modes; "" means ModeHybridRerank.
	Mode string
	Now  func() time.Time // [time.Now]
}

// Thresholds decide "no coverage": a hit is relevant when its cosine
// similarity reaches MinSimilarity or it contains at least MinTermCoverage of
// the question's content terms (see QueryTerms). Values are 0..1 and are
// calibrated per embedder with `ragbot eval`.
type Thresholds struct {
	MinSimilarity   float64
	MinTermCoverage float64
}

// DefaultThresholds returns the thresholds for an embedder by name. The
// offline hashing embedder's 0.30 was read off ragbot eval on ../shared/eval:
// below it the nearest chunks share only generic word pieces.
func DefaultThresholds(embedder string) Thresholds {
	return Thresholds{MinSimilarity: 0.30, MinTermCoverage: 0.6}
}

// Request is one question with its access scope.
type Request struct {
	Question string
	Sources  []string // source ids the asker's channel may see; empty means all
	Groups   []string // the asker's groups, for chunk ACLs
	Branch   string   // "" for any branch
}

// Retrieval modes, for ablation (`ragbot eval --mode`).
const (
	ModeBM25         = "bm25"          // keyword side only (alpha 0)
	ModeVector       = "vector"        // vector side only (alpha 1)
	ModeHybrid       = "hybrid"        // one hybrid query at Alpha, Weaviate's order
	ModeHybridRerank = "hybrid+rerank" // query analysis, lookups by name, path and literal, rerank (the default)
)

// Modes lists the valid retrieval modes.
var Modes = []string{ModeBM25, ModeVector, ModeHybrid, ModeHybridRerank}

// identifierAlpha is the hybrid alpha for questions that are mostly names:
// exact tokens matter more than meaning there (design.md, Retrieval step 2).
const identifierAlpha = 0.3

// Retrieve runs the search for a request and returns up to limit hits, best
// first, with no coverage decision (ragbot eval ranks these). In the default
// mode it analyses the question, runs the hybrid query over Candidates hits
// plus BM25 lookups of the names, paths and literals it found, and reranks
// the union (see rerank).
func (a *Asker) Retrieve(ctx context.Context, r Request, limit int) ([]Hit, error) {
	text := NormalizeQuery(r.Question)
	if text == "" {
		return nil, fmt.Errorf("empty question")
	}
	mode := a.Mode
	if mode == "" {
		mode = ModeHybridRerank
	}
	an := Analyze(r.Question)
	alpha := a.Alpha
	switch mode {
	case ModeBM25:
		alpha = 0
	case ModeVector:
		alpha = 1
	case ModeHybridRerank:
		if an.IdentifierHeavy() {
			alpha = min(alpha, identifierAlpha)
		}
	}
	var vec []float32
	if alpha > 0 {
		vs, err := a.Embedder.Embed(ctx, []string{r.Question})
		if err != nil {
			return nil, fmt.Errorf("embed question: %w", err)
		}
		vec = vs[0]
	}
	base := Query{Text: text, Vector: vec, Alpha: alpha, Limit: limit, Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}
	if mode != ModeHybridRerank {
		return a.Store.Search(ctx, base)
	}
	base.Limit = max(limit, a.Candidates)
	hits, err := a.Store.Search(ctx, base)
	if err != nil {
		return nil, err
	}
	var extra []Hit
	for _, q := range lookups(base, an) {
		more, err := a.Store.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		extra = append(extra, more...)
	}
	hits = rerank(r.Question, an, mergeHits(hits, extra))
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// lookups are the extra BM25 queries for what the question names: symbols
// (on the symbol field), files (restricted to those paths) and literals.
func lookups(base Query, an Analysis) []Query {
	bm25 := func(text string, props []string, limit int) Query {
		q := base
		q.Text, q.Vector, q.Alpha, q.Properties, q.Limit = text, nil, 0, props, limit
		return q
	}
	var qs []Query
	var names []string
	for _, id := range an.Identifiers {
		names = append(names, id)
		names = append(names, SplitIdentifier(id)...)
	}
	if an.Endpoint != "" {
		names = append(names, an.Endpoint)
	}
	if len(names) > 0 {
		qs = append(qs, bm25(strings.Join(names, " "), []string{"symbol"}, 10))
	}
	if len(an.Paths) > 0 {
		q := bm25(base.Text, nil, 20)
		q.Paths = an.Paths
		qs = append(qs, q)
	}
	for _, l := range an.Literals {
		qs = append(qs, bm25(l, []string{"search_text"}, 10))
	}
	return qs
}

// mergeHits appends to the hybrid hits the lookup hits they lack. A lookup
// hit enters with score 0: its BM25 score is relative to its own small
// result set, so only the rerank bonuses that it matched may lift it.
func mergeHits(hybrid, lookup []Hit) []Hit {
	seen := make(map[string]bool, len(hybrid))
	for _, h := range hybrid {
		seen[h.ID] = true
	}
	out := hybrid
	for _, h := range lookup {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		h.Score = 0
		h.Debug = "lookup " + h.Debug
		out = append(out, h)
	}
	return out
}

// Ask retrieves, applies the coverage thresholds and builds the answer: up to
// TopK relevant snippets, or NoCoverage when none is relevant. The error is
// only for failures (Weaviate down, embedder failing), never for "not found".
func (a *Asker) Ask(ctx context.Context, r Request) (Answer, error) {
	hits, err := a.Retrieve(ctx, r, max(a.Candidates, a.TopK))
	if err != nil {
		return Answer{}, err
	}
	ans := Answer{Question: r.Question, Coverage: NoCoverage}
	terms := QueryTerms(r.Question)
	for _, h := range hits {
		if len(ans.Snippets) == a.TopK {
			break
		}
		cov := TermCoverage(terms, h.Chunk)
		if h.Similarity < a.Thresholds.MinSimilarity && cov < a.Thresholds.MinTermCoverage {
			continue
		}
		s := NewSnippet(h.Chunk)
		s.Debug = fmt.Sprintf("%s terms(%.2f)", h.Debug, cov)
		ans.Snippets = append(ans.Snippets, s)
	}
	if len(ans.Snippets) > 0 {
		ans.Coverage = Covered
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
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit + " ago"
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	default:
		return plural(int(d/(24*time.Hour)), "day")
	}
}
