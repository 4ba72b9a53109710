package openapi

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// An Unresolved is a $ref in an operation that points nowhere in the
// document (see Load).
type Unresolved struct {
	Symbol string // the operation, "POST /orders"; "" for a ref no operation reaches
	Where  string // "parameter", "request body (application/json) items[]", "response 201"
	Ref    string // the $ref as written, "#/components/schemas/Missing"
}

// Unresolved lists the operations' unresolved $refs, in chunk order, then
// those of Dangling that no operation reaches (an unused component, a
// header or a callback), with Symbol "" and Where "outside the operations";
// nil when the document has none. A schema is followed into properties,
// items, additionalProperties and allOf/oneOf/anyOf.
func (s *Spec) Unresolved() []Unresolved {
	if len(s.Dangling) == 0 {
		return nil
	}
	var out []Unresolved
	s.eachOperation(func(symbol string, item *openapi3.PathItem, op *openapi3.Operation) {
		add := func(where, ref string) { out = append(out, Unresolved{symbol, where, ref}) }
		params := append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...)
		for _, pr := range params {
			if pr == nil || pr.Value == nil {
				continue
			}
			if ref := unresolved(pr.Value.Extensions); ref != "" {
				add("parameter", ref)
				continue
			}
			walkUnresolved(pr.Value.Schema, "parameter "+pr.Value.Name, "", map[*openapi3.Schema]bool{}, add)
		}
		if rb := op.RequestBody; rb != nil && rb.Value != nil {
			if ref := unresolved(rb.Value.Extensions); ref != "" {
				add("request body", ref)
			}
			for _, ct := range sortedKeys(rb.Value.Content) {
				walkUnresolved(rb.Value.Content[ct].Schema, "request body ("+ct+")", "", map[*openapi3.Schema]bool{}, add)
			}
		}
		if op.Responses == nil {
			return
		}
		for _, code := range sortedKeys(op.Responses.Map()) {
			r := op.Responses.Map()[code]
			if r == nil || r.Value == nil {
				continue
			}
			if ref := unresolved(r.Value.Extensions); ref != "" {
				add("response "+code, ref)
			}
			for _, ct := range sortedKeys(r.Value.Content) {
				walkUnresolved(r.Value.Content[ct].Schema, "response "+code+" ("+ct+")", "", map[*openapi3.Schema]bool{}, add)
			}
		}
	})
	met := map[string]bool{}
	for _, u := range out {
		met[u.Ref] = true
	}
	for _, ref := range s.Dangling {
		if !met[ref] {
			met[ref] = true
			out = append(out, Unresolved{Where: "outside the operations", Ref: ref})
		}
	}
	return out
}

// walkUnresolved reports marked schemas under ref as where plus the field
// path ("request body (application/json) items[].bundle"). seen holds the
// schemas already walked in this section of the operation: each is walked
// once, by the first path that reaches it, which stops cycles and keeps a
// schema shared by many properties from being walked once per path.
func walkUnresolved(ref *openapi3.SchemaRef, where, path string, seen map[*openapi3.Schema]bool, add func(where, ref string)) {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return
	}
	s := ref.Value
	if u := unresolved(s.Extensions); u != "" {
		add(strings.TrimSpace(where+" "+path), u)
		return
	}
	seen[s] = true
	for _, name := range sortedKeys(s.Properties) {
		walkUnresolved(s.Properties[name], where, joinField(path, name), seen, add)
	}
	walkUnresolved(s.Items, where, path+"[]", seen, add)
	walkUnresolved(s.AdditionalProperties.Schema, where, path+"{}", seen, add)
	for _, alts := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, a := range alts {
			walkUnresolved(a, where, path, seen, add)
		}
	}
}

// joinField appends a property name to a field path: "items[]" and "sku"
// make "items[].sku".
func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
