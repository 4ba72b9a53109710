package embed

import "github.com/ragbot/ragbot/retrieval/wordvec"

// The fitting of a Static model's post-processing, stored in the model
// file's header by `ragbot embeddings train` and by refinement.

// postTop is how many dominating directions Postprocess removes: about
// Dim/100 in Mu & Viswanath; 3 for 128 dimensions, where the nearest words
// of rare ones stop being other rare words.
const postTop = 3

// Postprocess sets m.Mean and m.Top for "all-but-the-top" (Mu & Viswanath
// 2018, "All-but-the-Top: Simple and Effective Postprocessing for Word
// Representations", ICLR): the mean of the unit word vectors and their
// first postTop principal components after centering, by 30 steps of
// power iteration each from a fixed start, so it is deterministic. SGNS
// pushes every word away from the frequent words' context vectors, a
// direction all vectors share that drowns rare words; removing it lets
// their own meaning show. Static applies them to every word vector.
func Postprocess(m *wordvec.Model) {
	d := m.Params.Dim
	m.Mean, m.Top = nil, nil
	rows := make([]float32, len(m.In))
	mean := make([]float64, d)
	for i := range m.Words {
		r := rows[i*d : (i+1)*d]
		unitRow(r, m.In[i*d:(i+1)*d], nil, nil)
		for j, x := range r {
			mean[j] += float64(x)
		}
	}
	m.Mean = make([]float32, d)
	for j := range mean {
		m.Mean[j] = float32(mean[j] / float64(max(len(m.Words), 1)))
	}
	for i := range m.Words {
		for j := range d {
			rows[i*d+j] -= m.Mean[j]
		}
	}
	for range postTop {
		u := make([]float64, d)
		for j := range u {
			u[j] = 1 + float64(j%7)/10 // fixed, not orthogonal to anything in practice
		}
		pc := powerIteration(rows, d, u, 30)
		if pc == nil {
			break
		}
		m.Top = append(m.Top, pc)
		for off := 0; off < len(rows); off += d {
			removeProjection(rows[off:off+d], pc)
		}
	}
}

// FitCommon returns the common component of the SIF vectors of texts: their
// first principal component (uncentered, as SIF's TruncatedSVD), by 50
// steps of power iteration from their mean direction, so the same texts
// give the same vector. `ragbot embeddings train` stores it in the model
// (wordvec.Model.Common) from a sample of the training text; refinement
// recomputes it from the indexed sources. It returns nil when no text has a
// known word.
func (s *Static) FitCommon(texts []string) []float32 {
	d := s.model.Params.Dim
	var st staticState
	var rows []float64
	for _, t := range texts {
		if v := s.semantic(&st, t, false); norm64(v) > 0 {
			rows = append(rows, v...)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	u := make([]float64, d)
	for off := 0; off < len(rows); off += d { // start: the mean direction
		for j, x := range rows[off : off+d] {
			u[j] += x
		}
	}
	return powerIteration(rows, d, u, 50)
}
