package code

import (
	"bytes"
	"context"
	"regexp"

	sitter "github.com/smacker/go-tree-sitter"
)

// A gapPatch works around valid syntax that a grammar does not know yet: it
// returns a copy of src in which the bytes that the parser rejected under
// root are replaced by bytes of the same length that it accepts, or nil when
// it finds nothing to replace. Offsets, and so lines, stay the same: the
// patched copy is only parsed, and every name, signature and line is read
// from the original.
type gapPatch func(root *sitter.Node, src []byte) []byte

// gapPatches are the grammar gaps worked around per language, each until a
// released grammar parses the syntax itself.
var gapPatches = map[string]gapPatch{
	"go":         chain(patchGoNewMake, patchGoGenericAlias),
	"javascript": patchJSXAmpersand,
	"typescript": patchJSXAmpersand,
}

// maxGapRounds bounds how often a file with errors is patched and parsed
// again: a patch can uncover a further gap behind the one it fixed.
const maxGapRounds = 3

// patchGaps parses src again with the grammar gaps that patch finds under
// the errors of tree replaced, until the tree has no error, patch finds
// nothing more, or maxGapRounds. It returns the last tree and the source it
// parsed: tree and src when nothing was patched. A tree it replaces is
// closed.
func patchGaps(p *sitter.Parser, tree *sitter.Tree, patch gapPatch, src []byte) (*sitter.Tree, []byte) {
	if patch == nil {
		return tree, src
	}
	for range maxGapRounds {
		if !tree.RootNode().HasError() {
			break
		}
		fixed := patch(tree.RootNode(), src)
		if fixed == nil {
			break
		}
		next, err := p.ParseCtx(context.Background(), nil, fixed)
		if err != nil {
			break
		}
		tree.Close()
		tree, src = next, fixed
	}
	return tree, src
}

// patchGoNewMake renames a "new" or "make" whose call did not parse to "New"
// or "Make". Since Go 1.26 the operand of new may be an expression, as in
// new("x") or new(!expired) (https://go.dev/doc/go1.26#language), and a
// function may shadow either builtin, as in make(n-1); but tree-sitter-go, in
// the grammar bundled here as in v0.25.0, the newest release the Go module
// proxy serves, only takes a type as their first argument
// (special_argument_list in its grammar.js; see the open pull requests "Add
// support for expressions provided directly to builtin new",
// https://github.com/tree-sitter/tree-sitter-go/pull/193, and "Fixed call
// parsing for shadowed make/new",
// https://github.com/tree-sitter/tree-sitter-go/pull/190). As an ordinary
// function the call takes any expression. A call that parsed, as in new(T) or
// make([]int, n), is left alone.
func patchGoNewMake(root *sitter.Node, src []byte) []byte {
	var out []byte
	inErrors(root, func(n *sitter.Node) {
		p := n.Parent()
		if name := n.Content(src); n.ChildCount() != 0 || p == nil || name != "new" && name != "make" {
			return
		}
		if rest := bytes.TrimLeft(src[n.EndByte():], " \t"); len(rest) == 0 || rest[0] != '(' {
			return
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		out[n.StartByte()] -= 'a' - 'A'
	})
	return out
}

// patchGoGenericAlias blanks the "=" of a generic type alias, as in
// type Set[K comparable] = map[K]struct{}, which Go has since 1.24
// (https://go.dev/doc/go1.24#language). The grammar bundled here has no type
// parameters on type_alias, which tree-sitter-go v0.25.0 has (type_alias in its
// grammar.js); without "=" the spec is a generic type definition, a symbol of
// the same kind.
func patchGoGenericAlias(root *sitter.Node, src []byte) []byte {
	var out []byte
	inErrors(root, func(n *sitter.Node) {
		p := n.Parent()
		if !n.IsError() || p == nil || p.Type() != "type_spec" || n.Content(src) != "=" {
			return
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		out[n.StartByte()] = ' '
	})
	return out
}

// chain returns a gapPatch that applies each of ps in turn to the output of
// the one before.
func chain(ps ...gapPatch) gapPatch {
	return func(root *sitter.Node, src []byte) []byte {
		var out []byte
		for _, p := range ps {
			if b := p(root, src); b != nil {
				out, src = b, b
			}
		}
		return out
	}
}

// charRef is a JSX character reference, as html_character_reference in
// tree-sitter-javascript's grammar.js.
var charRef = regexp.MustCompile(`^&(#([xX][0-9a-fA-F]{1,6}|[0-9]{1,5})|[A-Za-z]{1,30});`)

// patchJSXAmpersand replaces a bare "&" in JSX text, as in <p>Runtime &
// Build</p>, by "+". JSX text may hold any character but "{", "<", ">" and
// "}" (JSXTextCharacter, https://facebook.github.io/jsx/), but the JSX text
// scanner of tree-sitter-javascript, which the TSX grammar of
// tree-sitter-typescript shares, stops at every "&" and only accepts a
// complete character reference such as "&amp;" after it: "Bug: Ampersand
// breaks jsx_text", https://github.com/tree-sitter/tree-sitter-javascript/issues/366,
// open and still so in tree-sitter-javascript v0.25.0 and
// tree-sitter-typescript v0.23.1, the newest releases the Go module proxy
// serves. Such an "&" follows JSX text or an opening tag, or is where an
// error starts among an element's children.
func patchJSXAmpersand(root *sitter.Node, src []byte) []byte {
	var out []byte
	inErrors(root, func(n *sitter.Node) {
		var at int
		switch p := n.Parent(); {
		case n.Type() == "jsx_text" || n.Type() == "jsx_opening_element":
			at = int(n.EndByte())
			for at < len(src) && (src[at] == ' ' || src[at] == '\t' || src[at] == '\n' || src[at] == '\r') {
				at++
			}
		case n.IsError() && p != nil && p.Type() == "jsx_element":
			at = int(n.StartByte())
		default:
			return
		}
		if at >= len(src) || src[at] != '&' || charRef.Match(src[at:]) || bytes.HasPrefix(src[at:], []byte("&&")) {
			return
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		out[at] = '+'
	})
	return out
}

// inErrors calls f on every child of n, and below, whose parent has an
// error (an ERROR or MISSING node in its subtree), parents first.
func inErrors(n *sitter.Node, f func(*sitter.Node)) {
	if !n.HasError() {
		return
	}
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		f(c)
		inErrors(c, f)
	}
}
