package weaviate

import (
	"context"

	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// eachPage walks every object of class with Weaviate's cursor API (`after`),
// size objects a request, decoding each page into rows of type T and handing
// them to visit. fields must include "_additional { id }", which idOf reads
// back to continue the cursor. A cursor cannot be combined with a filter, so
// callers filter rows themselves and the cost is linear in the collection.
// GraphQL errors inside an HTTP 200 are returned like transport errors.
func eachPage[T any](ctx context.Context, client *weaviate.Client, class string, fields []graphql.Field, size int,
	idOf func(T) string, visit func([]T) error) error {
	after := ""
	for {
		get := client.GraphQL().Get().WithClassName(class).WithFields(fields...).WithLimit(size)
		if after != "" {
			get = get.WithAfter(after)
		}
		resp, err := gqlResult(get.Do(ctx))
		if err != nil {
			return describe(err)
		}
		rows, err := decodeGet[T](resp, class)
		if err != nil {
			return err
		}
		if err := visit(rows); err != nil {
			return err
		}
		if len(rows) < size {
			return nil
		}
		after = idOf(rows[len(rows)-1])
	}
}
