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
// Training (Train) minimises InfoNCE with in-batch negatives (van den Oord
// et al. 2018, "Representation Learning with Contrastive Predictive
// Coding", arXiv:1807.03748; the CodeSearchNet loss) over (doc comment, code)
// pairs that MineFile extracts with the repository's tree-sitter chunker
// (ingest/code), single-threaded, so the same pairs and seed give the same
// model bytes. The model file format is in model.go; the embedded model,
// models/codesearch-v1/model.bin, is made by scripts/train-codesearch.sh.
package codesearch
