package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Limits on how much of a request or response schema is expanded into a
// chunk, so that a huge schema cannot blow one up (GitHub's full-repository
// object has 105 properties, ten of them objects or refs): fields are
// chosen level by level (every top-level field before any nested one)
// until a limit is hit, and a last line says how many were left out. A
// chunk thus holds at most MaxBodyFields+MaxResponseFields+2 field lines.
const (
	MaxFieldDepth       = 4   // path segments: items[].bundle.products[].sku is 4
	MaxFieldsPerObject  = 25  // properties listed for one object, alphabetically
	MaxBodyFields       = 60  // field lines for a request body
	MaxResponseFields   = 20  // field lines for the first 2xx response, without descriptions
	MaxFieldDescription = 120 // bytes of a request field's description (its first line)
)

// A field is one property in an expanded schema.
type field struct {
	path      string // "items[].bundle.sku"
	schema    *openapi3.SchemaRef
	required  bool
	recursive bool // its object is one of its own ancestors; not expanded
	children  []*field
}

// fieldLines expands an object schema (or an array of them) into lines
// "  - path (type[, required][, recursive]): description", depth first, at
// most max of them plus one saying how many more fields exist; descriptions
// only when withDesc. $refs, allOf, oneOf and anyOf are followed (OpenAPI
// 3.0 Schema Object); a schema met again below itself stops there, marked
// recursive.
func fieldLines(ref *openapi3.SchemaRef, max int, withDesc bool) []string {
	obj, prefix := unwrap(ref, "")
	if obj == nil {
		return nil
	}
	fields, omitted := expand(obj, prefix, max)
	var out []string
	var print func(fs []*field)
	print = func(fs []*field) {
		for _, f := range fs {
			out = append(out, fieldLine(f, withDesc))
			print(f.children)
		}
	}
	print(fields)
	if omitted > 0 {
		out = append(out, fmt.Sprintf("  - … %d more fields not shown", omitted))
	}
	return out
}

// expand chooses up to max fields of obj breadth first and returns them as
// a tree, with the number of properties left out at the levels it reached.
func expand(obj *openapi3.Schema, prefix string, max int) ([]*field, int) {
	type job struct {
		parent    *field
		obj       *openapi3.Schema
		prefix    string
		depth     int                // of the fields this job adds, 1 at the top
		ancestors []*openapi3.Schema // objects from the top down to obj
	}
	root := &field{}
	queue := []job{{root, obj, prefix, 1, []*openapi3.Schema{obj}}}
	n, omitted := 0, 0
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		props, required := properties(j.obj)
		for i, name := range sortedKeys(props) {
			if i >= MaxFieldsPerObject || n >= max {
				omitted++
				continue
			}
			n++
			f := &field{path: joinField(j.prefix, name), schema: props[name], required: slices.Contains(required, name)}
			j.parent.children = append(j.parent.children, f)
			child, p := unwrap(props[name], f.path)
			switch {
			case child == nil:
			case slices.Contains(j.ancestors, child):
				f.recursive = true
			case j.depth < MaxFieldDepth:
				anc := append(append([]*openapi3.Schema{}, j.ancestors...), child)
				queue = append(queue, job{f, child, p, j.depth + 1, anc})
			}
		}
	}
	return root.children, omitted
}

func fieldLine(f *field, withDesc bool) string {
	attrs := schemaType(f.schema, 1)
	if f.required {
		attrs += ", required"
	}
	if f.recursive {
		attrs += ", recursive"
	}
	line := "  - " + f.path + " (" + attrs + ")"
	if s := f.schema.Value; withDesc && s != nil && s.Description != "" {
		line += ": " + clipTo(firstLine(s.Description), MaxFieldDescription)
	}
	return line
}

// unwrap follows arrays (adding "[]" to path) and maps (additionalProperties,
// adding "{}") down to an object with properties, or returns nil.
func unwrap(ref *openapi3.SchemaRef, path string) (*openapi3.Schema, string) {
	for depth := 0; ref != nil && ref.Value != nil && depth < MaxFieldDepth; depth++ {
		s := ref.Value
		if props, _ := properties(s); len(props) > 0 {
			return s, path
		}
		switch {
		case s.Items != nil:
			ref, path = s.Items, path+"[]"
		case s.AdditionalProperties.Schema != nil:
			ref, path = s.AdditionalProperties.Schema, path+"{}"
		default:
			return nil, ""
		}
	}
	return nil, ""
}

// properties merges a schema's own properties with those of its allOf,
// oneOf and anyOf members (the first definition of a name wins), with the
// names required by the schema or the allOf member defining them.
func properties(s *openapi3.Schema) (props openapi3.Schemas, required []string) {
	if s == nil {
		return nil, nil
	}
	if len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 {
		return s.Properties, s.Required
	}
	props = openapi3.Schemas{}
	var merge func(s *openapi3.Schema, all bool, depth int)
	merge = func(s *openapi3.Schema, all bool, depth int) {
		if s == nil || depth > MaxFieldDepth {
			return
		}
		for name, p := range s.Properties {
			if _, ok := props[name]; !ok {
				props[name] = p
			}
		}
		if all {
			required = append(required, s.Required...)
		}
		for _, alts := range []struct {
			refs openapi3.SchemaRefs
			all  bool
		}{{s.AllOf, all}, {s.OneOf, false}, {s.AnyOf, false}} {
			for _, a := range alts.refs {
				if a != nil {
					merge(a.Value, alts.all, depth+1)
				}
			}
		}
	}
	merge(s, true, 0)
	return props, required
}

// firstSuccess returns the lowest 2xx response code with content ("200",
// "201", "2XX"), or "".
func firstSuccess(codes []string, rs map[string]*openapi3.ResponseRef) string {
	for _, c := range codes {
		if strings.HasPrefix(c, "2") {
			if r := rs[c]; r != nil && r.Value != nil && len(r.Value.Content) > 0 {
				return c
			}
		}
	}
	return ""
}
