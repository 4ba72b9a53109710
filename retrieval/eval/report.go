package eval

import (
	"github.com/ragbot/ragbot/retrieval"
)

// Output is what `ragbot eval --json` prints: the Report, plus the
// calibration, the candidate recall and the latency when measured.
type Output struct {
	Report
	Mode     string `json:"mode"`
	Embedder string `json:"embedder"`
	// Family keys the printed thresholds: the embedder's family when it has
	// one (the codesearch encoder's "codesearch-v1", which still applies
	// after a retraining), else its name.
	Family      string       `json:"embedder_family"`
	Calibration *Calibration `json:"calibration,omitempty"`
	Latency     *Latency     `json:"latency_ms,omitempty"`
	// NotSure counts the answerable questions answered "not sure" and how
	// many of them have a wanted chunk among the matches shown with code
	// (retrieval.NotSureMatches) and among all listed
	// (retrieval.NotSureListed); nil when there are none.
	NotSure *NotSureFound `json:"not_sure_found,omitempty"`
	// Depth is the candidate recall of --depth; nil without it.
	Depth *DepthReport `json:"depth,omitempty"`
}

// NotSureFound counts the answerable questions answered "not sure" and
// how many of them had a wanted chunk among the matches shown.
type NotSureFound struct {
	Answerable int `json:"answerable"`
	WithCode   int `json:"with_code"`
	Listed     int `json:"listed"`
}

// Rates are a set of coverage thresholds and the three-outcome rates
// (shares 0..1 of the questions of that kind) they give.
type Rates struct {
	MinSimilarity     float64 `json:"min_similarity"`
	MinTermCoverage   float64 `json:"min_term_coverage"`
	FloorSimilarity   float64 `json:"floor_similarity"`
	FloorTermCoverage float64 `json:"floor_term_coverage"`
	MaxAbsentShare    float64 `json:"max_absent_share"`
	NoCoverageRate    float64 `json:"no_coverage_rate"`
	WrongRefusalRate  float64 `json:"wrong_refusal_rate"`
	// SureWrongRate: unanswerable questions answered outright; NotSureRate:
	// answerable questions answered "not sure" (three-outcome rates only).
	SureWrongRate float64 `json:"sure_wrong_rate"`
	NotSureRate   float64 `json:"not_sure_rate"`
}

// Calibration is the coverage decision's calibration on questions with
// unanswerable ones among them: the configured thresholds' rates and
// better ones, ready to paste under retrieval.thresholds.
type Calibration struct {
	// Answerable and Unanswerable count the questions of configured
	// corpora the rates below are shares of.
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// Configured: the three-outcome rates of the configured thresholds.
	Configured Rates `json:"configured"`
	// Band: what the answer band decides (answered outright, right or
	// wrong) with the configured thresholds and with the suggested ones
	// (retrieval.CalibrateBand).
	Band Band `json:"band"`
	// Floors: the configured band with the floors calibrated on every
	// question (retrieval.CalibrateFloors); nil when none meets the bound.
	Floors *Rates `json:"floors,omitempty"`
	// LeaveOneCorpusOut: the configured band with floors calibrated
	// without each corpus, measured on it, by corpus and pooled; set when
	// two or more corpora have unanswerable questions.
	LeaveOneCorpusOut map[string]Rates `json:"leave_one_corpus_out,omitempty"`
	Pooled            *Rates           `json:"leave_one_corpus_out_pooled,omitempty"`
	// Evidence is what the coverage decision read for each question, by
	// question id, so a wrong answer or refusal can be triaged.
	Evidence map[string]retrieval.Evidence `json:"evidence"`
}

// Band is the answer band's calibration: counts of questions answered outright
// (retrieval.BandRates) under the configured and the suggested thresholds.
type Band struct {
	Configured BandCounts `json:"configured"`
	Suggested  BandCounts `json:"suggested"`
	// LeaveOneCorpusOut: the counts with each corpus under the band
	// suggested on the others (retrieval.BandLeaveOneCorpusOut); nil with
	// one corpus. Its thresholds are the configured ones.
	LeaveOneCorpusOut *BandCounts `json:"leave_one_corpus_out,omitempty"`
}

// BandCounts are answer band thresholds and how many questions they
// answer outright, rightly and wrongly.
type BandCounts struct {
	MinSimilarity     float64 `json:"min_similarity"`
	MinTermCoverage   float64 `json:"min_term_coverage"`
	Right             int     `json:"answered_right"`              // answerable, a wanted chunk in the first 5
	WrongAnswerable   int     `json:"answered_wrong_answerable"`   // answerable, no wanted chunk in the first 5
	WrongUnanswerable int     `json:"answered_wrong_unanswerable"` // unanswerable
}

// bandRatesOf is r as BandCounts.
func bandRatesOf(r retrieval.BandRates) BandCounts {
	return BandCounts{MinSimilarity: r.Thresholds.MinSimilarity, MinTermCoverage: r.Thresholds.MinTermCoverage,
		Right: r.Right, WrongAnswerable: r.WrongAnswerable, WrongUnanswerable: r.WrongUnanswerable}
}

// Latency is the time of Asker.Ask per question, in milliseconds
// (nearest-rank percentiles), and the Weaviate requests it made.
type Latency struct {
	Calls int     `json:"calls"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
	// Weaviate requests per timed call: median and max, and the total by kind.
	RequestsP50    int            `json:"weaviate_requests_p50"`
	RequestsMax    int            `json:"weaviate_requests_max"`
	RequestsByKind map[string]int `json:"weaviate_requests_by_kind"`
	// Absence is the cost of the absence check alone (Asker.Absence, the
	// first step of every Ask), timed after each timed call; nil when no
	// question was asked.
	Absence *AbsenceCost `json:"absence_check,omitempty"`
	// Askers is how many askers asked at once (BenchConcurrent), 0 for
	// Bench's one; PerSecond their calls per second of wall time.
	Askers    int     `json:"askers,omitempty"`
	PerSecond float64 `json:"calls_per_second,omitempty"`
	// AllSources is set when every question searched every configured
	// source (Runner.BenchAll), as in a channel allowed to see them all.
	AllSources bool `json:"all_sources,omitempty"`
}

// AbsenceCost is the absence check's cost in milliseconds: per call after the
// warm-up pass (nearest-rank percentiles), and the first call of the process,
// which parses the word lists and loads the sources' vocabularies.
type AbsenceCost struct {
	Calls int     `json:"calls"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	Max   float64 `json:"max"`
	First float64 `json:"first"`
	// Fallback counts the timed calls whose scope had a source without a
	// vocabulary: their check is left to the search's document
	// frequencies, at no cost of its own and without typo correction.
	Fallback int `json:"fallback"`
}

// ratesOf is r as Rates.
func ratesOf(r retrieval.Rates) Rates {
	th := r.Thresholds
	return Rates{MinSimilarity: th.MinSimilarity, MinTermCoverage: th.MinTermCoverage,
		FloorSimilarity: th.FloorSimilarity, FloorTermCoverage: th.FloorTermCoverage, MaxAbsentShare: th.MaxAbsentShare,
		NoCoverageRate: r.NoCoverage, WrongRefusalRate: r.WrongRefusal, SureWrongRate: r.SureWrong, NotSureRate: r.NotSure}
}
