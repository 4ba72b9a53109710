package codesearch

import (
	"math"

	"github.com/ragbot/ragbot/retrieval"
)

// MaxPieces is how many identifier pieces of a text are read, from its
// start: code chunks longer than that are embedded from their head (doc
// comment, signature and first lines), at training and at embedding time
// alike.
const MaxPieces = 384

// Markers around a piece before its 3-grams are cut, standing for fastText's
// "<" and ">"; control bytes, so they never occur in a piece.
const (
	beginMarker = 0x02
	endMarker   = 0x03
)

// FNV-1a 64-bit parameters (Fowler, Noll, Vo; draft-eastlake-fnv).
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
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

// gramBucket returns the bucket, in [0, buckets), of the 3-gram g.
func gramBucket(g []byte, buckets int) int {
	h := uint64(fnvOffset64)
	for _, b := range g {
		h = (h ^ uint64(b)) * fnvPrime64
	}
	// splitmix64 finaliser (Steele, Lea & Flood 2014): every bit of the
	// bucket depends on every byte.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return int(h % uint64(buckets))
}

// bag is the features of one text: distinct table rows in order of first
// appearance, each with its log count (the log of how often it occurs, so
// softmax(weight + logCount) weighs every occurrence alike).
type bag struct {
	rows     []int32
	logCount []float32
}

// featurizer turns texts into bags; its buffers are reused across texts,
// so one featurizer serves one goroutine.
type featurizer struct {
	vocab   map[string]int32
	words   int // rows of word features; 3-gram rows follow
	buckets int
	index   map[int32]int
	count   []int
	gram    []byte
}

func newFeaturizer(vocab map[string]int32, buckets int) *featurizer {
	return &featurizer{vocab: vocab, words: len(vocab), buckets: buckets, index: map[int32]int{}}
}

// bag returns the features of the pieces: the vocabulary row of each piece
// that has one and the 3-gram rows of every piece. A text without pieces
// gives an empty bag.
func (f *featurizer) bag(pieces []string) bag {
	clear(f.index)
	var b bag
	f.count = f.count[:0]
	add := func(r int32) {
		if i, ok := f.index[r]; ok {
			f.count[i]++
			return
		}
		f.index[r] = len(b.rows)
		b.rows = append(b.rows, r)
		f.count = append(f.count, 1)
	}
	for _, p := range pieces {
		if r, ok := f.vocab[p]; ok {
			add(r)
		}
		f.gram = append(append(append(f.gram[:0], beginMarker), p...), endMarker)
		for i := 0; i+3 <= len(f.gram); i++ {
			add(int32(f.words + gramBucket(f.gram[i:i+3], f.buckets)))
		}
	}
	b.logCount = make([]float32, len(b.rows))
	for i, c := range f.count {
		b.logCount[i] = float32(math.Log(float64(c)))
	}
	return b
}
