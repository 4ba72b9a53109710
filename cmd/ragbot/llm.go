package main

import (
	"context"
	"os"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/openai"
)

// newOpenAIEmbedder returns the OpenAI-compatible embedder of embedder kind
// openai. It makes one request to learn the vector length unless
// embedder.dimensions is set, so a wrong URL, model or key fails here.
func newOpenAIEmbedder(ctx context.Context, cfg *config.Config) (retrieval.Embedder, error) {
	e := cfg.Embedder
	return openai.NewEmbedder(ctx, openai.EmbedderConfig{
		BaseURL: e.BaseURL, Model: e.Model, APIKey: envValue(e.APIKeyEnv),
		Dimensions: e.Dimensions, BatchSize: e.BatchSize, Timeout: e.Timeout,
	})
}

// newSummarizer returns the LLM summarizer of retrieval.summary, or a nil
// interface (not a nil pointer) when it is not enabled.
func newSummarizer(cfg *config.Config) (retrieval.Summarizer, error) {
	s := cfg.Retrieval.Summary
	if !s.Enabled {
		return nil, nil
	}
	sum, err := openai.NewSummarizer(openai.SummaryConfig{BaseURL: s.BaseURL, Model: s.Model, APIKey: envValue(s.APIKeyEnv), Timeout: s.Timeout})
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// thresholdsFor returns the coverage thresholds of emb:
// retrieval.DefaultThresholds, with the fields set by the config's entry
// for emb's name, or else for its family (embedderFamily), replaced.
func thresholdsFor(cfg *config.Config, emb retrieval.Embedder) retrieval.Thresholds {
	th := retrieval.DefaultThresholds()
	c := cfg.Retrieval.ThresholdsFor(emb.Name(), embedderFamily(emb))
	if c.MinSimilarity != nil {
		th.MinSimilarity = *c.MinSimilarity
	}
	if c.MinTermCoverage != nil {
		th.MinTermCoverage = *c.MinTermCoverage
	}
	if c.FloorSimilarity != nil {
		th.FloorSimilarity = *c.FloorSimilarity
	}
	if c.FloorTermCoverage != nil {
		th.FloorTermCoverage = *c.FloorTermCoverage
	}
	if c.MaxAbsentShare != nil {
		th.MaxAbsentShare = *c.MaxAbsentShare
	}
	return th
}

// embedderFamily is the key of emb's thresholds that survives a new model:
// its Family when it has one (embed.CodeSearch: "codesearch-v1", whatever
// the model's hash in its Name), else its Name, which then never changes.
func embedderFamily(emb retrieval.Embedder) string {
	if f, ok := emb.(interface{ Family() string }); ok {
		return f.Family()
	}
	return emb.Name()
}

// envValue reads the variable named env; "" names none.
func envValue(env string) string {
	if env == "" {
		return ""
	}
	return os.Getenv(env)
}
