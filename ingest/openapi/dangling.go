package openapi

import (
	"bytes"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// unresolvedKey replaces "$ref" in a Reference Object whose target is not in
// the document. The object then reads as a plain one carrying an extension
// (OpenAPI 3.0 "Specification Extensions": keys starting "x-" are kept), so
// kin-openapi loads it, and describe names the pointer it held.
const unresolvedKey = "x-unresolved-ref"

// markDangling renames the key of every $ref that does not resolve within
// data to unresolvedKey and returns the new bytes and the refs it renamed,
// in document order. Only the key changes, so line numbers (and thus chunk
// lines) stay as they were. A ref resolves when it is a local JSON pointer
// ("#/components/schemas/Order", RFC 6901, percent-decoded as a URI
// fragment) naming a node of the document; external refs are not followed
// by Load, so they count as unresolved too. ok is false when data does not
// parse as YAML or a key cannot be found at the position the parser gave.
func markDangling(data []byte) (out []byte, refs []string, ok bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return nil, nil, false
	}
	var keys []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "$ref" && v.Kind == yaml.ScalarNode && resolve(root.Content[0], v.Value) == nil {
					keys = append(keys, k)
					refs = append(refs, v.Value)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root.Content[0])
	if len(keys) == 0 {
		return data, nil, true
	}
	offs := make([]int, len(keys))
	for i, k := range keys {
		off, found := keyOffset(data, k)
		if !found {
			return nil, nil, false
		}
		offs[i] = off
	}
	// Edit from the end so earlier offsets stay valid (several refs can
	// share a line in minified JSON).
	sort.Sort(sort.Reverse(sort.IntSlice(offs)))
	out = append([]byte(nil), data...)
	for _, off := range offs {
		out = append(out[:off], append([]byte(unresolvedKey), out[off+len("$ref"):]...)...)
	}
	return out, refs, true
}

// keyOffset returns the byte offset of the "$ref" text of key k.
func keyOffset(data []byte, k *yaml.Node) (int, bool) {
	off, ok := nodeOffset(data, k)
	if ok && (data[off] == '"' || data[off] == '\'') {
		off++
	}
	return off, ok && bytes.HasPrefix(data[off:], []byte("$ref"))
}

// nodeOffset returns the byte offset of node n in data. yaml.v3 gives
// 1-based lines and columns counted in characters, pointing at the opening
// quote of a quoted scalar.
func nodeOffset(data []byte, n *yaml.Node) (int, bool) {
	off := 0
	for line := 1; line < n.Line; line++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for col := 1; col < n.Column && off < len(data); col++ {
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, off < len(data)
}

// resolve returns the node a local $ref points at, or nil.
func resolve(doc *yaml.Node, ref string) *yaml.Node {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	if frag == "" {
		return doc
	}
	if frag[0] != '/' {
		return nil
	}
	n := doc
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			next = mapValue(n, tok)
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) {
				next = n.Content[i]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// unresolved returns the $ref a marked object held (see markDangling), or "".
func unresolved(ext map[string]any) string {
	ref, _ := ext[unresolvedKey].(string)
	return ref
}
