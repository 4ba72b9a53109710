package wordvec

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Params are the training parameters; the names and defaults follow
// word2vec.c (Mikolov et al. 2013), whose -sample, -negative and -window
// flags they mirror. They are stored in the model file.
type Params struct {
	Dim       int     `json:"dim"`       // vector length, in float32s
	Window    int     `json:"window"`    // maximum distance between a word and its context word, in tokens; each position draws its own window in 1..Window
	Negative  int     `json:"negative"`  // negative samples per (word, context) pair
	MinCount  int64   `json:"min_count"` // words seen fewer times get no vector
	MaxVocab  int     `json:"max_vocab"` // keep at most this many words, the most frequent; 0: no limit
	Epochs    int     `json:"epochs"`    // passes over the corpus
	Alpha     float64 `json:"alpha"`     // starting learning rate, decayed linearly to Alpha*1e-4
	Subsample float64 `json:"subsample"` // frequent-word subsampling threshold t (§2.3 of the paper); 0 keeps every token
	Seed      uint64  `json:"seed"`      // seed of the random numbers (initial vectors, windows, negatives, subsampling)
}

// DefaultParams returns the parameters of ragbot's static model: word2vec's
// skip-gram defaults (window 5, 5 negatives, t = 1e-4, alpha 0.025) at 128
// dimensions, with a vocabulary of at most 80,000 words seen 5 times or
// more, and 2 epochs (what fits in 15 minutes on 2 shared cores).
func DefaultParams() Params {
	return Params{Dim: 128, Window: 5, Negative: 5, MinCount: 5, MaxVocab: 80000, Epochs: 2, Alpha: 0.025, Subsample: 1e-4, Seed: 1}
}

// Stats describe a training run.
type Stats struct {
	Tokens    int64         // tokens read (up to maxTokenLen bytes each)
	Distinct  int           // distinct tokens read
	Vocab     int           // words of the resulting model
	NewWords  int           // words Refine added to the base model
	Encoded   int64         // tokens of the corpus that have a vector, per epoch
	Trained   int64         // tokens trained on, all epochs, after subsampling
	Duration  time.Duration // wall time of the whole run
	WordsPerS float64       // Trained per second of training
}

// Progress, when not nil, is called about every million tokens with the
// tokens processed so far and the total (both over all epochs).
type Progress func(done, total int64)

// Train learns word vectors from sents with SGNS, on the calling goroutine
// (so the result is a function of sents and p alone: deterministic).
// It returns an error when p is invalid, when sents fails, when the corpus
// has no word seen MinCount times, or wrapping ctx.Err() when ctx is done.
func Train(ctx context.Context, sents Sentences, p Params, progress Progress) (*Model, Stats, error) {
	start := time.Now()
	if err := checkParams(p); err != nil {
		return nil, Stats{}, err
	}
	c, err := count(sents)
	if err != nil {
		return nil, Stats{}, err
	}
	words, counts := c.frequent(p.MinCount, p.MaxVocab)
	if len(words) == 0 {
		return nil, Stats{}, fmt.Errorf("wordvec: no token occurs %d times or more in %d tokens", p.MinCount, c.total)
	}
	m := &Model{Params: p, Words: words, Counts: counts}
	m.buildIndex()
	st := Stats{Tokens: c.total, Distinct: len(c.words), Vocab: len(words)}
	corpus, err := encode(sents, m.index)
	if err != nil {
		return nil, st, err
	}
	rng := newRNG(p.Seed)
	m.In = make([]float32, len(words)*p.Dim)
	m.Out = make([]float32, len(words)*p.Dim)
	for i := range m.In {
		m.In[i] = initValue(&rng, p.Dim)
	}
	tr := newTrainer(m.In, m.Out, counts, p, rng)
	if err := tr.run(ctx, corpus, progress, &st); err != nil {
		return nil, st, err
	}
	st.Duration = time.Since(start)
	return m, st, nil
}

// Refine continues the training of base on sents with parameters p (whose
// Dim must equal base's; a lower Alpha than the base's keeps more of what
// it learnt) and returns a new model: base's words in base's order with
// their counts increased by their counts in sents, then the words of sents
// seen p.MinCount times that base lacks (at most p.MaxVocab of them, most
// frequent first), with fresh vectors. Negative samples and subsampling
// follow the counts in sents, as if sents were the whole corpus. base is
// not changed; it must have its context vectors (Out). Refine is
// deterministic like Train, and returns the same errors.
func Refine(ctx context.Context, base *Model, sents Sentences, p Params, progress Progress) (*Model, Stats, error) {
	start := time.Now()
	if err := checkParams(p); err != nil {
		return nil, Stats{}, err
	}
	if p.Dim != base.Params.Dim {
		return nil, Stats{}, fmt.Errorf("wordvec: refine: Dim %d, base model has %d", p.Dim, base.Params.Dim)
	}
	if len(base.Out) != len(base.In) {
		return nil, Stats{}, fmt.Errorf("wordvec: refine: base model has no context vectors (saved without them?)")
	}
	c, err := count(sents)
	if err != nil {
		return nil, Stats{}, err
	}
	newWords, newCounts := c.frequentExcept(p.MinCount, p.MaxVocab, base.index)
	m := &Model{Params: base.Params}
	m.Params.Seed, m.Params.Epochs = p.Seed, base.Params.Epochs
	m.Words = append(append(m.Words, base.Words...), newWords...)
	m.Counts = make([]int64, 0, len(m.Words))
	local := make([]int64, 0, len(m.Words)) // counts in sents: the training distribution
	for i, w := range base.Words {
		n := int64(0)
		if j, ok := c.index[w]; ok {
			n = c.counts[j]
		}
		m.Counts = append(m.Counts, base.Counts[i]+n)
		local = append(local, n)
	}
	m.Counts = append(m.Counts, newCounts...)
	local = append(local, newCounts...)
	m.buildIndex()
	st := Stats{Tokens: c.total, Distinct: len(c.words), Vocab: len(m.Words), NewWords: len(newWords)}
	corpus, err := encode(sents, m.index)
	if err != nil {
		return nil, st, err
	}
	rng := newRNG(p.Seed)
	dim := p.Dim
	m.In = append(make([]float32, 0, len(m.Words)*dim), base.In...)
	m.Out = append(make([]float32, 0, len(m.Words)*dim), base.Out...)
	for range len(newWords) * dim {
		m.In = append(m.In, initValue(&rng, dim))
		m.Out = append(m.Out, 0)
	}
	tr := newTrainer(m.In, m.Out, local, p, rng)
	if err := tr.run(ctx, corpus, progress, &st); err != nil {
		return nil, st, err
	}
	st.Duration = time.Since(start)
	return m, st, nil
}

// frequentExcept is frequent without the words of skip.
func (c *counter) frequentExcept(minCount int64, max int, skip map[string]int32) ([]string, []int64) {
	words, counts := c.frequent(minCount, 0)
	var w2 []string
	var c2 []int64
	for i, w := range words {
		if _, ok := skip[w]; ok {
			continue
		}
		if max > 0 && len(w2) == max {
			break
		}
		w2, c2 = append(w2, w), append(c2, counts[i])
	}
	return w2, c2
}

// initValue draws an initial input-vector element uniformly from
// [-0.5/dim, 0.5/dim), as word2vec.c does.
func initValue(r *rng, dim int) float32 {
	return (float32(r.next()&0xFFFF)/65536 - 0.5) / float32(dim)
}

// rng is word2vec.c's linear congruential generator
// (next = next*25214903917 + 11), kept so runs are reproducible and cheap.
type rng uint64

func newRNG(seed uint64) rng { return rng(seed) }

func (r *rng) next() uint64 {
	*r = *r*25214903917 + 11
	return uint64(*r)
}

// Sigmoid table of word2vec.c: sigma(x) for x in [-maxExp, maxExp] at
// expTableSize points; beyond, the gradient saturates.
const (
	expTableSize = 1000
	maxExp       = 6
	tableSize    = 10_000_000 // entries of the negative-sampling table (word2vec.c: 1e8)
	lrEvery      = 10_000     // tokens between learning-rate updates
)

// trainer runs SGNS over an encoded corpus.
type trainer struct {
	p        Params
	in, out  []float32
	table    []int32   // unigram^0.75 table for negative samples
	keep     []float64 // subsampling: probability scaled as in word2vec.c
	rng      rng
	expTable [expTableSize]float32
	neu1e    []float32
}

func newTrainer(in, out []float32, counts []int64, p Params, r rng) *trainer {
	t := &trainer{p: p, in: in, out: out, rng: r, neu1e: make([]float32, p.Dim)}
	for i := range expTableSize {
		e := math.Exp((float64(i)/expTableSize*2 - 1) * maxExp)
		t.expTable[i] = float32(e / (e + 1))
	}
	t.table = unigramTable(counts)
	var total int64
	for _, n := range counts {
		total += n
	}
	t.keep = make([]float64, len(counts))
	for i, n := range counts {
		t.keep[i] = math.Inf(1)
		if p.Subsample > 0 && n > 0 {
			thr := p.Subsample * float64(total)
			t.keep[i] = (math.Sqrt(float64(n)/thr) + 1) * thr / float64(n)
		}
	}
	return t
}

// unigramTable fills tableSize slots with word ids in proportion to
// count^0.75 (§2.2 of the paper), as InitUnigramTable in word2vec.c. Words
// with a zero count (base words absent from Refine's corpus) get no slot.
func unigramTable(counts []int64) []int32 {
	var norm float64
	for _, n := range counts {
		norm += math.Pow(float64(n), 0.75)
	}
	table := make([]int32, tableSize)
	if norm == 0 {
		return table
	}
	i, cum := 0, 0.0
	share := func(i int) float64 { return math.Pow(float64(counts[i]), 0.75) / norm }
	skipZero := func() {
		for counts[i] == 0 && i < len(counts)-1 {
			i++
			cum += share(i)
		}
	}
	cum = share(0)
	skipZero()
	for a := range table {
		table[a] = int32(i)
		if float64(a)/tableSize > cum && i < len(counts)-1 {
			i++
			cum += share(i)
			skipZero()
		}
	}
	return table
}

// run trains Epochs passes over corpus (sentences of ids ended by -1).
func (t *trainer) run(ctx context.Context, corpus []int32, progress Progress, st *Stats) error {
	var words int64
	for _, id := range corpus {
		if id >= 0 {
			words++
		}
	}
	st.Encoded = words
	total := words * int64(t.p.Epochs)
	var done, lastLR, lastProgress int64
	alpha := float32(t.p.Alpha)
	sent := make([]int32, 0, maxSentence)
	trainStart := time.Now()
	for range t.p.Epochs {
		for i := 0; i < len(corpus); {
			sent = sent[:0]
			for ; corpus[i] >= 0; i++ {
				done++
				w := corpus[i]
				if !math.IsInf(t.keep[w], 1) {
					if t.keep[w] < float64(t.rng.next()&0xFFFF)/65536 {
						continue
					}
				}
				sent = append(sent, w)
			}
			i++ // the -1
			st.Trained += int64(len(sent))
			t.sentence(sent, alpha)
			if done-lastLR >= lrEvery {
				lastLR = done
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("wordvec: stopped after %d of %d tokens: %w", done, total, err)
				}
				a := t.p.Alpha * (1 - float64(done)/float64(total+1))
				alpha = float32(max(a, t.p.Alpha*1e-4))
				if progress != nil && done-lastProgress >= 1_000_000 {
					lastProgress = done
					progress(done, total)
				}
			}
		}
	}
	if progress != nil {
		progress(done, total)
	}
	if s := time.Since(trainStart).Seconds(); s > 0 {
		st.WordsPerS = float64(st.Trained) / s
	}
	return nil
}

// sentence trains every (word, context word) pair of one subsampled
// sentence, as the skip-gram branch of TrainModelThread in word2vec.c: for
// each position a window b in 1..Window is drawn, and each context word's
// input vector is trained to predict the word against Negative samples.
func (t *trainer) sentence(sent []int32, alpha float32) {
	win := t.p.Window
	for pos, word := range sent {
		b := win - int(t.rng.next()%uint64(win)) // effective window 1..win
		lo, hi := max(pos-b, 0), min(pos+b, len(sent)-1)
		for c := lo; c <= hi; c++ {
			if c == pos {
				continue
			}
			t.pair(sent[c], word, alpha)
		}
	}
}

// pair does one SGNS update: the input vector of ctxWord against the
// output vectors of word (label 1) and Negative sampled words (label 0).
func (t *trainer) pair(ctxWord, word int32, alpha float32) {
	dim := t.p.Dim
	l1 := t.in[int(ctxWord)*dim : int(ctxWord+1)*dim]
	neu1e := t.neu1e
	clear(neu1e)
	for d := 0; d <= t.p.Negative; d++ {
		target, label := word, float32(1)
		if d > 0 {
			target = t.table[(t.rng.next()>>16)%tableSize]
			if target == word {
				continue
			}
			label = 0
		}
		l2 := t.out[int(target)*dim : int(target+1)*dim]
		f := dot(l1, l2)
		var g float32
		switch {
		case f > maxExp:
			g = (label - 1) * alpha
		case f < -maxExp:
			g = label * alpha
		default:
			g = (label - t.expTable[int((f+maxExp)*(expTableSize/maxExp/2))]) * alpha
		}
		axpy(neu1e, g, l2)
		axpy(l2, g, l1)
	}
	axpy(l1, 1, neu1e)
}

// dot returns the dot product of a and b (same length). Each product is
// rounded to float32 before it is added (the conversion forbids fused
// multiply-add), so results are the same on every platform.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float32(a[i] * b[i])
		s1 += float32(a[i+1] * b[i+1])
		s2 += float32(a[i+2] * b[i+2])
		s3 += float32(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float32(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds g*x to y (same length), rounding each product as dot does.
func axpy(y []float32, g float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += float32(g * x[i])
	}
}
