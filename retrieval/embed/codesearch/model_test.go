package codesearch

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// tinyModel is a model of a few words and 3-gram buckets with made-up
// tables: what Quantize makes of a training run's floats.
func tinyModel() *Model {
	words := []string{"retry", "backoff", "request"}
	h := Header{Dim: 8, Words: len(words), Buckets: 64, Train: []byte(`{"n":1}`)}
	rows := h.Words + h.Buckets
	e, w := make([]float32, rows*h.Dim), make([]float32, rows)
	for i := range e {
		e[i] = float32(math.Sin(float64(i)*0.7)) * 0.3
	}
	for r := range w {
		w[r] = float32(r%5) * 0.1
	}
	return Quantize(h, words, e, w)
}

// TestLoadRoundTrip: a model written and loaded back embeds alike and
// writes the same bytes; what is not a model file is refused.
func TestLoadRoundTrip(t *testing.T) {
	m := tinyModel()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	m2, hash, err := Load(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(hash) != 64 || m2.Dim != 8 || m2.Words != 3 || string(m2.Train) != `{"n":1}` ||
		!slices.Equal(m2.Vocabulary(), []string{"retry", "backoff", "request"}) {
		t.Errorf("loaded dim %d words %v train %s hash %q", m2.Dim, m2.Vocabulary(), m2.Train, hash)
	}
	for _, text := range []string{"retryRequest(backoff)", "where is the backoff decided?", ""} {
		if a, c := m.Encode(text), m2.Encode(text); !slices.Equal(a, c) {
			t.Errorf("Encode(%q): the loaded model embeds differently", text)
		}
	}
	var b2 bytes.Buffer
	m2.Write(&b2)
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("writing the loaded model gave other bytes")
	}
	for _, bad := range [][]byte{nil, []byte("RBCSNBOW1\n\x05\x00\x00\x00{}"), b.Bytes()[:b.Len()-1]} {
		if _, _, err := Load(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("Load(%d bytes) = %v, want ErrFormat", len(bad), err)
		}
	}
}

// TestFeaturizerAsEncode: a Featurizer made from a model's vocabulary
// reads a text as Encode does: the word row of each known piece and the
// 3-gram rows of every piece, each once, with its log count.
func TestFeaturizerAsEncode(t *testing.T) {
	m := tinyModel()
	f := NewFeaturizer(m.Vocabulary(), m.Buckets)
	b := f.Bag("retry the retry")
	if len(b.Rows) == 0 || b.Rows[0] != 0 {
		t.Fatalf("Bag rows %v, want the word row 0 of \"retry\" first", b.Rows)
	}
	if b.LogCount[0] != float32(math.Log(2)) {
		t.Errorf("log count of \"retry\" %g, want log 2", b.LogCount[0])
	}
	for _, r := range b.Rows[1:] {
		if r < int32(m.Words) && r != 0 {
			t.Errorf("row %d: only \"retry\" has a word row in this text", r)
		}
	}
	if got, want := m.encodeBag(b), m.Encode("retry the retry"); !slices.Equal(got, want) {
		t.Error("the Featurizer's bag encodes differently from Encode")
	}
	if b := f.Bag(""); len(b.Rows) != 0 {
		t.Errorf("Bag(\"\") = %v, want no rows", b.Rows)
	}
}
