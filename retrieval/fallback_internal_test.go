package retrieval

import (
	"context"
	"testing"
)

// TestSemanticFallback: a Pair's failing semantic embedder fails the
// question unless SemanticFallback is set; then the question gets the
// lexical vector alone and its Ask context is marked degraded.
func TestSemanticFallback(t *testing.T) {
	lex := &flakyEmbedder{}
	sem := &flakyEmbedder{fail: true}
	a := &Asker{Embedder: Pair{Lexical: lex, Semantic: sem}}
	if _, err := a.embedQuestion(context.Background(), "q"); err == nil {
		t.Error("without SemanticFallback: no error, want the semantic embedder's")
	}
	a.SemanticFallback = true
	ctx, degraded := withDegraded(context.Background())
	v, err := a.embedQuestion(ctx, "q")
	if err != nil || len(v) != lex.Dim() || !degraded.Load() {
		t.Errorf("with SemanticFallback: %v, %d floats, degraded %v; want the lexical vector (%d) and degraded", err, len(v), degraded.Load(), lex.Dim())
	}
	sem.set(false, false)
	ctx, degraded = withDegraded(context.Background())
	if v, err := a.embedQuestion(ctx, "q"); err != nil || len(v) != lex.Dim()+sem.Dim() || degraded.Load() {
		t.Errorf("semantic back: %v, %d floats, degraded %v; want both vectors, not degraded", err, len(v), degraded.Load())
	}
}
