package version_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config/configtest"
	"github.com/ragbot/ragbot/internal/version"
	"github.com/ragbot/ragbot/retrieval/embed"
)

// Port 1 (tcpmux) is closed on any test machine: a node that refuses
// connections.
const closedNode = "http://127.0.0.1:1"

// TestWeaviate: the version comes from the first node that accepts a
// connection, named as the caller listed it, with the API key sent; with
// no node answering, an error.
func TestWeaviate(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/meta" {
			http.NotFound(w, r)
			return
		}
		auth = r.Header.Get("Authorization")
		_, _ = w.Write([]byte(`{"version":"1.30.2"}`))
	}))
	defer srv.Close()
	live := srv.URL + "/" // as configured, with its slash
	v, node, err := version.Weaviate(context.Background(), []string{closedNode, live}, "wv-key")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"1.30.2", live, "Bearer wv-key"}, []string{v, node, auth}); diff != "" {
		t.Errorf("version, node, Authorization (-want +got):\n%s", diff)
	}
	if _, _, err := version.Weaviate(context.Background(), []string{closedNode}, ""); err == nil {
		t.Error("Weaviate with every node closed: no error")
	}
}

// TestPrintDeployment: the embedder line, and every configured node named
// when none answers.
func TestPrintDeployment(t *testing.T) {
	yaml := "weaviate:\n  urls: [http://127.0.0.1:1, http://127.0.0.1:2]\nembedder:\n  kind: offline\n  semantic:\n    kind: none\n" +
		"sources:\n  - name: app\n    kind: git\n    path: " + t.TempDir() + "\n"
	cfg := configtest.Load(t, "", yaml)
	var out bytes.Buffer
	version.PrintDeployment(context.Background(), &out, cfg)
	want := "embedder " + embed.NewOffline().Name() + "\nweaviate not reachable (http://127.0.0.1:1, http://127.0.0.1:2)\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("PrintDeployment (-want +got):\n%s", diff)
	}
}
