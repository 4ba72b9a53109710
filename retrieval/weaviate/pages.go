package weaviate

import (
	"context"
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
	err := eachPage(ctx, s.client, s.chunk, fields, pageChunkPage, func(r row) string { return r.Additional.ID }, func(rows []row) error {
		for _, r := range rows {
			if r.Source == source {
				out = append(out, PageChunk{ID: r.Additional.ID, Path: r.Path, Version: r.Version, ContentHash: r.ContentHash})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("weaviate: list page chunks of %s: %w", source, err)
	}
	return out, nil
}
