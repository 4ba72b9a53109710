package code

import (
	"regexp"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// refLiterals are the string literal node types of the grammars in
// grammar(): Go's two, Python's and JavaScript/TypeScript's "string" and
// "template_string", Java's "string_literal".
var refLiterals = map[string]bool{
	"interpreted_string_literal": true, "raw_string_literal": true,
	"string": true, "template_string": true, "string_literal": true,
}

// refKey is a string literal kept as a reference: an environment variable
// or configuration key such as "RAGBOT_TOKEN" or "server.port", read by
// os.Getenv("X"), os.environ["X"] or viper.GetString("x"), 2 to 80
// characters with no space.
var refKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]{1,79}$`)

// refsByLine returns, per 1-based line, the names the code on that line
// uses: every identifier node of the tree (the grammars name them
// "identifier", "field_identifier", "property_identifier",
// "type_identifier", "shorthand_property_identifier", ...: a called
// function, a selector's field, a variable, a type) and every string
// literal that looks like a key (refKey); one-character names are left
// out. Comments are not identifiers, so
// a name only mentioned in a comment is no reference.
func refsByLine(root *sitter.Node, src []byte) map[int][]string {
	out := map[int][]string{}
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		t := n.Type()
		switch {
		case refLiterals[t]:
			if s := strings.Trim(n.Content(src), "\"'`"); refKey.MatchString(s) {
				out[startLine(n)] = append(out[startLine(n)], s)
			}
			return
		case strings.HasSuffix(t, "identifier") && n.ChildCount() == 0:
			if name := n.Content(src); len(name) > 1 { // not "_", "i", "s": no one asks who uses them
				out[startLine(n)] = append(out[startLine(n)], name)
			}
			return
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(root)
	return out
}

// refsIn returns the distinct names of lines from..to in byLine, sorted.
func refsIn(byLine map[int][]string, from, to int) []string {
	var out []string
	for l := from; l <= to; l++ {
		out = append(out, byLine[l]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
