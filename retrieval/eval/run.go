package eval

import (
	"context"
	"fmt"

	"github.com/ragbot/ragbot/retrieval"
)

// A Runner asks questions through the answer pipeline and scores the
// answers: Run for the report and calibration, Depth for the candidate
// recall, Bench for the latency.
type Runner struct {
	// Asker is the answer pipeline, as ask and serve build it, with the
	// mode and rerank features under test.
	Asker *retrieval.Asker
	// Sources maps each configured source's name, which a question's
	// corpus must equal, to its source id. A question of another corpus is
	// a miss (Outcome.NoCorpus), left out of the calibration.
	Sources map[string]string
	// Family keys the printed thresholds (Output.Family): the embedder's
	// family, else its name.
	Family string
	// BenchAll makes Bench and BenchConcurrent search every configured
	// source for each question instead of its own corpus: the scope of a
	// channel that may see them all, the largest search at a given index
	// size. Run and Depth still search each question's corpus.
	BenchAll bool
}

// request is q as a request searched in its own corpus only (README,
// "Measuring"), or false when its corpus is not a configured source.
func (r Runner) request(q Question) (retrieval.Request, bool) {
	id, ok := r.Sources[q.Corpus]
	if !ok {
		return retrieval.Request{}, false
	}
	return retrieval.Request{Question: q.Question, Sources: []string{id}}, true
}

// Run asks each question (Asker.Assess: retrieval, rerank and the coverage
// evidence), scores the first 10 results (Score), counts the answerable
// questions answered "not sure", and, with unanswerable questions among them,
// calibrates the coverage thresholds (Calibration). Errors name the question.
func (r Runner) Run(ctx context.Context, qs []Question) (Output, error) {
	th := r.Asker.Thresholds
	out := Output{Mode: r.Asker.Mode, Embedder: r.Asker.Embedder.Name(), Family: r.Family}
	var outs []Outcome
	var answerable, unanswerable []retrieval.Evidence
	var labelled []retrieval.LabelledEvidence
	evidence := map[string]retrieval.Evidence{}
	for _, q := range qs {
		req, ok := r.request(q)
		if !ok {
			outs = append(outs, Outcome{Question: q, NoCorpus: true})
			continue
		}
		hits, ev, err := r.Asker.Assess(ctx, req)
		if err != nil {
			return Output{}, fmt.Errorf("question %s: %w", q.ID, err)
		}
		cov := ev.Decide(th)
		res := Results(hits, 10)
		outs = append(outs, Outcome{Question: q, Results: res, Refused: cov == retrieval.NoCoverage, NotSure: cov == retrieval.NotSure})
		evidence[q.ID] = ev
		rank := Rank(q, res)
		labelled = append(labelled, retrieval.LabelledEvidence{Corpus: q.Corpus, Answerable: len(q.Expect) > 0, Found: rank >= 1 && rank <= 5, Evidence: ev})
		if len(q.Expect) == 0 {
			unanswerable = append(unanswerable, ev)
		} else {
			answerable = append(answerable, ev)
		}
	}
	out.Report = Score(outs)
	out.NotSure = notSureFound(outs, out.Ranks)
	if len(unanswerable) > 0 {
		out.Calibration = calibrate(th, answerable, unanswerable, labelled)
		out.Calibration.Evidence = evidence
	}
	return out, nil
}

// notSureFound counts the answerable questions of outs answered "not
// sure" and, by their ranks, those with a wanted chunk among the matches
// shown; nil when there are none.
func notSureFound(outs []Outcome, ranks map[string]int) *NotSureFound {
	var n *NotSureFound
	for _, o := range outs {
		if !o.NotSure || len(o.Question.Expect) == 0 {
			continue
		}
		if n == nil {
			n = &NotSureFound{}
		}
		n.Answerable++
		if r := ranks[o.Question.ID]; r >= 1 && r <= retrieval.NotSureMatches {
			n.WithCode++
		}
		if r := ranks[o.Question.ID]; r >= 1 && r <= retrieval.NotSureListed {
			n.Listed++
		}
	}
	return n
}

// calibrate is the calibration of the thresholds th on the evidence of the
// answerable and unanswerable questions (labelled holds both, with their
// corpus); its Evidence is left for the caller.
func calibrate(th retrieval.Thresholds, answerable, unanswerable []retrieval.Evidence, labelled []retrieval.LabelledEvidence) *Calibration {
	conf, best := retrieval.CalibrateBand(th, labelled)
	var loco *BandCounts
	if r, ok := retrieval.BandLeaveOneCorpusOut(th, labelled); ok {
		j := bandRatesOf(r)
		loco = &j
	}
	c := &Calibration{
		Answerable: len(answerable), Unanswerable: len(unanswerable),
		Configured: ratesOf(retrieval.RatesAt(th, answerable, unanswerable)),
		Band:       Band{Configured: bandRatesOf(conf), Suggested: bandRatesOf(best), LeaveOneCorpusOut: loco},
	}
	if f, ok := retrieval.CalibrateFloors(th, answerable, unanswerable); ok {
		r := ratesOf(f)
		c.Floors = &r
	}
	if by, pooled := retrieval.LeaveOneCorpusOut(th, labelled); len(by) > 1 {
		c.LeaveOneCorpusOut = map[string]Rates{}
		for corpus, r := range by {
			c.LeaveOneCorpusOut[corpus] = ratesOf(r)
		}
		p := ratesOf(pooled)
		c.Pooled = &p
	}
	return c
}
