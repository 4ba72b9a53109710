package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ragbot/ragbot/retrieval"
)

// Depth ranks each answerable question among depth candidates
// (Asker.RetrieveScored with limit depth, DepthKs[0]..MaxDepth) and scores
// them (ScoreDepth); with candFile set it writes each question's
// candidates there, one JSON line each (candidateLine). Errors name the
// question or the file's flag (--candidates).
func (r Runner) Depth(ctx context.Context, qs []Question, depth int, candFile string) (*DepthReport, error) {
	var enc *json.Encoder
	if candFile != "" {
		f, err := os.Create(candFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		defer w.Flush()
		enc = json.NewEncoder(w)
	}
	var outs []Outcome
	for _, q := range qs {
		if len(q.Expect) == 0 {
			continue
		}
		req, ok := r.request(q)
		if !ok {
			outs = append(outs, Outcome{Question: q, NoCorpus: true})
			continue
		}
		hits, err := r.Asker.RetrieveScored(ctx, req, depth)
		if err != nil {
			return nil, fmt.Errorf("--depth: question %s: %w", q.ID, err)
		}
		res := Results(hits, depth)
		outs = append(outs, Outcome{Question: q, Results: res})
		if enc != nil {
			if err := enc.Encode(candidateLine(q, hits, res)); err != nil {
				return nil, fmt.Errorf("--candidates: %w", err)
			}
		}
	}
	rep := ScoreDepth(depth, outs)
	return &rep, nil
}

// Candidate is one candidate of a line of Depth's candidates file (--candidates).
type Candidate struct {
	Rank      int    `json:"rank"` // 1-based
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Symbol    string `json:"symbol"`
	Kind      string `json:"kind"`  // code, doc or api
	Match     bool   `json:"match"` // matches an expected location (Matches)
	// Score is the reranked score; Debug its parts: hybrid(fused score)
	// bm25(raw) vec(cosine), then each rerank bonus as name:+w.
	Score        float64 `json:"score"`
	Debug        string  `json:"debug"`
	BM25         float64 `json:"bm25"`
	Similarity   float64 `json:"similarity"`    // lexical vector cosine
	Semantic     float64 `json:"semantic"`      // semantic vector cosine (0: none)
	TermCoverage float64 `json:"term_coverage"` // IDF-weighted share of the question's terms, 0..1
}

// candidateLine is one line of --candidates: the question and its
// candidates, best first, with the rank of the first wanted one (0: none).
func candidateLine(q Question, hits []retrieval.Hit, res []Result) any {
	cands := make([]Candidate, len(res))
	for i, h := range hits[:len(res)] {
		c := h.Chunk
		cands[i] = Candidate{Rank: i + 1, Path: c.Path, StartLine: c.StartLine, EndLine: c.EndLine, Symbol: c.Symbol, Kind: c.Kind,
			Match: Rank(q, res[i:i+1]) == 1, Score: h.Score, Debug: h.Debug, BM25: h.BM25,
			Similarity: h.Similarity, Semantic: h.Semantic, TermCoverage: h.TermCoverage}
	}
	return struct {
		ID         string      `json:"id"`
		Corpus     string      `json:"corpus"`
		Kind       string      `json:"kind"`
		Question   string      `json:"question"`
		Rank       int         `json:"rank"`
		Candidates []Candidate `json:"candidates"`
	}{q.ID, q.Corpus, q.Kind, q.Question, Rank(q, res), cands}
}
