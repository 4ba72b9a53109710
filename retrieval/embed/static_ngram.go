package embed

import "github.com/ragbot/ragbot/retrieval"

// The out-of-vocabulary fallback of the Static embedder: character n-gram
// vectors, as fastText's subwords (Bojanowski et al. 2017), built from the
// model's own words on first use.

// oovVector sets v to the unit mean of the n-gram vectors of piece and
// reports whether any of its n-grams is known.
func (s *Static) oovVector(piece string, v []float64) bool {
	s.ngramOnce.Do(s.buildNgrams)
	d := s.model.Params.Dim
	clear(v)
	found := false
	forEachNgram(piece, func(h uint64) {
		b := int(h % ngramBuckets)
		if !s.ngramSeen[b] {
			return
		}
		found = true
		for j, x := range s.ngrams[b*d : (b+1)*d] {
			v[j] += float64(x)
		}
	})
	if !found {
		return false
	}
	n := norm64(v)
	if n == 0 {
		return false
	}
	for j := range v {
		v[j] /= n
	}
	return true
}

// buildNgrams computes each n-gram bucket's vector: the mean of the unit
// vectors of the model words (single pieces, not joined identifiers, which
// their pieces cover) that contain one of its n-grams.
func (s *Static) buildNgrams() {
	d := s.model.Params.Dim
	sums := make([]float64, ngramBuckets*d)
	counts := make([]int32, ngramBuckets)
	var pieces []string
	for i, w := range s.model.Words {
		if pieces = retrieval.AppendPieces(pieces[:0], w); len(pieces) != 1 || pieces[0] != w {
			continue
		}
		row := s.unit[i*d : (i+1)*d]
		forEachNgram(w, func(h uint64) {
			b := int(h % ngramBuckets)
			counts[b]++
			for j, x := range row {
				sums[b*d+j] += float64(x)
			}
		})
	}
	s.ngrams = make([]float32, ngramBuckets*d)
	s.ngramSeen = make([]bool, ngramBuckets)
	for b, c := range counts {
		if c == 0 {
			continue
		}
		s.ngramSeen[b] = true
		for j := range d {
			s.ngrams[b*d+j] = float32(sums[b*d+j] / float64(c))
		}
	}
}

// forEachNgram calls f with the hash of every character n-gram, ngramMin
// to ngramMax runes, of "<"+piece+">" (the markers are control bytes).
func forEachNgram(piece string, f func(uint64)) {
	b := make([]byte, 0, len(piece)+2)
	b = append(append(append(b, beginMarker), piece...), endMarker)
	var starts []int
	for i := range string(b) {
		starts = append(starts, i)
	}
	starts = append(starts, len(b))
	runes := len(starts) - 1
	for n := ngramMin; n <= ngramMax; n++ {
		for i := 0; i+n <= runes; i++ {
			f(hashBytes(ngramPrefix, b[starts[i]:starts[i+n]]))
		}
	}
}
