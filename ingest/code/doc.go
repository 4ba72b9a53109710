// Package code cuts source files into retrieval chunks, one per symbol.
//
// The indexer first asks SkipReason whether a file is worth indexing at all
// (binary, vendored, generated, minified or too large files are not). Chunk
// then parses the file with the tree-sitter grammar that Language picks from
// its extension (Go, Python, JavaScript, TypeScript, TSX, Java), walks the
// syntax tree for functions, methods, classes, interfaces, types and Go
// package-level vars and consts, and turns each into a retrieval.Chunk whose
// lines run from its doc comment or first decorator to its end. Symbols longer
// than Options.MaxLines become windows that all repeat the signature. Valid
// syntax that a grammar does not know yet is parsed again with a same-length
// patch (gapPatches). A function, method or class with a syntax error becomes
// overlapping line windows while the rest of its file keeps its symbols;
// files with no grammar, no symbols or no declaration that parses become line
// windows as a whole.
// Result.Fallback says which of the three happened, so that the caller can log
// it instead of dropping the file. The chunks carry only what the file gives
// (path, lines, symbol, content); the caller adds source, commit, URL, search
// text and hashes.
package code
