package code

import (
	"cmp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// esDoc are the JavaScript/TypeScript node types that belong to the
// declaration below them: JSDoc and line comments, and decorators, which the
// grammar puts before a class member as its siblings.
var esDoc = map[string]bool{"comment": true, "decorator": true}

// esTypes maps JavaScript/TypeScript declarations to a symbol kind.
var esTypes = map[string]string{
	"function_declaration":           "function",
	"generator_function_declaration": "function",
	"class_declaration":              "class",
	"abstract_class_declaration":     "class",
	"interface_declaration":          "interface",
	"type_alias_declaration":         "type",
	"enum_declaration":               "type",
	"lexical_declaration":            "function", // only when it binds a function
	"variable_declaration":           "function", // only when it binds a function
}

// esFuncs are the expressions that make "const f = ..." a function.
var esFuncs = map[string]bool{
	"arrow_function": true, "function_expression": true, "function": true,
	"generator_function": true,
}

// esSymbols returns the top-level declarations of a JavaScript or TypeScript
// file (also under "export"): functions, functions bound by const/let/var,
// functions assigned to a property (esAssignedFunc), classes, interfaces,
// type aliases and enums; and for each class its methods and arrow-function
// fields as "Class.method".
func esSymbols(root *sitter.Node, src []byte) []symbol {
	var out []symbol
	for _, outer := range namedChildren(root) {
		decl := outer
		if outer.Type() == "export_statement" {
			if decl = outer.ChildByFieldName("declaration"); decl == nil {
				continue
			}
		}
		if decl.Type() == "expression_statement" {
			if s, ok := esAssignedFunc(decl, src); ok {
				out = append(out, s)
			}
			continue
		}
		kind, ok := esTypes[decl.Type()]
		if !ok {
			continue
		}
		name, fn := fieldText(decl, "name", src), decl
		if kind == "function" && decl.ChildByFieldName("body") == nil {
			if name, fn = esBoundFunc(decl, src); fn == nil {
				continue
			}
		}
		s := symbol{name: name, kind: kind, start: docStart(outer, esDoc), end: endLine(outer), sig: bodySig(src, outer, fn),
			container: kind == "class"}
		out = withMembers(out, s, func(out []symbol) []symbol { return append(out, esMembers(decl, src, name)...) })
	}
	return out
}

// esBoundFunc returns the name and function of "const name = () => {...}"
// (first declarator only), or nil when the declaration binds no function.
func esBoundFunc(decl *sitter.Node, src []byte) (string, *sitter.Node) {
	for _, d := range namedChildren(decl) {
		if d.Type() != "variable_declarator" {
			continue
		}
		if v := d.ChildByFieldName("value"); v != nil && esFuncs[v.Type()] {
			return fieldText(d, "name", src), v
		}
		return "", nil
	}
	return "", nil
}

// esMembers returns the methods of a class, and fields holding an arrow
// function (React-style handlers), as "Class.name".
func esMembers(class *sitter.Node, src []byte, className string) []symbol {
	body := class.ChildByFieldName("body")
	if body == nil {
		return nil
	}
	var out []symbol
	for _, m := range namedChildren(body) {
		fn := m
		switch m.Type() {
		case "method_definition":
		case "public_field_definition", "field_definition":
			if fn = m.ChildByFieldName("value"); fn == nil || !esFuncs[fn.Type()] {
				continue
			}
		default:
			continue
		}
		name := cmp.Or(fieldText(m, "name", src), fieldText(m, "property", src)) // property: JavaScript field_definition
		out = append(out, symbol{
			name:  className + "." + name,
			kind:  "method",
			start: docStart(m, esDoc),
			end:   endLine(m),
			sig:   bodySig(src, m, fn),
		})
	}
	return out
}

// esAssignedFunc returns the symbol of a top-level statement that assigns a
// function to a property, the way code written before ES2015 classes, and
// much of npm still, declares methods and exports: "Type.from = (...) =>
// {...}", "Type.prototype.toJSON = function () {...}", "module.exports.name
// = function ...". The name is the property's path without "prototype" and
// without a leading "module.exports"/"exports" ("Type.toJSON", "name"); an
// assignment of anything but a function, or to a bare name, is none.
func esAssignedFunc(stmt *sitter.Node, src []byte) (symbol, bool) {
	var assign *sitter.Node
	for _, c := range namedChildren(stmt) {
		if c.Type() == "assignment_expression" {
			assign = c
		}
	}
	if assign == nil {
		return symbol{}, false
	}
	left, right := assign.ChildByFieldName("left"), assign.ChildByFieldName("right")
	if left == nil || right == nil || left.Type() != "member_expression" || !esFuncs[right.Type()] {
		return symbol{}, false
	}
	var parts []string
	for _, p := range strings.Split(left.Content(src), ".") {
		if p = strings.TrimSpace(p); p != "prototype" {
			parts = append(parts, p)
		}
	}
	switch {
	case len(parts) >= 2 && parts[0] == "module" && parts[1] == "exports":
		parts = parts[2:]
	case len(parts) >= 1 && parts[0] == "exports":
		parts = parts[1:]
	}
	if len(parts) == 0 {
		return symbol{}, false
	}
	kind := "function"
	if len(parts) > 1 {
		kind = "method"
	}
	return symbol{name: strings.Join(parts, "."), kind: kind, start: docStart(stmt, esDoc), end: endLine(stmt), sig: bodySig(src, stmt, right)}, true
}
