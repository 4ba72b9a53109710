package openapi

import (
	"bytes"
	"sort"

	"gopkg.in/yaml.v3"
)

// quoteVersions returns data with the top-level "swagger" and "info.version"
// quoted where they are plain YAML numbers, and whether it changed
// anything. Both are strings (Swagger 2.0 and OpenAPI 3.0, Swagger Object
// and Info Object), but "swagger: 2.0" or "version: 1.0" unquoted is a
// float in YAML, which kin-openapi refuses to decode into a string. Only
// quotes are inserted, so every line stays where it was.
func quoteVersions(data []byte) ([]byte, bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return nil, false
	}
	doc := root.Content[0]
	var offs []int
	for _, v := range []*yaml.Node{mapValue(doc, "swagger"), mapValue(mapValue(doc, "info"), "version")} {
		if v == nil || v.Kind != yaml.ScalarNode || v.Style != 0 || v.Tag == "!!str" {
			continue
		}
		off, ok := nodeOffset(data, v)
		if !ok || !bytes.HasPrefix(data[off:], []byte(v.Value)) {
			return nil, false
		}
		offs = append(offs, off, off+len(v.Value))
	}
	if len(offs) == 0 {
		return nil, false
	}
	sort.Sort(sort.Reverse(sort.IntSlice(offs))) // insert from the end
	out := append([]byte(nil), data...)
	for _, off := range offs {
		out = append(out[:off], append([]byte{'"'}, out[off:]...)...)
	}
	return out, true
}
