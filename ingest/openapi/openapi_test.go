package openapi

import (
	"fmt"
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
		"response 200 (application/json): Order (object)\n  - id (string)",
		"security: apiKey",
	} {
		if !strings.Contains(cs[0].Content, sub) {
			t.Errorf("GET content lacks %q:\n%s", sub, cs[0].Content)
		}
	}
	for _, sub := range []string{
		"description: Cancels an order that has not shipped yet.",
		"request body (application/json): object\n  - reason (string enum[duplicate,fraudulent,requested_by_customer], required): Why the order is cancelled.",
		"409 The order has already shipped.",
	} {
		if !strings.Contains(cs[1].Content, sub) {
			t.Errorf("POST content lacks %q:\n%s", sub, cs[1].Content)
		}
	}
}

// TestChunksSwagger2 loads Swagger 2.0 documents, which are converted to
// OpenAPI 3: body parameters with a $ref load, responses are kept, and the
// symbol is basePath + path.
func TestChunksSwagger2(t *testing.T) {
	for _, tc := range []struct {
		file        string
		wantSymbols []string
		wantLines   [2]int   // the first chunk's: operation key to its last value
		wantContent []string // substrings of the first chunk
	}{
		{
			file:        "petstore-swagger2.json",
			wantSymbols: []string{"DELETE /v2/pets/{petId}"},
			wantLines:   [2]int{7, 14},
			wantContent: []string{"operationId: deletePet", "- petId (path, integer int64, required): Pet id to delete", "- api_key (header, string)", "400 Invalid ID supplied"},
		},
		{
			file:        "swagger2-ping.json",
			wantSymbols: []string{"GET /v1/ping"},
			wantLines:   [2]int{8, 13},
			wantContent: []string{"operationId: ping", "responses: 200 The service is up. (object); 503 The service is degraded."},
		},
		{
			// swagger: 2.0 and info.version: 1.0 unquoted are YAML numbers;
			// basePath ends in "/".
			file:        "swagger2-version-number.yaml",
			wantSymbols: []string{"GET /v1/ping"},
			wantLines:   [2]int{8, 12},
			wantContent: []string{"operationId: ping", "responses: 200 The service is up."},
		},
		{
			file:        "swagger2-ref.yaml",
			wantSymbols: []string{"POST /v1/orders"},
			wantLines:   [2]int{9, 24},
			wantContent: []string{"request body (*/*): NewOrder (object)\n  - customer (string, required): The customer id.", "response 201 (application/json): Order (object)\n  - id (string)\n  - status (string enum[pending,shipped])", "responses: 201 The order was placed. (Order (object)); 422 The order is invalid."},
		},
		{
			file:        "swagger2-ref.json",
			wantSymbols: []string{"POST /v1/orders"},
			wantLines:   [2]int{11, 32}, // JSON: the closing braces are not nodes
			wantContent: []string{"request body (*/*): NewOrder (object)\n  - customer (string, required): The customer id.", "response 201 (application/json): Order (object)\n  - id (string)\n  - status (string enum[pending,shipped])", "responses: 201 The order was placed. (Order (object)); 422 The order is invalid."},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/openapi/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Load(tc.file, data)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			cs := s.Chunks(tc.file)
			var got []string
			for _, c := range cs {
				got = append(got, c.Symbol)
			}
			if diff := cmp.Diff(tc.wantSymbols, got); diff != "" {
				t.Fatalf("symbols (-want +got):\n%s", diff)
			}
			if got := [2]int{cs[0].StartLine, cs[0].EndLine}; got != tc.wantLines {
				t.Errorf("lines %v, want %v", got, tc.wantLines)
			}
			for _, sub := range tc.wantContent {
				if !strings.Contains(cs[0].Content, sub) {
					t.Errorf("content lacks %q:\n%s", sub, cs[0].Content)
				}
			}
		})
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

// TestDanglingRefs loads documents where some $refs point nowhere: every
// operation is indexed, and the broken part is named in the chunk.
func TestDanglingRefs(t *testing.T) {
	for _, tc := range []struct {
		file           string
		wantContent    map[string][]string // symbol -> substrings of its chunk
		wantUnresolved []Unresolved
	}{
		{
			file: "dangling-ref.yaml",
			wantContent: map[string][]string{
				"GET /orders":      {"- unresolved $ref '#/components/parameters/PageSize'", "responses: 200 A page of orders."},
				"POST /orders":     {"request body (application/json): unresolved $ref '#/components/schemas/Missing'", "responses: 201 unresolved $ref '#/components/responses/Created'"},
				"GET /orders/{id}": {"- id (path, unresolved $ref 'common.yaml#/components/schemas/Id', required)", "responses: 200 The order. (Order (object))"},
			},
			wantUnresolved: []Unresolved{
				{"GET /orders", "parameter", "#/components/parameters/PageSize"},
				{"GET /orders", "response 200 (application/json) [].customer", "#/components/schemas/Customer"},
				{"POST /orders", "request body (application/json)", "#/components/schemas/Missing"},
				{"POST /orders", "response 201", "#/components/responses/Created"},
				{"GET /orders/{id}", "parameter id", "common.yaml#/components/schemas/Id"}, // external refs are not followed
				{"GET /orders/{id}", "response 200 (application/json) customer", "#/components/schemas/Customer"},
				{"", "outside the operations", "#/components/schemas/Gone"}, // components.schemas.Unused
			},
		},
		{
			file: "swagger2-dangling.yaml",
			wantContent: map[string][]string{
				"POST /v1/orders":     {"request body (*/*): unresolved $ref '#/definitions/Missing'", "responses: 201 Created."},
				"GET /v1/orders/{id}": {"- id (path, string, required)", "responses: 200 The order. (Order (object))"},
			},
			wantUnresolved: []Unresolved{{"POST /v1/orders", "request body (*/*)", "#/definitions/Missing"}},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/openapi/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Load(tc.file, data)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got := map[string]string{}
			for _, c := range s.Chunks(tc.file) {
				got[c.Symbol] = c.Content
			}
			if len(got) != len(tc.wantContent) {
				t.Errorf("got %d chunks, want %d", len(got), len(tc.wantContent))
			}
			for sym, subs := range tc.wantContent {
				for _, sub := range subs {
					if !strings.Contains(got[sym], sub) {
						t.Errorf("%s lacks %q:\n%s", sym, sub, got[sym])
					}
				}
			}
			if diff := cmp.Diff(tc.wantUnresolved, s.Unresolved()); diff != "" {
				t.Errorf("Unresolved (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaFields checks that request and response schemas are expanded
// into field paths: through $refs, arrays and allOf, stopping at a schema
// that contains itself.
func TestSchemaFields(t *testing.T) {
	got := map[string]string{}
	for _, c := range load(t, "../../testdata/openapi/orders-nested.yaml").Chunks("orders-nested.yaml") {
		got[c.Symbol] = c.Content
	}
	for _, tc := range []struct {
		symbol, want string
	}{
		{"POST /orders", `POST /orders
operationId: createOrder
summary: Place an order
request body (application/json): Order (object)
  - customer (string, required): The customer id.
  - items (array of LineItem (object), required)
  - items[].bundle (Bundle (object)): Products sold together under one SKU.
  - items[].bundle.products (array of Product (object))
  - items[].bundle.products[].name (string)
  - items[].bundle.products[].sku (string)
  - items[].bundle.sku (string): The bundle's stock keeping unit.
  - items[].quantity (integer)
  - shipping (allOf)
  - shipping.city (string)
  - shipping.instructions (string)
  - shipping.postcode (string)
responses: 201 The order was placed. (Order (object)); 422 The order is invalid.
response 201 (application/json): Order (object), fields as in the request body`},
		{"GET /categories/{id}", `GET /categories/{id}
operationId: getCategory
summary: Retrieve a category
parameters:
- id (path, string, required)
responses: 200 The category. (Category (object))
response 200 (application/json): Category (object)
  - children (array of Category (object), recursive)
  - name (string)
  - parent (Category (object), recursive)`},
	} {
		t.Run(tc.symbol, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, got[tc.symbol]); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaFieldsBounded checks that a schema of 200 properties, each an
// object of 40, stays within the documented caps.
func TestSchemaFieldsBounded(t *testing.T) {
	cs := load(t, "../../testdata/openapi/huge-schema.yaml").Chunks("huge-schema.yaml")
	if len(cs) != 1 {
		t.Fatalf("got %d chunks, want 1", len(cs))
	}
	content := cs[0].Content
	fields := 0
	for _, l := range strings.Split(content, "\n") {
		if strings.HasPrefix(l, "  - ") {
			fields++
		}
	}
	if fields > MaxBodyFields+1 { // +1: the "more fields" line
		t.Errorf("got %d field lines, want at most %d", fields, MaxBodyFields+1)
	}
	if !strings.Contains(content, "more fields not shown") {
		t.Errorf("content does not say fields were left out:\n%s", content)
	}
	if len(content) > 8<<10 {
		t.Errorf("content is %d bytes, want at most 8 KiB", len(content))
	}
}

// TestVersionNumbers loads documents whose version strings are written as
// YAML numbers: the versions are read as written and lines are kept.
func TestVersionNumbers(t *testing.T) {
	for _, tc := range []struct {
		file, wantVersion, wantSymbol string
		wantLines                     [2]int
	}{
		{"version-number.yaml", "2.0", "GET /ping", [2]int{7, 11}},
		{"swagger2-version-number.yaml", "1.0", "GET /v1/ping", [2]int{8, 12}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s := load(t, "../../testdata/openapi/"+tc.file)
			cs := s.Chunks(tc.file)
			if len(cs) != 1 {
				t.Fatalf("got %d chunks, want 1", len(cs))
			}
			got := fmt.Sprintf("%s %s %d-%d", s.Version, cs[0].Symbol, cs[0].StartLine, cs[0].EndLine)
			want := fmt.Sprintf("%s %s %d-%d", tc.wantVersion, tc.wantSymbol, tc.wantLines[0], tc.wantLines[1])
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
