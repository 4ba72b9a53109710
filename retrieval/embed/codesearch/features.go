package codesearch

import (
	"math"

	"github.com/ragbot/ragbot/retrieval"
)

// MaxPieces is how many identifier pieces of a text are read, from its start:
// code chunks longer than that are embedded from their head (doc comment,
// signature and first lines), at training and at embedding time alike.
const MaxPieces = 384

// Markers around a piece before its 3-grams are cut, standing for fastText's
// "<" and ">"; control bytes, so they never occur in a piece.
const (
	beginMarker = 0x02
	endMarker   = 0x03
)

// Pieces returns the lower-case identifier pieces of text that the encoder
// reads, in order, at most MaxPieces: retrieval.AppendTerms without the
// joined forms, and without long numeric literals (more than 4 bytes, at
// least half digits, or a 0x literal).
func Pieces(text string) []string {
	all := retrieval.AppendTerms(nil, text, false)
	out := all[:0]
	for _, p := range all {
		if retrieval.NumericLiteral(p) {
			continue
		}
		out = append(out, p)
		if len(out) == MaxPieces {
			break
		}
	}
	return out
}

// Hash is the 64-bit FNV-1a hash (Fowler, Noll, Vo; draft-eastlake-fnv) of
// the bytes of prefix followed by those of b, finished with the splitmix64
// mixer (Steele, Lea & Flood 2014) so that every bit depends on every byte.
// A 3-gram's bucket is its Hash with no prefix, modulo the bucket count;
// the offline embedder (package embed) hashes its features with it too.
func Hash[T string | []byte](prefix string, b T) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := range len(prefix) {
		h = (h ^ uint64(prefix[i])) * prime
	}
	for i := range len(b) {
		h = (h ^ uint64(b[i])) * prime
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// A Bag is the features of one text: distinct table rows in order of
// first appearance, each with its log count (the log of how often it
// occurs, so softmax(weight + LogCount) weighs every occurrence alike).
type Bag struct {
	Rows     []int32
	LogCount []float32
}

// A Featurizer turns texts into Bags for one vocabulary and bucket count,
// as Model.Encode does; training (tools/codesearch) reads texts through it
// so that it learns the rows the model later reads. Its buffers are reused
// across texts, so one Featurizer serves one goroutine.
type Featurizer struct {
	vocab   map[string]int32
	words   int // rows of word features; 3-gram rows follow
	buckets int
	index   map[int32]int
	count   []int
	gram    []byte
}

// NewFeaturizer returns the Featurizer of a model whose vocabulary is
// words (row i is words[i]) followed by buckets 3-gram rows.
func NewFeaturizer(words []string, buckets int) *Featurizer {
	return newFeaturizer(vocabOf(words), buckets)
}

func newFeaturizer(vocab map[string]int32, buckets int) *Featurizer {
	return &Featurizer{vocab: vocab, words: len(vocab), buckets: buckets, index: map[int32]int{}}
}

// Bag returns the features of text: the vocabulary row of each of its
// Pieces that has one and the 3-gram rows of every piece. A text without
// pieces gives an empty Bag.
func (f *Featurizer) Bag(text string) Bag {
	clear(f.index)
	var b Bag
	f.count = f.count[:0]
	add := func(r int32) {
		if i, ok := f.index[r]; ok {
			f.count[i]++
			return
		}
		f.index[r] = len(b.Rows)
		b.Rows = append(b.Rows, r)
		f.count = append(f.count, 1)
	}
	for _, p := range Pieces(text) {
		if r, ok := f.vocab[p]; ok {
			add(r)
		}
		f.gram = append(append(append(f.gram[:0], beginMarker), p...), endMarker)
		for i := 0; i+3 <= len(f.gram); i++ {
			add(int32(f.words + int(Hash("", f.gram[i:i+3])%uint64(f.buckets))))
		}
	}
	b.LogCount = make([]float32, len(b.Rows))
	for i, c := range f.count {
		b.LogCount[i] = float32(math.Log(float64(c)))
	}
	return b
}
