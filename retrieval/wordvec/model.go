package wordvec

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

// A Model is a vocabulary with one vector per word. Row i of In (and Out)
// is Words[i]'s, Params.Dim float32s long. A Model is not changed by any
// function of this package once returned, so it may be read by many
// goroutines at once.
type Model struct {
	Params Params
	Words  []string  // most frequent first (Refine appends its new words)
	Counts []int64   // occurrences of each word in the training corpora
	In     []float32 // word vectors (word2vec's syn0), len(Words)*Params.Dim
	Out    []float32 // context vectors (syn1neg), needed by Refine only; nil when saved without
	// Common is a direction that sentence vectors made from this model have
	// removed (SIF's common component, see embed.Static); nil when none.
	// wordvec only stores it.
	Common []float32
	// Mean and Top post-process the word vectors before use: subtract Mean,
	// remove the projections on the unit directions of Top ("all-but-the-
	// top", Mu & Viswanath 2018). Nil when none; wordvec only stores them.
	Mean  []float32
	Top   [][]float32
	index map[string]int32
}

func (m *Model) buildIndex() {
	m.index = make(map[string]int32, len(m.Words))
	for i, w := range m.Words {
		m.index[w] = int32(i)
	}
}

// ID returns the row of word, and false when the model has no vector for it.
func (m *Model) ID(word string) (int, bool) {
	i, ok := m.index[word]
	return int(i), ok
}

// Vector returns the word vector of row i; the caller must not change it.
func (m *Model) Vector(i int) []float32 {
	d := m.Params.Dim
	return m.In[i*d : (i+1)*d : (i+1)*d]
}

// Total returns the sum of Counts.
func (m *Model) Total() int64 {
	var t int64
	for _, n := range m.Counts {
		t += n
	}
	return t
}

// fileMagic starts every model file; the digit is the format version.
const fileMagic = "ragbot-wordvec 1\n"

// header is the JSON part of a model file.
type header struct {
	Params  Params            `json:"params"`
	Words   int               `json:"words"`
	HasOut  bool              `json:"has_out"`
	Common  []float32         `json:"common,omitempty"`
	Mean    []float32         `json:"mean,omitempty"`
	Top     [][]float32       `json:"top,omitempty"`
	Meta    map[string]string `json:"meta,omitempty"`
	Quantum string            `json:"quantum"` // "int8-row": int8 elements with one float32 scale per row
}

// Save writes m to w in the model format: the magic line, a uvarint
// length and a JSON header (parameters, word count, Common, meta), the
// words and counts (uvarint length, bytes, uvarint count each), then In
// and, when withOut, Out as rows of one little-endian float32 scale and Dim
// int8s (element = int8 * scale; the scale is max|element|/127, so the
// error per element is at most half a step, 0.4% of the row's largest).
// meta is free text kept in the header (provenance). The same model and
// meta give the same bytes.
func (m *Model) Save(w io.Writer, meta map[string]string, withOut bool) error {
	bw := bufio.NewWriter(w)
	h := header{Params: m.Params, Words: len(m.Words), HasOut: withOut && len(m.Out) == len(m.In), Common: m.Common, Mean: m.Mean, Top: m.Top, Meta: meta, Quantum: "int8-row"}
	hj, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw.WriteString(fileMagic)
	var buf [binary.MaxVarintLen64]byte
	uv := func(x uint64) { bw.Write(buf[:binary.PutUvarint(buf[:], x)]) }
	uv(uint64(len(hj)))
	bw.Write(hj)
	for i, word := range m.Words {
		uv(uint64(len(word)))
		bw.WriteString(word)
		uv(uint64(m.Counts[i]))
	}
	writeRows(bw, m.In, m.Params.Dim)
	if h.HasOut {
		writeRows(bw, m.Out, m.Params.Dim)
	}
	return bw.Flush()
}

// writeRows writes the int8-row quantization of rows of dim elements.
func writeRows(w *bufio.Writer, v []float32, dim int) {
	row := make([]byte, 4+dim)
	for off := 0; off < len(v); off += dim {
		r := v[off : off+dim]
		var mx float32
		for _, x := range r {
			mx = max(mx, float32(math.Abs(float64(x))))
		}
		scale := mx / 127
		binary.LittleEndian.PutUint32(row, math.Float32bits(scale))
		for j, x := range r {
			q := int8(0)
			if scale > 0 {
				q = int8(math.Round(float64(x / scale)))
			}
			row[4+j] = byte(q)
		}
		w.Write(row)
	}
}

// Load reads a model written by Save, with its meta. Errors name what is
// wrong: not a model file, a truncated file, or an unknown format.
func Load(r io.Reader) (*Model, map[string]string, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	magic := make([]byte, len(fileMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != fileMagic {
		return nil, nil, errors.New("wordvec: not a model file (bad magic line)")
	}
	hlen, err := binary.ReadUvarint(br)
	if err != nil || hlen > 1<<24 {
		return nil, nil, fmt.Errorf("wordvec: bad header length")
	}
	hj := make([]byte, hlen)
	if _, err := io.ReadFull(br, hj); err != nil {
		return nil, nil, fmt.Errorf("wordvec: header: %w", err)
	}
	var h header
	if err := json.Unmarshal(hj, &h); err != nil {
		return nil, nil, fmt.Errorf("wordvec: header: %w", err)
	}
	if h.Quantum != "int8-row" || h.Params.Dim <= 0 || h.Words < 0 {
		return nil, nil, fmt.Errorf("wordvec: unsupported model (quantum %q, dim %d)", h.Quantum, h.Params.Dim)
	}
	m := &Model{Params: h.Params, Common: h.Common, Mean: h.Mean, Top: h.Top, Words: make([]string, h.Words), Counts: make([]int64, h.Words)}
	for i := range h.Words {
		n, err := binary.ReadUvarint(br)
		if err != nil || n > maxTokenLen*4 {
			return nil, nil, fmt.Errorf("wordvec: word %d: bad length", i)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, nil, fmt.Errorf("wordvec: word %d: %w", i, err)
		}
		c, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, nil, fmt.Errorf("wordvec: count of word %d: %w", i, err)
		}
		m.Words[i], m.Counts[i] = string(b), int64(c)
	}
	if m.In, err = readRows(br, h.Words, h.Params.Dim); err != nil {
		return nil, nil, fmt.Errorf("wordvec: vectors: %w", err)
	}
	if h.HasOut {
		if m.Out, err = readRows(br, h.Words, h.Params.Dim); err != nil {
			return nil, nil, fmt.Errorf("wordvec: context vectors: %w", err)
		}
	}
	m.buildIndex()
	return m, h.Meta, nil
}

func readRows(r io.Reader, n, dim int) ([]float32, error) {
	out := make([]float32, n*dim)
	row := make([]byte, 4+dim)
	for i := range n {
		if _, err := io.ReadFull(r, row); err != nil {
			return nil, fmt.Errorf("row %d of %d: %w", i, n, err)
		}
		scale := math.Float32frombits(binary.LittleEndian.Uint32(row))
		for j := range dim {
			out[i*dim+j] = float32(int8(row[4+j])) * scale
		}
	}
	return out, nil
}

// LoadFile reads a model file, and returns with it the hex SHA-256 of the
// file's bytes (the model's identity) and its meta.
func LoadFile(path string) (*Model, string, map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", nil, err
	}
	m, meta, err := Load(bytes.NewReader(data))
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	return m, hex.EncodeToString(sum[:]), meta, nil
}

// Hash returns the hex SHA-256 of what Save writes for m with meta and
// withOut: the identity LoadFile reports for the saved file.
func (m *Model) Hash(meta map[string]string, withOut bool) (string, error) {
	h := sha256.New()
	if err := m.Save(h, meta, withOut); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Quantized returns a copy of m whose vectors went through Save's int8
// rounding, as a model read back by Load has them; embedding with it gives
// the vectors the saved file will give.
func (m *Model) Quantized() *Model {
	var buf bytes.Buffer
	_ = m.Save(&buf, nil, true) // writing to memory does not fail
	q, _, _ := Load(&buf)
	return q
}
