package transformer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/sync/errgroup"
)

// A row is one model input: the token ids, [CLS] to [SEP], of a text.
type row struct {
	text int // index of the text in Embed's argument
	ids  []int64
}

// embed tokenizes texts after prefix, runs the rows in batches of similar
// length on the idle sessions, and pools each row into one unit vector.
func (e *Embedder) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("transformer: %s: stopped before the first of %d texts: %w", e.name, len(texts), err)
	}
	rows := e.rows(texts, prefix)
	// Longest first: rows of one batch need little padding, and the
	// longest batches start first, so the workers finish together.
	slices.SortStableFunc(rows, func(a, b row) int { return len(b.ids) - len(a.ids) })
	var batches [][]row
	for b := range slices.Chunk(rows, e.batchSize) {
		batches = append(batches, b)
	}
	vecs := make([][]float32, len(rows)) // in the order of rows
	g, gctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	var done atomic.Int64
	for range min(e.nSessions, len(batches)) {
		// Each worker exits when the batches run out or one fails; Wait
		// below waits for all of them.
		g.Go(func() error {
			for {
				b := int(next.Add(1)) - 1
				if b >= len(batches) {
					return nil
				}
				start := b * e.batchSize
				if err := e.runBatch(gctx, batches[b], vecs[start:start+len(batches[b])]); err != nil {
					return err
				}
				done.Add(1)
			}
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("transformer: %s: stopped after %d of %d batches: %w", e.name, done.Load(), len(batches), ctx.Err())
		}
		return nil, fmt.Errorf("transformer: %s: %w", e.name, err)
	}
	return byText(rows, vecs), nil
}

// rows tokenizes each text after prefix into one row of at most maxTokens
// ids: a longer text is cut, as sentence-transformers does.
func (e *Embedder) rows(texts []string, prefix string) []row {
	rows := make([]row, 0, len(texts))
	for i, t := range texts {
		rows = append(rows, row{i, e.tok.Encode(prefix+t, e.maxTokens)})
	}
	return rows
}

// errClosed is returned by Embed after Close.
var errClosed = errors.New("embedder is closed")

// runBatch runs rows through an idle session, waiting for one while ctx
// allows, and writes each row's pooled unit vector to out.
func (e *Embedder) runBatch(ctx context.Context, rows []row, out [][]float32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var s *ort.DynamicAdvancedSession
	select {
	case <-ctx.Done():
		return ctx.Err()
	case got, ok := <-e.sessions:
		if !ok {
			return errClosed
		}
		s = got
	}
	defer func() { e.sessions <- s }()
	n, width, dim := len(rows), 0, e.spec.Dim
	for _, r := range rows {
		width = max(width, len(r.ids))
	}
	ids := make([]int64, n*width)
	mask := make([]int64, n*width)
	types := make([]int64, n*width) // one segment: all 0
	for i, r := range rows {
		copy(ids[i*width:], r.ids)
		for j := range width {
			if j < len(r.ids) {
				mask[i*width+j] = 1
			} else {
				ids[i*width+j] = e.tok.PAD()
			}
		}
	}
	hidden, err := run(s, ort.NewShape(int64(n), int64(width)), ids, mask, types, dim)
	if err != nil {
		return err
	}
	for i, r := range rows {
		out[i] = pool(hidden[i*width*dim:(i+1)*width*dim], len(r.ids), dim, e.spec.Pooling)
	}
	return nil
}

// run feeds one batch of shape [n, width] to s and returns the last hidden
// states, n*width*dim float32s in row-major order.
func run(s *ort.DynamicAdvancedSession, shape ort.Shape, ids, mask, types []int64, dim int) ([]float32, error) {
	var ins []ort.Value
	defer func() {
		for _, v := range ins {
			v.Destroy()
		}
	}()
	for _, data := range [][]int64{ids, mask, types} {
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, err
		}
		ins = append(ins, t)
	}
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(shape[0], shape[1], int64(dim)))
	if err != nil {
		return nil, err
	}
	defer out.Destroy()
	if err := s.Run(ins, []ort.Value{out}); err != nil {
		return nil, err
	}
	return slices.Clone(out.GetData()), nil
}

// pool turns the hidden states of one row (width*dim float32s, the first n
// tokens real) into a unit vector: the mean of the n token vectors or the
// first one, as p says.
func pool(hidden []float32, n, dim int, p Pooling) []float32 {
	sum := make([]float64, dim)
	if p == CLSPooling {
		n = 1
	}
	for t := range n {
		for k, x := range hidden[t*dim : (t+1)*dim] {
			sum[k] += float64(x)
		}
	}
	return unit(sum)
}

// unit returns v scaled to length 1 as float32s; a zero v stays zero.
func unit(v []float64) []float32 {
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	out := make([]float32, len(v))
	if norm == 0 {
		return out
	}
	for k, x := range v {
		out[k] = float32(x / norm)
	}
	return out
}

// byText returns the vectors in the order of the texts: vecs[i] is
// rows[i]'s vector, and each text has one row.
func byText(rows []row, vecs [][]float32) [][]float32 {
	out := make([][]float32, len(rows))
	for i, r := range rows {
		out[r.text] = vecs[i]
	}
	return out
}
