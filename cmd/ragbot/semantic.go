package main

import (
	"cmp"
	"context"
	"time"

	"github.com/ragbot/ragbot/internal/connect"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval"
)

// queryBudget is embedder.semantic.query_timeout, or its default.
func (a *app) queryBudget() time.Duration {
	if s := a.cfg.Embedder.Semantic; s != nil {
		return cmp.Or(s.QueryTimeout, retrieval.DefaultQueryTimeout)
	}
	return retrieval.DefaultQueryTimeout
}

// reopenSemantic runs when the semantic embedder could not be made at
// start (down; embedders.NewForQuestions): the store was opened without
// it. When the collection records the vector length of the configured
// model ("openai:<model>:<dim>"), the embedder is made with that length
// and no request, and the store reopened with it, so that the breaker
// (guardSemantic, which starts open) brings the semantic side back once
// the endpoint answers. Otherwise the command goes on with keywords and
// the lexical vector, and every answer says so.
func (a *app) reopenSemantic(ctx context.Context, opt connect.Options, down error) {
	a.semanticDown, a.lexicalOnly = down, true
	s := a.cfg.Embedder.Semantic
	dim := embedders.RecordedDim(a.store.RecordedSemantic(), s.Model)
	if dim == 0 {
		return
	}
	sem, err := embedders.SemanticKnown(ctx, *s, dim)
	if err != nil {
		a.log.Warn("semantic embedder unavailable; answering from keywords", "err", err)
		return
	}
	pair := retrieval.Pair{Lexical: a.embedder, Semantic: sem, SemanticMaxInputTokens: s.MaxInputTokens}
	if err := a.conn.Reopen(ctx, a.cfg, pair, opt); err != nil {
		a.log.Warn("semantic vectors unavailable; answering from keywords", "err", err)
		return
	}
	a.embedder, a.store, a.lexicalOnly = pair, a.conn.Store, false
}

// guardSemantic puts the semantic embedder of asker's Pair behind a
// retrieval.Breaker with embedder.semantic.query_timeout: a question whose
// semantic vector fails, is late or meets the open breaker is answered
// from BM25 and the lexical vector, with retrieval.SemanticUnavailableWarning.
// Each change of the breaker's state is logged once. It returns the
// breaker, nil when there is no semantic embedder. A breaker whose
// embedder failed at start (reopenSemantic) starts open; when the semantic
// embedder could not be made at all, every answer gets the warning.
func (a *app) guardSemantic(asker *retrieval.Asker) *retrieval.Breaker {
	if a.lexicalOnly {
		asker.Guards = append(asker.Guards, warnAlways(retrieval.SemanticUnavailableWarning))
		return nil
	}
	p, ok := asker.Embedder.(retrieval.Pair)
	if !ok || a.cfg.Embedder.Semantic == nil {
		return nil
	}
	b := &retrieval.Breaker{Embedder: p.Semantic, Timeout: a.queryBudget()}
	b.OnChange = func(from, to retrieval.BreakerState, err error) {
		switch to {
		case retrieval.BreakerOpen:
			a.log.Warn("semantic embedder unavailable; answering from keywords", "embedder", b.Name(), "breaker", to, "retry_in", retrieval.DefaultBreakerCoolDown, "err", err)
		case retrieval.BreakerHalfOpen:
			a.log.Info("semantic embedder: probing", "embedder", b.Name(), "breaker", to)
		default:
			a.log.Warn("semantic embedder back", "embedder", b.Name(), "breaker", to)
		}
	}
	if a.semanticDown != nil {
		b.Trip(a.semanticDown)
	}
	p.Semantic = b
	asker.Embedder, asker.SemanticFallback = p, true
	return b
}

// warnAlways is an answer guard that adds its warning to every answer.
type warnAlways string

func (w warnAlways) Guard(_ context.Context, _ retrieval.Request, ans *retrieval.Answer) error {
	ans.Warnings = append(ans.Warnings, string(w))
	return nil
}

var _ retrieval.Guard = warnAlways("")
