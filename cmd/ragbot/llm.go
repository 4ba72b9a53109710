package main

import (
	"context"
	"os"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

// newOpenAIEmbedder returns the OpenAI-compatible embedder of embedder kind
// openai. It makes one request to learn the vector length unless
// embedder.dimensions is set, so a wrong URL, model or key fails here.
func newOpenAIEmbedder(ctx context.Context, cfg *config.Config) (retrieval.Embedder, error) {
	e := cfg.Embedder
	return retrieval.NewOpenAI(ctx, retrieval.OpenAIConfig{
		BaseURL: e.BaseURL, Model: e.Model, APIKey: envValue(e.APIKeyEnv),
		Dimensions: e.Dimensions, BatchSize: e.BatchSize, Timeout: e.Timeout,
	})
}

// newSummarizer returns the LLM summarizer of retrieval.summary, or nil
// when it is not enabled.
func newSummarizer(cfg *config.Config) (*retrieval.Summarizer, error) {
	s := cfg.Retrieval.Summary
	if !s.Enabled {
		return nil, nil
	}
	return retrieval.NewSummarizer(retrieval.SummaryConfig{BaseURL: s.BaseURL, Model: s.Model, APIKey: envValue(s.APIKeyEnv), Timeout: s.Timeout})
}

// thresholdsFor returns the coverage thresholds of the embedder called
// name: retrieval.DefaultThresholds, with the fields that
// retrieval.thresholds.<name> sets replaced.
func thresholdsFor(cfg *config.Config, name string) retrieval.Thresholds {
	th := retrieval.DefaultThresholds(name)
	c := cfg.Retrieval.ThresholdsFor(name)
	if c.MinSimilarity != nil {
		th.MinSimilarity = *c.MinSimilarity
	}
	if c.MinTermCoverage != nil {
		th.MinTermCoverage = *c.MinTermCoverage
	}
	return th
}

// envValue reads the variable named env; "" names none.
func envValue(env string) string {
	if env == "" {
		return ""
	}
	return os.Getenv(env)
}
