package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// flatChunkLimit is the chunk count past which a flat vector index is the
// slow part of a question: at 294,997 chunks on flat indexes a vector
// search's p95 was 2.2 s against 43 ms at 15,846 (docs/deploy.md,
// "Sizing"); Weaviate recommends flat for small collections only (Weaviate
// docs, "Vector index").
const flatChunkLimit = 100_000

// checkVectorIndex warns when the chunk collection's lexical vector has a
// flat index and holds more than limit chunks (flatChunkLimit, unless a
// test sets another), read from GET /v1/schema/{class} and a GraphQL
// Aggregate count.
func (d *Doctor) checkVectorIndex(ctx context.Context, class string, limit int) {
	var c struct {
		VectorConfig map[string]struct {
			VectorIndexType string `json:"vectorIndexType"`
		} `json:"vectorConfig"`
	}
	if _, err := d.getJSON(ctx, "/v1/schema/"+url.PathEscape(class), &c); err != nil {
		return // reported by checkShards
	}
	typ := c.VectorConfig[weaviate.VectorLexical].VectorIndexType
	if typ != "flat" {
		return
	}
	n, err := d.count(ctx, class)
	if err != nil || n <= limit {
		return
	}
	d.line(checkWarn, "vector index", fmt.Sprintf("collection %s holds %d chunks on flat vector indexes, which scan every vector at each question (slow past %d chunks)", class, n, limit),
		"set weaviate.vector_index: hnsw and re-create the collection with `ragbot index --recreate` (docs/deploy.md, Sizing)")
}

// count is the number of objects of class (GraphQL Aggregate meta count).
func (d *Doctor) count(ctx context.Context, class string) (int, error) {
	body, _ := json.Marshal(map[string]string{"query": "{Aggregate{" + class + "{meta{count}}}}"})
	var out struct {
		Data struct {
			Aggregate map[string][]struct {
				Meta struct {
					Count int `json:"count"`
				} `json:"meta"`
			} `json:"Aggregate"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := d.doJSON(ctx, http.MethodPost, "/v1/graphql", body, &out); err != nil {
		return 0, err
	}
	if len(out.Errors) > 0 {
		return 0, fmt.Errorf("count %s: %s", class, out.Errors[0].Message)
	}
	if len(out.Data.Aggregate[class]) == 0 {
		return 0, fmt.Errorf("count %s: no result", class)
	}
	return out.Data.Aggregate[class][0].Meta.Count, nil
}
