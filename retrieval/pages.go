package retrieval

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// A PageChunk is a stored chunk as a page-versioned source (Confluence, HTML
// exports) sees it: which page it belongs to and at which page version it was
// written. A page whose chunks all carry the listed version is up to date.
type PageChunk struct {
	ID          string // Weaviate object id (Chunk.ID)
	Path        string // the page path (Chunk.Path)
	Version     string // the page version the chunk was written at (Chunk.Version)
	ContentHash string // hex sha256 of the content, to reuse vectors of unchanged sections
}

// pageChunkPage is how many objects one cursor request reads.
const pageChunkPage = 2000

// ListPageChunks returns every stored chunk of source with its page path and
// version. Like ListStored it walks the whole collection with Weaviate's
// cursor API (`after`, pageChunkPage objects a request), because a cursor
// cannot be combined with a filter: the cost is linear in the collection, not
// in the source.
func (s *Store) ListPageChunks(ctx context.Context, source string) ([]PageChunk, error) {
	fields := []graphql.Field{{Name: "source"}, {Name: "path"}, {Name: "version"}, {Name: "content_hash"}, {Name: "_additional { id }"}}
	var out []PageChunk
	after := ""
	for {
		get := s.client.GraphQL().Get().WithClassName(s.chunk).WithFields(fields...).WithLimit(pageChunkPage)
		if after != "" {
			get = get.WithAfter(after)
		}
		resp, err := get.Do(ctx)
		if err == nil {
			err = gqlErrors(resp)
		}
		if err != nil {
			return nil, fmt.Errorf("weaviate: list page chunks of %s: %w", source, describe(err))
		}
		raw, err := json.Marshal(resp.Data["Get"])
		if err != nil {
			return nil, fmt.Errorf("weaviate: list page chunks of %s: %w", source, err)
		}
		var rows map[string][]struct {
			Source      string `json:"source"`
			Path        string `json:"path"`
			Version     string `json:"version"`
			ContentHash string `json:"content_hash"`
			Additional  struct {
				ID string `json:"id"`
			} `json:"_additional"`
		}
		if err := json.Unmarshal(raw, &rows); err != nil {
			return nil, fmt.Errorf("weaviate: list page chunks of %s: %w", source, err)
		}
		page := rows[s.chunk]
		for _, r := range page {
			if r.Source == source {
				out = append(out, PageChunk{ID: r.Additional.ID, Path: r.Path, Version: r.Version, ContentHash: r.ContentHash})
			}
		}
		if len(page) < pageChunkPage {
			return out, nil
		}
		after = page[len(page)-1].Additional.ID
	}
}
