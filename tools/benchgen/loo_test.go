package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/eval"
)

// TestLoo builds three repositories' questions and evidence by hand: in
// each, 4 answerable questions whose top hit has similarity and term
// coverage 0.5 (a wanted chunk first), and 4 unanswerable ones at
// similarity 0.3 and coverage 0.3, except in c, where their coverage is
// 0.6. The configured band (0.20, 0.20) answers all 24. Chosen on a and b
// (c held out), the band keeps the 8 right answers and refuses a's and b's
// unanswerable ones with the lowest point of the sweep: similarity at the
// floor 0.10 and coverage 0.31, which answers c's 4. With c among the
// training repositories, coverage alone cannot exclude c's; similarity
// 0.31 excludes all. So leave-one-repository-out answers 12 rightly and 4
// unanswerable ones (c's); chosen on all, none.
func TestLoo(t *testing.T) {
	dir := t.TempDir()
	out := eval.Output{Report: eval.Report{Ranks: map[string]int{}}, Calibration: &eval.Calibration{
		Configured: eval.Rates{MinSimilarity: 0.2, MinTermCoverage: 0.2, FloorSimilarity: 0.1, FloorTermCoverage: 0.05, MaxAbsentShare: 0.9},
		Evidence:   map[string]retrieval.Evidence{}}}
	var repos []Repo
	for _, name := range []string{"a", "b", "c"} {
		r := Repo{Name: name, Group: "go", Registry: "gomod", Package: "example.com/" + name, Version: "v1.0.0"}
		if name == "c" {
			r.Group = "python"
		}
		repos = append(repos, r)
		var lines []string
		for i := 1; i <= 8; i++ {
			id := fmt.Sprintf("%s-P%02d", name, i)
			ev := retrieval.Evidence{Similarity: 0.5, TermCoverage: 0.5}
			expect := `[{"path":"x.go","start_line":1,"end_line":2}]`
			if i > 4 {
				id = fmt.Sprintf("%s-A%02d", name, i)
				ev = retrieval.Evidence{Similarity: 0.3, TermCoverage: 0.3}
				if name == "c" {
					ev.TermCoverage = 0.6
				}
				expect = `[]`
			} else {
				out.Ranks[id] = 1
			}
			out.Calibration.Evidence[id] = ev
			lines = append(lines, fmt.Sprintf(`{"id":%q,"corpus":%q,"kind":"k","question":"q?","expect":%s}`, id, r.Source(), expect))
		}
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "questions.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "eval.json")
	if err := os.WriteFile(report, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := loo(&b, inputs{dir: dir, repos: repos}, report); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"chosen on all 3 repositories, band 0.31, 0.05 / 0.10, 0.05, 0.90,",
		"| configured | 12 | 12 | 0 | 0 | 0 | 12 | 12 | 0 |",
		"| band chosen on all (in-sample) | 12 | 12 | 0 | 0 | 0 | 12 | 0 | 0 |",
		"| band, leave-one-repository-out | 12 | 12 | 0 | 0 | 0 | 12 | 4 | 0 | 0.333 | 0.000 | 0.000 | 0.000 |",
		"| python | band, leave-one-group-out | 4 | 4 | 0 | 0 | 0 | 4 | 4 | 0 |",
		"| c | python | 0.10, 0.31 / 0.10, 0.05, 0.90 | 4 | 4 | 0 | 0 | 0 | 4 | 4 | 0 |",
		"| a | go | 0.31, 0.05 / 0.10, 0.05, 0.90 | 4 | 4 | 0 | 0 | 0 | 4 | 0 | 0 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
