package code

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// javaDoc are the Java node types that belong to the declaration below them
// (Javadoc; annotations are inside the declaration's modifiers).
var javaDoc = map[string]bool{"block_comment": true, "line_comment": true}

// javaTypes maps Java type declarations to a symbol kind.
var javaTypes = map[string]string{
	"class_declaration":           "class",
	"enum_declaration":            "class",
	"record_declaration":          "class",
	"interface_declaration":       "interface",
	"annotation_type_declaration": "interface",
}

// javaMethods are the Java member declarations that become "Class.method".
var javaMethods = map[string]bool{
	"method_declaration":                  true,
	"constructor_declaration":             true,
	"compact_constructor_declaration":     true,
	"annotation_type_element_declaration": true,
}

// javaSymbols returns the types of a Java file and, for each, its methods and
// constructors as "Class.method" (also abstract ones, so that a Spring Data
// interface's finder is found by name). Nested types are "Outer.Inner".
func javaSymbols(root *sitter.Node, src []byte) []symbol {
	var out []symbol
	javaWalk(root, src, "", &out)
	return out
}

func javaWalk(body *sitter.Node, src []byte, class string, out *[]symbol) {
	for _, n := range namedChildren(body) {
		t := n.Type()
		if t == "enum_body_declarations" {
			javaWalk(n, src, class, out)
			continue
		}
		kind, isType := javaTypes[t]
		if !isType && !(javaMethods[t] && class != "") {
			continue
		}
		s := symbol{
			name:  class + fieldText(n, "name", src),
			kind:  "method",
			start: docStart(n, javaDoc),
			end:   endLine(n),
			sig:   bodySig(src, n, n),
		}
		if isType {
			s.kind, s.container = kind, true
		}
		*out = withMembers(*out, s, func(out []symbol) []symbol {
			if b := n.ChildByFieldName("body"); b != nil {
				javaWalk(b, src, s.name+".", &out)
			}
			return out
		})
	}
}
