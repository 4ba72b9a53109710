// Package embed holds the embedders that need no network: Offline, the
// code-aware hashing embedder of word pieces and character trigrams (the
// default), and Static, which appends word vectors trained by
// retrieval/wordvec to the hashing vector. Both implement
// retrieval.Embedder; retrieval/embedtest checks them.
package embed
