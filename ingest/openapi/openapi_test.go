package openapi

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func load(t *testing.T, file string) *Spec {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestChunksOpenAPI3(t *testing.T) {
	cs := load(t, "../../testdata/openapi/orders.yaml").Chunks("orders.yaml")
	type row struct {
		Symbol, Kind, SymbolKind, Version, Signature string
		Start, End                                   int
	}
	var got []row
	for _, c := range cs {
		got = append(got, row{c.Symbol, c.Kind, c.SymbolKind, c.Version, c.Signature, c.StartLine, c.EndLine})
	}
	// Lines: the operation's key line to the end of its block in orders.yaml.
	want := []row{
		{"GET /v1/orders/{id}", "api", "endpoint", "2.4.1", "GET /v1/orders/{id}  (getOrder)", 14, 34},
		{"POST /v1/orders/{id}/cancel", "api", "endpoint", "2.4.1", "POST /v1/orders/{id}/cancel  (cancelOrder)", 36, 55},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	for _, sub := range []string{
		"- id (path, string, required): The order id.", // path-level parameter
		"- expand (query, array of string): Related objects to include inline",
		"responses: 200 The order. (Order (object))",
		"security: apiKey",
	} {
		if !strings.Contains(cs[0].Content, sub) {
			t.Errorf("GET content lacks %q:\n%s", sub, cs[0].Content)
		}
	}
	for _, sub := range []string{
		"description: Cancels an order that has not shipped yet.",
		"request body (application/json): object {reason string enum[duplicate,fraudulent,requested_by_customer] required — Why the order is cancelled.}",
		"409 The order has already shipped.",
	} {
		if !strings.Contains(cs[1].Content, sub) {
			t.Errorf("POST content lacks %q:\n%s", sub, cs[1].Content)
		}
	}
}

func TestChunksSwagger2(t *testing.T) {
	cs := load(t, "../../testdata/openapi/petstore-swagger2.json").Chunks("petstore.json")
	if len(cs) != 1 || cs[0].Symbol != "DELETE /pets/{petId}" {
		t.Fatalf("got %d chunks, first %+v", len(cs), cs)
	}
	for _, sub := range []string{"operationId: deletePet", "- petId (path, integer int64, required): Pet id to delete", "- api_key (header, string)", "400 Invalid ID supplied"} {
		if !strings.Contains(cs[0].Content, sub) {
			t.Errorf("content lacks %q:\n%s", sub, cs[0].Content)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for name, data := range map[string]string{
		"not yaml": "{{{",
		"no paths": "openapi: 3.0.3\ninfo: {title: x, version: '1'}\npaths: {}\n",
	} {
		if _, err := Load("spec.yaml", []byte(data)); err == nil || !strings.Contains(err.Error(), "openapi spec.yaml") {
			t.Errorf("%s: got %v, want an error naming the file", name, err)
		}
	}
}
