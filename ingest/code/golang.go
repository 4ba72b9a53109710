package code

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// goDoc are the Go node types that belong to the declaration below them.
var goDoc = map[string]bool{"comment": true}

// goSymbols returns the top-level declarations of a Go file: functions,
// methods ("Type.Method"), each type spec, and each var or const declaration
// (a parenthesized group is one symbol named after its first name).
func goSymbols(root *sitter.Node, src []byte) []symbol {
	var out []symbol
	for _, n := range namedChildren(root) {
		switch n.Type() {
		case "function_declaration":
			out = append(out, goFunc(n, src, fieldText(n, "name", src), "function"))
		case "method_declaration":
			name := goReceiver(n.ChildByFieldName("receiver"), src) + "." + fieldText(n, "name", src)
			out = append(out, goFunc(n, src, name, "method"))
		case "type_declaration":
			out = append(out, goTypes(n, src)...)
		case "var_declaration", "const_declaration":
			if s, ok := goValues(n, src); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func goFunc(n *sitter.Node, src []byte, name, kind string) symbol {
	return symbol{name: name, kind: kind, start: docStart(n, goDoc), end: endLine(n), sig: bodySig(src, n, n)}
}

// goReceiver returns the receiver's type name without "*", parentheses or
// type parameters: "(s *Store[T])" gives "Store".
func goReceiver(recv *sitter.Node, src []byte) string {
	if recv == nil {
		return ""
	}
	t := recv.Content(src)
	if p := recv.NamedChild(0); p != nil {
		if typ := p.ChildByFieldName("type"); typ != nil {
			t = typ.Content(src)
		}
	}
	t, _, _ = strings.Cut(t, "[")
	return strings.Trim(t, "*() \t")
}

// goTypes returns one symbol per type spec. A lone spec takes the doc
// comment above "type"; a spec in a group takes the comment above it.
func goTypes(n *sitter.Node, src []byte) []symbol {
	var specs []*sitter.Node
	for _, c := range namedChildren(n) {
		if c.Type() == "type_spec" || c.Type() == "type_alias" {
			specs = append(specs, c)
		}
	}
	grouped := len(specs) != 1 || n.Child(1) != nil && n.Child(1).Type() == "("
	var out []symbol
	for _, spec := range specs {
		kind := "type"
		if t := spec.ChildByFieldName("type"); t != nil && t.Type() == "interface_type" {
			kind = "interface"
		}
		s := symbol{name: fieldText(spec, "name", src), kind: kind, start: docStart(n, goDoc), end: endLine(n)}
		if grouped {
			s.start, s.end = docStart(spec, goDoc), endLine(spec)
		}
		s.sig = "type " + firstLineSig(src, spec)
		out = append(out, s)
	}
	return out
}

// goValues returns a var or const declaration as one symbol named after its
// first name. The signature of a group is its first line and the first
// spec's first line: "var (\n\tDefaultRouteOpts = RouteOpts{".
func goValues(n *sitter.Node, src []byte) (symbol, bool) {
	first := goFirstSpec(n)
	if first == nil {
		return symbol{}, false // empty group: "var ()"
	}
	s := symbol{
		name:  fieldText(first, "name", src),
		kind:  strings.TrimSuffix(n.Type(), "_declaration"),
		start: docStart(n, goDoc),
		end:   endLine(n),
		sig:   firstLineSig(src, n),
	}
	if startLine(first) > startLine(n) {
		s.sig += "\n\t" + firstLineSig(src, first)
	}
	return s, true
}

// goFirstSpec returns the first var or const spec of a declaration, also
// inside the var_spec_list of a parenthesized var group, or nil.
func goFirstSpec(n *sitter.Node) *sitter.Node {
	for _, c := range namedChildren(n) {
		switch c.Type() {
		case "var_spec", "const_spec":
			return c
		case "var_spec_list":
			return goFirstSpec(c)
		}
	}
	return nil
}
