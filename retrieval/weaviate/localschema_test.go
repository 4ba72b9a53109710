package weaviate

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestLocalSchemaHeader: a schema read made with localSchema's context asks
// for the node's own copy ("consistency: false"); any other read does not.
func TestLocalSchemaHeader(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/meta" { // the client reads the server's version first
			mu.Lock()
			got = append(got, r.Method+" "+r.URL.Path+" consistency="+r.Header.Get("Consistency"))
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"class":"Chunk"}`))
	}))
	defer srv.Close()
	client, _, err := newClients(StoreConfig{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.Schema().ClassGetter().WithClassName("Chunk").Do(localSchema(ctx)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Schema().ClassGetter().WithClassName("Chunk").Do(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /v1/schema/Chunk consistency=false", "GET /v1/schema/Chunk consistency="}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("requests %q, want %q", got, want)
	}
}
