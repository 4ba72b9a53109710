package embed

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// Parameters of the Static embedder. Changing any of them changes the
// vectors, so it must come with a new StaticVersion.
const (
	// StaticVersion starts the Name of every Static embedder.
	StaticVersion = "static-v1"
	// StaticFamily is the Family of every Static embedder.
	StaticFamily = "static"

	// sifA is SIF's smoothing constant a: a word of corpus probability p
	// weighs a/(a+p) (Arora et al. use 1e-3 to 1e-4; frequent code words
	// like "err" and "return" fall to a fifth of a rare word's weight).
	sifA = 1e-3
	// oovWeight weighs a word piece without a vector, whose vector is built
	// from its character n-grams: less than a rare known word (1.0), since
	// the n-gram vector is a guess.
	oovWeight = 0.5
	// lexShare is the share of the lexical (Offline) part in the cosine of
	// two Static vectors: cos = lexShare*cos_lex + (1-lexShare)*cos_sem, so
	// exact names keep most of their pull while synonyms add theirs. Chosen
	// among 0.3, 0.5 and 0.7 on the public eval set in vector mode (0.7 was best
	// on MRR@10 overall and for semantic questions; see README).
	lexShare = 0.7

	// Character n-grams of the out-of-vocabulary fallback, as fastText's
	// subwords (Bojanowski et al. 2017): 3 to 5 runes of "<piece>", hashed
	// into ngramBuckets buckets.
	ngramMin, ngramMax = 3, 5
	ngramBuckets       = 1 << 15
	ngramPrefix        = 'n'
)

// Static is the offline semantic embedder: code-aware static word vectors
// (wordvec, trained by `ragbot embeddings train` from local Go, Python and
// man-page text) combined into sentence vectors, concatenated with the
// Offline embedder's lexical hashing vector.
//
// The semantic part of a text's vector is SIF (Arora, Liang & Ma 2017, "A
// Simple but Tough-to-Beat Baseline for Sentence Embeddings", ICLR):
//
//  1. tokens are the word pieces of each identifier-like token (see
//     SplitIdentifier) and, for a multi-piece identifier, the joined
//     lower-case whole ("maxreconnects") when the model knows it;
//  2. each token's unit word vector is weighted by a/(a+p(w)), a = 1e-3,
//     p(w) its probability in the training corpora, and summed;
//  3. a word piece the model lacks gets the mean of the vectors of its
//     character 3- to 5-grams (each n-gram's vector is the mean of the
//     model words that contain it, computed on first use) at weight 0.5;
//     one without any known n-gram is skipped;
//  4. the sum is normalised and its projection on the model's common
//     component (the first principal component of sentence vectors of the
//     training text, wordvec.Model.Common) removed, then normalised again.
//
// Queries and chunks go through the same steps. Word vectors are used
// after "all-but-the-top" post-processing (see Postprocess). The result is
// the concatenation sqrt(0.7)*lexical ++ sqrt(0.3)*semantic (lexShare), so
// the cosine of two vectors is 0.7 times their lexical cosine plus 0.3
// times their semantic one; a text with no known word keeps its lexical
// part only. Vectors have unit length
// and OfflineDim + model dimension elements.
//
// Name is "static-v1-<first 12 hex of the model file's SHA-256>-<Dim>", so
// a collection embedded with another model (a retrained or refined one) is
// refused by OpenStore and re-embedded. Static is safe for concurrent use.
type Static struct {
	model  *wordvec.Model
	hash   string
	name   string
	unit   []float32 // unit-length word vectors, row per word
	weight []float32 // SIF weight per word
	common []float32 // unit common component; nil when none
	lex    Offline

	ngramOnce sync.Once
	ngrams    []float32 // ngramBuckets rows of the word-vector dimension
	ngramSeen []bool
}

var _ retrieval.Embedder = (*Static)(nil)

// NewStatic returns the embedder of model m, whose model file has the hex
// SHA-256 hash (wordvec.LoadFile returns it; Model.Hash computes it).
func NewStatic(m *wordvec.Model, hash string) *Static {
	d := m.Params.Dim
	s := &Static{model: m, hash: hash, unit: make([]float32, len(m.In)), weight: make([]float32, len(m.Words))}
	s.name = fmt.Sprintf("%s-%s-%d", StaticVersion, hash[:min(12, len(hash))], s.Dim())
	total := float64(m.Total())
	for i := range m.Words {
		unitRow(s.unit[i*d:(i+1)*d], m.In[i*d:(i+1)*d], m.Mean, m.Top)
		p := float64(m.Counts[i]) / max(total, 1)
		s.weight[i] = float32(sifA / (sifA + p))
	}
	if n := norm(m.Common); len(m.Common) == d && n > 0 {
		s.common = make([]float32, d)
		for j, x := range m.Common {
			s.common[j] = float32(float64(x) / n)
		}
	}
	return s
}

// LoadStatic reads a model file written by wordvec.Model.Save and returns
// its embedder. Errors are those of wordvec.LoadFile.
func LoadStatic(path string) (*Static, error) {
	m, hash, _, err := wordvec.LoadFile(path)
	if err != nil {
		return nil, fmt.Errorf("static embedder: %w", err)
	}
	return NewStatic(m, hash), nil
}

// A Neighbour is a word of the model and its cosine similarity to another.
type Neighbour struct {
	Word   string
	Cosine float64
}

// Similar returns the n words nearest to word by the cosine of the
// post-processed word vectors Static uses, best first, and false when the
// model has no vector for word (lower-case it first).
func (s *Static) Similar(word string, n int) ([]Neighbour, bool) {
	i, ok := s.model.ID(word)
	if !ok {
		return nil, false
	}
	d := s.model.Params.Dim
	v := s.unit[i*d : (i+1)*d]
	var out []Neighbour
	for j, w := range s.model.Words {
		if j == i {
			continue
		}
		var c float64
		for k, x := range s.unit[j*d : (j+1)*d] {
			c += float64(x) * float64(v[k])
		}
		k := len(out)
		for k > 0 && out[k-1].Cosine < c {
			k--
		}
		if k >= n {
			continue
		}
		out = slices.Insert(out, k, Neighbour{w, c})
		if len(out) > n {
			out = out[:n]
		}
	}
	return out, true
}

// Model returns the word vectors s embeds with; the caller must not change it.
func (s *Static) Model() *wordvec.Model { return s.model }

// Name returns "static-v1-<model hash, 12 hex>-<Dim>".
func (s *Static) Name() string { return s.name }

// Family returns StaticFamily, "static": the part of the name that does not
// change with the model. Config keys coverage thresholds by it, so that
// thresholds calibrated for one model still apply after `ragbot index`
// refines it (a new hash, a new Name).
func (s *Static) Family() string { return StaticFamily }

// Dim returns OfflineDim plus the model's dimension.
func (s *Static) Dim() int { return OfflineDim + s.model.Params.Dim }

// Embed returns the unit-length vector of each text, in order, each of
// Dim() float32s. It checks ctx before each text and returns a nil result
// and an error wrapping ctx.Err() once it is done; it returns no other
// error.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var st staticState
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("static embedder: stopped before text %d of %d: %w", i+1, len(texts), err)
		}
		out[i] = s.embed(&st, t)
	}
	return out, nil
}

// staticState holds the buffers of one Embed call.
type staticState struct {
	lex    offlineState
	sem    []float64
	pieces []string
	oov    []float64
}

func (s *Static) embed(st *staticState, text string) []float32 {
	lex := st.lex.embed(text)
	sem := s.semantic(st, text, true)
	vec := make([]float32, s.Dim())
	lw, sw := math.Sqrt(lexShare), math.Sqrt(1-lexShare)
	var n2 float64
	for i, x := range lex {
		v := float32(lw * float64(x))
		vec[i] = v
		n2 += float64(v) * float64(v)
	}
	for i, x := range sem {
		v := float32(sw * x)
		vec[OfflineDim+i] = v
		n2 += float64(v) * float64(v)
	}
	n := math.Sqrt(n2)
	for i := range vec {
		vec[i] = float32(float64(vec[i]) / n)
	}
	return vec
}

// semantic returns the SIF vector of text (unit length, or all zero when
// no token has a vector), with the common component removed when
// removeCommon is true. Tokens are summed in text order, so the result does
// not depend on anything but text.
func (s *Static) semantic(st *staticState, text string, removeCommon bool) []float64 {
	d := s.model.Params.Dim
	if cap(st.sem) < d {
		st.sem, st.oov = make([]float64, d), make([]float64, d)
	}
	sum := st.sem[:d]
	clear(sum)
	add := func(id int, w float32) {
		row := s.unit[id*d : (id+1)*d]
		for j, x := range row {
			sum[j] += float64(w) * float64(x)
		}
	}
	forEachToken(text, func(tok string) {
		st.pieces = retrieval.AppendPieces(st.pieces[:0], tok)
		if len(st.pieces) > 1 {
			if id, ok := s.model.ID(strings.Join(st.pieces, "")); ok {
				add(id, s.weight[id])
			}
		}
		for _, p := range st.pieces {
			if retrieval.NumericLiteral(p) {
				continue
			}
			if id, ok := s.model.ID(p); ok {
				add(id, s.weight[id])
			} else if s.oovVector(p, st.oov[:d]) {
				for j, x := range st.oov[:d] {
					sum[j] += oovWeight * x
				}
			}
		}
	})
	out := make([]float64, d)
	if n := norm64(sum); n > 0 {
		for j, x := range sum {
			out[j] = x / n
		}
	} else {
		return out
	}
	if removeCommon && s.common != nil {
		removeProjection(out, s.common)
		if n := norm64(out); n > 0 {
			for j := range out {
				out[j] /= n
			}
		}
	}
	return out
}
