package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/eval"
)

// The loo mode: the coverage thresholds chosen leave-one-repository-out.
// For each repository, the answer band and the floors are chosen on the
// other repositories' evidence, the way `ragbot eval` suggests them
// (retrieval.CalibrateBand from the thresholds of the run, then
// retrieval.CalibrateFloors on that band), and that repository's questions
// are decided under them. The evidence is `ragbot eval --json`'s
// calibration.evidence, replayed with retrieval's own Evidence.Decide, so
// no retrieval runs here. The same with a whole group (language) held out.

// looQuestion is one question of the set with its evidence.
type looQuestion struct {
	repo, group, kind string
	ev                retrieval.LabelledEvidence
}

// looTally counts outcomes: answerable questions answered outright with a
// wanted chunk in the first 5 (right) or without (wrong), "not sure",
// refused; unanswerable ones answered outright, "not sure", refused.
type looTally struct {
	ans, right, wrong, ansNotSure, ansRefused int
	un, unCovered, unNotSure, unRefused       int
}

func (t *looTally) add(q looQuestion, th retrieval.Thresholds) {
	c := q.ev.Evidence.Decide(th)
	if !q.ev.Answerable {
		t.un++
		switch c {
		case retrieval.Covered:
			t.unCovered++
		case retrieval.NotSure:
			t.unNotSure++
		default:
			t.unRefused++
		}
		return
	}
	t.ans++
	switch {
	case c == retrieval.NotSure:
		t.ansNotSure++
	case c == retrieval.NoCoverage:
		t.ansRefused++
	case q.ev.Found:
		t.right++
	default:
		t.wrong++
	}
}

func (t *looTally) plus(o looTally) {
	t.ans, t.right, t.wrong, t.ansNotSure, t.ansRefused = t.ans+o.ans, t.right+o.right, t.wrong+o.wrong, t.ansNotSure+o.ansNotSure, t.ansRefused+o.ansRefused
	t.un, t.unCovered, t.unNotSure, t.unRefused = t.un+o.un, t.unCovered+o.unCovered, t.unNotSure+o.unNotSure, t.unRefused+o.unRefused
}

// row formats the tally with the four rates: unanswerable answered
// outright, answerable refused, answerable answered outright and wrong,
// answerable "not sure" (shares of their kind).
func (t looTally) row() string {
	share := func(n, d int) string {
		if d == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(n)/float64(d))
	}
	return fmt.Sprintf("| %d | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |", t.ans, t.right, t.wrong, t.ansNotSure,
		t.ansRefused, t.un, t.unCovered, t.unRefused, share(t.unCovered, t.un), share(t.ansRefused, t.ans),
		share(t.wrong, t.ans), share(t.ansNotSure, t.ans))
}

// looHeader prints a table's head: the first columns, then looTally.row's.
func looHeader(w io.Writer, first ...string) {
	cols := "answerable | right | wrong | not sure | refused | unanswerable | answered | refused | unanswerable answered | wrongly refused | answered wrong | not sure"
	fmt.Fprintf(w, "| %s | %s |\n|%s%s\n", strings.Join(first, " | "), cols, strings.Repeat(" --- |", len(first)), strings.Repeat(" ---: |", 12))
}

// choose is the thresholds `ragbot eval` suggests on qs, from th: the
// answer band (th's floors kept), then, with floors, the floors on that
// band (th's when none meets the bound).
func choose(th retrieval.Thresholds, qs []looQuestion, floors bool) retrieval.Thresholds {
	var evs []retrieval.LabelledEvidence
	var ans, un []retrieval.Evidence
	for _, q := range qs {
		evs = append(evs, q.ev)
		if q.ev.Answerable {
			ans = append(ans, q.ev.Evidence)
		} else {
			un = append(un, q.ev.Evidence)
		}
	}
	_, band := retrieval.CalibrateBand(th, evs)
	if f, ok := retrieval.CalibrateFloors(band.Thresholds, ans, un); ok && floors {
		return f.Thresholds
	}
	return band.Thresholds
}

func thString(th retrieval.Thresholds) string {
	return fmt.Sprintf("%.2f, %.2f / %.2f, %.2f, %.2f", th.MinSimilarity, th.MinTermCoverage, th.FloorSimilarity, th.FloorTermCoverage, th.MaxAbsentShare)
}

// loo prints, as markdown tables, the outcomes under the configured
// thresholds, under the ones chosen on all repositories (in-sample), and
// leave-one-repository-out and leave-one-group-out, by repository and by
// group, with the thresholds each fold chose.
func loo(w io.Writer, in inputs, reportFile string) error {
	data, err := os.ReadFile(reportFile)
	if err != nil {
		return err
	}
	var out eval.Output
	if err := json.Unmarshal(data, &out); err != nil {
		return fmt.Errorf("%s: %w", reportFile, err)
	}
	if out.Calibration == nil {
		return fmt.Errorf("%s: no calibration: run ragbot eval --json with the unanswerable questions", reportFile)
	}
	c := out.Calibration.Configured
	th := retrieval.Thresholds{MinSimilarity: c.MinSimilarity, MinTermCoverage: c.MinTermCoverage,
		FloorSimilarity: c.FloorSimilarity, FloorTermCoverage: c.FloorTermCoverage, MaxAbsentShare: c.MaxAbsentShare}
	var qs []looQuestion
	for _, r := range in.repos {
		f, err := os.Open(filepath.Join(in.dir, r.Name, "questions.jsonl"))
		if err != nil {
			return err
		}
		rqs, err := eval.Load(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		for _, q := range rqs {
			ev, ok := out.Calibration.Evidence[q.ID]
			if !ok {
				return fmt.Errorf("%s: question %s has no evidence", reportFile, q.ID)
			}
			rank := out.Ranks[q.ID]
			qs = append(qs, looQuestion{repo: r.Name, group: r.Group, kind: q.Kind,
				ev: retrieval.LabelledEvidence{Corpus: r.Name, Answerable: len(q.Expect) > 0, Found: rank >= 1 && rank <= 5, Evidence: ev}})
		}
	}
	// thresholdsOf gives each question the thresholds a policy decides
	// it under: th itself (by "configured"), or those chosen, with or
	// without floors, on every question (in-sample) or on the questions
	// whose key differs from its own (held out), and names them per key.
	type policy struct {
		name   string
		floors bool
		key    func(looQuestion) string // nil: in-sample; "": configured
	}
	repo := func(q looQuestion) string { return q.repo }
	group := func(q looQuestion) string { return q.group }
	thresholdsOf := func(p policy) map[string]retrieval.Thresholds {
		chosen := map[string]retrieval.Thresholds{}
		for _, q := range qs {
			k := ""
			if p.key != nil {
				k = p.key(q)
			}
			if _, ok := chosen[k]; ok {
				continue
			}
			var train []looQuestion
			for _, o := range qs {
				if p.key == nil || p.key(o) != k {
					train = append(train, o)
				}
			}
			chosen[k] = th
			if p.name != "configured" {
				chosen[k] = choose(th, train, p.floors)
			}
		}
		return chosen
	}
	tally := func(p policy, chosen map[string]retrieval.Thresholds, keep func(looQuestion) bool) looTally {
		var t looTally
		for _, q := range qs {
			if keep(q) {
				k := ""
				if p.key != nil {
					k = p.key(q)
				}
				t.add(q, chosen[k])
			}
		}
		return t
	}
	policies := []policy{{name: "configured"}, {name: "band chosen on all (in-sample)"}, {name: "band, leave-one-repository-out", key: repo},
		{name: "band, leave-one-group-out", key: group}, {name: "band and floors chosen on all (in-sample)", floors: true},
		{name: "band and floors, leave-one-repository-out", floors: true, key: repo}, {name: "band and floors, leave-one-group-out", floors: true, key: group}}
	chosen := make([]map[string]retrieval.Thresholds, len(policies))
	for i, p := range policies {
		chosen[i] = thresholdsOf(p)
	}
	fmt.Fprintf(w, "Thresholds (min_similarity, min_term_coverage / floor_similarity, floor_term_coverage, max_absent_share): configured %s; chosen on all %d repositories, band %s, band and floors %s.\n\n",
		thString(th), len(in.repos), thString(chosen[1][""]), thString(chosen[4][""]))
	looHeader(w, "thresholds")
	for i, p := range policies {
		fmt.Fprintf(w, "| %s %s\n", p.name, tally(p, chosen[i], func(looQuestion) bool { return true }).row())
	}
	fmt.Fprintln(w, "\nBy group: configured, and chosen without the repository (band, then band and floors) or without the group (band):")
	fmt.Fprintln(w)
	looHeader(w, "group", "thresholds")
	for _, g := range groups {
		in := func(q looQuestion) bool { return q.group == g }
		for _, i := range []int{0, 2, 5, 3} {
			fmt.Fprintf(w, "| %s | %s %s\n", g, policies[i].name, tally(policies[i], chosen[i], in).row())
		}
	}
	fmt.Fprintln(w, "\nBy repository: configured, and the band chosen without it:")
	fmt.Fprintln(w)
	looHeader(w, "repository", "group", "thresholds")
	var sims, covs []float64
	for _, r := range in.repos {
		in := func(q looQuestion) bool { return q.repo == r.Name }
		band := chosen[2][r.Name]
		sims, covs = append(sims, band.MinSimilarity), append(covs, band.MinTermCoverage)
		fmt.Fprintf(w, "| %s | %s | configured %s\n", r.Name, r.Group, tally(policies[0], chosen[0], in).row())
		fmt.Fprintf(w, "| %s | %s | %s %s\n", r.Name, r.Group, thString(band), tally(policies[2], chosen[2], in).row())
	}
	sort.Float64s(sims)
	sort.Float64s(covs)
	fmt.Fprintf(w, "\nBand chosen without each repository: min_similarity %.2f..%.2f, min_term_coverage %.2f..%.2f over %d folds.\n",
		sims[0], sims[len(sims)-1], covs[0], covs[len(covs)-1], len(sims))
	return nil
}
