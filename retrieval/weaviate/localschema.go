package weaviate

import (
	"context"
	"net/http"
	"strings"
)

// localSchemaKey marks a context whose schema reads may be answered from the
// node's own copy of the schema.
type localSchemaKey struct{}

// localSchema returns ctx marked so that GET /v1/schema/... requests made with
// it carry "consistency: false": the node answers from its own copy of the
// schema instead of forwarding the read to the Raft leader (Weaviate REST
// docs, "Get a single collection", header consistency). While a cluster
// elects a new leader (8-15 s measured, docs/deploy.md "Weaviate cluster"), a
// default read waits for it, and so would every ragbot process opening its
// store. A local copy can lag a create made a moment ago on another node; the
// callers treat "not found" by creating, and a create that finds the
// collection there reads it back from the leader.
func localSchema(ctx context.Context) context.Context {
	return context.WithValue(ctx, localSchemaKey{}, true)
}

// localSchemaTransport adds the header for requests of contexts marked by
// localSchema; other requests pass as they are.
type localSchemaTransport struct{ next http.RoundTripper }

func (t localSchemaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/schema") && r.Context().Value(localSchemaKey{}) != nil {
		r = r.Clone(r.Context())
		r.Header.Set("Consistency", "false")
	}
	return t.next.RoundTrip(r)
}
