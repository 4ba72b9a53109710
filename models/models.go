// Package models holds the model files built into the ragbot binary: the
// static word vectors of the "static" embedder (static-v1/model.bin, made
// by `ragbot embeddings train`; static-v1/PROVENANCE.md says from what) and
// the code-search encoder of the "codesearch" embedder
// (codesearch-v1/model.bin, made by scripts/train-codesearch.sh;
// codesearch-v1/PROVENANCE.md).
package models

import _ "embed"

// StaticV1 is the content of static-v1/model.bin, a wordvec model file.
//
//go:embed static-v1/model.bin
var StaticV1 []byte

// CodeSearchV1 is the content of codesearch-v1/model.bin, a codesearch
// model file (retrieval/embed/codesearch).
//
//go:embed codesearch-v1/model.bin
var CodeSearchV1 []byte
