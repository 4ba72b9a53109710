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
	Now        func() time.Time // [time.Now]
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

// Retrieve runs the hybrid search for a request and returns up to limit hits,
// best first, with no coverage decision (ragbot eval ranks these).
func (a *Asker) Retrieve(ctx context.Context, r Request, limit int) ([]Hit, error) {
	text := NormalizeQuery(r.Question)
	if text == "" {
		return nil, fmt.Errorf("empty question")
	}
	var vec []float32
	if a.Alpha > 0 {
		vs, err := a.Embedder.Embed(ctx, []string{r.Question})
		if err != nil {
			return nil, fmt.Errorf("embed question: %w", err)
		}
		vec = vs[0]
	}
	return a.Store.Search(ctx, Query{Text: text, Vector: vec, Alpha: a.Alpha, Limit: limit,
		Sources: r.Sources, Groups: r.Groups, Branch: r.Branch})
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
