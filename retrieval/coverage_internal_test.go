package retrieval

import (
	"slices"
	"testing"
)

func TestInflections(t *testing.T) {
	tests := []struct {
		term      string
		want      []string // must be among the forms
		wantFirst string
	}{
		{"retries", []string{"retry", "retried", "retrying", "retries"}, "retries"},
		{"sharded", []string{"shard", "shards", "sharding"}, "sharded"},
		{"decided", []string{"decide", "decides", "deciding"}, "decided"},
		{"snooze", []string{"snoozes", "snoozed", "snoozing"}, "snooze"},
		{"503", []string{"503"}, "503"},
	}
	for _, tt := range tests {
		got := inflections(tt.term)
		if got[0] != tt.wantFirst {
			t.Errorf("inflections(%q)[0] = %q, want the term itself", tt.term, got[0])
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("inflections(%q) = %v, lacks %q", tt.term, got, w)
			}
		}
	}
	// Short stems are not cut: "is" from "iss", "us" from "used".
	if got := inflections("bus"); slices.Contains(got, "bu") {
		t.Errorf("inflections(bus) = %v, cut to a 2-letter stem", got)
	}
}

func TestTermWeightsCoverage(t *testing.T) {
	// "retry" in 40 of 100 chunks, "snooze" in 1: a chunk with the rare term
	// covers more than one with the common term, and all terms cover all.
	w := termWeights{forms: [][]string{inflections("retry"), inflections("snooze")}}
	for _, df := range []float64{40, 1} {
		idf := bm25IDF(100, df)
		w.idf = append(w.idf, idf)
		w.sum += idf
	}
	common := w.coverage(chunkTerms(Chunk{Content: "func retrying() {}"}))
	rare := w.coverage(chunkTerms(Chunk{Content: "// snoozed alerts wake up later"}))
	both := w.coverage(chunkTerms(Chunk{Symbol: "Snooze.Retry", Content: "x"}))
	if !(rare > 0.5 && common < 0.5 && common > 0) {
		t.Errorf("coverage: rare term %.3f, common term %.3f; want rare > 0.5 > common > 0", rare, common)
	}
	if both < 0.999 || both > 1.001 {
		t.Errorf("coverage with every term = %.3f, want 1", both)
	}
	if got := (termWeights{}).coverage(chunkTerms(Chunk{Content: "x"})); got != 0 {
		t.Errorf("coverage with no terms = %v, want 0", got)
	}
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"notify/util.go":                      false,
		"notify/util_test.go":                 true,
		"bot/slack/slackfake/payloads.go":     true,
		"bot/teams/teamsfake/teamsfake.go":    true,
		"retrieval/weaviatetest/weaviate.go":  true,
		"net/http/httptest/server.go":         true,
		"internal/fakes/client.go":            true,
		"api/stub_server.py":                  true,
		"src/__mocks__/db.ts":                 true,
		"docs/latest/index.go":                false,
		"docs/contest/rules.md":               false,
		"cli/test/acceptance.go":              true,
		"ui/app/src/Views/Status/Parsing.elm": false,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}
