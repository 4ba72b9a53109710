// Package embedtest checks implementations of retrieval.Embedder, in the
// style of testing/fstest.TestFS: every embedder's tests call TestEmbedder,
// and a new embedder is only wired in once it passes.
package embedtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
)

// Texts are the inputs TestEmbedder embeds: a question, code in two naming
// styles, a markdown section, non-ASCII text and a one-word query. They are
// different enough that no sound embedder maps two of them to the same
// vector, which the order checks rely on.
var Texts = []string{
	"where is the retry for 503 errors?",
	"func (r *UserRepository) FindByEmail(ctx context.Context, email string) (*User, error) {\n\treturn r.db.QueryUser(ctx, \"email = ?\", email)\n}",
	"def render_sidebar_template(request):\n    return render(request, \"sidebar.html\", {\"items\": menu_items()})",
	"## Rollback\n\nRun `make rollback` and page the on-call engineer if the database migration fails.",
	"Größenänderung des Fensters – 窗口大小调整 – redimensionnement",
	"SMTP_SMARTHOST",
}

// Same is the cosine similarity above which two vectors count as the same
// vector. It is not 1 because a remote model may differ in the last bits
// between calls (batched GPU arithmetic); any embedder that is stable at all
// is stable far above it, and different texts are far below it.
const Same = 0.999

// TestEmbedder checks that e behaves as retrieval.Embedder documents, each
// property in its own subtest:
//   - dimension: Dim() is positive and every vector has Dim() finite
//     elements, not all zero;
//   - deterministic: embedding Texts twice gives the same vectors, and
//     different texts give different vectors;
//   - batch: a text embedded alone gives the vector it gets in a batch;
//   - order: embedding Texts reversed gives the vectors reversed;
//   - empty: an empty or nil batch gives an empty result and no error;
//   - canceled: a canceled context gives an error wrapping context.Canceled
//     and no vectors;
//   - concurrent: Embed called from several goroutines at once gives the same
//     vectors.
//
// Vectors are compared by cosine similarity against Same. TestEmbedder calls
// Embed about 15 times with at most len(Texts) texts each.
func TestEmbedder(t *testing.T, e retrieval.Embedder) {
	t.Helper()
	ctx := context.Background()
	dim := e.Dim()
	base, err := e.Embed(ctx, Texts)
	if err != nil {
		t.Fatalf("%s: Embed(%d texts): %v", e.Name(), len(Texts), err)
	}
	if len(base) != len(Texts) {
		t.Fatalf("%s: Embed(%d texts) returned %d vectors", e.Name(), len(Texts), len(base))
	}

	t.Run("dimension", func(t *testing.T) {
		if dim <= 0 {
			t.Errorf("Dim() = %d, want > 0", dim)
		}
		for i, v := range base {
			if err := checkVector(v, dim); err != nil {
				t.Errorf("vector %d (%.30q): %v", i, Texts[i], err)
			}
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		again, err := e.Embed(ctx, Texts)
		if err != nil {
			t.Fatalf("second Embed: %v", err)
		}
		for i := range Texts {
			if i < len(again) && !same(base[i], again[i]) {
				t.Errorf("text %d (%.30q): second Embed gave another vector (cosine %.6f, want >= %v)",
					i, Texts[i], retrieval.Cosine(base[i], again[i]), Same)
			}
			for j := i + 1; j < len(Texts); j++ {
				if same(base[i], base[j]) {
					t.Errorf("texts %d (%.30q) and %d (%.30q) gave the same vector (cosine %.6f)",
						i, Texts[i], j, Texts[j], retrieval.Cosine(base[i], base[j]))
				}
			}
		}
	})

	t.Run("batch", func(t *testing.T) {
		for i, text := range Texts {
			got, err := e.Embed(ctx, []string{text})
			if err != nil {
				t.Errorf("Embed(text %d alone): %v", i, err)
				continue
			}
			if len(got) != 1 {
				t.Errorf("Embed(text %d alone) returned %d vectors, want 1", i, len(got))
				continue
			}
			if !same(base[i], got[0]) {
				t.Errorf("text %d (%.30q): alone gave another vector than in a batch (cosine %.6f)",
					i, text, retrieval.Cosine(base[i], got[0]))
			}
		}
	})

	t.Run("order", func(t *testing.T) {
		rev := make([]string, len(Texts))
		for i, text := range Texts {
			rev[len(Texts)-1-i] = text
		}
		got, err := e.Embed(ctx, rev)
		if err != nil {
			t.Fatalf("Embed(reversed): %v", err)
		}
		if len(got) != len(rev) {
			t.Fatalf("Embed(reversed) returned %d vectors, want %d", len(got), len(rev))
		}
		for i := range Texts {
			if g := got[len(Texts)-1-i]; !same(base[i], g) {
				t.Errorf("text %d (%.30q): reversed batch put another vector at %d (cosine %.6f)",
					i, Texts[i], len(Texts)-1-i, retrieval.Cosine(base[i], g))
			}
		}
	})

	t.Run("empty", func(t *testing.T) {
		for _, in := range [][]string{nil, {}} {
			got, err := e.Embed(ctx, in)
			if err != nil || len(got) != 0 {
				t.Errorf("Embed(%#v) = %d vectors, %v; want 0 vectors, nil", in, len(got), err)
			}
		}
	})

	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		got, err := e.Embed(cctx, Texts)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Embed(canceled ctx) error = %v, want one wrapping context.Canceled", err)
		}
		if got != nil {
			t.Errorf("Embed(canceled ctx) returned %d vectors, want nil", len(got))
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		const workers = 4
		results := make([][][]float32, workers)
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { results[w], errs[w] = e.Embed(ctx, Texts) })
		}
		wg.Wait()
		for w := range workers {
			if errs[w] != nil {
				t.Errorf("goroutine %d: Embed: %v", w, errs[w])
				continue
			}
			if len(results[w]) != len(Texts) {
				t.Errorf("goroutine %d: Embed returned %d vectors, want %d", w, len(results[w]), len(Texts))
				continue
			}
			for i := range Texts {
				if !same(base[i], results[w][i]) {
					t.Errorf("goroutine %d, text %d (%.30q): another vector (cosine %.6f)",
						w, i, Texts[i], retrieval.Cosine(base[i], results[w][i]))
				}
			}
		}
	})
}

// checkVector reports why v is not a usable vector of length dim.
func checkVector(v []float32, dim int) error {
	if len(v) != dim {
		return fmt.Errorf("length %d, want Dim() = %d", len(v), dim)
	}
	var norm float64
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("element %d is %v, want a finite number", j, x)
		}
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return errors.New("all elements are zero; cosine distance needs a non-zero vector")
	}
	return nil
}

// same reports whether a and b have the same length and a cosine similarity
// of at least Same.
func same(a, b []float32) bool {
	return len(a) == len(b) && retrieval.Cosine(a, b) >= Same
}
