package retrieval_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

func TestEvidenceDecide(t *testing.T) {
	th := retrieval.Thresholds{MinSimilarity: 0.3, MinTermCoverage: 0.6, FloorSimilarity: 0.2, FloorTermCoverage: 0.3, MaxAbsentShare: 0.5}
	tests := []struct {
		name string
		ev   retrieval.Evidence
		want retrieval.Coverage
	}{
		{"exact name match covers, whatever the scores", retrieval.Evidence{Lexical: true}, retrieval.Covered},
		{"a missing name refuses, whatever the scores", retrieval.Evidence{Missing: "RedisStore.Flush", Similarity: 0.9, TermCoverage: 1}, retrieval.NoCoverage},
		{"exact match wins over a missing second name", retrieval.Evidence{Lexical: true, Missing: "Foo"}, retrieval.Covered},
		{"both at the answer thresholds", retrieval.Evidence{Similarity: 0.3, TermCoverage: 0.6}, retrieval.Covered},
		{"similarity below the band, above the floor", retrieval.Evidence{Similarity: 0.29, TermCoverage: 1}, retrieval.NotSure},
		{"coverage below the band: a paraphrase is not refused", retrieval.Evidence{Similarity: 0.9, TermCoverage: 0.05}, retrieval.NotSure},
		{"similarity below the floor, coverage above it", retrieval.Evidence{Similarity: 0.1, TermCoverage: 0.4}, retrieval.NotSure},
		{"both below the floors", retrieval.Evidence{Similarity: 0.19, TermCoverage: 0.29}, retrieval.NoCoverage},
		{"most weight in words no chunk has", retrieval.Evidence{Similarity: 0.29, TermCoverage: 0.4, AbsentShare: 0.51}, retrieval.NoCoverage},
		{"absent words do not refuse an answer in the band", retrieval.Evidence{Similarity: 0.3, TermCoverage: 0.6, AbsentShare: 0.9}, retrieval.Covered},
		{"two weak hits, one similar, one sharing the words, are no answer", retrieval.Evidence{Similarity: 0.5, TermCoverage: 0.8,
			Top: []retrieval.HitEvidence{{Similarity: 0.5, TermCoverage: 0.1}, {Similarity: 0.1, TermCoverage: 0.8}}}, retrieval.NotSure},
		{"one hit with both", retrieval.Evidence{Similarity: 0.5, TermCoverage: 0.8,
			Top: []retrieval.HitEvidence{{Similarity: 0.5, TermCoverage: 0.1}, {Similarity: 0.35, TermCoverage: 0.65}}}, retrieval.Covered},
	}
	for _, tt := range tests {
		if got := tt.ev.Decide(th); got != tt.want {
			t.Errorf("%s: Decide(%+v) = %v, want %v", tt.name, tt.ev, got, tt.want)
		}
	}
	// MaxAbsentShare 0 turns the absent-words rule off.
	off := th
	off.MaxAbsentShare = 0
	if got := (retrieval.Evidence{Similarity: 0.29, TermCoverage: 0.4, AbsentShare: 1}).Decide(off); got != retrieval.NotSure {
		t.Errorf("with MaxAbsentShare 0: Decide = %v, want %v", got, retrieval.NotSure)
	}
}

func TestCalibrateBand(t *testing.T) {
	// Coverage is 1 everywhere, so only MinSimilarity matters. Answerable
	// and right: similarities 0.50, 0.40 and an exact match; answerable but
	// missed by the ranking (no wanted chunk in the first 5): 0.35, 0.30;
	// unanswerable: 0.45, 0.25, a missing name.
	q := func(sim float64, answerable, found bool) retrieval.LabelledEvidence {
		return retrieval.LabelledEvidence{Evidence: retrieval.Evidence{Similarity: sim, TermCoverage: 1}, Answerable: answerable, Found: found}
	}
	evs := []retrieval.LabelledEvidence{q(0.5, true, true), q(0.4, true, true), {Evidence: retrieval.Evidence{Lexical: true}, Answerable: true, Found: true},
		q(0.35, true, false), q(0.3, true, false), q(0.45, false, false), q(0.25, false, false), {Evidence: retrieval.Evidence{Missing: "X"}}}
	from := retrieval.Thresholds{MinSimilarity: 0.2, MinTermCoverage: 0.5, FloorSimilarity: 0.1, FloorTermCoverage: 0.05}
	conf, best := retrieval.CalibrateBand(from, evs)
	// At 0.20 everything above the floors is answered: 3 right, 2 wrong
	// answerable, 2 unanswerable.
	if want := (retrieval.BandRates{Thresholds: from, Right: 3, WrongAnswerable: 2, WrongUnanswerable: 2}); conf != want {
		t.Errorf("configured %+v, want %+v", conf, want)
	}
	// Above 0.35 and up to 0.40 the three right answers stay and only the
	// 0.45 unanswerable one is answered: the first such point is 0.36, with
	// coverage at its floor (the sweep starts at the floors, which stay).
	want := from
	want.MinSimilarity, want.MinTermCoverage = 0.36, 0.05
	if best.Right != 3 || best.Wrong() != 1 || best.Thresholds != want {
		t.Errorf("suggested %+v (wrong %d), want 3 right, 1 wrong at %+v", best, best.Wrong(), want)
	}
	// A band that would lose a right answer is never suggested: with only
	// right answers and unanswerable ones above them, the configured band
	// stays.
	hard := []retrieval.LabelledEvidence{q(0.3, true, true), q(0.6, false, false)}
	if c, b := retrieval.CalibrateBand(from, hard); b != c {
		t.Errorf("suggested %+v, want the configured %+v: every better point loses the right answer", b, c)
	}
}

func TestBandLeaveOneCorpusOut(t *testing.T) {
	// Corpus a: the ranking misses answerable questions at similarity 0.3
	// and finds those at 0.5; corpus b the same. A band learnt on either
	// (0.31..0.5) applies to the other: per corpus 1 right, 0 wrong.
	from := retrieval.Thresholds{MinSimilarity: 0.2}
	var evs []retrieval.LabelledEvidence
	for _, c := range []string{"a", "b"} {
		evs = append(evs, retrieval.LabelledEvidence{Corpus: c, Evidence: retrieval.Evidence{Similarity: 0.5, TermCoverage: 1}, Answerable: true, Found: true},
			retrieval.LabelledEvidence{Corpus: c, Evidence: retrieval.Evidence{Similarity: 0.3, TermCoverage: 1}, Answerable: true})
	}
	got, ok := retrieval.BandLeaveOneCorpusOut(from, evs)
	if !ok || got.Right != 2 || got.Wrong() != 0 || got.Thresholds != from {
		t.Errorf("BandLeaveOneCorpusOut = %+v (ok %v), want 2 right, 0 wrong, the configured thresholds", got, ok)
	}
	if _, ok := retrieval.BandLeaveOneCorpusOut(from, evs[:2]); ok {
		t.Error("BandLeaveOneCorpusOut with one corpus: ok, want not ok")
	}
}

func TestRatesAt(t *testing.T) {
	th := retrieval.Thresholds{MinSimilarity: 0.4, MinTermCoverage: 0.7, FloorSimilarity: 0.2, FloorTermCoverage: 0.3}
	ans := []retrieval.Evidence{{Similarity: 0.5, TermCoverage: 0.8}, {Similarity: 0.9, TermCoverage: 0.2}, {Similarity: 0.1, TermCoverage: 0.1}}
	un := []retrieval.Evidence{{Similarity: 0.1, TermCoverage: 0.2}, {Similarity: 0.4, TermCoverage: 0.7}, {Missing: "SAML", Similarity: 0.9, TermCoverage: 0.9}, {Similarity: 0.3, TermCoverage: 0.1}}
	// Answerable: covered, not sure (coverage under the band), refused
	// (both under the floors). Unanswerable: refused (floors), answered
	// outright (in the band), refused (missing name), not sure.
	want := retrieval.Rates{Thresholds: th, NoCoverage: 2.0 / 4, WrongRefusal: 1.0 / 3, SureWrong: 1.0 / 4, NotSure: 1.0 / 3}
	if diff := cmp.Diff(want, retrieval.RatesAt(th, ans, un)); diff != "" {
		t.Errorf("RatesAt (-want +got):\n%s", diff)
	}
}

func TestCalibrateFloors(t *testing.T) {
	band := retrieval.Thresholds{MinSimilarity: 0.4, MinTermCoverage: 0.5}
	// Twenty answerable paraphrases: similar but sharing few terms. Three
	// unanswerable questions lower on both signals, one whose words are
	// mostly in no chunk, one like the paraphrases.
	var ans []retrieval.Evidence
	for i := range 20 {
		ans = append(ans, retrieval.Evidence{Similarity: 0.3 + float64(i)/200, TermCoverage: 0.1 + float64(i)/100, AbsentShare: 0.2})
	}
	un := []retrieval.Evidence{
		{Similarity: 0.1, TermCoverage: 0.05}, {Similarity: 0.2, TermCoverage: 0.08}, {Similarity: 0.25, TermCoverage: 0.02},
		{Similarity: 0.35, TermCoverage: 0.2, AbsentShare: 0.7},
		{Similarity: 0.35, TermCoverage: 0.2, AbsentShare: 0.1},
	}
	got, ok := retrieval.CalibrateFloors(band, ans, un)
	if !ok {
		t.Fatal("CalibrateFloors found no point; want one refusing no answerable question")
	}
	// Floors under every paraphrase's coverage (0.10) refuse the first
	// three; an absent share limit between 0.2 and 0.7 the fourth; nothing
	// separates the fifth from the paraphrases.
	if got.NoCoverage != 0.8 || got.WrongRefusal != 0 {
		t.Errorf("CalibrateFloors = %+v, want no_coverage 0.8 and wrong refusal 0", got)
	}
	if th := got.Thresholds; th.MinSimilarity != band.MinSimilarity || th.MinTermCoverage != band.MinTermCoverage ||
		th.FloorTermCoverage > 0.1 || th.MaxAbsentShare < 0.2 || th.MaxAbsentShare >= 0.7 {
		t.Errorf("CalibrateFloors thresholds = %+v: want the band kept, floor coverage <= 0.10, absent share in [0.2, 0.7)", th)
	}
}

// TestCalibrateFloorsKeepsConfigured: when no floors refuse more than the
// configured ones, the configured floors are returned, not the mildest
// point of the sweep (which would turn max_absent_share off).
func TestCalibrateFloorsKeepsConfigured(t *testing.T) {
	band := retrieval.Thresholds{MinSimilarity: 0.4, MinTermCoverage: 0.5, FloorSimilarity: 0.1, FloorTermCoverage: 0.05, MaxAbsentShare: 0.9}
	ans := []retrieval.Evidence{{Similarity: 0.3, TermCoverage: 0.2}, {Similarity: 0.35, TermCoverage: 0.3}}
	un := []retrieval.Evidence{{Missing: "X"}, {Similarity: 0.35, TermCoverage: 0.3}}
	got, ok := retrieval.CalibrateFloors(band, ans, un)
	if !ok || got.Thresholds != band || got.NoCoverage != 0.5 {
		t.Errorf("CalibrateFloors = %+v (ok %v), want the configured thresholds %+v with no_coverage 0.5", got, ok, band)
	}
}

func TestLeaveOneCorpusOut(t *testing.T) {
	band := retrieval.Thresholds{MinSimilarity: 0.4, MinTermCoverage: 0.5}
	// Corpora a and b agree: unanswerable questions have coverage 0.05,
	// answerable ones 0.2. Corpus c's answerable questions have coverage
	// 0.03: floors learnt on a and b refuse them, which only the held-out
	// figure for c shows; and with c in the training set no floor can
	// refuse a's or b's unanswerable questions without refusing c's
	// answerable ones.
	var evs []retrieval.LabelledEvidence
	add := func(corpus string, answerable bool, cov float64, n int) {
		for range n {
			evs = append(evs, retrieval.LabelledEvidence{Corpus: corpus, Answerable: answerable, Evidence: retrieval.Evidence{Similarity: 0.1, TermCoverage: cov}})
		}
	}
	for _, c := range []string{"a", "b"} {
		add(c, true, 0.2, 10)
		add(c, false, 0.05, 4)
	}
	add("c", true, 0.03, 10)
	add("c", false, 0.05, 4)
	by, pooled := retrieval.LeaveOneCorpusOut(band, evs)
	if len(by) != 3 {
		t.Fatalf("LeaveOneCorpusOut gave %d corpora, want 3: %+v", len(by), by)
	}
	if r := by["c"]; r.WrongRefusal != 1 || r.NoCoverage != 1 {
		t.Errorf("held-out c: %+v, want every question refused (floors from a and b sit above 0.03)", r)
	}
	if r := by["a"]; r.WrongRefusal != 0 || r.NoCoverage != 0 {
		t.Errorf("held-out a: %+v, want nothing refused (floors from b and c sit at most at 0.03)", r)
	}
	if pooled.WrongRefusal != 10.0/30 || pooled.NoCoverage != 4.0/12 {
		t.Errorf("pooled %+v, want wrong refusal 10/30 and no coverage 4/12", pooled)
	}
}
