package config

import (
	"cmp"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/ragbot/ragbot/internal/suggest"
)

// yamlEntry is one key of the document with its YAML path.
type yamlEntry struct {
	line  int    // 1-based line of the key
	path  string // "sources[1].kind"
	key   string // "kind"
	value string // the scalar value, "" for maps and lists
}

// yamlEntries lists every mapping key of data with its path, so that decode
// errors, which yaml.v3 reports by line and Go type, can name the field.
func yamlEntries(data []byte) []yamlEntry {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return nil
	}
	var out []yamlEntry
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				val := ""
				if v.Kind == yaml.ScalarNode {
					val = v.Value
				}
				out = append(out, yamlEntry{line: k.Line, path: p, key: k.Value, value: val})
				walk(v, p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				p := path + "[" + strconv.Itoa(i) + "]"
				if c.Kind == yaml.ScalarNode {
					out = append(out, yamlEntry{line: c.Line, path: p, value: c.Value})
				}
				walk(c, p)
			}
		}
	}
	walk(&root, "")
	return out
}

var (
	unknownFieldRe = regexp.MustCompile("^line (\\d+): field (\\S+) not found in type (\\S+)$")
	typeErrRe      = regexp.MustCompile("^line (\\d+): cannot unmarshal !!\\w+ `(.*)` into (\\S+)$")
)

// decodeProblem is one problem yaml.v3 reported while decoding.
type decodeProblem struct {
	err error
	// paths are the fields the problem is about, for withoutRepeats: the
	// field itself, and for an unknown key the key it was taken for
	// ("sources[0].path" for "sources[0].pth"). Empty when yaml.v3's line
	// could not be matched to a field.
	paths []string
}

// decodeProblems turns a yaml.v3 type error into one problem per line that
// starts with the field's YAML path, e.g. `weaviate.urll (line 3): unknown
// key; did you mean url?` or `weaviate.timeout (line 9): want a duration
// such as 60s or 24h, got "60"`. yaml.v3 itself names lines and Go types,
// not fields.
func decodeProblems(te *yaml.TypeError, data []byte) []decodeProblem {
	entries := yamlEntries(data)
	find := func(line int, match func(yamlEntry) bool) string {
		for _, e := range entries {
			if e.line == line && match(e) {
				return e.path
			}
		}
		return ""
	}
	out := make([]decodeProblem, len(te.Errors))
	for i, msg := range te.Errors {
		out[i].err = fmt.Errorf("parse YAML: %s", msg)
		if m := unknownFieldRe.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			if p := find(line, func(e yamlEntry) bool { return e.key == m[2] }); p != "" {
				out[i].paths = []string{p}
				if near, ok := suggest.Closest(m[2], knownKeys()[m[3]]); ok {
					out[i].err = fmt.Errorf("%s (line %d): unknown key; did you mean %s?", p, line, near)
					out[i].paths = append(out[i].paths, strings.TrimSuffix(p, m[2])+near)
				} else {
					out[i].err = fmt.Errorf("%s (line %d): unknown key", p, line)
				}
			}
		} else if m := typeErrRe.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			if p := find(line, func(e yamlEntry) bool { return e.value == m[2] }); p != "" {
				want := "a value of type " + m[3]
				switch {
				case m[3] == "time.Duration":
					want = "a duration such as 60s, 10m or 24h"
				case strings.HasPrefix(m[3], "int") || strings.HasPrefix(m[3], "uint"):
					want = "a whole number"
				case strings.HasPrefix(m[3], "float"):
					want = "a number"
				case m[3] == "bool":
					want = "true or false"
				case strings.HasPrefix(m[3], "[]"):
					want = "a list"
				}
				out[i].err = fmt.Errorf("%s (line %d): want %s, got %q", p, line, want, m[2])
				out[i].paths = []string{p}
			}
		}
	}
	return out
}

// withoutRepeats returns the lines of the validation error err (joined by
// Validate) but those about a field a decode problem already names: a value
// of the wrong type is left unset, and a mistyped key leaves the key it was
// meant for unset, so validation would report the same mistake again as
// "must not be empty".
func withoutRepeats(err error, problems []decodeProblem) []error {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []error
	for _, e := range errs {
		msg := e.Error()
		repeat := false
		for _, p := range problems {
			for _, path := range p.paths {
				if strings.HasPrefix(msg, path+": ") || strings.HasPrefix(msg, path+" (from ") {
					repeat = true
				}
			}
		}
		if !repeat {
			out = append(out, e)
		}
	}
	return out
}

// knownKeys maps each Go type of the config tree, named as yaml.v3's
// "field x not found in type config.Weaviate" names it (reflect's
// Type.String), to the YAML keys it accepts, the fields of ",inline"
// structs included: the candidates for an unknown key's "did you mean".
// The keys of removed options (fields named Removed*, removed.go) are left
// out: nobody should be pointed to them.
var knownKeys = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	var visit func(t reflect.Type)
	var fields func(t reflect.Type) []string
	fields = func(t reflect.Type) []string {
		var keys []string
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || strings.HasPrefix(f.Name, "Removed") {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" {
				continue
			}
			if strings.Contains(opts, "inline") {
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					keys = append(keys, fields(ft)...)
				}
				visit(f.Type)
				continue
			}
			name = cmp.Or(name, strings.ToLower(f.Name)) // yaml.v3's default key
			keys = append(keys, name)
			visit(f.Type)
		}
		return keys
	}
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		if _, seen := out[t.String()]; seen {
			return
		}
		out[t.String()] = nil // before the fields, against cycles
		out[t.String()] = fields(t)
	}
	visit(reflect.TypeOf(Config{}))
	return out
})
