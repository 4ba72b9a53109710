package code

import (
	sitter "github.com/smacker/go-tree-sitter"
)

// pyDoc are the Python node types that belong to the definition below them
// ("#" comment lines; decorators are inside decorated_definition).
var pyDoc = map[string]bool{"comment": true}

// pySymbols returns the functions and classes of a Python module, recursing
// into class bodies: methods are "Class.method", nested classes
// "Outer.Inner". Functions nested in functions stay inside their parent.
func pySymbols(root *sitter.Node, src []byte) []symbol {
	var out []symbol
	pyWalk(root, src, "", &out)
	return out
}

func pyWalk(block *sitter.Node, src []byte, class string, out *[]symbol) {
	for _, outer := range namedChildren(block) {
		def := outer
		if outer.Type() == "decorated_definition" {
			def = outer.ChildByFieldName("definition")
		}
		if def == nil || def.Type() != "function_definition" && def.Type() != "class_definition" {
			continue
		}
		s := symbol{
			name:  class + fieldText(def, "name", src),
			kind:  "function",
			start: docStart(outer, pyDoc),
			end:   endLine(outer),
			sig:   pySig(def, src),
		}
		switch {
		case def.Type() == "class_definition":
			s.kind, s.container = "class", true
		case class != "":
			s.kind = "method"
		}
		*out = withMembers(*out, s, func(out []symbol) []symbol {
			if body := def.ChildByFieldName("body"); body != nil {
				pyWalk(body, src, s.name+".", &out)
			}
			return out
		})
	}
}

// pySig returns "def name(args) -> T" or "class Name(Base)": the text before
// the colon that opens the body, so a comment after the colon is left out.
func pySig(def *sitter.Node, src []byte) string {
	body := def.ChildByFieldName("body")
	to := def.EndByte()
	if body != nil {
		to = body.StartByte()
	}
	for i := int(def.ChildCount()) - 1; i >= 0; i-- {
		if c := def.Child(i); c.Type() == ":" && c.EndByte() <= to {
			to = c.StartByte()
			break
		}
	}
	return signature(src, def.StartByte(), to)
}
