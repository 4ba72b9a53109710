package ingest_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
)

func TestStaleWarning(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	ttl := 24 * time.Hour
	tests := []struct {
		name string
		st   retrieval.SourceState
		ok   bool
		ttl  time.Duration
		want string
	}{
		{"synced within the TTL", retrieval.SourceState{IndexedAt: now.Add(-23 * time.Hour)}, true, ttl, ""},
		{"exactly at the TTL", retrieval.SourceState{IndexedAt: now.Add(-24 * time.Hour)}, true, ttl, ""},
		{"past the TTL", retrieval.SourceState{IndexedAt: now.Add(-26 * time.Hour)}, true, ttl, "may be outdated, last indexed 26 hours ago"},
		{"past a 7d TTL", retrieval.SourceState{IndexedAt: now.Add(-9 * 24 * time.Hour)}, true, 7 * 24 * time.Hour, "may be outdated, last indexed 9 days ago"},
		{"last sync failed", retrieval.SourceState{IndexedAt: now.Add(-30 * time.Hour), LastError: "confluence: ... status 503"}, true, ttl,
			"may be outdated, last indexed 30 hours ago (the last sync failed)"},
		{"failed but still within the TTL", retrieval.SourceState{IndexedAt: now.Add(-time.Hour), LastError: "x"}, true, ttl, ""},
		{"never synced", retrieval.SourceState{LastError: "401"}, true, ttl, "may be outdated, never synced successfully"},
		{"no state", retrieval.SourceState{}, false, ttl, "may be outdated, never synced successfully"},
		{"no TTL", retrieval.SourceState{}, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ingest.StaleWarning(tt.st, tt.ok, tt.ttl, now); got != tt.want {
				t.Errorf("StaleWarning = %q, want %q", got, tt.want)
			}
		})
	}
}

// states is a StateReader over a map, counting reads.
type states struct {
	m     map[string]retrieval.SourceState
	reads int
}

func (s *states) State(_ context.Context, source, _ string) (retrieval.SourceState, bool, error) {
	s.reads++
	st, ok := s.m[source]
	return st, ok, nil
}

func TestStaleDocsGuard(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	st := &states{m: map[string]retrieval.SourceState{
		"confluence:ops":  {IndexedAt: now.Add(-50 * time.Hour)},
		"confluence:spec": {IndexedAt: now.Add(-50 * time.Hour)},
	}}
	snip := func(source, kind string) retrieval.Snippet {
		return retrieval.Snippet{Citation: retrieval.Citation{Source: source}, Kind: kind}
	}
	ans := retrieval.Answer{Snippets: []retrieval.Snippet{
		snip("confluence:ops", retrieval.KindDoc), snip("repo:payments", retrieval.KindCode),
		snip("confluence:ops", retrieval.KindDoc), snip("confluence:spec", retrieval.KindDoc),
	}}
	ttls := map[string]time.Duration{"confluence:ops": 24 * time.Hour, "confluence:spec": 7 * 24 * time.Hour}
	if err := (ingest.StaleDocs{States: st, TTLs: ttls, Now: func() time.Time { return now }}).Guard(context.Background(), retrieval.Request{}, &ans); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ans.Snippets {
		got = append(got, s.Stale)
	}
	want := []string{"may be outdated, last indexed 2 days ago", "", "may be outdated, last indexed 2 days ago", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stale (-want +got):\n%s", diff)
	}
	if st.reads != 2 {
		t.Errorf("%d state reads, want one per source (2)", st.reads)
	}
}
