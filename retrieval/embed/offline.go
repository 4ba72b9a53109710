package embed

import (
	"context"
	"fmt"
	"maps"
	"math"
	"unicode/utf8"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
)

// Parameters of the offline embedder. Changing any of them changes the
// vectors, so it must come with a new OfflineName.
const (
	// OfflineName is the Name of the Offline embedder.
	OfflineName = "offline-hash-v1-384"
	// OfflineDim is the vector length of the Offline embedder.
	OfflineDim = 384

	wordWeight    = 1.0  // a word piece, before tf and stopword scaling
	trigramWeight = 0.4  // each character 3-gram of a word piece, times the piece's weight
	stopWeight    = 0.15 // factor for stopwords
	shortWeight   = 0.3  // factor for one-letter pieces (loop variables, receivers)

	// Prefixes keep the hashes of a word and of a 3-gram with the same bytes
	// apart; the markers stand for the word boundaries "<" and ">" of fastText
	// and are control bytes, so they never occur in a piece.
	wordPrefix  = "w"
	gramPrefix  = "g"
	beginMarker = 0x02
	endMarker   = 0x03
)

// emptyFeature is hashed for a text without any word piece (empty, blank or
// punctuation only), so that its vector is a unit vector like every other
// rather than zero, which cosine distance cannot handle.
const emptyFeature = "\x00empty"

// Offline is the default embedder (docs/configuration.md): no model weights and
// no network. It embeds a text by feature hashing (the "hashing trick",
// Weinberger et al. 2009, "Feature Hashing for Large Scale Multitask
// Learning", ICML) of code-aware features into OfflineDim dimensions:
//
//   - the word pieces of the text as Terms splits them (identifiers are split,
//     so findByEmail, find_by_email and "find by email" give the same
//     features; the joined forms Terms adds for BM25 are left out), each with
//     weight 1+ln(tf) (sublinear tf, Manning, Raghavan & Schütze 2008,
//     "Introduction to Information Retrieval" §6.4.1), scaled down for a small
//     built-in list of English and code stopwords and for one-letter pieces;
//   - the character 3-grams of each piece with boundary markers ("<em", "ema",
//     ... "il>" for "email"), each with 0.4 times the piece's weight, as
//     fastText's subword features (Bojanowski et al. 2017, "Enriching Word
//     Vectors with Subword Information", TACL), so inflections and
//     abbreviations share part of their vectors (notify, notifies).
//
// A feature's dimension and sign come from one 64-bit FNV-1a hash of its
// bytes, finished with the splitmix64 mixer, so vectors are the same in every
// process and run (products are rounded explicitly, so no platform fuses
// them; math.Log may still differ in its last bit between CPU architectures,
// which float32 output almost always absorbs). The sum is L2-normalised:
// vectors have unit length, and cosine similarity is their dot product.
//
// Offline embeds thousands of 40-line chunks per second on one core (see
// BenchmarkOfflineEmbed). It has no state: the zero value is ready to use and
// it is safe for concurrent use.
type Offline struct{}

var _ retrieval.Embedder = (*Offline)(nil)

// NewOffline returns the offline embedder.
func NewOffline() *Offline { return &Offline{} }

// Name returns OfflineName, "offline-hash-v1-384".
func (*Offline) Name() string { return OfflineName }

// Dim returns OfflineDim, 384.
func (*Offline) Dim() int { return OfflineDim }

// Embed returns the unit-length vector of each text, in order, each of
// OfflineDim float32s. A text without letters or digits gets a fixed unit
// vector of its own. Embed checks ctx before each text and returns a nil result
// and an error wrapping ctx.Err() once it is done; it returns no other error.
func (o *Offline) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var e offlineState
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("offline embedder: stopped before text %d of %d: %w", i+1, len(texts), err)
		}
		out[i] = e.embed(t)
	}
	return out, nil
}

// offlineState holds the buffers of one Embed call, reused across its texts.
type offlineState struct {
	pieces []string
	index  map[string]int // piece -> position in uniq
	uniq   []string       // distinct pieces in order of first appearance
	tf     []int          // count of uniq[i]
	runes  []int          // byte offsets of the runes of a marked piece
	gram   []byte         // a marked piece: beginMarker, piece, endMarker
	sum    [OfflineDim]float64
}

// embed returns the vector of text. Features are added in a fixed order
// (pieces by first appearance), so the float sums, and the vector, do not
// depend on map iteration order.
func (e *offlineState) embed(text string) []float32 {
	e.pieces = retrieval.AppendTerms(e.pieces[:0], text, false)
	if e.index == nil {
		e.index = make(map[string]int)
	}
	clear(e.index)
	e.uniq, e.tf = e.uniq[:0], e.tf[:0]
	for _, p := range e.pieces {
		if i, ok := e.index[p]; ok {
			e.tf[i]++
			continue
		}
		e.index[p] = len(e.uniq)
		e.uniq = append(e.uniq, p)
		e.tf = append(e.tf, 1)
	}
	e.sum = [OfflineDim]float64{}
	if len(e.uniq) == 0 {
		e.add(codesearch.Hash(wordPrefix, emptyFeature), 1)
	}
	for i, p := range e.uniq {
		w := wordWeight * (1 + math.Log(float64(e.tf[i])))
		if offlineStopwords[p] {
			w *= stopWeight
		} else if utf8.RuneCountInString(p) == 1 {
			w *= shortWeight
		}
		e.add(codesearch.Hash(wordPrefix, p), w)
		e.addTrigrams(p, float64(w*trigramWeight))
	}
	var norm float64
	for _, v := range e.sum {
		norm += float64(v * v) // explicit rounding: no fused multiply-add
	}
	norm = math.Sqrt(norm)
	vec := make([]float32, OfflineDim)
	if norm == 0 { // features cancelled out exactly; practically never
		vec[0] = 1
		return vec
	}
	for i, v := range e.sum {
		vec[i] = float32(v / norm)
	}
	return vec
}

// addTrigrams adds every character 3-gram of "<"+p+">" with weight w.
func (e *offlineState) addTrigrams(p string, w float64) {
	e.gram = append(append(append(e.gram[:0], beginMarker), p...), endMarker)
	e.runes = e.runes[:0]
	for i := range string(e.gram) {
		e.runes = append(e.runes, i)
	}
	e.runes = append(e.runes, len(e.gram))
	for i := 0; i+3 < len(e.runes); i++ {
		e.add(codesearch.Hash(gramPrefix, e.gram[e.runes[i]:e.runes[i+3]]), w)
	}
}

// add adds w to the dimension h selects, with the sign h selects: the low
// bits pick the dimension, the top bit the sign (Weinberger et al.'s signed
// hash keeps the inner product unbiased).
func (e *offlineState) add(h uint64, w float64) {
	if h>>63 != 0 {
		w = -w
	}
	e.sum[h%OfflineDim] += w
}

// offlineStopwords are word pieces that carry little meaning in questions or
// code: Weaviate's English stopword preset, more common
// English function words, and the keywords and names that appear in most
// code chunks of the languages we index. They still count, with weight
// stopWeight, since a query may be nothing but them.
var offlineStopwords = func() map[string]bool {
	m := maps.Clone(retrieval.EnglishStopwords)
	for _, w := range []string{
		// English, beyond Weaviate's preset
		"about", "all", "any", "been", "can", "could", "did", "do", "does", "from", "had", "has",
		"have", "how", "i", "its", "me", "my", "our", "should", "so", "some", "than", "them",
		"those", "us", "we", "were", "what", "when", "where", "which", "who", "why", "would",
		"you", "your",
		// code
		"args", "bool", "break", "byte", "case", "const", "continue", "ctx", "def", "else",
		"end", "err", "false", "fn", "func", "function", "go", "import", "int", "let", "nil",
		"none", "null", "package", "pass", "public", "private", "return", "self", "static",
		"str", "string", "struct", "true", "type", "var", "void",
	} {
		m[w] = true
	}
	return m
}()
