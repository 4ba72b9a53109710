// Package train makes codesearch models (package
// github.com/ragbot/ragbot/retrieval/embed/codesearch, which only loads and
// runs them): it mines (doc comment, code) pairs from source trees with
// ragbot's own tree-sitter chunker (MineFile, MineDir; ingest/code), rewrites
// each doc sentence into questions (Rewrite), refuses the inputs reserved for
// evaluation (CheckRoot), and trains the encoder on the pairs (Fit).
//
// Fit minimises InfoNCE with in-batch negatives (van den Oord et al. 2018,
// "Representation Learning with Contrastive Predictive Coding",
// arXiv:1807.03748; the CodeSearchNet loss) with lazy Adam, single-threaded,
// reading texts through codesearch.Featurizer as the model does at embedding
// time, so the same pairs and seed give the same model bytes. MRR measures a
// model on held-out pairs as CodeSearchNet does.
package train
