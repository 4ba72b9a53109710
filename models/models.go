// Package models holds the model files built into the ragbot binary: the
// code-search encoder of the "codesearch" embedder (codesearch-v1/model.bin,
// made by scripts/train-codesearch.sh; codesearch-v1/PROVENANCE.md says
// from what).
package models

import _ "embed"

// CodeSearchV1 is the content of codesearch-v1/model.bin, a codesearch
// model file (retrieval/embed/codesearch).
//
//go:embed codesearch-v1/model.bin
var CodeSearchV1 []byte
