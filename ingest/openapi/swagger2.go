package openapi

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"
)

// setSwagger2Origins gives the operations of a converted Swagger 2.0
// document the lines they had in data: openapi2's decoding keeps no origin
// (only openapi3.Loader's IncludeOrigin does), so without this every chunk
// of a Swagger 2.0 spec cited line 1. Lines run from the method key to the
// last line holding a value of the operation; for JSON that is before its
// closing braces, which yaml.v3 does not report. Data that does not parse
// leaves the document as it is.
func setSwagger2Origins(doc *openapi3.T, data []byte, file string) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return
	}
	paths := mapValue(root.Content[0], "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(paths.Content); i += 2 {
		item := doc.Paths.Value(paths.Content[i].Value)
		ops := paths.Content[i+1]
		if item == nil || ops.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(ops.Content); j += 2 {
			key := ops.Content[j]
			op := item.GetOperation(strings.ToUpper(key.Value))
			if op == nil || op.Origin != nil {
				continue
			}
			op.Origin = &openapi3.Origin{Key: &openapi3.Location{
				File: file, Line: key.Line, Column: key.Column, Name: key.Value,
				EndLine: lastLine(ops.Content[j+1]),
			}}
		}
	}
}

// mapValue returns the value of key in a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// lastLine is the greatest line of n and its descendants.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}
