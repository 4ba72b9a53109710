package openapi

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// TestJSONLoadMatchesLoader checks that a JSON OpenAPI 3 document read
// without the YAML parser (parseJSON) gives the chunks, lines included, that
// kin-openapi's loader gives for the same bytes with origins on.
func TestJSONLoadMatchesLoader(t *testing.T) {
	for _, name := range []string{"orders.yaml", "orders-nested.yaml", "huge-schema.yaml"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("../../testdata/openapi", name))
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := yaml.Unmarshal(src, &v); err != nil {
				t.Fatal(err)
			}
			data, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			file := "spec.json"
			doc, ok, err := parseJSON(file, data)
			if !ok || err != nil {
				t.Fatalf("parseJSON: ok %v, err %v", ok, err)
			}
			got := (&Spec{Doc: doc}).Chunks(file)

			loader := openapi3.NewLoader()
			loader.IncludeOrigin = true
			ref, err := loader.LoadFromDataWithPath(data, &url.URL{Path: file})
			if err != nil {
				t.Fatal(err)
			}
			want := (&Spec{Doc: ref}).Chunks(file)
			if len(want) == 0 {
				t.Fatal("the loader found no operations")
			}
			// The loader's end line may take in closing braces after the
			// operation's last value (its end is derived from indentation,
			// internal/nodeindex); parseJSON's stops at the last value, as
			// setSwagger2Origins does: the lines between may hold braces only.
			lines := strings.Split(string(data), "\n")
			for i := range got {
				if i < len(want) && got[i].EndLine < want[i].EndLine {
					for l := got[i].EndLine + 1; l <= want[i].EndLine; l++ {
						if s := strings.Trim(lines[l-1], " ,"); s != "}" && s != "]" {
							t.Errorf("%s: line %d after the end %d is %q, not a closing brace", got[i].Symbol, l, got[i].EndLine, s)
						}
					}
					got[i].EndLine = want[i].EndLine
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("chunks (-loader +parseJSON):\n%s", diff)
			}
		})
	}
}

func TestParseJSONLeavesYAML(t *testing.T) {
	if _, ok, _ := parseJSON("orders.yaml", []byte("openapi: 3.0.0\n")); ok {
		t.Error("YAML taken for JSON")
	}
}
