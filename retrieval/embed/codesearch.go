package embed

import (
	"context"
	"fmt"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
)

// CodeSearchFamily is the Family of every CodeSearch embedder, whatever
// its model: the key of its coverage thresholds.
const CodeSearchFamily = "codesearch-v1"

// CodeSearch embeds questions and code with a codesearch model, a neural
// bag-of-words dual encoder trained on (doc comment, code) pairs
// (package codesearch; models/codesearch-v1/PROVENANCE.md). Questions and
// chunk texts go through the same encoder; vectors are unit length, of the
// model's Dim (128 for codesearch-v1). It is safe for concurrent use.
type CodeSearch struct {
	m    *codesearch.Model
	name string
}

var _ retrieval.Embedder = (*CodeSearch)(nil)

// NewCodeSearch returns the embedder of model m, whose file has the hex
// SHA-256 hash: its Name is "codesearch-v1-<first 12 hex digits>-<dim>",
// so a collection embedded with another model is told apart.
func NewCodeSearch(m *codesearch.Model, hash string) *CodeSearch {
	if len(hash) > 12 {
		hash = hash[:12]
	}
	return &CodeSearch{m: m, name: fmt.Sprintf("%s-%s-%d", CodeSearchFamily, hash, m.Dim)}
}

// Name returns "codesearch-v1-<model hash>-<dim>".
func (c *CodeSearch) Name() string { return c.name }

// Family returns CodeSearchFamily.
func (c *CodeSearch) Family() string { return CodeSearchFamily }

// Dim returns the model's vector length.
func (c *CodeSearch) Dim() int { return c.m.Dim }

// Embed returns the unit vector of each text, in order (codesearch.Model.
// Encode). It checks ctx before each text and returns a nil result and an
// error wrapping ctx.Err() once it is done; it returns no other error.
func (c *CodeSearch) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("codesearch embedder: stopped before text %d of %d: %w", i+1, len(texts), err)
		}
		out[i] = c.m.Encode(t)
	}
	return out, nil
}
