package weaviate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// State returns the stored state of source and branch; ok is false when the
// source was never indexed.
func (s *Store) State(ctx context.Context, source, branch string) (st retrieval.SourceState, ok bool, err error) {
	objs, err := s.client.Data().ObjectsGetter().WithClassName(s.state).WithID(retrieval.SourceState{Source: source, Branch: branch}.ID()).WithConsistencyLevel(s.cl).Do(ctx)
	if isNotFound(err) {
		return retrieval.SourceState{}, false, nil
	}
	if err != nil {
		return retrieval.SourceState{}, false, fmt.Errorf("weaviate: read state of %s@%s: %w", source, branch, describe(err))
	}
	if len(objs) == 0 {
		return retrieval.SourceState{}, false, nil
	}
	p, _ := objs[0].Properties.(map[string]any)
	str := func(k string) string { v, _ := p[k].(string); return v }
	num := func(k string) int { v, _ := p[k].(float64); return int(v) }
	t, _ := time.Parse(time.RFC3339Nano, str("indexed_at"))
	return retrieval.SourceState{
		Source: str("source"), Branch: str("branch"), CommitSHA: str("commit_sha"), Embedder: str("embedder"),
		Settings: str("settings"), IndexedAt: t, LastError: str("last_error"), Files: num("files"), Chunks: num("chunks"),
	}, true, nil
}

// States returns the stored states of every branch of sources, in one
// GraphQL request: what the answer guards read per question, where one
// State read per source made a question in many sources as many requests
// (docs/deploy.md, "Sizing"). A source never indexed has none.
func (s *Store) States(ctx context.Context, sources []string) ([]retrieval.SourceState, error) {
	if len(sources) == 0 {
		return nil, nil
	}
	type stateRow struct {
		Source    string `json:"source"`
		Branch    string `json:"branch"`
		CommitSHA string `json:"commit_sha"`
		Embedder  string `json:"embedder"`
		Settings  string `json:"settings"`
		IndexedAt string `json:"indexed_at"`
		LastError string `json:"last_error"`
		Files     int    `json:"files"`
		Chunks    int    `json:"chunks"`
	}
	var fields []graphql.Field
	for _, n := range []string{"source", "branch", "commit_sha", "embedder", "settings", "indexed_at", "last_error", "files", "chunks"} {
		fields = append(fields, graphql.Field{Name: n})
	}
	where := filters.Where().WithPath([]string{"source"}).WithOperator(filters.ContainsAny).WithValueText(sources...)
	resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.state).WithWhere(where).WithConsistencyLevel(s.gqlLevel()).
		WithLimit(maxFiltered).WithFields(fields...).Do(ctx))
	if err != nil {
		return nil, fmt.Errorf("weaviate: read states: %w", describe(err))
	}
	rows, err := decodeGet[stateRow](resp, s.state)
	if err != nil {
		return nil, err
	}
	out := make([]retrieval.SourceState, len(rows))
	for i, r := range rows {
		t, _ := time.Parse(time.RFC3339Nano, r.IndexedAt)
		out[i] = retrieval.SourceState{Source: r.Source, Branch: r.Branch, CommitSHA: r.CommitSHA, Embedder: r.Embedder,
			Settings: r.Settings, IndexedAt: t, LastError: r.LastError, Files: r.Files, Chunks: r.Chunks}
	}
	return out, nil
}

// PutState replaces the stored state of st.Source and st.Branch.
func (s *Store) PutState(ctx context.Context, st retrieval.SourceState) error {
	props := map[string]any{
		"source": st.Source, "branch": st.Branch, "commit_sha": st.CommitSHA, "embedder": st.Embedder,
		"settings": st.Settings, "last_error": st.LastError, "files": st.Files, "chunks": st.Chunks,
	}
	if !st.IndexedAt.IsZero() {
		props["indexed_at"] = st.IndexedAt.UTC().Format(time.RFC3339Nano)
	}
	if err := putObject(ctx, s.client, s.state, s.cl, st.ID(), props); err != nil {
		return fmt.Errorf("weaviate: write state of %s@%s: %w", st.Source, st.Branch, err)
	}
	return nil
}

// Stored is what the indexer needs to know about a chunk already stored.
type Stored struct {
	ID                 string
	Path               string
	ContentHash        string
	CommitSHA          string
	StartLine, EndLine int       // 1-based, inclusive
	Version            string    // spec or page version, "" for code
	Vector             []float32 // only filled by Vectors
	SearchText         string    // only filled by ListStoredPaths
	Pending            bool      // stored without its semantic vector (Upsert); filled by ListStored and ListStoredPaths
	Calls              []string  // retrieval.Chunk.Calls
	Types              string    // retrieval.Chunk.Types
}

// ListStored returns every stored chunk of source and branch, keyed by object
// id. It walks the whole collection with Weaviate's cursor API (`after`),
// 2,000 objects a page, because a cursor cannot be combined with a filter;
// the cost is linear in the collection size.
func (s *Store) ListStored(ctx context.Context, source, branch string) (map[string]Stored, error) {
	out := map[string]Stored{}
	fields := append([]graphql.Field{{Name: "source"}, {Name: "branch"}, {Name: pendingProperty}}, storedFields...)
	err := eachPage(ctx, s.client, s.chunk, fields, 2000, func(r row) string { return r.Additional.ID }, func(rows []row) error {
		for _, r := range rows {
			if r.Source == source && r.Branch == branch {
				out[r.Additional.ID] = r.stored()
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("weaviate: list chunks of %s: %w", source, err)
	}
	return out, nil
}

// Vectors returns the stored vectors of the given object ids (missing ids are
// absent from the map), 500 ids a request; with a semantic embedder each is
// lexical and semantic concatenated, as Upsert takes them (see joined).
func (s *Store) Vectors(ctx context.Context, ids []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ids))
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		where := filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).WithValueText(ids[start:end]...)
		resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.chunk).WithWhere(where).WithLimit(end - start).WithConsistencyLevel(s.gqlLevel()).
			WithFields(graphql.Field{Name: "_additional { id " + s.vectorFields() + " }"}).Do(ctx))
		if err != nil {
			return nil, fmt.Errorf("weaviate: read vectors: %w", describe(err))
		}
		rows, err := decodeGet[row](resp, s.chunk)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.Additional.ID] = s.joined(r.Additional.Vectors)
		}
	}
	return out, nil
}

// Count returns how many chunks the collection holds for source ("" for all).
func (s *Store) Count(ctx context.Context, source string) (int, error) {
	var where *filters.WhereBuilder
	if source != "" {
		where = filters.Where().WithPath([]string{"source"}).WithOperator(filters.Equal).WithValueText(source)
	}
	return countWhere(ctx, s.client, s.chunk, where)
}

// pendingWhere matches the chunks stored without their semantic vector.
func pendingWhere() *filters.WhereBuilder {
	return filters.Where().WithPath([]string{pendingProperty}).WithOperator(filters.Equal).WithValueBoolean(true)
}

// CountPending returns how many chunks are stored without their semantic
// vector (see Upsert); 0 without a semantic embedder.
func (s *Store) CountPending(ctx context.Context) (int, error) {
	if s.sem == "" {
		return 0, nil
	}
	return countWhere(ctx, s.client, s.chunk, pendingWhere())
}

// PendingCountTTL is how long Store.Health reuses its count of the chunks
// waiting for their semantic vector while some still wait. Weaviate v1.39's
// filtered Aggregate reads every object the filter matches even when only
// meta { count } is asked for (adapters/repos/db/aggregator/filtered.go:
// prepareResult scans the properties of all found IDs), so counting 266,000
// pending chunks costs about 0.7 s of a core and 1.5 GB of garbage
// (docs/deploy.md, "Sizing"); every health check (HealthTTL) instead asks
// whether any chunk is pending with a one-object Get, a few milliseconds,
// and a finished fill clears the warning at the next check.
const PendingCountTTL = time.Minute

// pendingCache is the last exact CountPending of healthPending.
type pendingCache struct {
	mu sync.Mutex
	n  int
	at time.Time
}

// healthPending is IndexHealth.Pending: 0 when no chunk waits for its
// semantic vector (one Get of limit 1), else the last CountPending if it
// is younger than PendingCountTTL, else a new one. Errors are Weaviate's.
func (s *Store) healthPending(ctx context.Context) (int, error) {
	if s.sem == "" {
		return 0, nil
	}
	some, err := s.any(ctx, pendingWhere())
	if err != nil {
		return 0, err
	}
	c := &s.pending
	c.mu.Lock()
	defer c.mu.Unlock()
	if !some {
		c.n = 0
		return 0, nil
	}
	if c.n > 0 && time.Since(c.at) < PendingCountTTL {
		return c.n, nil
	}
	n, err := s.CountPending(ctx)
	if err != nil {
		return 0, err
	}
	c.n, c.at = max(n, 1), time.Now()
	return c.n, nil
}

// HasChunks reports whether the collection holds any chunk of the sources
// ids: one Get of limit 1, where counting them (Count) would make Weaviate
// read every one (see PendingCountTTL). Errors are Weaviate's.
func (s *Store) HasChunks(ctx context.Context, ids []string) (bool, error) {
	if len(ids) == 0 {
		return false, nil
	}
	where := filters.Where().WithPath([]string{"source"}).WithOperator(filters.ContainsAny).WithValueText(ids...)
	return s.any(ctx, where)
}

// any reports whether a chunk matches where: one Get of limit 1.
func (s *Store) any(ctx context.Context, where *filters.WhereBuilder) (bool, error) {
	resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.chunk).WithWhere(where).WithLimit(1).
		WithFields(graphql.Field{Name: "_additional { id }"}).Do(ctx))
	if err != nil {
		return false, fmt.Errorf("weaviate: look for chunks: %w", describe(err))
	}
	rows, err := decodeGet[struct{}](resp, s.chunk)
	return len(rows) > 0, err
}
