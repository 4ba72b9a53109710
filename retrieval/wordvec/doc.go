// Package wordvec trains static word vectors with word2vec's skip-gram with
// negative sampling (SGNS; Mikolov, Sutskever, Chen, Corrado & Dean 2013,
// "Distributed Representations of Words and Phrases and their
// Compositionality", NIPS), and stores them compactly (int8 rows with a
// float32 scale each).
//
// The flow: Train counts the tokens of a corpus (a Sentences function that
// yields the same token lists on every call), keeps the MinCount-frequent
// ones as the vocabulary, encodes the corpus once, and runs Epochs passes of
// SGNS over it on one goroutine, so the same corpus, Params and Seed give the
// same vectors bit for bit. Refine continues the training of a Model on
// another corpus (a team's own sources), adding its new words. Save and
// Load write and read the model file; the retrieval package turns word
// vectors into sentence vectors.
//
// The package knows nothing of tokenization: callers pass tokens (ragbot's
// are code-aware word pieces, see embed.StaticTokens).
package wordvec
