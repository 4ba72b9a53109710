package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ragbot/ragbot/retrieval/wordvec"
	"github.com/ragbot/ragbot/retrieval/wordvec/corpus"
)

// Refinement of a Static model on a team's own text (`ragbot index` with
// embedder.adapt): the team's words get vectors and shared words move
// towards the team's usage, then the post-processing is fitted again.

// refineVersion changes whenever refinement changes in a way its
// parameters do not show (post-processing, tokens); a refined model of
// another version is made again (see RefineCurrent).
const refineVersion = "1"

// Sizes of the SIF common-component fit: up to commonSample blocks of at
// least commonMinTokens tokens, spread evenly over the text.
const (
	commonSample    = 20000
	commonMinTokens = 8
)

// refineParams are the parameters of a refinement: a few passes at a lower
// learning rate than the base training, so the team's words get vectors
// and shared words move towards the team's usage without forgetting the
// rest; words seen 3 times get a vector.
func refineParams(base wordvec.Params) wordvec.Params {
	p := base
	p.Epochs, p.Alpha, p.MinCount, p.MaxVocab, p.Seed = 3, 0.01, 3, 30000, base.Seed+1
	return p
}

// refineHeader is the header of a refined model file: the base model's
// hash, the fingerprint of the text, and the refinement's version and
// parameters as JSON.
func refineHeader(base wordvec.Params, baseHash, print string) map[string]string {
	pj, _ := json.Marshal(struct {
		Version string
		wordvec.Params
	}{refineVersion, refineParams(base)})
	return map[string]string{"base": baseHash, "sources": print, "refine": string(pj)}
}

// RefinedFrom reports whether the header meta of a refined model file
// (wordvec.LoadFile returns it) says it was refined from the base model of
// hex SHA-256 baseHash.
func RefinedFrom(meta map[string]string, baseHash string) bool {
	return meta["base"] == baseHash
}

// RefineCurrent reports whether a refined model file with header meta is
// what Refine would make now of base (hash baseHash) and text with
// fingerprint print: same base, same text, same refinement.
func RefineCurrent(meta map[string]string, base *wordvec.Model, baseHash, print string) bool {
	want := refineHeader(base.Params, baseHash, print)
	for k, v := range want {
		if meta[k] != v {
			return false
		}
	}
	return true
}

// Fit returns the quantized copy of m, the vectors its file holds, with
// the post-processing fitted on them: all-but-the-top (Postprocess) and
// the SIF common component of blocks (FitCommon). `ragbot embeddings
// train` and Refine both end with it.
func Fit(m *wordvec.Model, blocks []string) *wordvec.Model {
	q := m.Quantized()
	Postprocess(q)
	q.Common = NewStatic(q, "fit").FitCommon(blocks)
	return q
}

// Refined is the result of Refine.
type Refined struct {
	File   []byte        // the model file, wordvec.Model.Save with its context vectors
	Static *Static       // the embedder of File, named by its hash
	Stats  wordvec.Stats // of wordvec.Refine
}

// Refine refines base, the model of hex SHA-256 baseHash, on texts (in
// their order; print identifies them and goes into the file's header, see
// RefineCurrent): wordvec.Refine on their StaticTokens, block by block
// (corpus.Blocks), then Fit on a sample of their blocks. It is
// deterministic: the same base, texts and print give the same file. Errors
// are those of wordvec.Refine (no text, ctx done) and of Save.
func Refine(ctx context.Context, base *wordvec.Model, baseHash string, texts []string, print string) (Refined, error) {
	m, st, err := wordvec.Refine(ctx, base, corpus.TextSentences(texts, AppendStaticTokens), refineParams(base.Params), nil)
	if err != nil {
		return Refined{}, fmt.Errorf("static embedder: %w", err)
	}
	q := Fit(m, corpus.TextSample(texts, AppendStaticTokens, commonSample, commonMinTokens))
	var buf bytes.Buffer
	if err := q.Save(&buf, refineHeader(base.Params, baseHash, print), true); err != nil {
		return Refined{}, fmt.Errorf("static embedder: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	return Refined{File: buf.Bytes(), Static: NewStatic(q, hex.EncodeToString(sum[:])), Stats: st}, nil
}
