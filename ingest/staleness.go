package ingest

import (
	"context"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// StaleWarning returns the warning shown with a snippet of a source that
// re-syncs every ttl (a Confluence space), or "" when the source synced
// successfully within ttl of now. st is the source's SourceState and ok
// whether there is one; st.IndexedAt is the end of the last successful run
// (a failed run leaves it alone and only sets LastError). A ttl of 0 or less
// means the source never goes stale.
//
// Example: "may be outdated, last indexed 26 hours ago (the last sync failed)".
func StaleWarning(st retrieval.SourceState, ok bool, ttl time.Duration, now time.Time) string {
	if ttl <= 0 {
		return ""
	}
	if !ok || st.IndexedAt.IsZero() {
		return "may be outdated, never synced successfully"
	}
	age := now.Sub(st.IndexedAt)
	if age <= ttl {
		return ""
	}
	msg := "may be outdated, last indexed " + retrieval.Ago(age)
	if st.LastError != "" {
		msg += " (the last sync failed)"
	}
	return msg
}

// StateReader reads SourceStates; *weaviate.Store implements it.
type StateReader interface {
	State(ctx context.Context, source, branch string) (retrieval.SourceState, bool, error)
}

// markStale sets Snippet.Stale on every doc snippet of ans whose source has
// a TTL in ttls (source id -> TTL) and has not synced successfully within
// it, reading each source's state once. Snippets of sources without a TTL
// are left alone. A state that cannot be read is an error and leaves the
// remaining snippets unmarked.
func markStale(ctx context.Context, states StateReader, ans *retrieval.Answer, ttls map[string]time.Duration, now time.Time) error {
	warn := map[string]string{}
	for i := range ans.Snippets {
		s := &ans.Snippets[i]
		ttl, has := ttls[s.Source]
		if s.Kind != retrieval.KindDoc || !has {
			continue
		}
		w, done := warn[s.Source]
		if !done {
			st, ok, err := states.State(ctx, s.Source, "")
			if err != nil {
				return err
			}
			w = StaleWarning(st, ok, ttl, now)
			warn[s.Source] = w
		}
		if w != "" {
			s.Stale = w
		}
	}
	return nil
}
