package weaviate

import (
	"context"
	"fmt"
	"strings"

	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// A ChunkRef names one stored chunk: what `ragbot forget` selects on and
// reports. Every branch has its own object of a chunk (the object id is
// made from source, branch, path, symbol and ordinal; docs/architecture.md,
// "Chunk ids"), so no object is shared between branches.
type ChunkRef struct {
	ID     string // Weaviate object id
	Source string // "repo:payments"
	Branch string // "" for sources without branches
	Path   string // the file or page path
	URL    string // the chunk's link, "" when it has none (a Confluence page's URL holds the page id)
}

// refPage is how many objects one cursor request of ChunkRefs reads.
const refPage = 2000

// ChunkRefs returns the stored chunks that keep accepts, in cursor order. It
// walks the whole collection with Weaviate's cursor API (`after`, refPage
// objects a request), reading only ids, sources, branches, paths and
// links: a cursor cannot be combined with a filter, and a path glob cannot
// be one, so the cost is linear in the collection. Errors: a request
// failing, GraphQL errors inside an HTTP 200.
func (s *Store) ChunkRefs(ctx context.Context, keep func(ChunkRef) bool) ([]ChunkRef, error) {
	fields := []graphql.Field{{Name: "source"}, {Name: "branch"}, {Name: "path"}, {Name: "url"}, {Name: "_additional { id }"}}
	var out []ChunkRef
	err := eachPage(ctx, s.client, s.chunk, fields, refPage, func(r row) string { return r.Additional.ID }, func(rows []row) error {
		for _, r := range rows {
			ref := ChunkRef{ID: r.Additional.ID, Source: r.Source, Branch: r.Branch, Path: r.Path, URL: r.URL}
			if keep(ref) {
				out = append(out, ref)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("weaviate: list chunks of %s: %w", s.chunk, err)
	}
	return out, nil
}

// deleteIDGroup is how many object ids one batch delete names: well under
// the 10,000 objects a batch delete may match (QUERY_MAXIMUM_RESULTS'
// default; Weaviate docs, 'Delete objects', "Delete multiple objects").
const deleteIDGroup = 1000

// DeleteChunks deletes the chunks with these object ids, deleteIDGroup ids
// a batch delete, and returns how many Weaviate deleted (ids already gone
// count 0, so a repeated call deletes nothing and does not fail). Errors:
// a request failing, or objects reported failed inside an HTTP 200.
func (s *Store) DeleteChunks(ctx context.Context, ids []string) (int, error) {
	return deleteIDs(ctx, s.client, s.chunk, s.cl, ids)
}

// deleteIDs batch-deletes the objects of class with these ids,
// deleteIDGroup ids a deleteAll, and returns how many were deleted.
func deleteIDs(ctx context.Context, client *weaviate.Client, class, level string, ids []string) (int, error) {
	total := 0
	for start := 0; start < len(ids); start += deleteIDGroup {
		where := filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsAny).
			WithValueText(ids[start:min(start+deleteIDGroup, len(ids))]...)
		n, err := deleteAll(ctx, client, class, level, where)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// ForgetSource deletes every chunk of the source id ("repo:payments") on
// every branch, and every SourceState and vocabulary of it, and returns how many chunks
// it deleted (0 for a source with none: forgetting twice is not an error).
func (s *Store) ForgetSource(ctx context.Context, source string) (int, error) {
	where := filters.Where().WithPath([]string{"source"}).WithOperator(filters.Equal).WithValueText(source)
	n, err := deleteAll(ctx, s.client, s.chunk, s.cl, where)
	if err != nil {
		return n, fmt.Errorf("weaviate: delete chunks of %s: %w", source, err)
	}
	if _, err := deleteAll(ctx, s.client, s.state, s.cl, where); err != nil {
		return n, fmt.Errorf("weaviate: delete states of %s: %w", source, err)
	}
	if err := s.deleteVocabularies(ctx, where); err != nil {
		return n, fmt.Errorf("weaviate: delete vocabularies of %s: %w", source, err)
	}
	return n, nil
}

// deleteAll batch-deletes the objects of class that where matches and
// returns how many were deleted. One batch delete removes at most the
// server's limit (QUERY_MAXIMUM_RESULTS, 10,000 by default; Weaviate docs,
// 'Delete objects', "Delete multiple objects"), which it reports in the
// reply's `limit`, so the delete is repeated while a round matched that
// many. Weaviate answers HTTP 200 even when objects failed: a reply with
// `failed` > 0 is an error naming the failed objects' messages.
func deleteAll(ctx context.Context, client *weaviate.Client, class, level string, where *filters.WhereBuilder) (int, error) {
	total := 0
	for {
		resp, err := client.Batch().ObjectsBatchDeleter().WithClassName(class).WithWhere(where).
			WithOutput("minimal").WithConsistencyLevel(level).Do(ctx)
		if err != nil {
			return total, fmt.Errorf("weaviate batch delete in %s: %w", class, describe(err))
		}
		r := resp.Results
		if r == nil {
			return total, nil
		}
		total += int(r.Successful)
		if r.Failed > 0 {
			var msgs []string
			for _, o := range r.Objects {
				if o.Errors == nil {
					continue
				}
				for _, e := range o.Errors.Error {
					msgs = append(msgs, fmt.Sprintf("%s: %s", o.ID, e.Message))
				}
			}
			return total, fmt.Errorf("weaviate batch delete in %s: %d of %d matched objects failed: %s",
				class, r.Failed, r.Matches, strings.Join(msgs, "; "))
		}
		if r.Matches == 0 || r.Successful == 0 || (r.Limit > 0 && r.Matches < r.Limit) {
			return total, nil
		}
	}
}

// SourceCounts returns how many chunks each source id holds, from one
// Aggregate grouped by source, with the sources that only have a
// SourceState left (another Aggregate, over the state collection) at 0: the
// sources an index run compares with the configured ones.
func (s *Store) SourceCounts(ctx context.Context) (map[string]int, error) {
	out, err := groupCounts(ctx, s.client, s.chunk, "source")
	if err != nil {
		return nil, err
	}
	states, err := groupCounts(ctx, s.client, s.state, "source")
	if err != nil {
		return nil, err
	}
	for src := range states {
		if _, ok := out[src]; !ok {
			out[src] = 0
		}
	}
	return out, nil
}

// groupCounts counts the objects of class by the value of prop, with one
// Aggregate grouped by it (Weaviate docs, 'Aggregate data', "groupBy").
func groupCounts(ctx context.Context, client *weaviate.Client, class, prop string) (map[string]int, error) {
	resp, err := gqlResult(client.GraphQL().Aggregate().WithClassName(class).WithGroupBy(prop).WithLimit(maxFiltered).
		WithFields(graphql.Field{Name: "groupedBy { value }"}, graphql.Field{Name: "meta { count }"}).Do(ctx))
	if err != nil {
		return nil, fmt.Errorf("weaviate: count %s by %s: %w", class, prop, describe(err))
	}
	out := map[string]int{}
	agg, _ := resp.Data["Aggregate"].(map[string]any)
	groups, _ := agg[class].([]any)
	for _, g := range groups {
		m, _ := g.(map[string]any)
		by, _ := m["groupedBy"].(map[string]any)
		meta, _ := m["meta"].(map[string]any)
		v, _ := by["value"].(string)
		n, _ := meta["count"].(float64)
		out[v] += int(n)
	}
	return out, nil
}
