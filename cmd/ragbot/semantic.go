package main

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/openai"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// semanticStartError is newEmbedder's error when the semantic embedder of
// kind openai could not be made: its endpoint did not answer the request
// that learns the vector length.
type semanticStartError struct{ err error }

func (e *semanticStartError) Error() string { return e.err.Error() }
func (e *semanticStartError) Unwrap() error { return e.err }

// newQueryEmbedder is newEmbedder, except that a command answering
// questions (not an index run) starts without the semantic embedder when
// its endpoint is down: it returns the lexical embedder alone and why
// (down), for reopenSemantic.
//
// Its request that learns the vector length (none when
// embedder.semantic.dimensions is set) then gets the question budget,
// embedder.semantic.query_timeout, not the client's retries (about 15 s
// against a 503): a question must not wait for an endpoint that is down.
func newQueryEmbedder(ctx context.Context, cfg *config.Config, flags commonFlags, stderr io.Writer, log *slog.Logger) (emb retrieval.Embedder, down error, err error) {
	if flags.indexing || cfg.Embedder.Semantic == nil || cfg.Embedder.Semantic.Kind != "openai" {
		emb, err = newEmbedder(ctx, cfg, stderr)
		return emb, nil, err
	}
	lex, err := embedderOf(ctx, cfg, cfg.Embedder, "embedder", stderr)
	if err != nil {
		return nil, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, cmp.Or(cfg.Embedder.Semantic.QueryTimeout, retrieval.DefaultQueryTimeout))
	defer cancel()
	emb, err = withSemantic(pctx, cfg, lex, stderr)
	var start *semanticStartError
	if !errors.As(err, &start) || ctx.Err() != nil {
		return emb, nil, err
	}
	log.Warn("semantic embedder unavailable at start; answering from keywords", "err", start.err)
	return lex, start.err, nil
}

// reopenSemantic runs when the semantic embedder could not be made at
// start (down): the store was opened without it. When the collection
// records the vector length of the configured model
// ("openai:<model>:<dim>"), the embedder is made with that length and no
// request, and the store reopened with it, so the breaker (guardSemantic)
// brings the semantic side back once the endpoint answers. Otherwise the
// command goes on with keywords and the lexical vector, and every answer
// says so.
func (a *app) reopenSemantic(ctx context.Context, sc weaviate.StoreConfig, flags commonFlags, down error) error {
	a.semanticDown, a.lexicalOnly = down, true
	e := a.cfg.Embedder.Semantic
	dim := recordedDim(a.store.RecordedSemantic(), e.Model)
	if dim == 0 {
		return nil
	}
	sem, err := openai.NewEmbedder(ctx, openai.EmbedderConfig{
		BaseURL: e.BaseURL, Model: e.Model, APIKey: envValue(e.APIKeyEnv),
		Dimensions: e.Dimensions, KnownDim: dim, BatchSize: e.BatchSize, Timeout: e.Timeout,
	})
	if err != nil {
		return err
	}
	pair := retrieval.Pair{Lexical: a.embedder, Semantic: sem, SemanticMaxInputTokens: e.MaxInputTokens}
	lexical := a.embedder
	a.embedder = pair
	store, err := a.openStore(ctx, sc, flags)
	if err != nil {
		a.embedder = lexical
		a.log.Warn("semantic vectors unavailable; answering from keywords", "err", err)
		return nil
	}
	a.store, a.lexicalOnly = store, false
	return nil
}

// recordedDim is the vector length in a recorded embedder name
// "openai:<model>:<dim>" when its model is model, else 0.
func recordedDim(recorded, model string) int {
	rest, ok := strings.CutPrefix(recorded, "openai:"+model+":")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 {
		return 0
	}
	return n
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
	b := &retrieval.Breaker{Embedder: p.Semantic,
		Timeout: cmp.Or(a.cfg.Embedder.Semantic.QueryTimeout, retrieval.DefaultQueryTimeout)}
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
	asker.Embedder = p
	return b
}

// warnAlways is an answer guard that adds its warning to every answer.
type warnAlways string

func (w warnAlways) Guard(_ context.Context, _ retrieval.Request, ans *retrieval.Answer) error {
	ans.Warnings = append(ans.Warnings, string(w))
	return nil
}

var _ retrieval.Guard = warnAlways("")
