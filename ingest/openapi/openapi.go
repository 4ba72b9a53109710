// Package openapi chunks an API description (OpenAPI 3.x, or Swagger 2.0
// converted to 3) into one chunk per operation, symbol "METHOD /path", with
// everything a support engineer searches for: operationId, summary,
// description, parameters with their types and where they go, the request
// body's and the first success response's fields as paths with types
// ("items[].bundle.sku (string)", bounded: see MaxBodyFields), security
// requirements and tags. Parsing and $ref resolution are kin-openapi's
// (github.com/getkin/kin-openapi).
package openapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"sort"
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
		// The happy path never builds the node tree markDangling needs.
		marked, refs, ok := markDangling(data)
		if !ok || len(refs) == 0 {
			return nil, err
		}
		d, bp, err2 := parse(name, marked, swagger2)
		if err2 != nil {
			return nil, err
		}
		doc, basePath, dangling = d, bp, refs
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

// parse loads an OpenAPI 3 document, or converts a Swagger 2.0 one and
// returns its basePath without a trailing slash.
func parse(name string, data []byte, swagger2 bool) (*openapi3.T, string, error) {
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
	paths := s.Doc.Paths.Keys()
	sort.Strings(paths)
	for _, p := range paths {
		item := s.Doc.Paths.Value(p)
		if item == nil {
			continue
		}
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			fn(strings.ToUpper(m)+" "+s.BasePath+p, item, ops[m])
		}
	}
}

func lines(origins ...*openapi3.Origin) (int, int) {
	for _, o := range origins {
		if o != nil && o.Key != nil && o.Key.Line > 0 {
			end := o.Key.EndLine
			if end < o.Key.Line {
				end = o.Key.Line
			}
			return o.Key.Line, end
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

// describe renders an operation as the text shown and searched.
func describe(symbol string, item *openapi3.PathItem, op *openapi3.Operation) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("%s", symbol)
	if op.OperationID != "" {
		line("operationId: %s", op.OperationID)
	}
	if op.Summary != "" {
		line("summary: %s", op.Summary)
	}
	if op.Deprecated {
		line("deprecated: true")
	}
	if len(op.Tags) > 0 {
		line("tags: %s", strings.Join(op.Tags, ", "))
	}
	if d := clip(op.Description); d != "" {
		line("description: %s", d)
	}
	var body *openapi3.Schema // the request body schema whose fields are listed
	params := append(openapi3.Parameters{}, item.Parameters...)
	params = append(params, op.Parameters...)
	if len(params) > 0 {
		line("parameters:")
		for _, pr := range params {
			if pr == nil || pr.Value == nil {
				continue
			}
			p := pr.Value
			if ref := unresolved(p.Extensions); ref != "" {
				line("- unresolved $ref '%s'", ref)
				continue
			}
			req := ""
			if p.Required {
				req = ", required"
			}
			desc := clip(p.Description)
			if desc != "" {
				desc = ": " + desc
			}
			line("- %s (%s, %s%s)%s", p.Name, p.In, schemaType(p.Schema, 0), req, desc)
		}
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		if ref := unresolved(rb.Value.Extensions); ref != "" {
			line("request body: unresolved $ref '%s'", ref)
		}
		for _, ct := range sortedKeys(rb.Value.Content) {
			schema := rb.Value.Content[ct].Schema
			line("request body (%s): %s", ct, headerType(schema))
			if body == nil && schema != nil {
				if fields := fieldLines(schema, MaxBodyFields, true); len(fields) > 0 {
					body = schema.Value
					line("%s", strings.Join(fields, "\n"))
				}
			}
		}
	}
	if op.Responses != nil {
		codes := sortedKeys(op.Responses.Map())
		var parts []string
		for _, code := range codes {
			r := op.Responses.Map()[code]
			part := code
			if r != nil && r.Value != nil {
				if ref := unresolved(r.Value.Extensions); ref != "" {
					part += " unresolved $ref '" + ref + "'"
				}
				if r.Value.Description != nil && *r.Value.Description != "" {
					part += " " + firstLine(*r.Value.Description)
				}
				for _, ct := range sortedKeys(r.Value.Content) {
					part += " (" + schemaType(r.Value.Content[ct].Schema, 0) + ")"
					break
				}
			}
			parts = append(parts, part)
		}
		line("responses: %s", strings.Join(parts, "; "))
		if code := firstSuccess(codes, op.Responses.Map()); code != "" {
			content := op.Responses.Map()[code].Value.Content
			ct := sortedKeys(content)[0]
			schema := content[ct].Schema
			header := fmt.Sprintf("response %s (%s): %s", code, ct, headerType(schema))
			if schema != nil && schema.Value != nil && schema.Value == body {
				line("%s, fields as in the request body", header)
			} else {
				line("%s", header)
				if fields := fieldLines(schema, MaxResponseFields, false); len(fields) > 0 {
					line("%s", strings.Join(fields, "\n"))
				}
			}
		}
	}
	if op.Security != nil && len(*op.Security) > 0 {
		var req []string
		for _, sr := range *op.Security {
			for _, name := range sortedKeys(sr) {
				req = append(req, name)
			}
		}
		line("security: %s", strings.Join(req, ", "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// headerType names a body's schema as schemaType does, adding the
// alternatives of a oneOf or anyOf: "oneOf: Card (object) | BankAccount (object)".
func headerType(ref *openapi3.SchemaRef) string {
	t := schemaType(ref, 0)
	if ref == nil || ref.Value == nil {
		return t
	}
	alts := append(append(openapi3.SchemaRefs{}, ref.Value.OneOf...), ref.Value.AnyOf...)
	if len(alts) == 0 {
		return t
	}
	parts := make([]string, 0, len(alts))
	for _, a := range alts {
		parts = append(parts, schemaType(a, 1))
	}
	return t + ": " + strings.Join(parts, " | ")
}

// schemaType names a schema's type: "string", "integer", "array of string",
// "object", or the $ref's component name.
func schemaType(ref *openapi3.SchemaRef, depth int) string {
	if ref == nil || ref.Value == nil {
		return "any"
	}
	name := ""
	if ref.Ref != "" {
		name = path.Base(ref.Ref)
	}
	s := ref.Value
	if u := unresolved(s.Extensions); u != "" {
		return "unresolved $ref '" + u + "'"
	}
	t := ""
	if s.Type != nil && len(s.Type.Slice()) > 0 {
		t = strings.Join(s.Type.Slice(), "|")
	}
	switch {
	case t == "array" && depth < 3:
		t = "array of " + schemaType(s.Items, depth+1)
	case t == "" && len(s.OneOf) > 0:
		t = "oneOf"
	case t == "" && len(s.AnyOf) > 0:
		t = "anyOf"
	case t == "" && len(s.AllOf) > 0:
		t = "allOf"
	case t == "":
		t = "any"
	}
	if s.Format != "" {
		t += " " + s.Format
	}
	if len(s.Enum) > 0 && len(s.Enum) <= 12 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = fmt.Sprint(e)
		}
		t += " enum[" + strings.Join(vals, ",") + "]"
	}
	if name != "" {
		return name + " (" + t + ")"
	}
	return t
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

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
