package openapi

import (
	"fmt"
	"path"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// describe renders an operation as the text shown and searched.
func describe(symbol string, item *openapi3.PathItem, op *openapi3.Operation) string {
	var t text
	t.line("%s", symbol)
	t.field("operationId", op.OperationID)
	t.field("summary", op.Summary)
	if op.Deprecated {
		t.line("deprecated: true")
	}
	t.field("tags", strings.Join(op.Tags, ", "))
	t.field("description", clip(op.Description))
	t.parameters(append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...))
	body := t.requestBody(op.RequestBody)
	t.responses(op.Responses, body)
	if op.Security != nil && len(*op.Security) > 0 {
		var req []string
		for _, sr := range *op.Security {
			req = append(req, sortedKeys(sr)...)
		}
		t.line("security: %s", strings.Join(req, ", "))
	}
	return strings.TrimRight(t.String(), "\n")
}

// text is a chunk's content being written, one line at a time.
type text struct{ strings.Builder }

func (t *text) line(format string, args ...any) { fmt.Fprintf(t, format+"\n", args...) }

// field writes "name: value", unless value is empty.
func (t *text) field(name, value string) {
	if value != "" {
		t.line("%s: %s", name, value)
	}
}

// parameters writes "- name (in, type[, required]): description" lines.
func (t *text) parameters(params openapi3.Parameters) {
	if len(params) == 0 {
		return
	}
	t.line("parameters:")
	for _, pr := range params {
		if pr == nil || pr.Value == nil {
			continue
		}
		p := pr.Value
		if ref := unresolved(p.Extensions); ref != "" {
			t.line("- unresolved $ref '%s'", ref)
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
		t.line("- %s (%s, %s%s)%s", p.Name, p.In, schemaType(p.Schema, 0), req, desc)
	}
}

// requestBody writes a line per content type and the fields of the first
// schema that has any, and returns that schema (nil if none).
func (t *text) requestBody(rb *openapi3.RequestBodyRef) *openapi3.Schema {
	if rb == nil || rb.Value == nil {
		return nil
	}
	if ref := unresolved(rb.Value.Extensions); ref != "" {
		t.line("request body: unresolved $ref '%s'", ref)
	}
	var body *openapi3.Schema
	for _, ct := range sortedKeys(rb.Value.Content) {
		schema := rb.Value.Content[ct].Schema
		t.line("request body (%s): %s", ct, headerType(schema))
		if body == nil && schema != nil {
			if fields := fieldLines(schema, MaxBodyFields, true); len(fields) > 0 {
				body = schema.Value
				t.line("%s", strings.Join(fields, "\n"))
			}
		}
	}
	return body
}

// responses writes one line of codes with their descriptions and schema
// names, then the fields of the first success response (unless its schema
// is the request body's, listed already).
func (t *text) responses(rs *openapi3.Responses, body *openapi3.Schema) {
	if rs == nil {
		return
	}
	codes := sortedKeys(rs.Map())
	var parts []string
	for _, code := range codes {
		r := rs.Map()[code]
		part := code
		if r != nil && r.Value != nil {
			if ref := unresolved(r.Value.Extensions); ref != "" {
				part += " unresolved $ref '" + ref + "'"
			}
			if r.Value.Description != nil && *r.Value.Description != "" {
				part += " " + firstLine(*r.Value.Description)
			}
			if cts := sortedKeys(r.Value.Content); len(cts) > 0 {
				part += " (" + schemaType(r.Value.Content[cts[0]].Schema, 0) + ")"
			}
		}
		parts = append(parts, part)
	}
	t.line("responses: %s", strings.Join(parts, "; "))
	code := firstSuccess(codes, rs.Map())
	if code == "" {
		return
	}
	content := rs.Map()[code].Value.Content
	ct := sortedKeys(content)[0]
	schema := content[ct].Schema
	header := fmt.Sprintf("response %s (%s): %s", code, ct, headerType(schema))
	if schema != nil && schema.Value != nil && schema.Value == body {
		t.line("%s, fields as in the request body", header)
		return
	}
	t.line("%s", header)
	if fields := fieldLines(schema, MaxResponseFields, false); len(fields) > 0 {
		t.line("%s", strings.Join(fields, "\n"))
	}
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
	t := strings.Join(s.Type.Slice(), "|")
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
