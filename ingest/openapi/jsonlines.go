package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// parseJSON loads an OpenAPI 3 document written as JSON without the YAML
// parser: kin-openapi's loader reads every document as YAML first, JSON
// included, and keeps the node tree for its origins, which took 150 MB and
// more of heap for the 13 MB GitHub spec (docs/evaluation.md, "Lean
// indexing"). The document is decoded with openapi3.T's UnmarshalJSON, its
// $refs resolved by the loader (Loader.ResolveRefsIn), and its operations'
// lines read by one pass of encoding/json's tokenizer (setJSONOrigins). ok
// is false when data is not a JSON object that decodes: the caller then
// loads it the usual way, with its errors.
func parseJSON(name string, data []byte) (doc *openapi3.T, ok bool, err error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, false, nil
	}
	doc = &openapi3.T{}
	if json.Unmarshal(data, doc) != nil {
		return nil, false, nil
	}
	loader := openapi3.NewLoader()
	if err := loader.ResolveRefsIn(doc, &url.URL{Path: name}); err != nil {
		return nil, true, err
	}
	setJSONOrigins(doc, data, name)
	return doc, true, nil
}

// setJSONOrigins gives each operation of doc that has no origin the lines
// of its method key and of the last value inside it in data, a JSON
// document, as setSwagger2Origins counts them: the loader's origins may
// take in the closing braces after that value as well, their end being
// derived from indentation. It reads data token by token and holds no
// tree.
func setJSONOrigins(doc *openapi3.T, data []byte, file string) {
	if doc.Paths == nil {
		return
	}
	lc := lineCounter{data: data, line: 1}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return
		}
		if key != "paths" {
			if skipValue(dec) != nil {
				return
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return
		}
		for dec.More() {
			p, err := dec.Token()
			if err != nil {
				return
			}
			ps, _ := p.(string)
			item := doc.Paths.Value(ps)
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return
			}
			for dec.More() {
				m, err := dec.Token()
				if err != nil {
					return
				}
				ms, _ := m.(string)
				keyLine := lc.at(dec.InputOffset() - 1)
				var op *openapi3.Operation
				if item != nil {
					op = item.GetOperation(strings.ToUpper(ms))
				}
				last, err := lastValueOffset(dec)
				if err != nil {
					return
				}
				if op == nil || op.Origin != nil {
					continue
				}
				op.Origin = &openapi3.Origin{Key: &openapi3.Location{
					File: file, Line: keyLine, Name: ms, EndLine: max(keyLine, lc.at(last)),
				}}
			}
			if _, err := dec.Token(); err != nil { // the path item's '}'
				return
			}
		}
		return
	}
}

// skipValue reads one whole value.
func skipValue(dec *json.Decoder) error {
	_, err := lastValueOffset(dec)
	return err
}

// lastValueOffset reads one whole value and returns the offset of the last
// token in it that starts a YAML node (a key, a scalar, an opening '{' or
// '['), so that its line is that of the node yaml.v3 reports last.
func lastValueOffset(dec *json.Decoder) (int64, error) {
	depth := 0
	var last int64
	for {
		t, err := dec.Token()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			last = dec.InputOffset() - 1
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		default:
			last = dec.InputOffset() - 1
		}
		if depth == 0 {
			return last, nil
		}
	}
}

// lineCounter turns byte offsets, asked in increasing order, into 1-based
// line numbers, counting each newline once.
type lineCounter struct {
	data []byte
	pos  int64 // offsets before pos are counted
	line int   // line of pos
}

func (c *lineCounter) at(off int64) int {
	off = min(off, int64(len(c.data)))
	if off > c.pos {
		c.line += bytes.Count(c.data[c.pos:off], []byte{'\n'})
		c.pos = off
	}
	return c.line
}
