// Package eval scores retrieval against a question set in the JSONL format of
// the public eval set (testdata/eval/unanswerable.jsonl is one): each question names its corpus and 1-3 expected
// locations; a result matches by path and overlapping lines (or, for API
// operations, by method and path template). It reports recall@1, recall@5
// and MRR@10, overall and per kind, and the misses. Questions with no
// expected location are unanswerable: with them it also reports how often
// the bot said "no coverage" to those and how often to answerable ones.
//
// `ragbot eval` is a Runner: it asks each question through the answer
// pipeline (run.go), calibrates the coverage thresholds on the evidence,
// optionally ranks candidate lists (candidates.go) and times the asker
// (bench.go), and prints the Output (print.go). FromVotes turns the votes
// on answers into questions (`ragbot feedback export`).
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/retrieval"
)

// Question is one line of a questions.jsonl file.
type Question struct {
	ID       string   `json:"id"`
	Corpus   string   `json:"corpus"` // equals a configured source's name
	Kind     string   `json:"kind"`   // identifier, semantic, config, path_or_error, docs, openapi, ...
	Question string   `json:"question"`
	Expect   []Expect `json:"expect"` // empty: the corpus does not cover the question
}

// Expect is one acceptable location.
type Expect struct {
	Path      string `json:"path"`                 // file path, or the API path template with Method
	Symbol    string `json:"symbol,omitempty"`     // informational, not matched
	StartLine int    `json:"start_line,omitempty"` // 1-based, inclusive
	EndLine   int    `json:"end_line,omitempty"`   // inclusive
	Method    string `json:"method,omitempty"`     // HTTP method for API operations
}

// Result is one retrieved item, reduced to what matching needs.
type Result struct {
	Path      string // file path; for API chunks the spec file
	StartLine int
	EndLine   int
	Symbol    string // for API chunks "METHOD /path"
	Kind      string // "code", "doc", "api"
}

// Load reads a JSONL question set, skipping blank lines. Unknown fields are
// errors (a misspelt "expect" would otherwise drop the question from recall
// without a word), as are a missing id, corpus or question, a repeated id and
// an expected location with neither a method nor a 1-based line range. The
// error names the line.
func Load(r io.Reader) ([]Question, error) {
	var qs []Question
	lineOf := map[string]int{} // question id -> line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		q, err := parseQuestion(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if first, dup := lineOf[q.ID]; dup {
			return nil, fmt.Errorf("line %d: id %q is already used on line %d", n, q.ID, first)
		}
		lineOf[q.ID] = n
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	return qs, nil
}

func parseQuestion(line []byte) (Question, error) {
	var q Question
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, err
	}
	if dec.More() {
		return q, errors.New("more than one JSON value")
	}
	if q.ID == "" || q.Corpus == "" || q.Question == "" {
		return q, errors.New("id, corpus and question are required")
	}
	for i, e := range q.Expect {
		switch {
		case e.Path == "":
			return q, fmt.Errorf("question %s: expect[%d]: path is required", q.ID, i)
		case e.Method == "" && (e.StartLine < 1 || e.EndLine < e.StartLine):
			return q, fmt.Errorf("question %s: expect[%d]: want a method or 1 <= start_line <= end_line, got lines %d-%d",
				q.ID, i, e.StartLine, e.EndLine)
		}
	}
	return q, nil
}

// Matches applies the README's matching rule: same path and overlapping
// lines (start <= expect.end && end >= expect.start); for an expectation with
// a Method, an API result whose symbol is "METHOD path" (method compared
// case-insensitively, the path template exactly).
func Matches(e Expect, r Result) bool {
	if e.Method != "" {
		method, path, ok := strings.Cut(r.Symbol, " ")
		return ok && r.Kind == "api" && strings.EqualFold(method, e.Method) && path == e.Path
	}
	return r.Path == e.Path && r.StartLine <= e.EndLine && r.EndLine >= e.StartLine
}

// Rank returns the 1-based rank of the first result matching any expected
// location, or 0 when none of results matches.
func Rank(q Question, results []Result) int {
	for i, r := range results {
		if slices.ContainsFunc(q.Expect, func(e Expect) bool { return Matches(e, r) }) {
			return i + 1
		}
	}
	return 0
}

// Metrics are the figures for a set of answerable questions.
type Metrics struct {
	Questions int     `json:"questions"`
	RecallAt1 float64 `json:"recall_at_1"` // share with the first match at rank 1
	RecallAt5 float64 `json:"recall_at_5"` // share with a match in the first 5
	MRRAt10   float64 `json:"mrr_at_10"`   // mean of 1/rank, 0 past rank 10
}

// Miss is a question not found in the first 5.
type Miss struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Question string   `json:"question"`
	Rank     int      `json:"rank"` // 0: not in the results at all
	Expected []string `json:"expected"`
	Got      []string `json:"got"` // the first 5 results as path:start-end
}

// Report is what `ragbot eval --json` prints (docs/evaluation.md, "Running an evaluation").
type Report struct {
	Metrics
	ByKind map[string]Metrics `json:"by_kind"`
	// ByCorpus has the figures of each question set's corpus, so a change
	// can be judged corpus by corpus (leave-one-corpus-out).
	ByCorpus map[string]Metrics `json:"by_corpus"`
	Ranks    map[string]int     `json:"ranks"` // question id -> rank (0 = not found)
	// Top5 is, by question id, the first 5 results as Miss.Got has them, so
	// that two runs can be compared beyond their ranks.
	Top5   map[string][]string `json:"top5"`
	Misses []Miss              `json:"misses"`
	// NoCorpus lists questions whose corpus is not a configured source; they
	// count as misses, and are left out of the refusal rates.
	NoCorpus []string `json:"no_corpus,omitempty"`

	// Unanswerable is how many questions have no expected location.
	Unanswerable int `json:"unanswerable,omitempty"`
	// NoCoverageRate is the share (0..1) of unanswerable questions answered
	// "no coverage"; set when there are unanswerable questions.
	NoCoverageRate *float64 `json:"no_coverage_rate,omitempty"`
	// WrongRefusalRate is the share (0..1) of answerable questions answered
	// "no coverage"; set when there are unanswerable questions.
	WrongRefusalRate *float64 `json:"wrong_refusal_rate,omitempty"`
	// WrongAnswers lists the unanswerable questions that got snippets.
	WrongAnswers []string `json:"wrong_answers,omitempty"`
	// WrongRefusals lists the answerable questions answered "no coverage".
	WrongRefusals []string `json:"wrong_refusals,omitempty"`
	// NotSure lists the questions answered "not sure" (the closest matches,
	// labelled as such), answerable or not.
	NotSure []string `json:"not_sure,omitempty"`
	// TestsAbove lists the answerable questions that do not ask about
	// tests (retrieval.AsksAboutTests) whose first 5 results have a chunk
	// of a test file (retrieval.IsTestPath) above the first expected
	// location, or have one and no expected location; TestsAskedNot counts
	// those questions, TestsAbove's denominator.
	TestsAbove    []string `json:"tests_above,omitempty"`
	TestsAskedNot int      `json:"tests_asked_not,omitempty"`
	// SureWrong lists the unanswerable questions answered outright (not
	// "not sure"): the worst error, a confident answer to what the sources
	// lack.
	SureWrong []string `json:"sure_wrong,omitempty"`
}

// Outcome is one question's result, input to Score.
type Outcome struct {
	Question Question
	Results  []Result // best first, at least 10 when available
	NoCorpus bool     // the corpus is not a configured source: a miss, whatever Results holds
	Refused  bool     // the answer was "no coverage"
	NotSure  bool     // the answer was "not sure": the closest matches, labelled
}

// Score computes the report. Questions without expectations are left out of
// recall; with any of them, the report also has the refusal rates.
func Score(outs []Outcome) Report {
	rep := Report{ByKind: map[string]Metrics{}, ByCorpus: map[string]Metrics{}, Ranks: map[string]int{}, Top5: map[string][]string{}}
	type acc struct {
		n, r1, r5 int
		rr        float64
	}
	all := &acc{}
	kinds, corpora := map[string]*acc{}, map[string]*acc{}
	get := func(m map[string]*acc, key string) *acc {
		if m[key] == nil {
			m[key] = &acc{}
		}
		return m[key]
	}
	var answerable, refused, unanswerable, noCov int
	for _, o := range outs {
		q := o.Question
		switch {
		case o.NoCorpus && len(q.Expect) == 0:
			rep.NoCorpus = append(rep.NoCorpus, q.ID)
		case len(q.Expect) == 0:
			unanswerable++
			if o.Refused {
				noCov++
			} else {
				rep.WrongAnswers = append(rep.WrongAnswers, q.ID)
				if !o.NotSure {
					rep.SureWrong = append(rep.SureWrong, q.ID)
				}
			}
		case !o.NoCorpus:
			answerable++
			if o.Refused {
				refused++
				rep.WrongRefusals = append(rep.WrongRefusals, q.ID)
			}
		}
		if o.NotSure {
			rep.NotSure = append(rep.NotSure, q.ID)
		}
		if len(q.Expect) == 0 {
			continue
		}
		rank := 0 // rule 1 of the README: only results from the question's corpus match
		if !o.NoCorpus {
			rank = Rank(q, o.Results)
		}
		rep.Ranks[q.ID] = rank
		rep.Top5[q.ID] = top5(o.Results)
		if !o.NoCorpus && !retrieval.AsksAboutTests(q.Question) {
			rep.TestsAskedNot++
			if testAbove(o.Results, rank) {
				rep.TestsAbove = append(rep.TestsAbove, q.ID)
			}
		}
		for _, a := range []*acc{all, get(kinds, q.Kind), get(corpora, q.Corpus)} {
			a.n++
			if rank == 1 {
				a.r1++
			}
			if rank >= 1 && rank <= 5 {
				a.r5++
			}
			if rank >= 1 && rank <= 10 {
				a.rr += 1 / float64(rank)
			}
		}
		if o.NoCorpus {
			rep.NoCorpus = append(rep.NoCorpus, q.ID)
		}
		if rank == 0 || rank > 5 {
			rep.Misses = append(rep.Misses, miss(q, rank, o.Results))
		}
	}
	metrics := func(a *acc) Metrics {
		if a.n == 0 {
			return Metrics{}
		}
		n := float64(a.n)
		return Metrics{Questions: a.n, RecallAt1: float64(a.r1) / n, RecallAt5: float64(a.r5) / n, MRRAt10: a.rr / n}
	}
	rep.Metrics = metrics(all)
	for k, a := range kinds {
		rep.ByKind[k] = metrics(a)
	}
	for c, a := range corpora {
		rep.ByCorpus[c] = metrics(a)
	}
	sort.Slice(rep.Misses, func(i, j int) bool { return rep.Misses[i].ID < rep.Misses[j].ID })
	if unanswerable > 0 {
		rep.Unanswerable = unanswerable
		nc, wr := float64(noCov)/float64(unanswerable), 0.0
		if answerable > 0 {
			wr = float64(refused) / float64(answerable)
		}
		rep.NoCoverageRate, rep.WrongRefusalRate = &nc, &wr
	}
	return rep
}

// testAbove reports whether a result of a test file comes before rank
// (1-based; 0 or past 5: anywhere in the first 5).
func testAbove(results []Result, rank int) bool {
	if rank <= 0 || rank > 5 {
		rank = 6
	}
	for _, r := range results[:min(rank-1, len(results))] {
		if retrieval.IsTestPath(r.Path) {
			return true
		}
	}
	return false
}

func miss(q Question, rank int, results []Result) Miss {
	m := Miss{ID: q.ID, Kind: q.Kind, Question: q.Question, Rank: rank}
	for _, e := range q.Expect {
		if e.Method != "" {
			m.Expected = append(m.Expected, e.Method+" "+e.Path)
		} else {
			m.Expected = append(m.Expected, fmt.Sprintf("%s:%d-%d", e.Path, e.StartLine, e.EndLine))
		}
	}
	m.Got = top5(results)
	return m
}

// top5 names the first 5 results: an API operation by its symbol (method and
// path), anything else as path:start-end.
func top5(results []Result) []string {
	var out []string
	for _, r := range results[:min(5, len(results))] {
		if r.Kind == "api" {
			out = append(out, r.Symbol)
		} else {
			out = append(out, fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine))
		}
	}
	return out
}
