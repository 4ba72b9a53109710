package embedders

import (
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
)

// Thresholds returns the coverage thresholds of emb (cosine similarity and
// term coverage, each 0..1): retrieval.DefaultThresholds, with the fields
// set by r's entry for emb's name, or else for its Family, replaced.
func Thresholds(r config.Retrieval, emb retrieval.Embedder) retrieval.Thresholds {
	th := retrieval.DefaultThresholds()
	c := r.ThresholdsFor(emb.Name(), Family(emb))
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

// Family is the key of emb's thresholds that survives a new model: its
// Family when it has one (embed.CodeSearch: "codesearch-v1", whatever the
// model's hash in its Name), else its Name, which then never changes.
func Family(emb retrieval.Embedder) string {
	if f, ok := emb.(interface{ Family() string }); ok {
		return f.Family()
	}
	return emb.Name()
}
