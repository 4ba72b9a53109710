package retrieval

import (
	"fmt"
	"sort"
	"strings"
)

// RRFK is the k of Reciprocal Rank Fusion: a document at rank r (1-based)
// of a list scores 1/(RRFK + r). 60 is the value of Cormack, Clarke and
// Buettcher 2009, "Reciprocal Rank Fusion outperforms Condorcet and
// individual Rank Learning Methods" (SIGIR '09), fixed there on one data set
// and found near-optimal on others; it damps the top ranks, so a chunk
// found by several lists beats one that a single list ranks first.
const RRFK = 60

// A RankedList is one query's hits, best first, and the query's name for
// the hits' Debug ("q" for the question, "v1".."vN" for variants, "hyde").
type RankedList struct {
	Name string
	Hits []Hit
}

// FuseRRF fuses ranked lists by Reciprocal Rank Fusion with k = RRFK: each
// hit (by Hit.ID) scores the sum over the lists holding it of
// 1/(RRFK + rank), rank 1-based. It returns the hits by that score, highest
// first; ties keep the order of first appearance (lists in order, each best
// first), so the first list wins a tie. Each hit is the first list's copy of
// it, with Score set to its fused score and "rrf(score name#rank ...)"
// before its Debug. A hit without an ID is never merged with another.
func FuseRRF(lists []RankedList) []Hit {
	type fused struct {
		hit   Hit
		score float64
		ranks []string
	}
	byID := map[string]*fused{}
	var all []*fused
	for _, l := range lists {
		for i, h := range l.Hits {
			key := h.ID
			f := byID[key]
			if f == nil || key == "" {
				f = &fused{hit: h}
				all = append(all, f)
				if key != "" {
					byID[key] = f
				}
			}
			f.score += 1 / float64(RRFK+i+1)
			f.ranks = append(f.ranks, fmt.Sprintf("%s#%d", l.Name, i+1))
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score }) // all is in order of first appearance
	out := make([]Hit, len(all))
	for i, f := range all {
		h := f.hit
		h.Score = f.score
		h.Debug = strings.TrimSpace(fmt.Sprintf("rrf(%.4f %s) %s", f.score, strings.Join(f.ranks, " "), h.Debug))
		out[i] = h
	}
	return out
}
