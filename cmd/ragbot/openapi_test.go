package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestOpenAPIIndexThenAsk indexes a Swagger 2.0 spec with a body $ref, a
// basePath and a $ref to a missing definition, then asks about a field
// nested three schemas down the request body.
func TestOpenAPIIndexThenAsk(t *testing.T) {
	spec, err := filepath.Abs("../../testdata/openapi/shop-swagger2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf("weaviate:\n  url: %s\n  collection: %s\nsources:\n  - {name: shop-api, kind: openapi, path: %s}\n",
		weaviatetest.URL(t), weaviatetest.ClassName(), spec)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })

	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if code != 0 || !strings.Contains(out, "3 chunks") {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"unresolved $ref", "POST /v2/refunds", "#/definitions/Refund"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("index log lacks %q:\n%s", want, errOut)
		}
	}

	// "Which endpoint takes a bundle sku?" ranks POST /v2/orders first as
	// well, but the offline embedder's similarity to a chunk this small
	// stays under the no-coverage threshold (retrieval.DefaultThresholds),
	// so the question names the order line item.
	ans := askJSON(t, "--config", cfg, "where do I send the bundle sku of an order line item?")
	if len(ans.Snippets) == 0 {
		t.Fatalf("no snippets, coverage %s", ans.Coverage)
	}
	if s := ans.Snippets[0]; s.Symbol != "POST /v2/orders" || !strings.Contains(s.Text, "items[].bundle.sku (string)") {
		t.Errorf("top snippet %s:\n%s\nwant POST /v2/orders listing items[].bundle.sku", s.Symbol, s.Text)
	}
	ans = askJSON(t, "--config", cfg, "how do I refund a payment?")
	if len(ans.Snippets) == 0 || ans.Snippets[0].Symbol != "POST /v2/refunds" ||
		!strings.Contains(ans.Snippets[0].Text, "request body (application/json): unresolved $ref '#/definitions/Refund'") {
		t.Errorf("refund answer: %+v", ans.Snippets)
	}
}
