// Package transformer runs pretrained sentence-embedding models in process
// with ONNX Runtime: all-MiniLM-L6-v2 (Sentence-BERT, Reimers & Gurevych
// 2019, arXiv:1908.10084), bge-small-en-v1.5 (C-Pack, Xiao et al. 2023,
// arXiv:2309.07597) and e5-small-v2 (Wang et al. 2022, arXiv:2212.03533),
// each a 6- or 12-layer BERT giving 384-float vectors.
//
// The flow of Embed: each text, with the model's passage or query prefix, is
// tokenized (package wordpiece, the model's own tokenizer.json) and cut to
// MaxTokens tokens (the head of a longer text: docs/evaluation.md measured
// the mean of its windows and did not keep it);
// the token rows are sorted by length and run in batches padded to the
// batch's longest row, on a pool of ONNX Runtime sessions; the last hidden
// states are pooled (mean of the real tokens, or the [CLS] token, as the
// model card says) and scaled to unit length.
//
// The models and the runtime library are files, not Go code: scripts/
// install-model.sh fetches them, pinned by SHA-256, into Options.ModelDir;
// PROVENANCE.md says where each comes from and under which licence. New
// returns an error matching ErrNotInstalled, naming that command, when they
// are missing.
package transformer
