package weaviate

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// maxFiltered is the most objects one filtered Get may return: Weaviate's
// QUERY_MAXIMUM_RESULTS default (Weaviate docs, 'Environment variables'). A group of values whose
// result reaches it is split in two and asked again.
const maxFiltered = 10000

// ListStoredPaths returns the stored chunks of source and branch whose path is
// one of paths, keyed by object id, with their search text and whether their
// semantic vector is pending: what an index run needs about the files of
// one batch (the search text to take their terms out of the source's
// vocabulary), without walking the whole collection as ListStored does.
// Paths are asked 100 at a time.
func (s *Store) ListStoredPaths(ctx context.Context, source, branch string, paths []string) (map[string]Stored, error) {
	out := map[string]Stored{}
	fields := append(slices.Clip(storedFields), graphql.Field{Name: "search_text"}, graphql.Field{Name: pendingProperty})
	for start := 0; start < len(paths); start += 100 {
		group := paths[start:min(start+100, len(paths))]
		rows, err := s.filtered(ctx, group, fields, func(vals []string) *filters.WhereBuilder {
			return filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
				filters.Where().WithPath([]string{"source"}).WithOperator(filters.Equal).WithValueText(source),
				filters.Where().WithPath([]string{"branch"}).WithOperator(filters.Equal).WithValueText(branch),
				filters.Where().WithPath([]string{"path"}).WithOperator(filters.ContainsAny).WithValueText(vals...),
			})
		})
		if err != nil {
			return nil, fmt.Errorf("weaviate: list chunks of %s@%s by path: %w", source, branch, err)
		}
		for _, r := range rows {
			out[r.Additional.ID] = r.stored()
		}
	}
	return out, nil
}

// StoredVector is a stored chunk whose vector may be reused: the embedded
// text of a chunk is made of Symbol, Path, Signature and Content, so a chunk
// with the same four (ContentHash standing for Content) has the same vector
// whatever its id, branch or commit.
type StoredVector struct {
	ID, Path, Symbol, Signature, ContentHash string
	Vector                                   []float32
}

// VectorsByHash returns the stored chunks of source, on any branch, whose
// content_hash is one of hashes, with their vectors (as Vectors returns
// them). Hashes are asked 200 at
// a time; a hash shared by many chunks (the same file on several branches)
// is returned once per chunk.
func (s *Store) VectorsByHash(ctx context.Context, source string, hashes []string) ([]StoredVector, error) {
	var out []StoredVector
	fields := []graphql.Field{{Name: "path"}, {Name: "symbol"}, {Name: "signature"}, {Name: "content_hash"}, {Name: "_additional { id " + s.vectorFields() + " }"}}
	for start := 0; start < len(hashes); start += 200 {
		group := hashes[start:min(start+200, len(hashes))]
		rows, err := s.filtered(ctx, group, fields, func(vals []string) *filters.WhereBuilder {
			return filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
				filters.Where().WithPath([]string{"source"}).WithOperator(filters.Equal).WithValueText(source),
				filters.Where().WithPath([]string{"content_hash"}).WithOperator(filters.ContainsAny).WithValueText(vals...),
			})
		})
		if err != nil {
			return nil, fmt.Errorf("weaviate: read vectors of %s by content hash: %w", source, err)
		}
		for _, r := range rows {
			out = append(out, StoredVector{ID: r.Additional.ID, Path: r.Path, Symbol: r.Symbol, Signature: r.Signature,
				ContentHash: r.ContentHash, Vector: s.joined(r.Additional.Vectors)})
		}
	}
	return out, nil
}

// filtered runs a Get with the filter that where builds from vals, asking
// for at most maxFiltered objects; when that many come back it splits vals
// in two and asks for each half, so that no object is silently left out.
func (s *Store) filtered(ctx context.Context, vals []string, fields []graphql.Field,
	where func([]string) *filters.WhereBuilder) ([]row, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.chunk).WithWhere(where(vals)).WithConsistencyLevel(s.gqlLevel()).
		WithLimit(maxFiltered).WithFields(fields...).Do(ctx))
	if err != nil {
		return nil, describe(err)
	}
	rows, err := decodeGet[row](resp, s.chunk)
	if err != nil {
		return nil, err
	}
	if len(rows) < maxFiltered {
		return rows, nil
	}
	if len(vals) == 1 {
		return nil, fmt.Errorf("%d or more chunks match %q; raise QUERY_MAXIMUM_RESULTS", maxFiltered, vals[0])
	}
	half := len(vals) / 2
	a, err := s.filtered(ctx, vals[:half], fields, where)
	if err != nil {
		return nil, err
	}
	b, err := s.filtered(ctx, vals[half:], fields, where)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// DeleteBranch deletes every chunk of source's branch (deleteAll: repeated
// past the server's per-request limit), the branch's SourceState and its
// vocabulary. It
// returns how many chunks it deleted. The other branches are untouched.
func (s *Store) DeleteBranch(ctx context.Context, source, branch string) (int, error) {
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		filters.Where().WithPath([]string{"source"}).WithOperator(filters.Equal).WithValueText(source),
		filters.Where().WithPath([]string{"branch"}).WithOperator(filters.Equal).WithValueText(branch),
	})
	total, err := deleteAll(ctx, s.client, s.chunk, s.cl, where)
	if err != nil {
		return total, fmt.Errorf("weaviate: delete chunks of %s@%s: %w", source, branch, err)
	}
	id := retrieval.SourceState{Source: source, Branch: branch}.ID()
	err = s.client.Data().Deleter().WithClassName(s.state).WithID(id).WithConsistencyLevel(s.cl).Do(ctx)
	if err != nil && !isNotFound(err) {
		return total, fmt.Errorf("weaviate: delete state of %s@%s: %w", source, branch, describe(err))
	}
	return total, s.DeleteVocabulary(ctx, source, branch)
}

// StateBranches returns the branches of source that have a SourceState:
// those indexed at least once and not deleted since. A source has few
// branches; at most maxFiltered are returned.
func (s *Store) StateBranches(ctx context.Context, source string) ([]string, error) {
	where := filters.Where().WithPath([]string{"source"}).WithOperator(filters.Equal).WithValueText(source)
	resp, err := gqlResult(s.client.GraphQL().Get().WithClassName(s.state).WithWhere(where).WithConsistencyLevel(s.gqlLevel()).
		WithLimit(maxFiltered).WithFields(graphql.Field{Name: "branch"}).Do(ctx))
	if err != nil {
		return nil, fmt.Errorf("weaviate: list branches of %s: %w", source, describe(err))
	}
	rows, err := decodeGet[row](resp, s.state)
	if err != nil {
		return nil, fmt.Errorf("weaviate: list branches of %s: %w", source, err)
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.Branch)
	}
	sort.Strings(out)
	return out, nil
}

// storedFields are the properties a Stored is read from.
var storedFields = []graphql.Field{{Name: "path"}, {Name: "content_hash"}, {Name: "commit_sha"},
	{Name: "start_line"}, {Name: "end_line"}, {Name: "version"}, {Name: "calls"}, {Name: "types"}, {Name: "_additional { id }"}}

// stored is the Stored of a row read with storedFields.
func (r row) stored() Stored {
	return Stored{ID: r.Additional.ID, Path: r.Path, ContentHash: r.ContentHash, CommitSHA: r.CommitSHA,
		StartLine: r.StartLine, EndLine: r.EndLine, Version: r.Version, SearchText: r.SearchText, Pending: r.Pending,
		Calls: r.Calls, Types: r.Types}
}

// StoredPaths returns the distinct paths of the stored chunks of source and
// branch, with the number of chunks of each: what a full index run compares
// with the files it chunked, to delete those gone. It walks the collection
// with the cursor API (`after`, which takes no filter: Weaviate docs, 'Read
// all objects'), 2,000 objects a page, reading three short properties of
// each; it holds one page and the paths, never the chunks.
func (s *Store) StoredPaths(ctx context.Context, source, branch string) (map[string]int, error) {
	out := map[string]int{}
	fields := []graphql.Field{{Name: "source"}, {Name: "branch"}, {Name: "path"}, {Name: "_additional { id }"}}
	err := eachPage(ctx, s.client, s.chunk, fields, 2000, func(r row) string { return r.Additional.ID }, func(rows []row) error {
		for _, r := range rows {
			if r.Source == source && r.Branch == branch {
				out[r.Path]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("weaviate: list paths of %s@%s: %w", source, branch, err)
	}
	return out, nil
}
