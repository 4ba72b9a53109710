package retrieval

import (
	"math"
	"slices"
)

// Calibration sweeps: similarities and coverages each from 0 to 1 in steps
// of 0.01 (cosine similarities of the embedders we use differ in the second
// decimal, and IDF weighting makes coverage continuous); the absent-words
// share in steps of 0.05.
const (
	simSteps    = 100
	covSteps    = 100
	absentSteps = 20
)

// MaxWrongRefusal is the share of answerable questions that a calibrated
// threshold may refuse: at most 5% of answerable questions refused
// (docs/evaluation.md, "No-coverage calibration").
const MaxWrongRefusal = 0.05

// Rates are the errors of the coverage decision on an eval set. Shares are
// 0..1; empty sets give 0.
type Rates struct {
	Thresholds Thresholds
	// NoCoverage is the share of unanswerable questions answered "no
	// coverage": the higher the better.
	NoCoverage float64
	// WrongRefusal is the share of answerable questions answered "no
	// coverage": the lower the better.
	WrongRefusal float64
	// SureWrong is the share of unanswerable questions answered outright
	// (Covered): the worst error.
	SureWrong float64
	// NotSure is the share of answerable questions answered "not sure".
	NotSure float64
}

// RatesAt replays the coverage decision (Evidence.Decide) under th.
func RatesAt(th Thresholds, answerable, unanswerable []Evidence) Rates {
	a, u := tally(th, answerable), tally(th, unanswerable)
	return Rates{Thresholds: th, WrongRefusal: a.share(NoCoverage), NotSure: a.share(NotSure),
		NoCoverage: u.share(NoCoverage), SureWrong: u.share(Covered)}
}

// outcomes counts a set's questions by their decision.
type outcomes struct{ n, covered, notSure, refused int }

func tally(th Thresholds, evs []Evidence) outcomes {
	o := outcomes{n: len(evs)}
	for _, e := range evs {
		switch e.Decide(th) {
		case Covered:
			o.covered++
		case NotSure:
			o.notSure++
		default:
			o.refused++
		}
	}
	return o
}

// share is the share (0..1) of the set decided c; 0 for an empty set.
func (o outcomes) share(c Coverage) float64 {
	if o.n == 0 {
		return 0
	}
	k := o.refused
	switch c {
	case Covered:
		k = o.covered
	case NotSure:
		k = o.notSure
	}
	return float64(k) / float64(o.n)
}

// BandRates count what the answer band (MinSimilarity, MinTermCoverage)
// decides on an eval set: answerable questions answered outright with a
// wanted chunk among the first 5 (Right), answered outright without one
// (WrongAnswerable), and unanswerable questions answered outright
// (WrongUnanswerable). Below the band an answer is "not sure" (it lists the
// closest matches, labelled), or "no coverage" below the floors.
type BandRates struct {
	Thresholds        Thresholds
	Right             int
	WrongAnswerable   int
	WrongUnanswerable int
}

// Wrong is how many questions are answered outright wrongly.
func (r BandRates) Wrong() int { return r.WrongAnswerable + r.WrongUnanswerable }

// BandRatesAt replays the coverage decision (Evidence.Decide) under th.
func BandRatesAt(th Thresholds, evs []LabelledEvidence) BandRates {
	r := BandRates{Thresholds: th}
	for _, e := range evs {
		if e.Evidence.Decide(th) != Covered {
			continue
		}
		switch {
		case !e.Answerable:
			r.WrongUnanswerable++
		case e.Found:
			r.Right++
		default:
			r.WrongAnswerable++
		}
	}
	return r
}

// CalibrateBand sweeps the answer band (MinSimilarity, MinTermCoverage) over
// the grid above, from from's floors up (the floors stay), for the
// point with the fewest questions answered outright wrongly among those
// answering at least as many rightly as from does; ties go to more right
// answers, then to from itself, then to the smallest thresholds (sweep
// order). It returns from's rates and that point's, which are from's when
// no point is better: a suggestion never trades right answers for fewer
// wrong ones. Each point costs no retrieval: the evidence is replayed.
func CalibrateBand(from Thresholds, evs []LabelledEvidence) (configured, best BandRates) {
	configured = BandRatesAt(from, evs)
	best = configured
	for i := int(math.Ceil(from.FloorSimilarity * simSteps)); i <= simSteps; i++ {
		for j := int(math.Ceil(from.FloorTermCoverage * covSteps)); j <= covSteps; j++ {
			th := from
			th.MinSimilarity, th.MinTermCoverage = float64(i)/simSteps, float64(j)/covSteps
			r := BandRatesAt(th, evs)
			if r.Right < configured.Right {
				continue
			}
			if r.Wrong() < best.Wrong() || (r.Wrong() == best.Wrong() && r.Right > best.Right) {
				best = r
			}
		}
	}
	return configured, best
}

// BandLeaveOneCorpusOut chooses the answer band (CalibrateBand from from)
// on every corpus but one and counts its decisions on that one, for every
// corpus, and returns the counts summed over the held-out corpora (each
// question counted once, under the band chosen without its corpus; the
// Thresholds field is from's). These are the figures to report for a band:
// in-sample counts say little about a team's own repositories. ok is false
// with fewer than two corpora.
func BandLeaveOneCorpusOut(from Thresholds, evs []LabelledEvidence) (pooled BandRates, ok bool) {
	corpora := corporaOf(evs, func(LabelledEvidence) bool { return true })
	pooled = BandRates{Thresholds: from}
	if len(corpora) < 2 {
		return pooled, false
	}
	for _, c := range corpora {
		var train, test []LabelledEvidence
		for _, e := range evs {
			if e.Corpus == c {
				test = append(test, e)
			} else {
				train = append(train, e)
			}
		}
		_, best := CalibrateBand(from, train)
		r := BandRatesAt(best.Thresholds, test)
		pooled.Right += r.Right
		pooled.WrongAnswerable += r.WrongAnswerable
		pooled.WrongUnanswerable += r.WrongUnanswerable
	}
	return pooled, true
}

// CalibrateFloors keeps band's answer thresholds and sweeps the floors
// (FloorSimilarity up to band.MinSimilarity, FloorTermCoverage up to
// band.MinTermCoverage, MaxAbsentShare off, then from 1 down to 0.05) for the point with
// the most unanswerable questions refused while at most MaxWrongRefusal of
// the answerable ones are; ties go to the lower WrongRefusal, then to band's
// own floors (a point no better than the configured one is not suggested),
// then to the mildest point (lowest floors, highest MaxAbsentShare, in sweep
// order). ok is false when no point meets the bound.
func CalibrateFloors(band Thresholds, answerable, unanswerable []Evidence) (Rates, bool) {
	best := RatesAt(band, answerable, unanswerable)
	ok := best.WrongRefusal <= MaxWrongRefusal
	for k := absentSteps + 1; k >= 1; k-- {
		for i := 0; i <= simSteps && float64(i)/simSteps <= band.MinSimilarity; i++ {
			for j := 0; j <= covSteps && float64(j)/covSteps <= band.MinTermCoverage; j++ {
				th := band
				th.FloorSimilarity, th.FloorTermCoverage, th.MaxAbsentShare = float64(i)/simSteps, float64(j)/covSteps, float64(k%(absentSteps+1))/absentSteps
				r := RatesAt(th, answerable, unanswerable)
				if r.WrongRefusal > MaxWrongRefusal {
					continue
				}
				if !ok || r.NoCoverage > best.NoCoverage || (r.NoCoverage == best.NoCoverage && r.WrongRefusal < best.WrongRefusal) {
					best, ok = r, true
				}
			}
		}
	}
	return best, ok
}

// LabelledEvidence is one eval question's evidence with its corpus, whether
// it is answerable and, when it is, whether a wanted chunk is among its
// first 5 results (Found: an outright answer to it is right).
type LabelledEvidence struct {
	Corpus     string
	Answerable bool
	Found      bool
	Evidence   Evidence
}

// corporaOf lists the corpora of the evidence that keep accepts, in order
// of first appearance.
func corporaOf(evs []LabelledEvidence, keep func(LabelledEvidence) bool) []string {
	var corpora []string
	for _, e := range evs {
		if keep(e) && !slices.Contains(corpora, e.Corpus) {
			corpora = append(corpora, e.Corpus)
		}
	}
	return corpora
}

// LeaveOneCorpusOut calibrates the floors (CalibrateFloors, on band) on
// every corpus but one and measures them on that one, for each corpus that
// has unanswerable questions; it returns the rates by held-out corpus and
// pooled over them (each question counted once, under the floors chosen
// without its corpus). These are the figures to report for a floor: an
// in-sample figure says little about a team's own repositories.
func LeaveOneCorpusOut(band Thresholds, evs []LabelledEvidence) (map[string]Rates, Rates) {
	corpora := corporaOf(evs, func(e LabelledEvidence) bool { return !e.Answerable })
	split := func(keep func(string) bool) (ans, un []Evidence) {
		for _, e := range evs {
			if !keep(e.Corpus) {
				continue
			}
			if e.Answerable {
				ans = append(ans, e.Evidence)
			} else {
				un = append(un, e.Evidence)
			}
		}
		return ans, un
	}
	out := map[string]Rates{}
	var pooledAns, pooledUn float64
	var pooled Rates
	for _, c := range corpora {
		trainAns, trainUn := split(func(s string) bool { return s != c })
		th, ok := CalibrateFloors(band, trainAns, trainUn)
		if !ok {
			th.Thresholds = band
		}
		testAns, testUn := split(func(s string) bool { return s == c })
		r := RatesAt(th.Thresholds, testAns, testUn)
		out[c] = r
		na, nu := float64(len(testAns)), float64(len(testUn))
		pooled.WrongRefusal += r.WrongRefusal * na
		pooled.NotSure += r.NotSure * na
		pooled.NoCoverage += r.NoCoverage * nu
		pooled.SureWrong += r.SureWrong * nu
		pooledAns += na
		pooledUn += nu
	}
	if pooledAns > 0 {
		pooled.WrongRefusal /= pooledAns
		pooled.NotSure /= pooledAns
	}
	if pooledUn > 0 {
		pooled.NoCoverage /= pooledUn
		pooled.SureWrong /= pooledUn
	}
	return out, pooled
}
