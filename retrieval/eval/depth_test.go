package eval

import (
	"slices"
	"testing"
)

func TestScoreDepth(t *testing.T) {
	q := func(id, kind, corpus string, expect ...Expect) Question {
		return Question{ID: id, Kind: kind, Corpus: corpus, Question: "q", Expect: expect}
	}
	want := Expect{Path: "a.go", StartLine: 10, EndLine: 20}
	at := func(rank int) []Result { // rank 1-based; 0: absent
		rs := make([]Result, 30)
		for i := range rs {
			rs[i] = Result{Path: "other.go", StartLine: 1, EndLine: 2}
		}
		if rank > 0 {
			rs[rank-1] = Result{Path: "a.go", StartLine: 15, EndLine: 40}
		}
		return rs
	}
	outs := []Outcome{
		{Question: q("A", "paraphrase", "c1", want), Results: at(3)},
		{Question: q("B", "paraphrase", "c1", want), Results: at(12)},
		{Question: q("C", "identifier", "c2", want), Results: at(25)},
		{Question: q("D", "identifier", "c2", want), Results: at(0)},
		{Question: q("E", "identifier", "c2", want), Results: at(1), NoCorpus: true},
		{Question: q("U", "paraphrase", "c1"), Results: at(0)}, // unanswerable: left out
	}
	rep := ScoreDepth(30, outs)
	if !slices.Equal(rep.Ks, []int{5, 10, 20, 30}) {
		t.Fatalf("ks %v, want [5 10 20 30]", rep.Ks)
	}
	if rep.All.Questions != 5 {
		t.Fatalf("questions %d, want 5", rep.All.Questions)
	}
	if got, want := rep.All.Recall, []float64{0.2, 0.2, 0.4, 0.6}; !slices.Equal(got, want) {
		t.Errorf("all recall %v, want %v", got, want)
	}
	if got, want := rep.ByKind["paraphrase"].Recall, []float64{0.5, 0.5, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("paraphrase recall %v, want %v", got, want)
	}
	if got := rep.ByCorpus["c2"]; got.Questions != 3 || got.Recall[3] != 1.0/3 {
		t.Errorf("c2 %+v, want 3 questions, recall@30 1/3", got)
	}
	if rep.Ranks["B"] != 12 || rep.Ranks["D"] != 0 || rep.Ranks["E"] != 0 {
		t.Errorf("ranks %v", rep.Ranks)
	}
	if _, ok := rep.Ranks["U"]; ok {
		t.Error("unanswerable question ranked")
	}
	if rep := ScoreDepth(100, outs); !slices.Equal(rep.Ks, []int{5, 10, 20, 50, 100}) {
		t.Errorf("ks at depth 100: %v", rep.Ks)
	}
}
