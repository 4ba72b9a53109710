package wordvec

import (
	"fmt"
	"sort"
)

// Sentences streams a corpus as token lists. It calls yield once per
// sentence, in a fixed order, and stops early when yield returns false; it
// must give the same sentences on every call, since Train reads the corpus
// twice (count, then encode). A sentence may be of any length; Train cuts
// it into pieces of maxSentence tokens. The token slice may be reused by the
// caller after yield returns. The error is returned by Train as it is.
type Sentences func(yield func(tokens []string) bool) error

// maxSentence is the longest run of tokens trained as one sentence, as
// MAX_SENTENCE_LENGTH in word2vec.c: windows never cross its boundary.
const maxSentence = 1000

// maxTokenLen is the longest token, in bytes, that gets a vector: longer
// ones (hashes, base64, minified code) are dropped while counting.
const maxTokenLen = 40

// counter counts tokens in order of first appearance.
type counter struct {
	index  map[string]int32
	words  []string
	counts []int64
	total  int64
}

func newCounter() *counter { return &counter{index: map[string]int32{}} }

func (c *counter) add(tokens []string) {
	for _, t := range tokens {
		if t == "" || len(t) > maxTokenLen {
			continue
		}
		i, ok := c.index[t]
		if !ok {
			i = int32(len(c.words))
			c.index[t] = i
			c.words = append(c.words, t)
			c.counts = append(c.counts, 0)
		}
		c.counts[i]++
		c.total++
	}
}

// count reads the corpus once and counts its tokens.
func count(sents Sentences) (*counter, error) {
	c := newCounter()
	err := sents(func(tokens []string) bool {
		c.add(tokens)
		return true
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// frequent returns the words counted at least minCount times, most frequent
// first (ties by byte order, so the order never depends on the corpus
// order), at most max of them (0: no limit).
func (c *counter) frequent(minCount int64, max int) (words []string, counts []int64) {
	idx := make([]int, 0, len(c.words))
	for i, n := range c.counts {
		if n >= minCount {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool {
		ia, ib := idx[a], idx[b]
		if c.counts[ia] != c.counts[ib] {
			return c.counts[ia] > c.counts[ib]
		}
		return c.words[ia] < c.words[ib]
	})
	if max > 0 && len(idx) > max {
		idx = idx[:max]
	}
	for _, i := range idx {
		words = append(words, c.words[i])
		counts = append(counts, c.counts[i])
	}
	return words, counts
}

// encode reads the corpus again and returns it as word ids of index, each
// sentence (cut at maxSentence tokens) ended by -1; tokens without an id
// are dropped, as word2vec.c drops out-of-vocabulary words.
func encode(sents Sentences, index map[string]int32) ([]int32, error) {
	var out []int32
	err := sents(func(tokens []string) bool {
		n := 0
		for _, t := range tokens {
			id, ok := index[t]
			if !ok {
				continue
			}
			out = append(out, id)
			if n++; n == maxSentence {
				out = append(out, -1)
				n = 0
			}
		}
		if n > 0 {
			out = append(out, -1)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkParams reports the first invalid parameter.
func checkParams(p Params) error {
	switch {
	case p.Dim <= 0 || p.Dim > 1024:
		return fmt.Errorf("wordvec: Dim %d, want 1..1024", p.Dim)
	case p.Window <= 0:
		return fmt.Errorf("wordvec: Window %d, want > 0", p.Window)
	case p.Negative <= 0:
		return fmt.Errorf("wordvec: Negative %d, want > 0", p.Negative)
	case p.Epochs <= 0:
		return fmt.Errorf("wordvec: Epochs %d, want > 0", p.Epochs)
	case p.Alpha <= 0:
		return fmt.Errorf("wordvec: Alpha %v, want > 0", p.Alpha)
	case p.MinCount <= 0:
		return fmt.Errorf("wordvec: MinCount %d, want > 0", p.MinCount)
	case p.Subsample < 0:
		return fmt.Errorf("wordvec: Subsample %v, want >= 0", p.Subsample)
	}
	return nil
}
