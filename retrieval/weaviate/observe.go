package weaviate

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"time"
)

// RequestObserver is told about every HTTP request a Store makes to
// Weaviate (StoreConfig.Observe): its kind, its duration from sending to the
// response headers, and whether it failed (a transport error or a 5xx
// status). It must not block. kind is one of the Request* constants.
type RequestObserver func(kind string, elapsed time.Duration, failed bool)

// Kinds of Weaviate request, by REST endpoint (Weaviate REST API reference,
// weaviate.io/developers/weaviate/api/rest): a bounded set, fit for a metric
// label.
const (
	RequestSearch      = "search"       // POST /v1/graphql with a Get query (search, cursor, listing)
	RequestAggregate   = "aggregate"    // POST /v1/graphql with an Aggregate query (counts)
	RequestBatch       = "batch"        // POST /v1/batch/objects
	RequestBatchDelete = "batch_delete" // DELETE /v1/batch/objects
	RequestObjects     = "objects"      // /v1/objects...
	RequestSchema      = "schema"       // /v1/schema...
	RequestOther       = "other"        // meta, readiness and anything else
)

// observedTransport times the requests of next for an observer.
type observedTransport struct {
	next    http.RoundTripper
	observe RequestObserver
}

func (t observedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	kind := requestKind(r)
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	t.observe(kind, time.Since(start), err != nil || resp.StatusCode >= 500)
	return resp, err
}

// requestKind classifies r by method and path; a GraphQL request by the
// first operation of its query.
func requestKind(r *http.Request) string {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/v1/graphql"):
		if r.GetBody != nil {
			if body, err := r.GetBody(); err == nil {
				head := make([]byte, 256)
				n, _ := io.ReadFull(body, head)
				body.Close()
				if bytes.Contains(head[:n], []byte("Aggregate")) {
					return RequestAggregate
				}
			}
		}
		return RequestSearch
	case strings.HasSuffix(p, "/v1/batch/objects") && r.Method == http.MethodDelete:
		return RequestBatchDelete
	case strings.Contains(p, "/v1/batch/"):
		return RequestBatch
	case strings.Contains(p, "/v1/objects"):
		return RequestObjects
	case strings.Contains(p, "/v1/schema"):
		return RequestSchema
	}
	return RequestOther
}
