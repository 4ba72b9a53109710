package code

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/java"
	"github.com/smacker/go-tree-sitter/javascript"
	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/tsx"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// languages maps a lower-case file extension to a language name.
var languages = map[string]string{
	".go":   "go",
	".py":   "python",
	".pyi":  "python",
	".js":   "javascript",
	".jsx":  "javascript",
	".mjs":  "javascript",
	".cjs":  "javascript",
	".ts":   "typescript",
	".tsx":  "typescript",
	".mts":  "typescript",
	".cts":  "typescript",
	".java": "java",

	".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp",
	".cs": "csharp", ".rs": "rust", ".rb": "ruby", ".php": "php",
	".kt": "kotlin", ".kts": "kotlin", ".scala": "scala", ".swift": "swift",
	".lua": "lua", ".pl": "perl", ".r": "r", ".dart": "dart",
	".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell",
	".sh": "shell", ".bash": "shell", ".zsh": "shell",
	".sql": "sql", ".proto": "protobuf", ".graphql": "graphql",
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml",
	".xml": "xml", ".html": "html", ".css": "css", ".scss": "scss",
	".md": "markdown", ".tf": "terraform",
}

// fileNames maps well-known extension-less file names to a language name.
var fileNames = map[string]string{
	"Dockerfile":  "dockerfile",
	"Makefile":    "make",
	"GNUmakefile": "make",
	"Jenkinsfile": "groovy",
}

// Language returns the language name of a repo-relative path from its
// extension or well-known file name: "go", "python", "javascript",
// "typescript" (also for .tsx) and "java" have a grammar; names such as "c",
// "rust", "ruby", "shell" or "yaml" are returned for files chunked by lines.
// It returns "" when the language is unknown (e.g. ".txt").
func Language(p string) string {
	base := path.Base(p)
	if l, ok := fileNames[base]; ok {
		return l
	}
	return languages[strings.ToLower(path.Ext(base))]
}

// grammar returns the tree-sitter grammar for a path, or nil when there is
// none. TSX needs its own grammar because of the JSX syntax.
func grammar(p string) *sitter.Language {
	switch Language(p) {
	case "go":
		return golang.GetLanguage()
	case "python":
		return python.GetLanguage()
	case "javascript":
		return javascript.GetLanguage()
	case "typescript":
		if strings.EqualFold(path.Ext(p), ".tsx") {
			return tsx.GetLanguage()
		}
		return typescript.GetLanguage()
	case "java":
		return java.GetLanguage()
	}
	return nil
}
