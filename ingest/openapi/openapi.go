// Package openapi chunks an API description (OpenAPI 3.x, or Swagger 2.0
// converted to 3) into one chunk per operation, symbol "METHOD /path" (with
// a Swagger 2.0 basePath in front, see Spec.Chunks), with
// everything a support engineer searches for: operationId, summary,
// description, parameters with their types and where they go, the request
// body's and the first success response's fields as paths with types
// ("items[].bundle.sku (string)", bounded: see MaxBodyFields), security
// requirements and tags. Parsing and $ref resolution are kin-openapi's
// (github.com/getkin/kin-openapi); a $ref that points nowhere is named in
// its operation's chunk instead of failing the spec (see Load).
package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/ragbot/ragbot/retrieval"
)

// MaxDescription caps how much of an operation's or parameter's description
// goes into a chunk, in bytes: long prose (changelogs, examples) would drown
// the operation's own words.
const MaxDescription = 1500

// Spec is a loaded API description.
type Spec struct {
	Doc     *openapi3.T
	Version string // info.version
	// BasePath is a Swagger 2.0 document's basePath without a trailing
	// slash ("" for "/" and for OpenAPI 3), prefixed to every symbol.
	BasePath string
	// Dangling lists the $refs, as written, that point nowhere in the
	// document, in document order; empty when all resolve.
	Dangling []string
}

// Load parses spec bytes (JSON or YAML; OpenAPI 3.x or Swagger 2.0) and
// resolves its local $refs. name is the file path, used in errors and for
// relative $refs. Errors name the file and what failed.
//
// A $ref that points nowhere does not fail the spec: when loading fails,
// each such ref is marked (see markDangling) and the spec is loaded again,
// so every operation is indexed and the broken parts are named in their
// chunks; Spec.Dangling lists the refs and Unresolved says where they are.
func Load(name string, data []byte) (*Spec, error) {
	var probe struct {
		Swagger string `json:"swagger" yaml:"swagger"`
	}
	// JSON is read as JSON: YAML is a superset of JSON, but yaml.v3 builds a
	// node tree first (111 MB for the 13 MB GitHub spec, against none).
	if err := json.Unmarshal(data, &probe); err != nil {
		if err := yaml.Unmarshal(data, &probe); err != nil {
			return nil, fmt.Errorf("openapi %s: not JSON or YAML: %w", name, err)
		}
	}
	swagger2 := strings.HasPrefix(probe.Swagger, "2")
	doc, basePath, err := parse(name, data, swagger2)
	var dangling []string
	if err != nil {
		if doc, basePath, dangling, err = reparse(name, data, swagger2, err); err != nil {
			return nil, err
		}
	}
	if doc.Paths == nil || doc.Paths.Len() == 0 {
		return nil, fmt.Errorf("openapi %s: no paths", name)
	}
	s := &Spec{Doc: doc, BasePath: basePath, Dangling: dangling}
	if doc.Info != nil {
		s.Version = doc.Info.Version
	}
	return s, nil
}

// reparse retries a load that failed with first after the repairs that keep
// every line where it was: version numbers quoted (quoteVersions), then
// dangling $refs marked (markDangling). It returns first when they do not
// help. Only failed loads get here, so the happy path never builds the
// yaml.v3 node tree these need.
func reparse(name string, data []byte, swagger2 bool, first error) (*openapi3.T, string, []string, error) {
	if quoted, ok := quoteVersions(data); ok {
		data = quoted
		if doc, basePath, err := parse(name, data, swagger2); err == nil {
			return doc, basePath, nil, nil
		}
	}
	marked, refs, ok := markDangling(data)
	if !ok || len(refs) == 0 {
		return nil, "", nil, first
	}
	doc, basePath, err := parse(name, marked, swagger2)
	if err != nil {
		return nil, "", nil, first
	}
	return doc, basePath, refs, nil
}

// parse loads an OpenAPI 3 document, or converts a Swagger 2.0 one and
// returns its basePath without a trailing slash.
func parse(name string, data []byte, swagger2 bool) (*openapi3.T, string, error) {
	if !swagger2 {
		if doc, ok, err := parseJSON(name, data); ok {
			if err != nil {
				return nil, "", fmt.Errorf("openapi %s: %w", name, err)
			}
			return doc, "", nil
		}
	}
	loader := openapi3.NewLoader()
	loader.IncludeOrigin = true
	location := &url.URL{Path: name}
	if !swagger2 {
		doc, err := loader.LoadFromDataWithPath(data, location)
		if err != nil {
			return nil, "", fmt.Errorf("openapi %s: %w", name, err)
		}
		return doc, "", nil
	}
	// openapi2's types decode through their UnmarshalJSON methods, so a
	// plain yaml.Unmarshal skips them (basePath and responses were lost,
	// and a body schema's $ref read as a non-object); UnmarshalFromData
	// goes through JSON for YAML input too.
	var doc2 openapi2.T
	if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
		return nil, "", fmt.Errorf("openapi %s: swagger 2.0: %w", name, err)
	}
	// ToV3WithLoader resolves the converted document's $refs (now
	// #/components/...) with our loader.
	doc, err := openapi2conv.ToV3WithLoader(&doc2, loader, location)
	if err != nil {
		return nil, "", fmt.Errorf("openapi %s: convert swagger 2.0: %w", name, err)
	}
	setSwagger2Origins(doc, data, name)
	return doc, strings.TrimRight(doc2.BasePath, "/"), nil
}

// Chunks returns one chunk per operation, ordered by path then method. path
// is the spec file's path (Chunk.Path); lines come from the document (the
// operation's block) when known, else the path item's, else line 1. Chunks
// have Kind api, SymbolKind endpoint, Language openapi and Version set.
//
// The symbol is "METHOD /path" with the path as a client calls it. In
// Swagger 2.0 that is basePath + path ("The path is appended to the
// basePath in order to construct the full URL", Swagger 2.0 Paths Object),
// so /ping under basePath /v1 is "GET /v1/ping". OpenAPI 3 moves the prefix
// into servers[].url, which may list several servers with different paths
// or templated variables (OpenAPI 3.0 Server Object), so there the path key
// is used as written.
func (s *Spec) Chunks(file string) []retrieval.Chunk {
	var out []retrieval.Chunk
	s.eachOperation(func(symbol string, item *openapi3.PathItem, op *openapi3.Operation) {
		start, end := lines(op.Origin, item.Origin)
		out = append(out, retrieval.Chunk{
			Kind: retrieval.KindAPI, Path: file, Symbol: symbol, SymbolKind: "endpoint",
			Language: "openapi", Signature: signature(symbol, op), Version: s.Version,
			Content: describe(symbol, item, op), StartLine: start, EndLine: end,
		})
	})
	return out
}

// eachOperation calls fn for every operation, ordered by path then method,
// with its symbol.
func (s *Spec) eachOperation(fn func(symbol string, item *openapi3.PathItem, op *openapi3.Operation)) {
	for _, p := range slices.Sorted(slices.Values(s.Doc.Paths.Keys())) {
		item := s.Doc.Paths.Value(p)
		if item == nil {
			continue
		}
		ops := item.Operations()
		for _, m := range sortedKeys(ops) {
			fn(strings.ToUpper(m)+" "+s.BasePath+p, item, ops[m])
		}
	}
}

func lines(origins ...*openapi3.Origin) (int, int) {
	for _, o := range origins {
		if o != nil && o.Key != nil && o.Key.Line > 0 {
			return o.Key.Line, max(o.Key.EndLine, o.Key.Line)
		}
	}
	return 1, 1
}

func signature(symbol string, op *openapi3.Operation) string {
	if op.OperationID != "" {
		return symbol + "  (" + op.OperationID + ")"
	}
	return symbol
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func clip(s string) string { return clipTo(strings.Join(strings.Fields(s), " "), MaxDescription) }

func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
