package retrieval_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

func TestEvidenceCovered(t *testing.T) {
	th := retrieval.Thresholds{MinSimilarity: 0.3, MinTermCoverage: 0.6}
	tests := []struct {
		name string
		ev   retrieval.Evidence
		want bool
	}{
		{"exact name match covers, whatever the scores", retrieval.Evidence{Lexical: true}, true},
		{"a missing name refuses, whatever the scores", retrieval.Evidence{Missing: "RedisStore.Flush", Similarity: 0.9, TermCoverage: 1}, false},
		{"exact match wins over a missing second name", retrieval.Evidence{Lexical: true, Missing: "Foo"}, true},
		{"both at the thresholds", retrieval.Evidence{Similarity: 0.3, TermCoverage: 0.6}, true},
		{"similarity below", retrieval.Evidence{Similarity: 0.29, TermCoverage: 1}, false},
		{"coverage below", retrieval.Evidence{Similarity: 0.9, TermCoverage: 0.59}, false},
		{"both below", retrieval.Evidence{Similarity: 0.29, TermCoverage: 0.59}, false},
	}
	for _, tt := range tests {
		if got := tt.ev.Covered(th); got != tt.want {
			t.Errorf("%s: Covered(%+v) = %v, want %v", tt.name, tt.ev, got, tt.want)
		}
	}
}

func TestCalibrate(t *testing.T) {
	// Answerable: similarities 0.50, 0.40, 0.35 and one exact match.
	// Unanswerable: similarities 0.45, 0.30, 0.20 and one missing name.
	// Coverage is 1 everywhere, so only MinSimilarity matters (every
	// MinTermCoverage up to 1 lets it through).
	ans := []retrieval.Evidence{{Similarity: 0.5, TermCoverage: 1}, {Similarity: 0.4, TermCoverage: 1}, {Similarity: 0.35, TermCoverage: 1}, {Lexical: true}}
	un := []retrieval.Evidence{{Similarity: 0.45, TermCoverage: 1}, {Similarity: 0.3, TermCoverage: 1}, {Similarity: 0.2, TermCoverage: 1}, {Missing: "X"}}
	got := retrieval.Calibrate(ans, un)
	// Balanced: at 0.31..0.35 one unanswerable (0.45) is answered (missed
	// 1/4) and no answerable is refused: max error 0.25, the least; the
	// sweep keeps the first, 0.31 with coverage 0.
	wantBalanced := retrieval.Rates{Thresholds: retrieval.Thresholds{MinSimilarity: 0.31, MinTermCoverage: 0}, NoCoverage: 0.75, WrongRefusal: 0}
	if diff := cmp.Diff(wantBalanced, got.Balanced); diff != "" {
		t.Errorf("Balanced (-want +got):\n%s", diff)
	}
	// Target: refusals <= 5% means none of 4 refused; best no-coverage is
	// 0.75, first at 0.31.
	if !got.TargetOK || got.Target != wantBalanced {
		t.Errorf("Target = %+v (ok %v), want %+v", got.Target, got.TargetOK, wantBalanced)
	}
	// Nothing meets the bound when every threshold refuses an answerable
	// one: here the only one names something the sources lack.
	if c := retrieval.Calibrate([]retrieval.Evidence{{Missing: "Y"}}, un); c.TargetOK {
		t.Errorf("Calibrate with an answerable question always refused: target %+v, want none", c.Target)
	}
}

func TestRatesAt(t *testing.T) {
	th := retrieval.Thresholds{MinSimilarity: 0.4, MinTermCoverage: 0.7}
	ans := []retrieval.Evidence{{Similarity: 0.5, TermCoverage: 0.8}, {Similarity: 0.9, TermCoverage: 0.2}}
	un := []retrieval.Evidence{{Similarity: 0.1, TermCoverage: 0.9}, {Similarity: 0.4, TermCoverage: 0.7}, {Missing: "SAML", Similarity: 0.9, TermCoverage: 0.9}}
	// Refused: the second answerable (coverage), the first unanswerable
	// (similarity) and the third (missing name); the second is answered.
	want := retrieval.Rates{Thresholds: th, NoCoverage: 2.0 / 3, WrongRefusal: 0.5}
	if diff := cmp.Diff(want, retrieval.RatesAt(th, ans, un)); diff != "" {
		t.Errorf("RatesAt (-want +got):\n%s", diff)
	}
}
