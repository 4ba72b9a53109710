package wordvec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// topicCorpus makes sentences of 12 words, each drawn from one of two
// topics ("net*" and "disk*" words) plus filler words shared by both, so
// words of a topic co-occur and words of different topics never do.
func topicCorpus(sentences int, seed uint64) Sentences {
	topics := [][]string{
		{"netdial", "netsocket", "netport", "nethost", "netpacket"},
		{"diskread", "diskblock", "diskinode", "disksector", "diskmount"},
	}
	filler := []string{"the", "a", "of", "to", "it"}
	return func(yield func([]string) bool) error {
		r := rand.New(rand.NewPCG(seed, 0))
		for i := range sentences {
			topic := topics[i%2]
			s := make([]string, 12)
			for j := range s {
				if j%3 == 2 {
					s[j] = filler[r.IntN(len(filler))]
				} else {
					s[j] = topic[r.IntN(len(topic))]
				}
			}
			if !yield(s) {
				return nil
			}
		}
		return nil
	}
}

func smallParams() Params {
	p := DefaultParams()
	p.Dim, p.MinCount, p.Epochs, p.Subsample, p.MaxVocab = 16, 1, 5, 0, 0
	return p
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func vec(t *testing.T, m *Model, w string) []float32 {
	t.Helper()
	i, ok := m.ID(w)
	if !ok {
		t.Fatalf("no vector for %q", w)
	}
	return m.Vector(i)
}

func TestTrainCoOccurringWordsAreCloser(t *testing.T) {
	m, st, err := Train(context.Background(), topicCorpus(2000, 1), smallParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Vocab != 15 {
		t.Errorf("Vocab = %d, want 15 (10 topic words, 5 fillers)", st.Vocab)
	}
	var same, cross []float64
	for _, a := range []string{"netdial", "netsocket", "netport"} {
		for _, b := range []string{"nethost", "netpacket"} {
			same = append(same, cosine(vec(t, m, a), vec(t, m, b)))
		}
		for _, b := range []string{"diskread", "diskblock"} {
			cross = append(cross, cosine(vec(t, m, a), vec(t, m, b)))
		}
	}
	// Every same-topic pair must be closer than every cross-topic pair.
	if minSame, maxCross := slices.Min(same), slices.Max(cross); minSame <= maxCross+0.2 {
		t.Errorf("same-topic cosine min %.3f, cross-topic max %.3f; want a margin of 0.2 (same %v, cross %v)", minSame, maxCross, same, cross)
	}
}

func TestTrainDeterministic(t *testing.T) {
	p := smallParams()
	m1, _, err := Train(context.Background(), topicCorpus(300, 2), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := Train(context.Background(), topicCorpus(300, 2), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m1.Words, m2.Words) || !slices.Equal(m1.In, m2.In) || !slices.Equal(m1.Out, m2.Out) {
		t.Error("two trainings on the same corpus and params gave different models")
	}
	p.Seed = 99
	m3, _, err := Train(context.Background(), topicCorpus(300, 2), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(m1.In, m3.In) {
		t.Error("another seed gave the same vectors")
	}
}

func TestVocabularyOrderAndMinCount(t *testing.T) {
	corpus := func(yield func([]string) bool) error {
		for _, s := range [][]string{{"b", "a", "c", "b"}, {"a", "b", "rare"}, {"c", "a"}} {
			if !yield(s) {
				break
			}
		}
		return nil
	}
	p := smallParams()
	p.MinCount = 2
	m, _, err := Train(context.Background(), corpus, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a and b: 3 each (tie broken by byte order), c: 2, rare: 1 (dropped).
	if want := []string{"a", "b", "c"}; !slices.Equal(m.Words, want) {
		t.Errorf("Words = %v, want %v", m.Words, want)
	}
	if want := []int64{3, 3, 2}; !slices.Equal(m.Counts, want) {
		t.Errorf("Counts = %v, want %v", m.Counts, want)
	}
}

func TestTrainErrors(t *testing.T) {
	ctx := context.Background()
	p := smallParams()
	p.MinCount = 1000
	if _, _, err := Train(ctx, topicCorpus(10, 1), p, nil); err == nil {
		t.Error("Train with no frequent word: want an error")
	}
	bad := smallParams()
	bad.Dim = 0
	if _, _, err := Train(ctx, topicCorpus(10, 1), bad, nil); err == nil {
		t.Error("Train with Dim 0: want an error")
	}
	boom := errors.New("read failed")
	if _, _, err := Train(ctx, func(func([]string) bool) error { return boom }, smallParams(), nil); !errors.Is(err, boom) {
		t.Errorf("Train with a failing corpus: err = %v, want %v", err, boom)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := Train(cctx, topicCorpus(5000, 1), smallParams(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Train with a canceled context: err = %v, want context.Canceled", err)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	m, _, err := Train(context.Background(), topicCorpus(200, 3), smallParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Common = []float32{1, 0, 0.5}
	meta := map[string]string{"inputs": "test"}
	var buf bytes.Buffer
	if err := m.Save(&buf, meta, true); err != nil {
		t.Fatal(err)
	}
	saved := bytes.Clone(buf.Bytes())
	got, gotMeta, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Words, m.Words) || !slices.Equal(got.Counts, m.Counts) || got.Params != m.Params ||
		!slices.Equal(got.Common, m.Common) || gotMeta["inputs"] != "test" {
		t.Fatalf("Load(Save(m)) differs from m in words, counts, params, common or meta")
	}
	for i := range m.Words {
		if c := cosine(m.Vector(i), got.Vector(i)); c < 0.999 {
			t.Errorf("word %q: cosine to the saved vector %.5f, want >= 0.999 (int8 rounding only)", m.Words[i], c)
		}
	}
	var again bytes.Buffer
	if err := got.Save(&again, meta, true); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved, again.Bytes()) {
		t.Error("saving a loaded model gave other bytes; quantization must be idempotent")
	}
	if _, _, err := Load(bytes.NewReader(saved[:len(saved)/2])); err == nil {
		t.Error("Load of a truncated file: want an error")
	}
	if _, _, err := Load(bytes.NewReader([]byte("not a model"))); err == nil {
		t.Error("Load of another file: want an error")
	}
}

func TestRefineAddsWordsAndIsDeterministic(t *testing.T) {
	ctx := context.Background()
	base, _, err := Train(ctx, topicCorpus(1000, 4), smallParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The team corpus uses a new word, "alertpeer", always beside net words.
	team := func(yield func([]string) bool) error {
		for i := range 400 {
			s := []string{"alertpeer", "netdial", "the", "netsocket", "alertpeer", fmt.Sprint("x", i%3)}
			if !yield(s) {
				break
			}
		}
		return nil
	}
	p := smallParams()
	p.Alpha = 0.01
	r1, st, err := Refine(ctx, base, team, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := Refine(ctx, base, team, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r1.In, r2.In) {
		t.Error("two refinements on the same input gave different vectors")
	}
	if st.NewWords != 4 { // alertpeer, x0, x1, x2
		t.Errorf("NewWords = %d, want 4", st.NewWords)
	}
	if !slices.Equal(r1.Words[:len(base.Words)], base.Words) {
		t.Error("Refine reordered the base vocabulary")
	}
	i, _ := base.ID("netdial")
	if r1.Counts[i] != base.Counts[i]+400 {
		t.Errorf("count of netdial = %d, want base %d + 400", r1.Counts[i], base.Counts[i])
	}
	if near, far := cosine(vec(t, r1, "alertpeer"), vec(t, r1, "netport")), cosine(vec(t, r1, "alertpeer"), vec(t, r1, "diskblock")); near <= far {
		t.Errorf("alertpeer: cosine to netport %.3f, to diskblock %.3f; want it nearer the net topic", near, far)
	}
	if slices.Equal(base.In, r1.In[:len(base.In)]) {
		t.Error("Refine did not change the base vectors")
	}
	noOut := *base
	noOut.Out = nil
	if _, _, err := Refine(ctx, &noOut, team, p, nil); err == nil {
		t.Error("Refine without context vectors: want an error")
	}
}

func TestUnigramTable(t *testing.T) {
	// Shares: 8^0.75 : 0 : 1 = 4.76 : 0 : 1, so word 0 gets about 83% of
	// the slots, word 1 (count 0, as a base word absent from Refine's
	// corpus) none, word 2 the rest.
	table := unigramTable([]int64{8, 0, 1})
	n := [3]int{}
	for _, id := range table {
		n[id]++
	}
	if n[1] != 0 {
		t.Errorf("zero-count word got %d slots, want 0", n[1])
	}
	if got := float64(n[0]) / float64(len(table)); math.Abs(got-4.757/5.757) > 0.001 {
		t.Errorf("word 0 share %.4f, want %.4f", got, 4.757/5.757)
	}
	table = unigramTable([]int64{0, 3})
	if table[0] != 1 || table[len(table)-1] != 1 {
		t.Errorf("a leading zero-count word got slots")
	}
}
