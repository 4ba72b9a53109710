package train

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
)

// Params are the training parameters. The zero value of a field means its
// DefaultParams value.
type Params struct {
	Dim      int     `json:"dim"`       // vector length
	Buckets  int     `json:"buckets"`   // hashed 3-gram rows
	MinCount int     `json:"min_count"` // fewest occurrences for a piece to get its own row
	MaxWords int     `json:"max_words"` // vocabulary cap, most frequent first
	Epochs   int     `json:"epochs"`    // passes over the pairs
	Batch    int     `json:"batch"`     // pairs per step; the other pairs of a batch are the negatives
	LR       float64 `json:"lr"`        // Adam step size (Kingma & Ba 2015)
	Scale    float64 `json:"scale"`     // cosine similarity times Scale are the InfoNCE logits (1/temperature)
	Seed     uint64  `json:"seed"`      // seed of the initial vectors, the pair order and query draws
}

// DefaultParams are the parameters of models/codesearch-v1: 128 dimensions
// and in-batch negatives as in the CodeSearchNet NBoW baseline (Husain et
// al. 2019, §4); a temperature of 0.05 (Scale 20) as in SimCSE (Gao et al.
// 2021, arXiv:2104.08821); Adam's β1=0.9, β2=0.999 (Kingma & Ba 2015,
// "Adam: A Method for Stochastic Optimization", ICLR) with the step size
// picked on a held-out split of the training modules.
var DefaultParams = Params{Dim: 128, Buckets: 1 << 16, MinCount: 5, MaxWords: 40000, Epochs: 4,
	Batch: 256, LR: 0.005, Scale: 20, Seed: 1}

func (p Params) withDefaults() Params {
	d := DefaultParams
	return Params{
		Dim: cmp.Or(p.Dim, d.Dim), Buckets: cmp.Or(p.Buckets, d.Buckets), MinCount: cmp.Or(p.MinCount, d.MinCount),
		MaxWords: cmp.Or(p.MaxWords, d.MaxWords), Epochs: cmp.Or(p.Epochs, d.Epochs), Batch: cmp.Or(p.Batch, d.Batch),
		LR: cmp.Or(p.LR, d.LR), Scale: cmp.Or(p.Scale, d.Scale), Seed: cmp.Or(p.Seed, d.Seed),
	}
}

// Adam's decay rates and epsilon (Kingma & Ba 2015, Algorithm 1).
const (
	beta1   = 0.9
	beta2   = 0.999
	adamEps = 1e-8
)

// Progress is called after each epoch with its mean loss.
type Progress func(epoch int, loss float64)

// Fit trains a model on pairs (see MineFile) with p and returns it
// quantised (int8 rows, codesearch.Quantize); info, when not nil, is stored
// as the header's Train field. It runs on one goroutine and draws every
// random number from one PCG stream seeded with p.Seed, so the same pairs,
// p and info give a model file with the same bytes. It returns an error for fewer than two
// pairs, and ctx's error when ctx is done between steps.
func Fit(ctx context.Context, pairs []Pair, p Params, info any, progress Progress) (*codesearch.Model, error) {
	p = p.withDefaults()
	if len(pairs) < 2 {
		return nil, errors.New("codesearch: need at least two pairs to train")
	}
	words := buildVocab(pairs, p)
	t := newTrainer(p, words)
	if err := t.run(ctx, pairs, progress); err != nil {
		return nil, err
	}
	return t.model(info)
}

// buildVocab returns the pieces occurring at least p.MinCount times in the
// pairs' queries and code, most frequent first (ties by byte order), at
// most p.MaxWords.
func buildVocab(pairs []Pair, p Params) []string {
	count := map[string]int{}
	for _, pr := range pairs {
		for _, q := range pr.Queries {
			for _, w := range codesearch.Pieces(q) {
				count[w]++
			}
		}
		for _, w := range codesearch.Pieces(pr.Code) {
			count[w]++
		}
	}
	var words []string
	for _, w := range slices.Sorted(maps.Keys(count)) {
		if count[w] >= p.MinCount {
			words = append(words, w)
		}
	}
	slices.SortStableFunc(words, func(a, b string) int { return count[b] - count[a] })
	if len(words) > p.MaxWords {
		words = words[:p.MaxWords]
	}
	return words
}

type trainer struct {
	p      Params
	words  []string
	f      *codesearch.Featurizer
	rng    *rand.Rand
	e, w   []float32 // rows × Dim vectors, per-row weights
	m, v   []float32 // Adam moments of e
	mw, vw []float32 // Adam moments of w
	step   int
	// sparse gradient of one step
	slot map[int32]int // row -> index in touched
	ge   []float64     // len(touched) × Dim
	gw   []float64
	tchd []int32
}

func newTrainer(p Params, words []string) *trainer {
	rows := len(words) + p.Buckets
	t := &trainer{p: p, words: words, f: codesearch.NewFeaturizer(words, p.Buckets),
		rng: rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15)), slot: map[int32]int{}}
	e := make([]float32, rows*p.Dim)
	w := make([]float32, rows)
	sd := 1 / math.Sqrt(float64(p.Dim))
	for i := range e {
		e[i] = float32(t.rng.NormFloat64() * sd)
	}
	for r := len(words); r < rows; r++ {
		w[r] = -1 // a 3-gram starts at about a third of a word's weight
	}
	t.e, t.w = e, w
	t.m, t.v = make([]float32, len(e)), make([]float32, len(e))
	t.mw, t.vw = make([]float32, rows), make([]float32, rows)
	return t
}

// encoded is one text's forward pass, kept for the backward pass.
type encoded struct {
	b codesearch.Bag
	p []float64 // softmax weights
	v []float64 // weighted mean
	n float64   // |v|
	u []float64 // v/|v|
}

func (t *trainer) forward(text string) encoded {
	d := t.p.Dim
	x := encoded{b: t.f.Bag(text), v: make([]float64, d), u: make([]float64, d)}
	if len(x.b.Rows) == 0 {
		x.u[0] = 1
		return x
	}
	x.p = make([]float64, len(x.b.Rows))
	mx := math.Inf(-1)
	for i, r := range x.b.Rows {
		x.p[i] = float64(t.w[r]) + float64(x.b.LogCount[i])
		mx = math.Max(mx, x.p[i])
	}
	var z float64
	for i := range x.p {
		x.p[i] = math.Exp(x.p[i] - mx)
		z += x.p[i]
	}
	for i, r := range x.b.Rows {
		x.p[i] /= z
		row := t.e[int(r)*d : (int(r)+1)*d]
		for j, y := range row {
			x.v[j] += x.p[i] * float64(y)
		}
	}
	for _, y := range x.v {
		x.n += y * y
	}
	x.n = math.Sqrt(x.n)
	if x.n == 0 {
		x.u[0] = 1
		return x
	}
	for j, y := range x.v {
		x.u[j] = y / x.n
	}
	return x
}

// backward adds to the step's gradient the effect of gu, the loss gradient
// of x.u.
func (t *trainer) backward(x encoded, gu []float64) {
	if x.n == 0 || len(x.b.Rows) == 0 {
		return
	}
	d := t.p.Dim
	var dot float64
	for j := range gu {
		dot += gu[j] * x.u[j]
	}
	gv := make([]float64, d)
	var vgv float64
	for j := range gv {
		gv[j] = (gu[j] - dot*x.u[j]) / x.n
		vgv += x.v[j] * gv[j]
	}
	for i, r := range x.b.Rows {
		k, ok := t.slot[r]
		if !ok {
			k = len(t.tchd)
			t.slot[r] = k
			t.tchd = append(t.tchd, r)
			t.ge = append(t.ge, make([]float64, d)...)
			t.gw = append(t.gw, 0)
		}
		row := t.e[int(r)*d : (int(r)+1)*d]
		g := t.ge[k*d : (k+1)*d]
		var egv float64
		for j := range g {
			g[j] += x.p[i] * gv[j]
			egv += float64(row[j]) * gv[j]
		}
		t.gw[k] += x.p[i] * (egv - vgv)
	}
}

// run trains for p.Epochs epochs.
func (t *trainer) run(ctx context.Context, pairs []Pair, progress Progress) error {
	order := make([]int, len(pairs))
	for i := range order {
		order[i] = i
	}
	bs := min(t.p.Batch, len(pairs))
	for epoch := 1; epoch <= t.p.Epochs; epoch++ {
		t.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var loss float64
		steps := 0
		for start := 0; start+bs <= len(order); start += bs {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("codesearch: training stopped in epoch %d: %w", epoch, err)
			}
			loss += t.stepBatch(pairs, order[start:start+bs])
			steps++
		}
		if progress != nil {
			progress(epoch, loss/float64(max(steps, 1)))
		}
	}
	return nil
}

// stepBatch does one InfoNCE step on the pairs of idx, both directions
// (question to code and code to question), and returns the loss.
func (t *trainer) stepBatch(pairs []Pair, idx []int) float64 {
	n, d := len(idx), t.p.Dim
	qs := make([]encoded, n)
	cs := make([]encoded, n)
	for i, k := range idx {
		pr := pairs[k]
		qs[i] = t.forward(pr.Queries[t.rng.IntN(len(pr.Queries))])
		cs[i] = t.forward(pr.Code)
	}
	s := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var dot float64
			for c := range d {
				dot += qs[i].u[c] * cs[j].u[c]
			}
			s[i*n+j] = t.p.Scale * dot
		}
	}
	// dS = (softmax by row - I + softmax by column - I) / (2n)
	ds := make([]float64, n*n)
	var loss float64
	for i := range n {
		loss += softmaxInto(ds, s, i*n, 1, n, i*n+i)
	}
	for j := range n {
		loss += softmaxInto(ds, s, j, n, n, j*n+j)
	}
	for i := range ds {
		ds[i] *= t.p.Scale / float64(2*n)
	}
	gq := make([]float64, d)
	for i := range n {
		clear(gq)
		for j := range n {
			g := ds[i*n+j]
			for c := range d {
				gq[c] += g * cs[j].u[c]
			}
		}
		t.backward(qs[i], gq)
	}
	for j := range n {
		clear(gq)
		for i := range n {
			g := ds[i*n+j]
			for c := range d {
				gq[c] += g * qs[i].u[c]
			}
		}
		t.backward(cs[j], gq)
	}
	t.apply()
	return loss / float64(2*n)
}

// softmaxInto adds softmax(s[off], s[off+stride], ...) minus the one-hot
// of target to ds at the same places and returns -log softmax of target.
func softmaxInto(ds, s []float64, off, stride, n, target int) float64 {
	mx := math.Inf(-1)
	for k := range n {
		mx = math.Max(mx, s[off+k*stride])
	}
	var z float64
	for k := range n {
		z += math.Exp(s[off+k*stride] - mx)
	}
	for k := range n {
		i := off + k*stride
		ds[i] += math.Exp(s[i]-mx) / z
	}
	ds[target]--
	return -(s[target] - mx - math.Log(z))
}

// apply makes one lazy Adam step on the rows touched by the step's
// gradient (TensorFlow's LazyAdam: moments of other rows stay) and clears
// the gradient.
func (t *trainer) apply() {
	t.step++
	d := t.p.Dim
	c1 := 1 - math.Pow(beta1, float64(t.step))
	c2 := 1 - math.Pow(beta2, float64(t.step))
	lr := t.p.LR * math.Sqrt(c2) / c1
	for k, r := range t.tchd {
		base := int(r) * d
		for j := range d {
			g := t.ge[k*d+j]
			m := beta1*float64(t.m[base+j]) + (1-beta1)*g
			v := beta2*float64(t.v[base+j]) + (1-beta2)*g*g
			t.m[base+j], t.v[base+j] = float32(m), float32(v)
			t.e[base+j] -= float32(lr * m / (math.Sqrt(v) + adamEps))
		}
		g := t.gw[k]
		m := beta1*float64(t.mw[r]) + (1-beta1)*g
		v := beta2*float64(t.vw[r]) + (1-beta2)*g*g
		t.mw[r], t.vw[r] = float32(m), float32(v)
		t.w[r] -= float32(lr * m / (math.Sqrt(v) + adamEps))
	}
	clear(t.slot)
	t.tchd, t.ge, t.gw = t.tchd[:0], t.ge[:0], t.gw[:0]
}

// model quantises the trained tables.
func (t *trainer) model(info any) (*codesearch.Model, error) {
	h := codesearch.Header{Dim: t.p.Dim, Words: len(t.words), Buckets: t.p.Buckets}
	if info != nil {
		b, err := json.Marshal(info)
		if err != nil {
			return nil, err
		}
		h.Train = b
	}
	return codesearch.Quantize(h, append([]string(nil), t.words...), t.e, t.w), nil
}

// MRR returns the mean reciprocal rank of each pair's code for its Doc
// among the codes of its group: pairs are taken in groups of size (the
// last, smaller group is dropped; CodeSearchNet ranks 1 against 999
// distractors, size 1000). encode embeds a text into a unit vector. It
// returns 0 and no groups when there are fewer than size pairs.
func MRR(pairs []Pair, size int, encode func(string) []float32) (mrr float64, groups int) {
	var sum float64
	var n int
	for start := 0; start+size <= len(pairs); start += size {
		g := pairs[start : start+size]
		cv := make([][]float32, size)
		for i, p := range g {
			cv[i] = encode(p.Code)
		}
		for i, p := range g {
			q := encode(p.Doc)
			own := dot32(q, cv[i])
			rank := 1
			for j := range g {
				if j != i && dot32(q, cv[j]) > own {
					rank++
				}
			}
			sum += 1 / float64(rank)
			n++
		}
		groups++
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), groups
}

func dot32(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
