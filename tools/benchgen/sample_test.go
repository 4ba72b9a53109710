package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval/eval"
)

func TestSample(t *testing.T) {
	var cs []candidate
	for f := 0; f < 3; f++ {
		for l := 0; l < 10; l++ {
			file := fmt.Sprintf("f%d.go", f)
			cs = append(cs, candidate{key: fmt.Sprintf("%s:%06d", file, l), file: file})
		}
	}
	got := sample("seed", cs, 5)
	if len(got) != 5 {
		t.Fatalf("sampled %d, want 5", len(got))
	}
	perFile := map[string]int{}
	for i, c := range got {
		perFile[c.file]++
		if i > 0 && got[i-1].key >= c.key {
			t.Errorf("not in location order: %s before %s", got[i-1].key, c.key)
		}
	}
	for f, n := range perFile {
		if n > 2 {
			t.Errorf("%d from %s in the first round, want at most 2", n, f)
		}
	}
	reversed := append([]candidate(nil), cs...)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	if diff := cmp.Diff(keys(got), keys(sample("seed", reversed, 5))); diff != "" {
		t.Errorf("the sample depends on the input order (-first +second):\n%s", diff)
	}
	if cmp.Equal(keys(got), keys(sample("other seed", cs, 5))) {
		t.Error("two seeds pick the same sample")
	}
	if n := len(sample("seed", cs, 100)); n != len(cs) {
		t.Errorf("sampling more than there are gives %d, want all %d", n, len(cs))
	}
}

func keys(cs []candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.key)
	}
	return out
}

// TestCommittedSets checks the committed question files without the
// corpora: each loads as `ragbot eval` loads it, names its repository's
// source as corpus, numbers its ids by repository and kind, has only the
// generated kinds, and carries every near miss of near-miss.tsv.
func TestCommittedSets(t *testing.T) {
	in, err := readInputs("../../testdata/eval/generated")
	if err != nil {
		t.Fatal(err)
	}
	if len(in.names) < 200 {
		t.Errorf("absent-names.txt has %d names, want at least 200", len(in.names))
	}
	letters := map[string]string{"paraphrase": "P", "openapi": "O", "docs": "D", "absent": "A", "near_miss": "N"}
	for _, r := range in.repos {
		f, err := os.Open(filepath.Join(in.dir, r.Name, "questions.jsonl"))
		if err != nil {
			t.Error(err)
			continue
		}
		qs, err := eval.Load(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		var nearMiss []string
		for _, q := range qs {
			letter, ok := letters[q.Kind]
			switch {
			case !ok:
				t.Errorf("%s: kind %q", q.ID, q.Kind)
			case q.Corpus != r.Source():
				t.Errorf("%s: corpus %q, want %q", q.ID, q.Corpus, r.Source())
			case !strings.HasPrefix(q.ID, r.Name+"-"+letter):
				t.Errorf("%s: id does not start with %s-%s", q.ID, r.Name, letter)
			case (len(q.Expect) == 0) != (q.Kind == "absent" || q.Kind == "near_miss"):
				t.Errorf("%s: %d expected locations for kind %s", q.ID, len(q.Expect), q.Kind)
			}
			if q.Kind == "near_miss" {
				nearMiss = append(nearMiss, q.Question)
			}
		}
		if diff := cmp.Diff(in.nearMiss[r.Name], nearMiss); diff != "" {
			t.Errorf("%s: near misses (-near-miss.tsv +questions.jsonl):\n%s", r.Name, diff)
		}
	}
}
