package config

import (
	"fmt"
	"strings"
)

// Options that measured no gain were taken out of ragbot; their numbers
// and what they were are in docs/evaluation.md ("Tried and dropped"). Their
// keys still decode, into fields named Removed* (which "did you mean" never
// suggests, knownKeys), so that a config naming one gets an error saying
// what it was and what to use instead, not "unknown key". A key set to what
// ragbot now does anyway (an empty list, false) is accepted.

// lastWithRemoved is the last commit of ragbot that had them.
const lastWithRemoved = "b5f6b10"

// removedExpansion reports retrieval.expansion (query expansion: prf,
// glove, wordnet) when it lists any kind.
func (v *validator) removedExpansion() {
	kinds := v.c.Retrieval.RemovedExpansion
	if len(kinds) == 0 {
		return
	}
	quoted := make([]string, len(kinds))
	for i, k := range kinds {
		quoted[i] = fmt.Sprintf("%q", k)
	}
	v.bad("retrieval.expansion", "query expansion %s was removed from ragbot after commit %s: none of prf, glove and wordnet measured a gain (see docs/evaluation.md); "+
		"delete the key, or for questions worded unlike the code use retrieval.rewrite (the LLM query rewrite)",
		strings.Join(quoted, ", "), lastWithRemoved)
}

// removedAdapt reports adapt: true (refining the static or codesearch
// model on the indexed sources at `ragbot index`) of the embedder at path p.
func (v *validator) removedAdapt(p string, e Embedder) {
	if !e.RemovedAdapt {
		return
	}
	v.bad(p+".adapt", "refining the model on the indexed sources was removed from ragbot after commit %s: it measured no clear gain "+
		"(lower MRR in hybrid+rerank on the public set, lower paraphrase recall on raft; see docs/evaluation.md) and needed the training code in the product; "+
		"delete the key: ragbot uses the model as shipped, or the one embedder.model names", lastWithRemoved)
}

// removedKind reports kind "static" (word vectors trained on local text
// plus the hashing features) of the embedder at path p, and whether it did.
func (v *validator) removedKind(p string, e Embedder) bool {
	if e.Kind != "static" {
		return false
	}
	use := `use "offline" (the default, with the pretrained semantic vector of kind "` + DefaultSemanticKind + `") or "openai"`
	if p == "embedder.semantic" {
		use = `use "` + DefaultSemanticKind + `" (the default semantic vector), "codesearch" (built in, nothing to install) or "openai"`
	}
	v.bad(p+".kind", "%q was removed from ragbot after commit %s: it measured no gain over the default (see docs/evaluation.md); %s",
		e.Kind, lastWithRemoved, use)
	return true
}
