// Package wordpiece turns text into the token ids a BERT-family sentence
// encoder (all-MiniLM-L6-v2, bge-small-en-v1.5, e5-small-v2) takes as input.
// It reads the model's Hugging Face tokenizer.json and reproduces the Hugging Face
// tokenizers pipeline for that file, id for id:
//
//	text -> special tokens ([CLS], [SEP], ...) matched verbatim in the raw text
//	     -> BertNormalizer (clean text, space out CJK ideographs, strip accents, lowercase)
//	     -> BertPreTokenizer (split on whitespace, every punctuation char its own word)
//	     -> WordPiece (greedy longest match first, "##" continuation pieces, [UNK])
//	     -> truncation to maxTokens, then [CLS] ... [SEP]
//
// The rules come from the Hugging Face tokenizers documentation
// (https://huggingface.co/docs/tokenizers/api/normalizers, .../pre-tokenizers,
// .../models) and from BERT's tokenizer as described in Devlin et al. 2019,
// "BERT: Pre-training of Deep Bidirectional Transformers for Language
// Understanding", arXiv:1810.04805, section 3 and appendix A.
//
// Unicode tables: Hugging Face tokenizers classifies characters with the Rust
// crate unicode_categories, whose tables are older than those of Go's unicode
// package (Unicode 15.0), and lowercases with Rust's newer ones. This package
// uses Go's tables corrected by the lists in hftables.go (punctuation, control
// characters, nonspacing marks, 55 lowercase mappings, one decomposition),
// found by comparing every code point with tokenizers 0.23.3;
// TestNormalizerEveryCodePoint keeps that comparison.
//
// Why not a library: github.com/sugarme/tokenizer v0.3.0, a Go port of Hugging
// Face tokenizers, loads these files but does not strip accents when
// strip_accents is null and lowercase is true, as these files set it: it turns
// "naïve café" into [UNK] [UNK] where the reference gives "naive cafe". It also
// pads every sequence to the file's padding length. This package is about 700
// lines and is checked against the reference on 1,661 texts, 1,400 of them
// chunks of this repository (TestMatchesReferenceTokenizer).
//
// The three models' tokenizer.json files have the same vocabulary, normalizer,
// pre-tokenizer, post-processor and special tokens (the SHA-256 of each of
// these sections is the same); they differ only in the truncation and padding
// settings, which this package ignores in favour of Encode's maxTokens. So one
// fixture, made with all-MiniLM-L6-v2's file, covers all three.
package wordpiece
