package retrieval

// Calibration sweeps: MinSimilarity and MinTermCoverage each from 0 to 1
// in steps of 0.01 (cosine similarities of the embedders we use differ in
// the second decimal, and IDF weighting makes coverage continuous).
const (
	simSteps = 100
	covSteps = 100
)

// MaxWrongRefusal is the share of answerable questions that a calibrated
// threshold may refuse: at most 5% of answerable questions refused (README,
// "No-coverage calibration").
const MaxWrongRefusal = 0.05

// Rates are the two errors of the coverage decision on an eval set.
type Rates struct {
	Thresholds Thresholds
	// NoCoverage is the share (0..1) of unanswerable questions answered
	// "no coverage": the higher the better.
	NoCoverage float64
	// WrongRefusal is the share (0..1) of answerable questions answered
	// "no coverage": the lower the better.
	WrongRefusal float64
}

// Calibration is what Calibrate finds for one embedder.
type Calibration struct {
	// Balanced minimises the larger of the two errors, max(1-NoCoverage,
	// WrongRefusal) (the equal error rate point), ties broken by their sum.
	Balanced Rates
	// Target has the highest NoCoverage with WrongRefusal <= MaxWrongRefusal,
	// ties broken by the lower WrongRefusal; ok is false when no threshold
	// meets the bound.
	Target   Rates
	TargetOK bool
}

// RatesAt replays the coverage decision (Evidence.Covered) under th.
// Empty sets give rate 0.
func RatesAt(th Thresholds, answerable, unanswerable []Evidence) Rates {
	r := Rates{Thresholds: th}
	for _, e := range answerable {
		if !e.Covered(th) {
			r.WrongRefusal++
		}
	}
	for _, e := range unanswerable {
		if !e.Covered(th) {
			r.NoCoverage++
		}
	}
	if n := len(answerable); n > 0 {
		r.WrongRefusal /= float64(n)
	}
	if n := len(unanswerable); n > 0 {
		r.NoCoverage /= float64(n)
	}
	return r
}

// Calibrate sweeps both thresholds over the grid above and returns the
// balanced and the target points. The evidence comes from Asker.Assess on
// questions with and without expected answers, so each point costs no
// retrieval. Among equal points the smallest thresholds win (sweep order),
// which keeps the most snippets for covered questions.
func Calibrate(answerable, unanswerable []Evidence) Calibration {
	var c Calibration
	bestMax, bestSum := 2.0, 2.0
	for i := 0; i <= simSteps; i++ {
		for j := 0; j <= covSteps; j++ {
			th := Thresholds{MinSimilarity: float64(i) / simSteps, MinTermCoverage: float64(j) / covSteps}
			r := RatesAt(th, answerable, unanswerable)
			missed := 1 - r.NoCoverage
			if m, s := max(missed, r.WrongRefusal), missed+r.WrongRefusal; m < bestMax || (m == bestMax && s < bestSum) {
				c.Balanced, bestMax, bestSum = r, m, s
			}
			if r.WrongRefusal <= MaxWrongRefusal && (!c.TargetOK || r.NoCoverage > c.Target.NoCoverage ||
				(r.NoCoverage == c.Target.NoCoverage && r.WrongRefusal < c.Target.WrongRefusal)) {
				c.Target, c.TargetOK = r, true
			}
		}
	}
	return c
}
