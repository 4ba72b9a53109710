// Package codesearch is a neural bag-of-words dual encoder for code search,
// after the NBoW baseline of Husain et al. 2019, "CodeSearchNet Challenge:
// Evaluating the State of Semantic Code Search" (arXiv:1909.09436): a text,
// question or code, is a bag of features (its lower-case identifier pieces
// and their hashed byte 3-grams, after fastText's subword features,
// Bojanowski et al. 2017); each feature has a learned vector and a learned
// scalar weight, and the text's vector is the softmax-weighted mean of its
// feature vectors, L2-normalised. Unlike the paper, questions and code share
// one table (retrieval.Embedder has a single Embed for both sides).
//
// This package is what inference needs: the model file (model.go: Load,
// Write, Quantize) and the features (features.go: Pieces, Featurizer).
// Training and the mining of (doc comment, code) pairs are a separate Go
// module, tools/codesearch, which the ragbot binary does not compile; it
// makes the embedded model, models/codesearch-v1/model.bin, through
// scripts/train-codesearch.sh.
package codesearch
