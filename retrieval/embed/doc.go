// Package embed holds the embedders that need no network: Offline, the
// code-aware hashing embedder of word pieces and character trigrams (the
// default), and CodeSearch, the neural bag-of-words encoder of package
// codesearch (the default semantic vector). Both implement
// retrieval.Embedder; retrieval/embedtest checks them.
package embed
