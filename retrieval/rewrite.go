package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// A QueryRewriter turns a question into more queries for the search, with a
// language model (retrieval/openai implements it over chat completions):
//
//   - Standalone: for a question asked in a chat thread (earlier holds the
//     thread's earlier messages, root first), the question rewritten to
//     stand alone ("and for v2?" -> "where is the v2 orders handler?");
//     "" when earlier is empty or the question already stands alone;
//   - Variants: alternative phrasings with the code terms the answer likely
//     holds (multi-query retrieval);
//   - HyDE: a short hypothetical code snippet that would answer the
//     question, searched by its vector (Gao et al. 2022, "Precise
//     Zero-Shot Dense Retrieval without Relevance Labels",
//     arXiv:2212.10496); "" when not wanted.
//
// The model's text is only ever searched: it is never shown as an answer and
// never counted as evidence that the sources cover the question (the
// coverage decision reads the question's own terms and vector). An error
// means no rewrite; the question is then searched alone.
type QueryRewriter interface {
	Rewrite(ctx context.Context, question string, earlier []string) (Rewrite, error)
}

// Rewrite is a QueryRewriter's answer.
type Rewrite struct {
	Standalone string   // the follow-up made standalone; "" when none
	Variants   []string // alternative phrasings, best first
	HyDE       string   // a hypothetical code snippet; "" when none
}

// Rewritten is what a QueryRewriter added to an answer's search, for the
// operator and `ragbot ask --explain` (Answer.Rewrite): the user sees what
// was searched.
type Rewritten struct {
	// Standalone is the thread follow-up as the model rewrote it, searched
	// (and shown as Answer.Question) instead of the surface's own rewrite;
	// "" when none was used.
	Standalone string
	// Variants and HyDE are the alternative phrasings and the hypothetical
	// snippet searched beside the question and fused with it (FuseRRF).
	Variants []string
	HyDE     string
	// Dropped says why no rewrite was used: late, failed or malformed;
	// "" when one was used or no rewriter is configured.
	Dropped string
}

// DefaultRewriteTimeout bounds the rewriter when Asker.RewriteTimeout is
// zero: a chat completion of ~150 tokens from a hosted small model takes
// 0.5-1.5 s, and a person waits for the answer.
const DefaultRewriteTimeout = 2 * time.Second

// Limits on what a rewrite may add, whatever the model returned: more
// queries only add Weaviate requests, and a longer text is not the short
// query or snippet asked for.
const (
	maxRewriteVariants = 5
	maxVariantBytes    = 300
	maxHyDEBytes       = 2000
)

// rewriteKey carries a rewrite started by Ask to the search (retrieve), so
// the model is asked once per answer; plainKey marks the search of the
// question itself inside retrieveRewritten.
type (
	rewriteKey struct{}
	plainKey   struct{}
)

// pendingRewrite is a rewrite running in the background, and what the search
// made of it.
type pendingRewrite struct {
	done    chan struct{} // closed when rw and err are set
	rw      Rewrite
	err     error
	start   time.Time
	timeout time.Duration

	once   sync.Once // the first wait's outcome is final: res and resErr
	res    Rewrite
	resErr error

	mu    sync.Mutex
	trace Rewritten
}

// startRewrite asks the rewriter in the background, bounded by RewriteTimeout.
func (a *Asker) startRewrite(ctx context.Context, question string, earlier []string) *pendingRewrite {
	timeout := cmp.Or(max(a.RewriteTimeout, 0), DefaultRewriteTimeout)
	p := &pendingRewrite{done: make(chan struct{}), start: time.Now(), timeout: timeout}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	go func() {
		defer close(p.done)
		defer cancel()
		p.rw, p.err = a.Rewriter.Rewrite(rctx, question, earlier)
	}()
	return p
}

// errRewriteLate is the cause of a rewrite dropped for its time bound.
var errRewriteLate = errors.New("rewrite later than its time bound")

// wait returns the rewrite, or an error when it failed or had not come by its
// time bound (even from a rewriter that ignores its context). Every call
// returns what the first one did, so a rewrite dropped as late stays dropped.
func (p *pendingRewrite) wait(ctx context.Context) (Rewrite, error) {
	p.once.Do(func() { p.res, p.resErr = p.await(ctx) })
	return p.res, p.resErr
}

func (p *pendingRewrite) await(ctx context.Context) (Rewrite, error) {
	timer := time.NewTimer(time.Until(p.start.Add(p.timeout)))
	defer timer.Stop()
	select {
	case <-p.done:
		if p.err != nil && errors.Is(p.err, context.DeadlineExceeded) && ctx.Err() == nil {
			return Rewrite{}, fmt.Errorf("%w (%s): %v", errRewriteLate, p.timeout, p.err)
		}
		return p.rw, p.err
	case <-timer.C:
		return Rewrite{}, fmt.Errorf("%w (%s)", errRewriteLate, p.timeout)
	case <-ctx.Done():
		return Rewrite{}, ctx.Err()
	}
}

func (p *pendingRewrite) setTrace(f func(t *Rewritten)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(&p.trace)
}

func (p *pendingRewrite) traced() Rewritten {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.trace
}

// answerRewritten is Ask's retrieval and coverage decision (answer) with
// the Rewriter, when one is set. It starts the rewriter on the question;
// for a thread follow-up (Request.Thread) it waits for the model's
// standalone question, within the time bound, and searches that instead of
// Request.Question (the surface's own rewrite, kept when the model fails or
// is late). The search (retrieveRewritten) reuses the same rewrite.
func (a *Asker) answerRewritten(ctx context.Context, r Request) (Answer, error) {
	if a.Rewriter == nil {
		return a.answer(ctx, r)
	}
	asked, earlier := r.Question, []string(nil)
	if n := len(r.Thread); n > 1 && strings.TrimSpace(r.Thread[n-1]) != "" {
		asked, earlier = r.Thread[n-1], r.Thread[:n-1]
	}
	p := a.startRewrite(ctx, asked, earlier)
	if earlier != nil {
		if rw, err := p.wait(ctx); err == nil {
			if s := oneLineText(rw.Standalone); s != "" && len(s) <= maxVariantBytes {
				r.Question = s
				p.setTrace(func(t *Rewritten) { t.Standalone = s })
			}
		}
	}
	ans, err := a.answer(context.WithValue(ctx, rewriteKey{}, p), r)
	ans.Rewrite = p.traced()
	return ans, err
}

// rewriting reports whether retrieve should search the rewriter's queries
// too: a rewriter is set and this is not the question's own search inside
// retrieveRewritten.
func (a *Asker) rewriting(ctx context.Context) bool {
	return a.Rewriter != nil && ctx.Value(plainKey{}) == nil
}

// rewriteQuery is one query of a rewrite: a variant or the HyDE snippet.
type rewriteQuery struct {
	name string // "v1".., "hyde"
	text string
	hyde bool
}

// rewriteQueries returns the queries of rw worth searching beside question:
// variants trimmed to one line, without empty ones, repeats or the question
// itself, at most maxRewriteVariants of at most maxVariantBytes each; then
// the HyDE snippet when it is at most maxHyDEBytes.
func rewriteQueries(question string, rw Rewrite) []rewriteQuery {
	seen := map[string]bool{strings.ToLower(oneLineText(question)): true}
	var qs []rewriteQuery
	for _, v := range rw.Variants {
		v = oneLineText(v)
		k := strings.ToLower(v)
		if v == "" || len(v) > maxVariantBytes || seen[k] || SearchQuery(v) == "" {
			continue
		}
		seen[k] = true
		qs = append(qs, rewriteQuery{name: fmt.Sprintf("v%d", len(qs)+1), text: v})
		if len(qs) == maxRewriteVariants {
			break
		}
	}
	if h := strings.TrimSpace(rw.HyDE); h != "" && len(h) <= maxHyDEBytes && SearchQuery(h) != "" {
		qs = append(qs, rewriteQuery{name: "hyde", text: h, hyde: true})
	}
	return qs
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// retrieveRewritten is retrieve with a Rewriter: it searches the question (the
// full path of the mode, hybrid and lookups and rerank by default) while the
// rewriter runs, then each variant the same way and the HyDE snippet by its
// vector (searchRewrites), all with the request's scope, and fuses the lists by
// Reciprocal Rank Fusion (FuseRRF), the question's list first. The result keeps
// the question's vector and term weights, and a hit that only a rewrite found
// loses its Similarity and BM25 (they measured the rewrite), so the coverage
// decision reads the question alone. A rewrite that fails, is late or holds no
// usable query is logged and the question's hits are returned as they are; so
// is a failed variant search.
func (a *Asker) retrieveRewritten(ctx context.Context, r Request, q *question, limit int, weights bool) (retrieved, error) {
	p, _ := ctx.Value(rewriteKey{}).(*pendingRewrite)
	if p == nil {
		p = a.startRewrite(ctx, r.Question, nil)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the other side when one fails
	// The question's search and the rewrite's (wait for the model, then
	// search its queries) run side by side.
	type rewritten struct {
		lists   []RankedList
		queries []rewriteQuery
	}
	raw := q.raw
	own := background(func() (retrieved, error) {
		return a.retrieve(context.WithValue(ctx, plainKey{}, true), r, q, limit, weights)
	})
	rewrites := background(func() (rewritten, error) { // the error says why the rewrite was dropped
		rw, err := p.wait(ctx)
		if err != nil {
			return rewritten{}, err
		}
		queries := rewriteQueries(raw, rw)
		if len(queries) == 0 {
			return rewritten{}, errors.New("the rewrite held no usable query")
		}
		lists, err := a.searchRewrites(ctx, r, queries, max(limit, a.Candidates))
		if err != nil {
			err = fmt.Errorf("searching the rewritten queries: %w", err)
		}
		return rewritten{lists: lists, queries: queries}, err
	})
	res, err := own()
	if err != nil {
		return res, err
	}
	rw, why := rewrites()
	if why != nil {
		if ctx.Err() == nil {
			a.logger().Warn("query rewrite dropped; searched the question alone", "err", why, "ms", time.Since(p.start).Milliseconds())
		}
		p.setTrace(func(t *Rewritten) { t.Dropped = why.Error() })
		return res, nil
	}
	fused := FuseRRF(append([]RankedList{{Name: "q", Hits: res.hits}}, rw.lists...))
	for i := range fused {
		if !slices.ContainsFunc(res.hits, func(h Hit) bool { return h.ID == fused[i].ID }) {
			fused[i].Similarity, fused[i].BM25 = 0, 0
		}
	}
	if len(fused) > limit {
		fused = fused[:limit]
	}
	res.hits = fused
	p.setTrace(func(t *Rewritten) {
		for _, rq := range rw.queries {
			if rq.hyde {
				t.HyDE = rq.text
			} else {
				t.Variants = append(t.Variants, rq.text)
			}
		}
	})
	a.logger().Debug("query rewritten", "queries", len(rw.queries), "ms", time.Since(p.start).Milliseconds())
	return res, nil
}

// searchRewrites runs the queries' searches at once and returns their
// lists, in order. A variant is searched as a question (retrieve: in the
// default mode its own analysis, hybrid query, lookups of the names it
// holds and rerank), so a code term the model named is matched as exactly
// as one the user named; the HyDE snippet is a pseudo-document, not a
// question, and is searched by its vector alone (BM25 in ModeBM25).
func (a *Asker) searchRewrites(ctx context.Context, r Request, queries []rewriteQuery, limit int) ([]RankedList, error) {
	plain := context.WithValue(ctx, plainKey{}, true)
	lists := make([]RankedList, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, rq := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var hits []Hit
			var err error
			if rq.hyde {
				hits, err = a.searchHyDE(ctx, r, rq.text, limit)
			} else {
				vr := r
				vr.Question, vr.Thread = rq.text, nil
				var res retrieved
				res, err = a.retrieve(plain, vr, newQuestion(rq.text), limit, false)
				hits = res.hits
			}
			lists[i], errs[i] = RankedList{Name: rq.name, Hits: hits}, err
		}()
	}
	wg.Wait()
	return lists, errors.Join(errs...)
}

// searchHyDE searches a hypothetical snippet by its vector (Gao et al.
// 2022: the pseudo-document's embedding finds real documents near it), or
// by BM25 in ModeBM25, within the request's scope.
func (a *Asker) searchHyDE(ctx context.Context, r Request, snippet string, limit int) ([]Hit, error) {
	q := Query{Text: SearchQuery(snippet), Alpha: 0, Limit: limit, Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}
	if a.Mode != ModeBM25 {
		vec, err := a.embedQuestion(ctx, snippet)
		if err != nil {
			return nil, err
		}
		q.Vector, q.Semantic = a.splitVector(vec) // a Pair's vector holds both parts
		q.Alpha = 1
	}
	return a.Store.Search(ctx, q)
}
