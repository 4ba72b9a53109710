package eval

import "slices"

// DepthKs are the cut-offs ScoreDepth reports, those not above the depth.
var DepthKs = []int{5, 10, 20, 50, 100, 200}

// MaxDepth is the deepest candidate list ScoreDepth is given: a hybrid
// query's limit (retrieval.Query.Limit is 1..200).
const MaxDepth = 200

// DepthRow is one row of a DepthReport: how many answerable questions, and
// for each of the report's Ks the share (0..1) whose first expected
// location ranks within the first k results.
type DepthRow struct {
	Questions int       `json:"questions"`
	Recall    []float64 `json:"recall"`
}

// DepthReport is the recall@k of answerable questions in candidate lists of
// Depth results: how many wanted chunks the first stage of retrieval finds at
// all, against how many the rerank places in the first 5 ("candidate recall",
// the recall@k of the first stage of a multi-stage ranker: Nogueira and Cho
// 2019, "Passage Re-ranking with BERT", arXiv:1901.04085, §4, report BM25's
// recall@1000 beside the reranker's MRR@10 for the same reason).
type DepthReport struct {
	Depth    int                 `json:"depth"`
	Ks       []int               `json:"ks"`
	All      DepthRow            `json:"all"`
	ByKind   map[string]DepthRow `json:"by_kind"`
	ByCorpus map[string]DepthRow `json:"by_corpus"`
	// Ranks is the rank at this depth by question id (0: not among the
	// Depth results).
	Ranks map[string]int `json:"ranks"`
}

// ScoreDepth scores outcomes whose Results are candidate lists of up to depth
// results (1..MaxDepth), best first. Unanswerable questions are left out; a
// question whose corpus is not configured counts as not found, as in Score.
func ScoreDepth(depth int, outs []Outcome) DepthReport {
	ks := slices.DeleteFunc(slices.Clone(DepthKs), func(k int) bool { return k > depth })
	if !slices.Contains(ks, depth) {
		ks = append(ks, depth)
	}
	rep := DepthReport{Depth: depth, Ks: ks, ByKind: map[string]DepthRow{}, ByCorpus: map[string]DepthRow{}, Ranks: map[string]int{}}
	type acc struct {
		n     int
		found []int
	}
	all := &acc{found: make([]int, len(ks))}
	kinds, corpora := map[string]*acc{}, map[string]*acc{}
	get := func(m map[string]*acc, key string) *acc {
		if m[key] == nil {
			m[key] = &acc{found: make([]int, len(ks))}
		}
		return m[key]
	}
	for _, o := range outs {
		q := o.Question
		if len(q.Expect) == 0 {
			continue
		}
		rank := 0
		if !o.NoCorpus {
			rank = Rank(q, o.Results)
		}
		rep.Ranks[q.ID] = rank
		for _, a := range []*acc{all, get(kinds, q.Kind), get(corpora, q.Corpus)} {
			a.n++
			for i, k := range ks {
				if rank >= 1 && rank <= k {
					a.found[i]++
				}
			}
		}
	}
	row := func(a *acc) DepthRow {
		r := DepthRow{Questions: a.n, Recall: make([]float64, len(ks))}
		for i := range ks {
			if a.n > 0 {
				r.Recall[i] = float64(a.found[i]) / float64(a.n)
			}
		}
		return r
	}
	rep.All = row(all)
	for k, a := range kinds {
		rep.ByKind[k] = row(a)
	}
	for c, a := range corpora {
		rep.ByCorpus[c] = row(a)
	}
	return rep
}
