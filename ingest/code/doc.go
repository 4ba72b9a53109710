// Package code cuts source files into retrieval chunks, one per symbol.
//
// The indexer first asks SkipReason whether a file is worth indexing at all.
// Chunk then parses it with the tree-sitter grammar that Language picks
// (Go, Python, JavaScript, TypeScript, TSX, Java), patching grammar gaps
// (gapPatches), and turns each declaration into a retrieval.Chunk from its
// doc comment to its end; long symbols, symbols with syntax errors and files
// without a grammar or symbols become line windows, and Result.Fallback says
// which, so that the caller can log it instead of dropping the file. The
// caller adds source, commit, URL, search text and hashes.
package code
