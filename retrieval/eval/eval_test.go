package eval_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbot/ragbot/retrieval/eval"
)

const reviews = "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"

func TestMatches(t *testing.T) {
	code := eval.Expect{Path: "notify/notify.go", Symbol: "Retrier", StartLine: 100, EndLine: 120}
	api := eval.Expect{Method: "GET", Path: reviews}
	spec := "package/generated/api.github.com.json"
	tests := []struct {
		name   string
		expect eval.Expect
		result eval.Result
		want   bool
	}{
		{"ends exactly at expect start", code, eval.Result{Path: "notify/notify.go", StartLine: 80, EndLine: 100, Kind: "code"}, true},
		{"ends one line before expect start", code, eval.Result{Path: "notify/notify.go", StartLine: 80, EndLine: 99, Kind: "code"}, false},
		{"starts exactly at expect end", code, eval.Result{Path: "notify/notify.go", StartLine: 120, EndLine: 140, Kind: "code"}, true},
		{"starts one line after expect end", code, eval.Result{Path: "notify/notify.go", StartLine: 121, EndLine: 140, Kind: "code"}, false},
		{"inside", code, eval.Result{Path: "notify/notify.go", StartLine: 105, EndLine: 110, Kind: "code"}, true},
		{"covers", code, eval.Result{Path: "notify/notify.go", StartLine: 1, EndLine: 400, Kind: "code"}, true},
		{"one line at expect start", code, eval.Result{Path: "notify/notify.go", StartLine: 100, EndLine: 100, Kind: "code"}, true},
		{"symbol is not matched", code, eval.Result{Path: "notify/notify.go", StartLine: 110, EndLine: 111, Symbol: "Other", Kind: "code"}, true},
		{"doc result", code, eval.Result{Path: "notify/notify.go", StartLine: 110, EndLine: 111, Kind: "doc"}, true},
		{"other file, same lines", code, eval.Result{Path: "notify/notify_test.go", StartLine: 100, EndLine: 120, Kind: "code"}, false},
		{"path with ./", code, eval.Result{Path: "./notify/notify.go", StartLine: 100, EndLine: 120, Kind: "code"}, false},
		{"path with other case", code, eval.Result{Path: "Notify/notify.go", StartLine: 100, EndLine: 120, Kind: "code"}, false},
		{"path suffix", code, eval.Result{Path: "notify.go", StartLine: 100, EndLine: 120, Kind: "code"}, false},

		{"api operation", api, eval.Result{Path: spec, StartLine: 10, EndLine: 90, Symbol: "GET " + reviews, Kind: "api"}, true},
		{"api method lower case", api, eval.Result{Path: spec, Symbol: "get " + reviews, Kind: "api"}, true},
		{"api expect method lower case", eval.Expect{Method: "get", Path: reviews}, eval.Result{Path: spec, Symbol: "GET " + reviews, Kind: "api"}, true},
		{"api other method", api, eval.Result{Path: spec, Symbol: "POST " + reviews, Kind: "api"}, false},
		{"api other parameter name", api, eval.Result{Path: spec, Symbol: "GET /repos/{owner}/{repo}/pulls/{number}/reviews", Kind: "api"}, false},
		{"api trailing slash", api, eval.Result{Path: spec, Symbol: "GET " + reviews + "/", Kind: "api"}, false},
		{"api path with other case", api, eval.Result{Path: spec, Symbol: "GET /Repos/{owner}/{repo}/pulls/{pull_number}/reviews", Kind: "api"}, false},
		{"api concrete path", api, eval.Result{Path: spec, Symbol: "GET /repos/octo/hello/pulls/1/reviews", Kind: "api"}, false},
		{"api sub-resource", api, eval.Result{Path: spec, Symbol: "GET " + reviews + "/{review_id}", Kind: "api"}, false},
		{"api symbol without method", api, eval.Result{Path: spec, Symbol: reviews, Kind: "api"}, false},
		{"api symbol on a code result", api, eval.Result{Path: "client.go", Symbol: "GET " + reviews, Kind: "code"}, false},
		{"api symbol on a doc result", api, eval.Result{Path: "README.md", Symbol: "GET " + reviews, Kind: "doc"}, false},
		{"api path as a file path", api, eval.Result{Path: reviews, StartLine: 1, EndLine: 1, Kind: "api"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eval.Matches(tt.expect, tt.result); got != tt.want {
				t.Errorf("Matches(%+v, %+v) = %v, want %v", tt.expect, tt.result, got, tt.want)
			}
		})
	}
}

func TestRank(t *testing.T) {
	q := eval.Question{ID: "A1", Corpus: "c", Kind: "config", Question: "q", Expect: []eval.Expect{
		{Path: "cmd/main.go", StartLine: 10, EndLine: 20},
		{Path: "docs/config.md", StartLine: 5, EndLine: 9},
	}}
	main := eval.Result{Path: "cmd/main.go", StartLine: 15, EndLine: 30, Kind: "code"}
	doc := eval.Result{Path: "docs/config.md", StartLine: 1, EndLine: 5, Kind: "doc"}
	miss := eval.Result{Path: "cmd/main.go", StartLine: 21, EndLine: 40, Kind: "code"}
	other := eval.Result{Path: "other.go", StartLine: 10, EndLine: 20, Kind: "code"}
	tests := []struct {
		name     string
		question eval.Question
		results  []eval.Result
		want     int
	}{
		{"first", q, []eval.Result{main, other}, 1},
		{"second expectation, third place", q, []eval.Result{other, miss, doc}, 3},
		{"first of several matches", q, []eval.Result{other, doc, main}, 2},
		{"none", q, []eval.Result{other, miss}, 0},
		{"no results", q, nil, 0},
		{"no expectations", eval.Question{ID: "A2"}, []eval.Result{main, doc}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eval.Rank(tt.question, tt.results); got != tt.want {
				t.Errorf("Rank() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	const (
		a1 = `{"id":"A1","corpus":"c","kind":"identifier","question":"where is X?","expect":[{"path":"x.go","symbol":"X","start_line":3,"end_line":9}]}`
		o1 = `{"id":"O1","corpus":"api","kind":"openapi","question":"list reviews","expect":[{"method":"GET","path":"/repos/{owner}/{repo}/pulls/{pull_number}/reviews"}]}`
		r1 = `{"id":"R1","corpus":"c","kind":"semantic","question":"how do I bake bread?","expect":[]}`
	)
	tests := []struct {
		name    string
		in      string
		want    []eval.Question
		wantErr string
	}{
		{
			name: "good, blank lines skipped",
			in:   "\n" + a1 + "\n  \t\n" + o1 + "\r\n\n" + r1, // no final newline
			want: []eval.Question{
				{ID: "A1", Corpus: "c", Kind: "identifier", Question: "where is X?",
					Expect: []eval.Expect{{Path: "x.go", Symbol: "X", StartLine: 3, EndLine: 9}}},
				{ID: "O1", Corpus: "api", Kind: "openapi", Question: "list reviews",
					Expect: []eval.Expect{{Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"}}},
				{ID: "R1", Corpus: "c", Kind: "semantic", Question: "how do I bake bread?", Expect: []eval.Expect{}},
			},
		},
		{name: "empty", in: "", want: nil},
		{name: "only blank lines", in: "\n\n  \n", want: nil},
		{
			name:    "not JSON, line counted past blank lines",
			in:      a1 + "\n\n{oops}\n",
			wantErr: "line 3: invalid character 'o' looking for beginning of object key string",
		},
		{
			name:    "cut short",
			in:      a1 + "\n" + `{"id":"A2",` + "\n",
			wantErr: "line 2: unexpected EOF",
		},
		{
			name:    "two objects on a line",
			in:      a1 + " " + o1 + "\n",
			wantErr: "line 1: more than one JSON value",
		},
		{
			name:    "misspelt expect",
			in:      `{"id":"A2","corpus":"c","kind":"docs","question":"q","expected":[{"path":"x.md","start_line":1,"end_line":2}]}`,
			wantErr: `line 1: json: unknown field "expected"`,
		},
		{
			name:    "wrong type",
			in:      `{"id":"A2","corpus":"c","kind":"docs","question":"q","expect":[{"path":"x.md","start_line":"1","end_line":2}]}`,
			wantErr: "line 1: json: cannot unmarshal string into Go struct field Expect.expect.start_line of type int",
		},
		{
			name:    "missing corpus",
			in:      a1 + "\n" + `{"id":"A2","kind":"docs","question":"q","expect":[]}`,
			wantErr: "line 2: id, corpus and question are required",
		},
		{
			name:    "missing id",
			in:      `{"corpus":"c","kind":"docs","question":"q"}`,
			wantErr: "line 1: id, corpus and question are required",
		},
		{
			name:    "repeated id",
			in:      a1 + "\n" + o1 + "\n\n" + a1 + "\n",
			wantErr: `line 4: id "A1" is already used on line 1`,
		},
		{
			name:    "expect without lines or method",
			in:      `{"id":"A2","corpus":"c","kind":"docs","question":"q","expect":[{"path":"x.md","start_line":1,"end_line":2},{"path":"y.md"}]}`,
			wantErr: "line 1: question A2: expect[1]: want a method or 1 <= start_line <= end_line, got lines 0-0",
		},
		{
			name:    "expect with lines reversed",
			in:      `{"id":"A2","corpus":"c","kind":"docs","question":"q","expect":[{"path":"x.md","start_line":9,"end_line":2}]}`,
			wantErr: "line 1: question A2: expect[0]: want a method or 1 <= start_line <= end_line, got lines 9-2",
		},
		{
			name:    "expect without path",
			in:      `{"id":"O2","corpus":"api","kind":"openapi","question":"q","expect":[{"method":"GET"}]}`,
			wantErr: "line 1: question O2: expect[0]: path is required",
		},
		{
			name:    "line too long",
			in:      a1 + "\n" + `{"id":"A2","question":"` + strings.Repeat("x", 5<<20) + `"}` + "\n",
			wantErr: "line 2: bufio.Scanner: token too long",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := eval.Load(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Load() = %d questions, want error %q", len(got), tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("Load() error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(): %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Load() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadPublicSet loads the public question set, which lives beside the
// repository, and checks the counts it is published with: 65 questions, per
// kind as in docs/evaluation.md's tables, 60 on alertmanager and 5 on the
// GitHub OpenAPI spec. It runs only when RAGBOT_EVAL_SET names the set's
// directory.
func TestLoadPublicSet(t *testing.T) {
	dir := os.Getenv("RAGBOT_EVAL_SET")
	if dir == "" {
		t.Skip("RAGBOT_EVAL_SET is not set: the public question set, outside the repository, is not checked")
	}
	path := filepath.Join(dir, "questions.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := eval.Load(f)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}

	kinds := map[string]int{}
	corpora := map[string]int{}
	expects := map[int]int{} // number of expected locations -> questions
	for _, q := range qs {
		kinds[q.Kind]++
		corpora[q.Corpus]++
		expects[len(q.Expect)]++
		for i, e := range q.Expect {
			if (q.Kind == "openapi") != (e.Method != "") {
				t.Errorf("%s (%s): expect[%d] = %+v: want a method exactly for openapi questions", q.ID, q.Kind, i, e)
			}
		}
	}
	if got, want := len(qs), 65; got != want {
		t.Errorf("%s: %d questions, want %d", path, got, want)
	}
	wantKinds := map[string]int{"identifier": 18, "semantic": 18, "config": 9, "path_or_error": 6, "docs": 9, "openapi": 5}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("%s: questions per kind (-want +got):\n%s", path, diff)
	}
	wantCorpora := map[string]int{"github.com/prometheus/alertmanager@v0.35.0": 60, "npm:@octokit/openapi@23.0.2": 5}
	if diff := cmp.Diff(wantCorpora, corpora); diff != "" {
		t.Errorf("%s: questions per corpus (-want +got):\n%s", path, diff)
	}
	for n := range expects {
		if n < 1 || n > 3 {
			t.Errorf("%s: %d questions with %d expected locations, want 1-3", path, expects[n], n)
		}
	}
}

// at returns 12 results, best first, with hit at the 1-based rank (0: none)
// and non-matching fillers elsewhere.
func at(rank int, hit eval.Result) []eval.Result {
	rs := make([]eval.Result, 12)
	for i := range rs {
		rs[i] = eval.Result{Path: "filler.go", StartLine: i + 1, EndLine: i + 1, Kind: "code"}
	}
	if rank > 0 {
		rs[rank-1] = hit
	}
	return rs
}

func TestScore(t *testing.T) {
	code := func(id, kind string) eval.Question {
		return eval.Question{ID: id, Corpus: "c", Kind: kind, Question: "q " + id,
			Expect: []eval.Expect{{Path: id + ".go", StartLine: 10, EndLine: 20}}}
	}
	hit := func(id string) eval.Result {
		return eval.Result{Path: id + ".go", StartLine: 18, EndLine: 40, Kind: "code"}
	}
	api := func(id, path string) eval.Question {
		return eval.Question{ID: id, Corpus: "api", Kind: "openapi", Question: "q " + id,
			Expect: []eval.Expect{{Method: "GET", Path: path}}}
	}
	apiHit := func(path string) eval.Result {
		return eval.Result{Path: "api.json", StartLine: 1, EndLine: 30, Symbol: "get " + path, Kind: "api"}
	}
	outs := []eval.Outcome{
		{Question: code("I1", "identifier"), Results: at(1, hit("I1"))},
		{Question: code("I2", "identifier"), Results: at(3, hit("I2"))},
		{Question: code("I3", "identifier"), Results: at(7, hit("I3"))},              // MRR 1/7, not recall@5
		{Question: code("S1", "semantic"), Results: at(12, hit("S1"))},               // past 10: counts for nothing
		{Question: code("S2", "semantic"), Results: at(0, hit("S2")), Refused: true}, // not found, and said so
		{Question: code("S3", "semantic"), Results: at(2, hit("S3"))},
		{Question: api("O1", "/a/{id}"), Results: at(1, apiHit("/a/{id}"))},
		{Question: api("O2", "/b/{id}"), Results: at(5, apiHit("/b/{id}"))},
		// Empty expect: unanswerable, left out of recall even though a result
		// would match nothing anyway; R1 got snippets, R2 "no coverage".
		{Question: eval.Question{ID: "R1", Corpus: "c", Kind: "semantic", Question: "bread?"}, Results: at(1, hit("R1"))},
		{Question: eval.Question{ID: "R2", Corpus: "c", Kind: "refusal", Question: "weather?", Expect: []eval.Expect{}}, Refused: true},
		// R3 got its closest matches labelled "not sure": not refused, not
		// answered outright either.
		{Question: eval.Question{ID: "R3", Corpus: "c", Kind: "refusal", Question: "rain?"}, Results: at(1, hit("R3")), NotSure: true},
		// The corpus is not configured: a miss even if results would match.
		{Question: code("N1", "docs"), Results: at(1, hit("N1")), NoCorpus: true},
	}
	got := eval.Score(outs)

	// 9 questions with expectations; ranks I1 1, I2 3, I3 7, S1 12, S2 0,
	// S3 2, O1 1, O2 5, N1 0.
	want := eval.Report{
		Metrics: eval.Metrics{
			Questions: 9,
			RecallAt1: 2.0 / 9, // I1, O1
			RecallAt5: 5.0 / 9, // I1, I2, S3, O1, O2
			// 1 + 1/3 + 1/7 + 1/2 + 1 + 1/5 = (420+70+30+105+42)/210 = 667/210
			MRRAt10: 667.0 / 210 / 9,
		},
		ByKind: map[string]eval.Metrics{
			// ranks 1, 3, 7: MRR (1 + 1/3 + 1/7)/3 = (21+7+3)/21/3 = 31/63
			"identifier": {Questions: 3, RecallAt1: 1.0 / 3, RecallAt5: 2.0 / 3, MRRAt10: 31.0 / 63},
			// ranks 12, 0, 2: MRR (0 + 0 + 1/2)/3 = 1/6
			"semantic": {Questions: 3, RecallAt1: 0, RecallAt5: 1.0 / 3, MRRAt10: 1.0 / 6},
			// ranks 1, 5: MRR (1 + 1/5)/2 = 3/5
			"openapi": {Questions: 2, RecallAt1: 1.0 / 2, RecallAt5: 1, MRRAt10: 3.0 / 5},
			// rank 0 (no corpus)
			"docs": {Questions: 1},
		},
		// The same ranks by corpus: the two openapi questions are corpus
		// "api" (as the openapi kind above); the other seven are corpus "c":
		// recall@1 1/7 (I1), recall@5 3/7 (I1, I2, S3), MRR (1 + 1/3 + 1/7 + 1/2) / 7.
		ByCorpus: map[string]eval.Metrics{
			"api": {Questions: 2, RecallAt1: 0.5, RecallAt5: 1, MRRAt10: 0.6},
			"c":   {Questions: 7, RecallAt1: 1.0 / 7, RecallAt5: 3.0 / 7, MRRAt10: (1 + 1.0/3 + 1.0/7 + 1.0/2) / 7},
		},
		Ranks:    map[string]int{"I1": 1, "I2": 3, "I3": 7, "S1": 12, "S2": 0, "S3": 2, "O1": 1, "O2": 5, "N1": 0},
		NoCorpus: []string{"N1"},
		// R2 of R1, R2, R3 refused; S2 of the 8 answerable with a corpus
		// refused; R1 answered outright, R3 "not sure".
		Unanswerable:     3,
		NoCoverageRate:   ptr(1.0 / 3),
		WrongRefusalRate: ptr(1.0 / 8),
		WrongAnswers:     []string{"R1", "R3"},
		WrongRefusals:    []string{"S2"},
		NotSure:          []string{"R3"},
		SureWrong:        []string{"R1"},
		TestsAskedNot:    8, // the answerable with a corpus; no result is a test file
	}
	type missRank struct {
		ID   string
		Rank int
	}
	var gotMisses []missRank
	for _, m := range got.Misses {
		gotMisses = append(gotMisses, missRank{m.ID, m.Rank})
	}
	wantMisses := []missRank{{"I3", 7}, {"N1", 0}, {"S1", 12}, {"S2", 0}} // sorted by id
	got.Misses = nil
	// Top5 has every question with expectations, however it ranked.
	if diff := cmp.Diff([]string{"filler.go:1-1", "filler.go:2-2", "I2.go:18-40", "filler.go:4-4", "filler.go:5-5"}, got.Top5["I2"]); diff != "" {
		t.Errorf("Score().Top5[I2] mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"get /b/{id}"}, got.Top5["O2"][4:]); diff != "" {
		t.Errorf("Score().Top5[O2][4:] mismatch (-want +got):\n%s", diff)
	}
	if len(got.Top5) != len(want.Ranks) {
		t.Errorf("Score().Top5 has %d questions, want %d", len(got.Top5), len(want.Ranks))
	}
	got.Top5 = nil
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Score() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantMisses, gotMisses); diff != "" {
		t.Errorf("Score() misses mismatch (-want +got):\n%s", diff)
	}
}

func ptr(f float64) *float64 { return &f }

func TestScoreMisses(t *testing.T) {
	outs := []eval.Outcome{
		{
			Question: eval.Question{ID: "B", Corpus: "c", Kind: "config", Question: "which flag?", Expect: []eval.Expect{
				{Path: "cmd/main.go", Symbol: "run", StartLine: 10, EndLine: 200},
				{Path: "docs/flags.md", StartLine: 3, EndLine: 9},
			}},
			Results: []eval.Result{
				{Path: "a.go", StartLine: 1, EndLine: 5, Kind: "code"},
				{Path: "b.md", StartLine: 2, EndLine: 8, Symbol: "Flags", Kind: "doc"},
				{Path: "c.go", StartLine: 3, EndLine: 4, Kind: "code"},
				{Path: "d.go", StartLine: 1, EndLine: 1, Kind: "code"},
				{Path: "e.go", StartLine: 1, EndLine: 1, Kind: "code"},
				{Path: "cmd/main.go", StartLine: 150, EndLine: 210, Kind: "code"},
			},
		},
		{
			Question: eval.Question{ID: "A", Corpus: "api", Kind: "openapi", Question: "list reviews?",
				Expect: []eval.Expect{{Method: "GET", Path: reviews}}},
			Results: []eval.Result{{Path: "api.json", StartLine: 7, EndLine: 40, Symbol: "POST " + reviews, Kind: "api"}},
		},
	}
	want := []eval.Miss{
		{ID: "A", Kind: "openapi", Question: "list reviews?", Rank: 0,
			Expected: []string{"GET " + reviews}, Got: []string{"POST " + reviews}},
		{ID: "B", Kind: "config", Question: "which flag?", Rank: 6,
			Expected: []string{"cmd/main.go:10-200", "docs/flags.md:3-9"},
			Got:      []string{"a.go:1-5", "b.md:2-8", "c.go:3-4", "d.go:1-1", "e.go:1-1"}},
	}
	if diff := cmp.Diff(want, eval.Score(outs).Misses); diff != "" {
		t.Errorf("Score().Misses mismatch (-want +got):\n%s", diff)
	}
}

func TestScoreEmpty(t *testing.T) {
	got := eval.Score(nil)
	want := eval.Report{ByKind: map[string]eval.Metrics{}, ByCorpus: map[string]eval.Metrics{}, Ranks: map[string]int{}, Top5: map[string][]string{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Score(nil) mismatch (-want +got):\n%s", diff)
	}
}

// TestScoreTestsAbove counts a question whose first 5 results put a test
// file above the first expected location, or hold one and miss, but not
// one that asks about tests.
func TestScoreTestsAbove(t *testing.T) {
	q := func(id, text string) eval.Question {
		return eval.Question{ID: id, Corpus: "c", Kind: "semantic", Question: text, Expect: []eval.Expect{{Path: "retry.go", StartLine: 10, EndLine: 20}}}
	}
	impl := eval.Result{Path: "retry.go", StartLine: 10, EndLine: 20}
	test := eval.Result{Path: "retry_test.go", StartLine: 1, EndLine: 9}
	other := eval.Result{Path: "other.go", StartLine: 1, EndLine: 9}
	outs := []eval.Outcome{
		{Question: q("above", "where is the retry delay computed"), Results: []eval.Result{test, impl}},
		{Question: q("below", "where is the retry delay computed"), Results: []eval.Result{impl, test}},
		{Question: q("missed", "where is the retry delay computed"), Results: []eval.Result{other, test}},
		{Question: q("asked", "where is the retry delay Tested"), Results: []eval.Result{test, impl}},
	}
	got := eval.Score(outs)
	if want := []string{"above", "missed"}; !slices.Equal(got.TestsAbove, want) || got.TestsAskedNot != 3 {
		t.Errorf("TestsAbove %v of %d, want %v of 3", got.TestsAbove, got.TestsAskedNot, want)
	}
}
