package main

import "testing"

func TestDocComment(t *testing.T) {
	tests := []struct {
		name string
		s    Section
		want string
	}{
		{"go line comments, directive dropped", Section{Language: "go", Content: "// Open opens the file.\n// It fails when absent.\n//go:noinline\nfunc Open() {}"},
			"Open opens the file.\nIt fails when absent."},
		{"go without doc", Section{Language: "go", Content: "func Open() {}"}, ""},
		{"jsdoc block", Section{Language: "javascript", Content: "/**\n * Sends a message.\n *\n * @param {string} to\n */\nfunction send(to) {}"},
			"Sends a message.\n\n@param {string} to"},
		{"python docstring after decorators and a long header", Section{Language: "python",
			Content: "@property\ndef size(\n    self,\n) -> int:\n    \"\"\"Return the size\n    in bytes.\n    \"\"\"\n    return 1"},
			"Return the size\nin bytes."},
		{"python without docstring", Section{Language: "python", Content: "def f(x):\n    return x"}, ""},
		{"python single-quoted", Section{Language: "python", Content: "class A:\n    'A thing.'\n"}, "A thing."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := docComment(tt.s); got != tt.want {
				t.Errorf("docComment = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"Open opens the file. It fails when absent.", "Open opens the file."},
		{"Sends a message.\n\n@param {string} to", "Sends a message."},
		{"Parses options, e.g. the timeout. More.", "Parses options, e.g. the timeout."},
		{"Returns the [Config] as a [link](http://x) of `Value`s.", "Returns the Config as a link of Values."},
		{"Wraps {@link Client} in a :class:`Pool`.", "Wraps Client in a Pool."},
		{"Reads the\nwhole body", "Reads the whole body"},
		{"Deprecated: use Other.", ""},
		{"@param x the value", ""},
		{"Copyright 2020 The Authors.", ""},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.doc); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}
