package embedders

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

// QueryBudget is embedder.semantic.query_timeout, or
// retrieval.DefaultQueryTimeout when unset or without a semantic embedder.
func QueryBudget(e config.Embedder) time.Duration {
	if s := e.Semantic; s != nil {
		return cmp.Or(s.QueryTimeout, retrieval.DefaultQueryTimeout)
	}
	return retrieval.DefaultQueryTimeout
}

// Guard puts the semantic embedder of asker's Pair behind a
// retrieval.Breaker with QueryBudget(e): a question whose semantic vector
// fails, is late or meets the open breaker is answered from BM25 and the
// lexical vector, with retrieval.SemanticUnavailableWarning. Each change of
// the breaker's state is logged once to log. It returns the breaker, nil
// when there is no semantic embedder. With down set (the embedder failed at
// start) the breaker starts open; with lexicalOnly (the semantic embedder
// could not be made at all) every answer gets the warning.
func Guard(asker *retrieval.Asker, e config.Embedder, log *slog.Logger, lexicalOnly bool, down error) *retrieval.Breaker {
	if lexicalOnly {
		asker.Guards = append(asker.Guards, warnAlways(retrieval.SemanticUnavailableWarning))
		return nil
	}
	p, ok := asker.Embedder.(retrieval.Pair)
	if !ok || e.Semantic == nil {
		return nil
	}
	b := &retrieval.Breaker{Embedder: p.Semantic, Timeout: QueryBudget(e)}
	b.OnChange = func(from, to retrieval.BreakerState, err error) {
		switch to {
		case retrieval.BreakerOpen:
			log.Warn("semantic embedder unavailable; answering from keywords", "embedder", b.Name(), "breaker", to, "retry_in", retrieval.DefaultBreakerCoolDown, "err", err)
		case retrieval.BreakerHalfOpen:
			log.Info("semantic embedder: probing", "embedder", b.Name(), "breaker", to)
		default:
			log.Warn("semantic embedder back", "embedder", b.Name(), "breaker", to)
		}
	}
	if down != nil {
		b.Trip(down)
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
