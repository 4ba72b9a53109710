package scipcalls

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// A document is what decode reads of one scip.Document: its path and
// occurrences (the SCIP spec, github.com/sourcegraph/scip scip.proto).
type document struct {
	path        string // relative_path (field 1): "/" separators, from the project root
	occurrences []occurrence
}

// An occurrence is one scip.Occurrence: a symbol at a range of a document.
type occurrence struct {
	line   int    // range[0] (field 1): the 0-based start line
	char   int    // range[1]: the start character in the line, 0-based (UTF-16 code units for scip-typescript; Document.position_encoding)
	symbol string // field 2; "" when the indexer gave none
	roles  int32  // symbol_roles (field 3): a bit set, roleDefinition = 1
}

// roleDefinition is scip.SymbolRole.Definition.
const roleDefinition = 1

// decode reads the documents of a serialized scip.Index (Index.documents is
// field 2; every other field is skipped). It returns an error naming the
// byte offset when the data is not a valid protobuf message.
func decode(data []byte) ([]document, error) {
	var docs []document
	err := fields(data, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != 2 || typ != protowire.BytesType {
			return nil
		}
		d, err := decodeDocument(v)
		if err != nil {
			return fmt.Errorf("document %d: %w", len(docs), err)
		}
		docs = append(docs, d)
		return nil
	})
	return docs, err
}

func decodeDocument(data []byte) (document, error) {
	var d document
	err := fields(data, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType:
			d.path = string(v)
		case num == 2 && typ == protowire.BytesType:
			o, err := decodeOccurrence(v)
			if err != nil {
				return fmt.Errorf("%s: occurrence %d: %w", d.path, len(d.occurrences), err)
			}
			d.occurrences = append(d.occurrences, o)
		}
		return nil
	})
	return d, err
}

func decodeOccurrence(data []byte) (occurrence, error) {
	o := occurrence{line: -1, char: -1}
	err := fields(data, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == protowire.BytesType: // packed int32: startLine, startChar, [endLine,] endChar
			x, m := protowire.ConsumeVarint(v)
			if m < 0 {
				return protowire.ParseError(m)
			}
			y, k := protowire.ConsumeVarint(v[m:])
			if k < 0 {
				return protowire.ParseError(k)
			}
			o.line, o.char = int(int32(x)), int(int32(y))
		case num == 1 && typ == protowire.VarintType: // unpacked
			if o.line < 0 {
				o.line = int(int32(n))
			} else if o.char < 0 {
				o.char = int(int32(n))
			}
		case num == 2 && typ == protowire.BytesType:
			o.symbol = string(v)
		case num == 3 && typ == protowire.VarintType:
			o.roles = int32(n)
		}
		return nil
	})
	if err == nil && o.line < 0 {
		err = errors.New("no range")
	}
	return o, err
}

// fields calls f for each field of a message: its bytes for a
// length-delimited one, its value for a varint.
func fields(data []byte, f func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	for off := 0; off < len(data); {
		num, typ, m := protowire.ConsumeTag(data[off:])
		if m < 0 {
			return fmt.Errorf("offset %d: %w", off, protowire.ParseError(m))
		}
		off += m
		var (
			v []byte
			n uint64
		)
		switch typ {
		case protowire.BytesType:
			v, m = protowire.ConsumeBytes(data[off:])
		case protowire.VarintType:
			n, m = protowire.ConsumeVarint(data[off:])
		default:
			m = protowire.ConsumeFieldValue(num, typ, data[off:])
		}
		if m < 0 {
			return fmt.Errorf("offset %d: field %d: %w", off, num, protowire.ParseError(m))
		}
		off += m
		if err := f(num, typ, v, n); err != nil {
			return err
		}
	}
	return nil
}
