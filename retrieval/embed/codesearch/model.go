package codesearch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// magic starts every model file.
const magic = "RBCSNBOW1\n"

// Header is the JSON header of a model file: the shape of the tables and
// how they were made.
type Header struct {
	Dim     int `json:"dim"`     // vector length, float32 elements
	Words   int `json:"words"`   // vocabulary size: rows 0..Words-1 are words
	Buckets int `json:"buckets"` // hashed 3-gram rows, after the words
	// Train describes the training run (inputs, parameters, seed, held-out
	// figures); informational, it does not change what the model computes.
	Train json.RawMessage `json:"train,omitempty"`
}

// Model is a trained encoder: per table row (a vocabulary word or a 3-gram
// bucket) an int8 vector with a float32 scale (the row's largest absolute
// value over 127) and a float32 softmax weight. It is immutable once loaded
// and safe for concurrent use.
type Model struct {
	Header
	words  []string
	vocab  map[string]int32
	q      []int8    // rows × Dim
	scale  []float32 // per row
	weight []float32 // per row
}

// Rows is the table size, Words + Buckets.
func (m *Model) Rows() int { return m.Words + m.Buckets }

// Encode returns the unit vector of text, of m.Dim float32s: the
// softmax(weight)-weighted mean of the vectors of its features (see
// Pieces), L2-normalised. A text without pieces, or whose features cancel
// out, gets the first basis vector. The sums run in float64 in feature
// order, so the same text gives the same vector in every process.
func (m *Model) Encode(text string) []float32 {
	f := newFeaturizer(m.vocab, m.Buckets)
	return m.encodeBag(f.Bag(text))
}

func (m *Model) encodeBag(b Bag) []float32 {
	out := make([]float32, m.Dim)
	if len(b.Rows) == 0 {
		out[0] = 1
		return out
	}
	mx := math.Inf(-1)
	logit := make([]float64, len(b.Rows))
	for i, r := range b.Rows {
		logit[i] = float64(m.weight[r]) + float64(b.LogCount[i])
		mx = math.Max(mx, logit[i])
	}
	var z float64
	for i := range logit {
		logit[i] = math.Exp(logit[i] - mx)
		z += logit[i]
	}
	sum := make([]float64, m.Dim)
	for i, r := range b.Rows {
		w := logit[i] / z * float64(m.scale[r])
		row := m.q[int(r)*m.Dim : (int(r)+1)*m.Dim]
		for j, x := range row {
			sum[j] += w * float64(x)
		}
	}
	var n float64
	for _, x := range sum {
		n += x * x
	}
	n = math.Sqrt(n)
	if n == 0 {
		out[0] = 1
		return out
	}
	for j, x := range sum {
		out[j] = float32(x / n)
	}
	return out
}

// Quantize returns the model of float32 tables e (rows × h.Dim,
// rows = h.Words + h.Buckets) and weight (one per row), each row rounded to int8 with its own
// scale: how training (tools/codesearch) makes a model. words are the
// vocabulary, len(words) == h.Words; Quantize keeps them and copies weight.
func Quantize(h Header, words []string, e, weight []float32) *Model {
	m := &Model{Header: h, words: words, vocab: vocabOf(words)}
	rows := h.Words + h.Buckets
	m.q = make([]int8, rows*h.Dim)
	m.scale = make([]float32, rows)
	m.weight = append([]float32(nil), weight...)
	for r := range rows {
		row := e[r*h.Dim : (r+1)*h.Dim]
		var mx float32
		for _, x := range row {
			mx = max(mx, float32(math.Abs(float64(x))))
		}
		if mx == 0 {
			continue
		}
		s := mx / 127
		m.scale[r] = s
		for j, x := range row {
			m.q[r*h.Dim+j] = int8(math.Round(float64(x / s)))
		}
	}
	return m
}

func vocabOf(words []string) map[string]int32 {
	v := make(map[string]int32, len(words))
	for i, w := range words {
		v[w] = int32(i)
	}
	return v
}

// Write writes the model file: magic, the header's length (uint32) and JSON,
// then per word its length (uvarint) and bytes, then per row its scale and
// weight (float32) and Dim int8s; numbers little-endian.
func (m *Model) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	hj, err := json.Marshal(m.Header)
	if err != nil {
		return err
	}
	bw.WriteString(magic)
	binary.Write(bw, binary.LittleEndian, uint32(len(hj)))
	bw.Write(hj)
	var buf [binary.MaxVarintLen64]byte
	for _, word := range m.words {
		bw.Write(buf[:binary.PutUvarint(buf[:], uint64(len(word)))])
		bw.WriteString(word)
	}
	row := make([]byte, 8+m.Dim)
	for r := range m.Rows() {
		binary.LittleEndian.PutUint32(row[0:], math.Float32bits(m.scale[r]))
		binary.LittleEndian.PutUint32(row[4:], math.Float32bits(m.weight[r]))
		for j, x := range m.q[r*m.Dim : (r+1)*m.Dim] {
			row[8+j] = byte(x)
		}
		bw.Write(row)
	}
	return bw.Flush()
}

// ErrFormat is wrapped by Load's errors for data that is not a model file.
var ErrFormat = errors.New("not a codesearch model file")

// Load reads a model file as Write writes it, and returns the model with the
// hex SHA-256 of data. Errors wrap ErrFormat.
func Load(data []byte) (*Model, string, error) {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	r := bytes.NewReader(data)
	bad := func(what string) (*Model, string, error) {
		return nil, "", fmt.Errorf("%w: %s", ErrFormat, what)
	}
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return bad("bad magic")
	}
	var hl uint32
	if err := binary.Read(r, binary.LittleEndian, &hl); err != nil || int(hl) > r.Len() {
		return bad("bad header length")
	}
	hj := make([]byte, hl)
	io.ReadFull(r, hj)
	var h Header
	if err := json.Unmarshal(hj, &h); err != nil {
		return bad("header: " + err.Error())
	}
	if h.Dim <= 0 || h.Dim > 4096 || h.Words < 0 || h.Buckets <= 0 || h.Buckets > 1<<24 || h.Words > 1<<24 {
		return bad(fmt.Sprintf("bad shape dim=%d words=%d buckets=%d", h.Dim, h.Words, h.Buckets))
	}
	words := make([]string, h.Words)
	for i := range words {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > uint64(r.Len()) {
			return bad("truncated vocabulary")
		}
		b := make([]byte, n)
		io.ReadFull(r, b)
		words[i] = string(b)
	}
	rows := h.Words + h.Buckets
	if r.Len() != rows*(8+h.Dim) {
		return bad(fmt.Sprintf("%d bytes of rows, want %d", r.Len(), rows*(8+h.Dim)))
	}
	m := &Model{Header: h, words: words, vocab: vocabOf(words),
		q: make([]int8, rows*h.Dim), scale: make([]float32, rows), weight: make([]float32, rows)}
	if len(m.vocab) != len(words) {
		return bad("duplicate vocabulary words")
	}
	rest := data[len(data)-r.Len():]
	for i := range rows {
		b := rest[i*(8+h.Dim):]
		m.scale[i] = math.Float32frombits(binary.LittleEndian.Uint32(b))
		m.weight[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
		for j := range h.Dim {
			m.q[i*h.Dim+j] = int8(b[8+j])
		}
	}
	return m, hash, nil
}

// LoadFile is Load of a file's content.
func LoadFile(path string) (*Model, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	m, h, err := Load(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return m, h, nil
}

// Vocabulary returns the vocabulary words, in row order.
func (m *Model) Vocabulary() []string { return append([]string(nil), m.words...) }
