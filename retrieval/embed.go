package retrieval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// An Embedder turns texts into vectors of a fixed dimension. The query path
// embeds the question with it and the ingest pipeline embeds chunks with it
// (docs/configuration.md, "Embedders, coverage thresholds and the LLM
// summary"); vectors of different embedders are not comparable,
// so a collection records Name and refuses another. Implementations are
// concrete structs wired in by cmd (NewOffline, the OpenAI-compatible client)
// and must be safe for concurrent use; retrieval/embedtest checks any of them.
type Embedder interface {
	// Embed returns one vector per text, in order: the i-th vector, of Dim()
	// float32s, is the embedding of texts[i]. An empty texts gives an empty
	// result and no error. The same text gives the same vector whatever the
	// batch it is in. Embed returns an error wrapping ctx.Err() when ctx is
	// done before it finishes, and any error of the model it calls; it returns
	// no partial result with an error.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies the model and its parameters, e.g. "offline-hash-v1-384";
	// the collection records it and refuses a mismatch.
	Name() string
	// Dim is the vector length, in float32 elements.
	Dim() int
}

// A QueryEmbedder is an Embedder whose model embeds a question otherwise
// than a passage: an asymmetric model whose card asks for a query prefix
// (E5, "query: "; BGE, its retrieval instruction). EmbedQueries is Embed
// for questions, with Embed's contract; Embed is for the chunks.
type QueryEmbedder interface {
	Embedder
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedQueries embeds questions with e: its EmbedQueries when e is a
// QueryEmbedder, else its Embed. Errors are theirs.
func EmbedQueries(ctx context.Context, e Embedder, texts []string) ([][]float32, error) {
	if q, ok := e.(QueryEmbedder); ok {
		return q.EmbedQueries(ctx, texts)
	}
	return e.Embed(ctx, texts)
}

// embedAs embeds texts with e as questions (EmbedQueries) when queries is
// set, else as passages (Embed).
func embedAs(ctx context.Context, e Embedder, texts []string, queries bool) ([][]float32, error) {
	if queries {
		return EmbedQueries(ctx, e, texts)
	}
	return e.Embed(ctx, texts)
}

// A Pair embeds each text with two embedders and returns one vector: the
// Lexical embedder's vector followed by the Semantic one's (Dim is the sum
// of theirs). The Weaviate store keeps the parts as two named vectors
// (retrieval/weaviate, StoreConfig.Semantic) and hybrid search reads both;
// Split takes a Pair vector apart again. SemanticMaxInputTokens, when
// positive, cuts each text for the semantic embedder the way the indexer
// cuts it for the lexical one (at 3 bytes a token; see CutText). A Pair is
// safe for concurrent use when both embedders are.
type Pair struct {
	Lexical, Semantic      Embedder
	SemanticMaxInputTokens int
}

// Close closes each of the Pair's embedders that holds resources beyond the
// Go heap (CloseEmbedder) and returns their errors joined.
func (p Pair) Close() error {
	return errors.Join(CloseEmbedder(p.Lexical), CloseEmbedder(p.Semantic))
}

// CloseEmbedder closes e when it is an io.Closer, as the in-process
// transformer is (its ONNX Runtime sessions hold their model and buffers
// outside the Go heap, about 150 MB for the default model: the garbage
// collector never frees them), and returns its error; other embedders hold
// nothing to close and give nil. A process that makes embedders more than
// once, as tests and a reloaded config do, closes each one it is done with.
func CloseEmbedder(e Embedder) error {
	if c, ok := e.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Embed runs both embedders, one after the other, and joins their vectors;
// an error of either is returned, wrapped with its embedder's name.
func (p Pair) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return p.embed(ctx, texts, false)
}

// EmbedQueries is Embed for questions: the semantic part is the semantic
// embedder's EmbedQueries (see QueryEmbedder).
func (p Pair) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return p.embed(ctx, texts, true)
}

func (p Pair) embed(ctx context.Context, texts []string, queries bool) ([][]float32, error) {
	lex, err := embedAs(ctx, p.Lexical, texts, queries)
	if err != nil {
		return nil, err
	}
	sem, err := p.embedSemantic(ctx, texts, queries)
	if err != nil {
		return nil, err
	}
	if len(lex) != len(texts) || len(sem) != len(texts) {
		return nil, fmt.Errorf("embedders %s and %s returned %d and %d vectors for %d texts", p.Lexical.Name(), p.Semantic.Name(), len(lex), len(sem), len(texts))
	}
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = append(append(make([]float32, 0, len(lex[i])+len(sem[i])), lex[i]...), sem[i]...)
	}
	return out, nil
}

// ErrSemanticEmbedder is wrapped by every error of Pair.EmbedSemantic (and
// so of Pair.Embed when the semantic embedder failed), so that a caller can
// go on with the lexical vectors alone.
var ErrSemanticEmbedder = errors.New("semantic embedder")

// EmbedSemantic returns the Semantic embedder's vectors of texts, each cut
// to SemanticMaxInputTokens first. Its errors wrap ErrSemanticEmbedder.
func (p Pair) EmbedSemantic(ctx context.Context, texts []string) ([][]float32, error) {
	return p.embedSemantic(ctx, texts, false)
}

// EmbedSemanticQueries is EmbedSemantic for questions (QueryEmbedder).
func (p Pair) EmbedSemanticQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return p.embedSemantic(ctx, texts, true)
}

func (p Pair) embedSemantic(ctx context.Context, texts []string, queries bool) ([][]float32, error) {
	if p.SemanticMaxInputTokens > 0 {
		cut := make([]string, len(texts))
		for i, t := range texts {
			cut[i], _ = CutText(t, p.SemanticMaxInputTokens)
		}
		texts = cut
	}
	vs, err := embedAs(ctx, p.Semantic, texts, queries)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrSemanticEmbedder, p.Semantic.Name(), err)
	}
	return vs, nil
}

// Name is the lexical embedder's Name. The store records the semantic
// embedder apart and re-embeds the semantic vectors itself when it changes
// (retrieval/weaviate, StoreConfig.Reembed), so a new semantic embedder
// leaves what the indexer keys on the embedder's name (a source's settings)
// as it is, and its chunks are not written again.
func (p Pair) Name() string { return p.Lexical.Name() }

// Family is the lexical embedder's family (its Family method, else its
// Name): the coverage thresholds are on the lexical similarity.
func (p Pair) Family() string {
	if f, ok := p.Lexical.(interface{ Family() string }); ok {
		return f.Family()
	}
	return p.Lexical.Name()
}

// Dim is the sum of both embedders' Dim.
func (p Pair) Dim() int { return p.Lexical.Dim() + p.Semantic.Dim() }

// Split returns the lexical and semantic parts of a Pair vector; a vector
// no longer than the lexical Dim is returned whole as lexical, with a nil
// semantic part (a chunk stored without a semantic vector).
func (p Pair) Split(v []float32) (lexical, semantic []float32) {
	n := p.Lexical.Dim()
	if len(v) <= n {
		return v, nil
	}
	return v[:n], v[n:]
}

// bytesPerToken is how many bytes of text CutText counts as one token. It
// is conservative: OpenAI's tokenizers average about 4 bytes per token on
// English and code ("What are tokens and how to count them?", OpenAI help
// center), fewer on dense symbols.
const bytesPerToken = 3

// CutText returns text cut, when it is longer than maxTokens allows (at
// bytesPerToken), to a prefix that fits: at a line break in its last
// quarter, else at a character boundary; cut reports the cut. maxTokens
// <= 0 means no limit.
func CutText(text string, maxTokens int) (string, bool) {
	n := maxTokens * bytesPerToken
	if maxTokens <= 0 || len(text) <= n {
		return text, false
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	text = text[:n]
	if i := strings.LastIndexByte(text, '\n'); i >= n*3/4 {
		text = text[:i+1]
	}
	return text, true
}
